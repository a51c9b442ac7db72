"""The permission engine: modes and the decision for one call.

Rules (:mod:`._rules`): a tool name, optionally with a pattern in parentheses
matched against the call's main argument: ``read_file``, ``run_cmd(git status)``,
``write_file(src/*)``, ``mcp__github__*``. ``*`` matches any text (``/``
included) and ``?`` one character, in the tool name and in the pattern. A
pattern with no wildcard also covers ``<pattern> <more args>``, so
``run_cmd(git status)`` allows ``git status --short``.

For shell tools an allow rule stops at shell operators it does not contain
itself (``;``, ``&``, ``&&``, ``||``, ``|``, backticks, ``$(``, ``${``, ``>``,
``<``, newlines): ``run_cmd(git status)`` does not allow
``git status && rm -rf ~``, which asks instead. A deny rule is checked against
the whole command and against each part between operators, so ``run_cmd(rm *)``
denies ``ls; rm -rf x``.

Rules live in ``.permissions.json`` (project) and
``$HARNESS_HOME/permissions.json`` (the user's), both ``{"allow": [...],
"deny": [...]}``. A rule with an empty pattern (``run_cmd()``) or a file that
does not parse is refused at load and reported in :attr:`RuleSet.problems`
(``/perms`` names them); the other rules still load.

Decision order: a deny rule → ``deny``; plan mode and a mutating tool → ``off``;
a read-only tool → ``allow``; auto mode → ``allow``; an allow rule → ``allow``;
deny mode → ``deny``; otherwise ``ask``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from harness.actors.tools._rules import (
    SHELL_OPERATORS,
    PermissionFileError,
    Rule,
    RuleError,
    RuleProblem,
    RuleSet,
    append_rule,
    deny_matches,
    drop_rule,
    load_rules,
    parse_rule,
    user_rules_path,
)
from harness.actors.tools._table import ToolSpec, ToolTable, UnknownToolError
from harness.messages.tools import PERMISSION_MODES, PermissionMode

__all__ = [
    "SHELL_OPERATORS",
    "Decision",
    "PermissionFileError",
    "Permissions",
    "Rule",
    "RuleError",
    "RuleProblem",
    "RuleSet",
    "load_rules",
    "parse_rule",
    "user_rules_path",
]

Action = Literal["allow", "deny", "ask", "off"]


@attrs.frozen
class Decision:
    """What to do with one call.

    ``action``: ``allow`` (run), ``deny`` (never run, never ask), ``ask`` (ask
    the user), ``off`` (the tool is switched off in this mode). ``reason`` is one
    sentence for the user; ``rule`` the rule that decided, if one did.
    """

    action: Action
    reason: str
    rule: str | None = None


class Permissions:
    """Rules from the project and user files, the current mode, and decisions.

    Args:
        table: the tool table (kinds and main arguments come from it).
        workspace: the project folder; its ``.permissions.json`` is read.
        home: ``HARNESS_HOME``; default from the environment.
        mode: ``ask`` (default), ``auto``, ``plan`` or ``deny``.
        extra: rules given in code (``{"allow": [...], "deny": [...]}``), applied
            after the files (the Python API and tests use it).
    """

    def __init__(
        self,
        table: ToolTable,
        *,
        workspace: str | os.PathLike[str] | None = None,
        home: str | os.PathLike[str] | None = None,
        mode: str = "ask",
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self.table = table
        self.workspace = Path(workspace) if workspace is not None else None
        self.user_path = user_rules_path(home)
        self.extra = dict(extra) if extra else {}
        self.mode: PermissionMode = "ask"
        self.set_mode(mode)
        self.rules = RuleSet()
        self.reload()

    @property
    def project_path(self) -> Path | None:
        """The project's ``.permissions.json`` (``None`` without a workspace)."""
        return None if self.workspace is None else self.workspace / ".permissions.json"

    @property
    def problems(self) -> tuple[RuleProblem, ...]:
        """Rules and files refused at the last load."""
        return self.rules.problems

    def set_mode(self, mode: str) -> None:
        """Switch to *mode*; raises ``ValueError`` for an unknown one."""
        if mode not in PERMISSION_MODES:
            raise ValueError(
                f"unknown permission mode {mode!r}; use one of {', '.join(PERMISSION_MODES)}"
            )
        self.mode = mode  # type: ignore[assignment]

    def reload(self) -> RuleSet:
        """Read the rule files again (``/perms reload``)."""
        paths: list[Path] = []
        if self.project_path is not None:
            paths.append(self.project_path)
        paths.append(self.user_path)
        rules = load_rules(paths)
        if self.extra:
            rules = rules.merged(RuleSet.from_mapping(self.extra, "<session>"))
        self.rules = rules
        return rules

    def add(self, kind: Literal["allow", "deny"], text: str, *, persist: bool = True) -> Rule:
        """Add a rule (``/perms allow R``, an ``[a]lways`` answer).

        With *persist* it is appended to the user's file, keeping what is there;
        a rule with an empty pattern raises :class:`RuleError`, an unreadable file
        :class:`PermissionFileError` (nothing is changed then).
        """
        rule = parse_rule(text)
        if persist:
            append_rule(self.user_path, kind, rule)
        entry = (rule, str(self.user_path) if persist else "<session>")
        if kind == "allow":
            self.rules = attrs.evolve(self.rules, allow=(*self.rules.allow, entry))
        else:
            self.rules = attrs.evolve(self.rules, deny=(*self.rules.deny, entry))
        return rule

    def remove(self, text: str, *, persist: bool = True) -> bool:
        """Drop a rule from allow and deny (``/perms remove R``); ``False`` if it was absent.

        With *persist* it is also taken out of the user's file. A rule that comes
        from the project's ``.permissions.json`` stays there (that file belongs to
        the project) and is back on the next reload.
        """
        rule = parse_rule(text)
        if persist:
            drop_rule(self.user_path, rule)
        allow = tuple(e for e in self.rules.allow if e[0] != rule)
        deny = tuple(e for e in self.rules.deny if e[0] != rule)
        found = len(allow) != len(self.rules.allow) or len(deny) != len(self.rules.deny)
        self.rules = attrs.evolve(self.rules, allow=allow, deny=deny)
        return found

    def always_rule(self, name: str, arguments: Mapping[str, Any]) -> str:
        """The rule an ``[a]lways`` answer adds for this call.

        The exact main argument, which (having no wildcard) also covers the same
        command with more arguments: ``run_cmd(git status)``, ``write_file(src/a.py)``.
        A call without a main argument gives the bare tool name.
        """
        spec = self._spec(name)
        value = spec.main_value(arguments) if spec else None
        if not value or not value.strip():
            return name
        return f"{name}({value.strip()})"

    def _spec(self, name: str) -> ToolSpec | None:
        try:
            return self.table.get(name)
        except UnknownToolError:
            return None

    def decide(self, name: str, arguments: Mapping[str, Any] | None = None) -> Decision:
        """Decide a call of *name* with *arguments* (see the module docstring)."""
        arguments = arguments or {}
        spec = self._spec(name)
        value = spec.main_value(arguments) if spec else None
        shell = spec is not None and spec.kind == "shell"
        for rule, source in self.rules.deny:
            if deny_matches(rule, name, value, shell):
                return Decision("deny", f"denied by rule {rule} ({source})", str(rule))
        if spec is None:
            kind = "mutating" if name.startswith("mcp__") else None
            if kind is None:
                return Decision("deny", f"unknown tool {name!r}")
        else:
            kind = spec.kind
        if self.mode == "plan" and kind == "mutating":
            return Decision("off", f"{name} is switched off in plan mode; submit a plan instead")
        mcp = name.startswith("mcp__") or (spec is not None and spec.executor == "mcp")
        if kind == "read" and not mcp:
            return Decision("allow", "read-only tool")
        if self.mode == "auto":
            return Decision("allow", "auto mode")
        for rule, source in self.rules.allow:
            if rule.matches(name, value, shell=shell):
                return Decision("allow", f"allowed by rule {rule} ({source})", str(rule))
        if self.mode == "deny":
            return Decision("deny", f"{name} needs approval and the permission mode is deny")
        return Decision("ask", f"{name} needs approval")

    def describe(self) -> str:
        """The rules, the mode and any refused rule, as ``/perms`` prints them."""
        lines = [f"mode: {self.mode}"]
        for label, entries in (("allow", self.rules.allow), ("deny", self.rules.deny)):
            lines.append(f"{label}:")
            lines.extend(f"  {rule}    ({source})" for rule, source in entries)
            if not entries:
                lines.append("  (none)")
        if self.rules.problems:
            lines.append("refused:")
            lines.extend(f"  {p}" for p in self.rules.problems)
        return "\n".join(lines)
