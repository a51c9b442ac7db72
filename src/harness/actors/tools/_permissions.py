"""The permission engine: modes and the decision for one call.

Rules (:mod:`._rules`): a tool name, optionally with a pattern in parentheses
matched against the call's main argument: ``read_file``, ``run_cmd(git status)``,
``write_file(src/*)``, ``mcp__github__*``. ``*`` matches any text (``/``
included) and ``?`` one character, in the tool name and in the pattern. A
pattern with no wildcard also covers ``<pattern> <more args>``, so
``run_cmd(git status)`` allows ``git status --short``. A file tool's path is matched by
the places in the workspace it names (:func:`~._jail.places`: ``./a.py``, ``b/../a.py``,
the absolute path, a symlink's target), and so is a rule's pattern: a deny rule for any
of them denies, and allow rules must cover each.

For shell tools an allow rule covers a command only when the parsed command has
the rule's shape (the same simple commands, operators and redirections; the
wildcard reaches only the last command's arguments): ``run_cmd(git status)``
does not allow ``git status && rm -rf ~``, which asks instead. A deny rule is
checked against every simple command anywhere in the parsed command, so
``run_cmd(rm *)`` denies ``ls; rm -rf x``, ``(rm x)`` and ``bash -c 'rm x'``. A
command whose every part the grammar cannot see (``eval $x``, ``xargs``, a
script piped into ``sh``) asks when there are deny rules for it, even in auto
mode. A command run in a ``cwd`` other than the workspace root is matched as
``cd DIR && command``.

Files that configure harness (``.permissions.json``, ``.mcp.json``,
``AGENTS.md``, ``CLAUDE.md``, ``skills/``: :func:`~._jail.is_config`) always ask
before a tool or a command (one that names them and does not just read) changes
them, in every mode but ``deny`` (where they are refused); no allow rule covers
them and ``[a]lways`` saves no rule for them. A command naming harness's own state
(``~/.harness``, ``$HARNESS_HOME``, ``providers.json``) asks even when it only reads.

Rules live in ``.permissions.json`` (project) and
``$HARNESS_HOME/permissions.json`` (the user's), both ``{"allow": [...],
"deny": [...]}``. The project's deny rules always apply; its allow rules only when the
user trusted that file's exact content (:mod:`harness.trust`): a cloned repository
cannot grant itself anything. A rule with an empty pattern (``run_cmd()``) or a file that
does not parse is refused at load and reported in :attr:`RuleSet.problems`
(``/perms`` names them); the other rules still load. Copies and moves are
checked at both ends: each must be allowed, either may be denied.

Decision order: a deny rule → ``deny``; a ``cwd`` outside the workspace →
``deny``; plan mode and a mutating tool, or a command that may write → ``off``;
a request that may change a server in plan mode (``call_api``'s ``POST``) → ``off``;
a change to harness's configuration → ``ask``; a read-only tool → ``allow``; a
command deny rules cannot see through → ``ask``; auto mode → ``allow`` (but a
URL naming this machine or a private network goes on to the rules); allow
rules covering every checked value → ``allow``; deny mode → ``deny``; otherwise
``ask``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from harness.actors.tools._jail import (
    is_config,
    names_config,
    names_state,
    place_pattern,
    places,
)
from harness.actors.tools._rules import (
    SHELL_OPERATORS,
    PermissionFileError,
    Rule,
    RuleError,
    RuleProblem,
    RuleSet,
    append_rule,
    covers_shell,
    deny_matches,
    drop_rule,
    load_rules,
    parse_rule,
    shell_uncertain,
    user_rules_path,
)
from harness.actors.tools._table import ToolSpec, ToolTable, UnknownToolError
from harness.actors.tools.bash import read_only
from harness.messages import PERMISSION_MODES, PermissionMode

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
        trust_project: says whether the project file, holding the bytes it is given,
            is trusted; only then do its allow rules apply (default: never; its deny
            rules always do).
    """

    def __init__(
        self,
        table: ToolTable,
        *,
        workspace: str | os.PathLike[str] | None = None,
        home: str | os.PathLike[str] | None = None,
        mode: str = "ask",
        extra: Mapping[str, Any] | None = None,
        trust_project: Callable[[bytes], bool] | None = None,
    ) -> None:
        self.table = table
        self.trust_project = trust_project
        self.ignored: tuple[str, ...] = ()
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
        """Read the rule files again (``/perms reload``); the project's allow rules count
        only when its file, as read now, is trusted (:attr:`ignored` lists them otherwise)."""
        rules = self._project_rules().merged(load_rules([self.user_path]))
        if self.extra:
            rules = rules.merged(RuleSet.from_mapping(self.extra, "<session>"))
        self.rules = rules
        return rules

    def _project_rules(self) -> RuleSet:
        # one read: the bytes whose trust is checked are the bytes whose rules apply
        path = self.project_path
        self.ignored = ()
        if path is None:
            return RuleSet()
        try:
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return RuleSet()
        except OSError as exc:
            return RuleSet(problems=(RuleProblem(str(path), "", f"cannot read: {exc}"),))
        try:
            parsed = json.loads(data) if data.strip() else {}
        except ValueError as exc:
            return RuleSet(problems=(RuleProblem(str(path), "", f"not valid JSON: {exc}"),))
        rules = RuleSet.from_mapping(parsed, str(path))
        if rules.allow and not (self.trust_project and self.trust_project(data)):
            self.ignored = tuple(str(rule) for rule, _ in rules.allow)
            rules = attrs.evolve(rules, allow=())
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
        """The rule an ``[a]lways`` answer adds for this call's main argument.

        The exact main argument, which (having no wildcard) also covers the same
        command with more arguments: ``run_cmd(git status)``, ``write_file(src/a.py)``.
        A path is written as its place in the workspace (``./src/a.py`` gives
        ``src/a.py``). A compound command gives a rule for that exact command line (its
        shape must match). A call without a main argument gives the bare tool name.
        """
        rules = self._always(name, arguments)
        return rules[0] if rules else name

    def allow_always(self, name: str, arguments: Mapping[str, Any]) -> list[Rule]:
        """Remember an ``[a]lways`` answer: one rule for each value rules check (a
        copy's source and destination; each place a path names). A change to harness's
        own configuration is allowed that once and never saved as a rule."""
        spec = self._spec(name)
        if spec is None or self._config_change(spec, arguments) is not None:
            return []
        return [self.add("allow", rule) for rule in self._always(name, arguments) or [name]]

    def _always(self, name: str, arguments: Mapping[str, Any]) -> list[str]:
        spec = self._spec(name)
        if spec is None:
            return []
        values = spec.checked_values(arguments)
        if spec.paths:
            values = self._places(spec, values)
        texts = (v.strip() for v in values if isinstance(v, str) and v.strip())
        return [f"{name}({text})" for text in dict.fromkeys(texts)]

    def _spec(self, name: str) -> ToolSpec | None:
        try:
            return self.table.get(name)
        except UnknownToolError:
            return None

    def _config_change(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> str | None:
        """Why this call changes a file that configures harness, or ``None``."""
        if spec.kind == "shell":
            command = arguments.get(spec.main_arg or "")
            if not isinstance(command, str):
                return None
            if names_state(command, str(self.user_path.parent)):
                return "the command names harness's own state (rules, saved keys)"
            if names_config(command) and read_only(command) is not None:
                return "the command names a file that configures harness"
            return None
        if spec.kind != "mutating" or spec.executor != "tools":
            return None
        values = spec.checked_values(arguments)
        if spec.name == "copy_file":
            values = values[1:]  # reading a copy's source changes nothing
        for value in values:
            if not value:
                continue
            why = is_config(value)
            if why is None and self.workspace is not None:
                real = os.path.realpath(self.workspace / value)
                root = os.path.realpath(self.workspace)
                if os.path.commonpath([real, root]) == root:
                    why = is_config(os.path.relpath(real, root))
            if why:
                return why
        return None

    def decide(self, name: str, arguments: Mapping[str, Any] | None = None) -> Decision:
        """Decide a call of *name* with *arguments* (see the module docstring)."""
        arguments = arguments or {}
        spec = self._spec(name)
        values: list[str | None] = spec.checked_values(arguments) if spec else [None]
        shell = spec is not None and spec.kind == "shell"
        seen = self._places(spec, values)
        paths = spec is not None and spec.paths
        for rule, source in self.rules.deny:
            forms = (rule, self._as_place(rule)) if paths else (rule,)
            if any(
                deny_matches(form, name, value, shell)
                for form in forms
                for value in [*values, *seen]
            ):
                return Decision("deny", f"denied by rule {rule} ({source})", str(rule))
        if spec is None:
            if not name.startswith("mcp__"):
                return Decision("deny", f"unknown tool {name!r}")
            kind: str = "mutating"
        else:
            kind = spec.kind
            place = spec.place(arguments)
            if place is not None and not self._inside(place):
                return Decision("deny", f"{name}: cwd {place!r} is outside the workspace")
        if self.mode == "plan":
            if kind == "mutating":
                return Decision(
                    "off", f"{name} is switched off in plan mode; submit a plan instead"
                )
            if spec is not None and spec.name == "run_cmd":
                why = read_only(str(arguments.get("command", "")))
                if why is not None:
                    return Decision(
                        "off",
                        f"plan mode runs only commands that just read, and this one may "
                        f"not ({why}); submit a plan instead",
                    )
            if spec is not None and (why := spec.changes_remotely(arguments)):
                return Decision("off", why)
        if spec is not None:
            why = self._config_change(spec, arguments)
            if why is not None:
                if self.mode == "deny":
                    return Decision("deny", f"{why}; changing it needs approval")
                return Decision("ask", f"{why}: changing it always asks")
        mcp = name.startswith("mcp__") or (spec is not None and spec.executor == "mcp")
        if kind == "read" and not mcp:
            return Decision("allow", "read-only tool")
        if shell and values[0] is not None and self._denies_shell(name):
            unsure = shell_uncertain(name, values[0])
            if unsure:
                why = f"deny rules cannot see everything this command runs ({unsure[0]})"
                if self.mode == "deny":
                    return Decision("deny", why)
                return Decision("ask", why)
        near = spec.near_target(arguments) if spec is not None else None
        if self.mode == "auto" and (near is None or self._allowed(name, values, shell)):
            return Decision("allow", "auto mode")
        matched = self._allowed(name, seen if paths else values, shell, paths=paths)
        if matched is not None:
            rule, source = matched
            return Decision("allow", f"allowed by rule {rule} ({source})", str(rule))
        if self.mode == "deny":
            return Decision("deny", f"{name} needs approval and the permission mode is deny")
        if near is not None:
            return Decision("ask", f"{name} reaches {near}, which asks unless a rule allows it")
        return Decision("ask", f"{name} needs approval")

    def _places(self, spec: ToolSpec | None, values: list[str | None]) -> list[str | None]:
        """The workspace places a path tool's values name (:func:`~._jail.places`): a deny
        rule for any of them denies, and allow rules must cover every one, so that
        ``./secret.py``, ``src/../secret.py``, the absolute path or a symlink to it is
        matched as ``secret.py``. Nothing for other tools."""
        if spec is None or not spec.paths:
            return []
        out: list[str | None] = []
        for value in values:
            out.extend(places(self.workspace, value) if value else [None])
        return out

    def _inside(self, place: str) -> bool:
        """Whether a folder named by a call stays inside the workspace (lexically, and
        through symlinks when the workspace is known)."""
        if not place.startswith("/") and place.split("/")[0] == "..":
            return False
        if self.workspace is None:
            return not place.startswith("/")
        root = os.path.realpath(self.workspace)
        real = os.path.realpath(os.path.join(root, place))
        return os.path.commonpath([real, root]) == root

    def _denies_shell(self, name: str) -> bool:
        return any(covers_shell(r, name) for r, _ in self.rules.deny)

    def _allowed(
        self, name: str, values: list[str | None], shell: bool, *, paths: bool = False
    ) -> tuple[Rule, str] | None:
        """The rule that allows the main value, when every checked value is allowed
        (with *paths*, by a rule's pattern as a place, too: ``write_file(./src/*)``)."""
        first: tuple[Rule, str] | None = None
        for value in values:
            found = next(
                (
                    e
                    for e in self.rules.allow
                    if e[0].matches(name, value, shell=shell)
                    or (paths and self._as_place(e[0]).matches(name, value))
                ),
                None,
            )
            if found is None:
                return None
            first = first or found
        return first

    def _as_place(self, rule: Rule) -> Rule:
        """*rule* with its pattern written as a workspace place (:func:`~._jail.place_pattern`)."""
        if rule.pattern is None:
            return rule
        return attrs.evolve(rule, pattern=place_pattern(self.workspace, rule.pattern))

    def describe(self) -> str:
        """The rules, the mode and any refused rule, as ``/perms`` prints them."""
        lines = [f"mode: {self.mode}"]
        for label, entries in (("allow", self.rules.allow), ("deny", self.rules.deny)):
            lines.append(f"{label}:")
            lines.extend(f"  {rule}    ({source})" for rule, source in entries)
            if not entries:
                lines.append("  (none)")
        if self.ignored:
            lines.append("ignored (this workspace's .permissions.json is not trusted):")
            lines.extend(f"  {rule}" for rule in self.ignored)
        if self.rules.problems:
            lines.append("refused:")
            lines.extend(f"  {p}" for p in self.rules.problems)
        return "\n".join(lines)
