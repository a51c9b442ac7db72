"""The permission engine: rules, modes and the decision for one call.

A rule is a tool name, optionally with a pattern in parentheses matched against
the call's main argument: ``read_file``, ``run_cmd(git status)``,
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

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from harness.actors.tools._table import ToolSpec, ToolTable, UnknownToolError

__all__ = [
    "MODES",
    "SHELL_OPERATORS",
    "Decision",
    "Mode",
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

Mode = Literal["ask", "auto", "plan", "deny"]
MODES: tuple[str, ...] = ("ask", "auto", "plan", "deny")
Action = Literal["allow", "deny", "ask", "off"]

# `&` alone covers `&&` and a background `cmd & other`; `|` covers `||`. Kept in
# the order the docs list them; `&` and `\r` are added because either one starts a
# second command as surely as `;` does.
SHELL_OPERATORS: tuple[str, ...] = (
    ";",
    "&&",
    "||",
    "|",
    "&",
    "`",
    "$(",
    "${",
    ">",
    "<",
    "\n",
    "\r",
)
_SPLIT = re.compile(r"\|\||&&|[;|&\n\r`<>]|\$\(|\$\{|\)|\}")
_RULE = re.compile(r"^\s*([^\s()]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


class RuleError(ValueError):
    """A rule that cannot be used; the message says why."""


class PermissionFileError(OSError):
    """A permissions file cannot be read or written without losing what is in it."""


@attrs.frozen
class Rule:
    """One parsed rule. ``pattern`` is ``None`` for a bare tool name."""

    tool: str
    pattern: str | None = None

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def matches_tool(self, name: str) -> bool:
        """True when the tool part matches *name*."""
        return _glob_match(self.tool, name)

    def matches(self, name: str, value: str | None, *, shell: bool = False) -> bool:
        """True when this rule covers a call of *name* whose main argument is *value*.

        With *shell*, a command using an operator the pattern lacks is not covered.
        """
        if not self.matches_tool(name):
            return False
        if self.pattern is None:
            return True
        if value is None:
            return False
        if shell and any(op in value and op not in self.pattern for op in SHELL_OPERATORS):
            return False
        return _pattern_match(self.pattern, value)


def parse_rule(text: str) -> Rule:
    """Parse ``tool`` or ``tool(pattern)``; raises :class:`RuleError` when it cannot."""
    if not isinstance(text, str):
        raise RuleError(f"a rule must be a string, got {type(text).__name__}")
    m = _RULE.match(text)
    if not m:
        raise RuleError(f"rule {text!r} is not `tool` or `tool(pattern)`")
    tool, pattern = m.group(1), m.group(2)
    if pattern is not None and not pattern.strip():
        raise RuleError(f"rule {text!r} has an empty pattern (write `{tool}` to mean any call)")
    return Rule(tool=tool, pattern=None if pattern is None else pattern.strip())


def _glob_regex(pattern: str) -> str:
    out = []
    for ch in pattern:
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _glob_match(pattern: str, text: str) -> bool:
    return re.fullmatch(_glob_regex(pattern), text, re.DOTALL) is not None


def _pattern_match(pattern: str, value: str) -> bool:
    if _glob_match(pattern, value):
        return True
    if "*" not in pattern and "?" not in pattern:
        # `git status` also covers `git status --short`, never `git statusx`.
        return value.startswith(pattern + " ")
    return False


def _segments(command: str) -> list[str]:
    parts = [p.strip() for p in _SPLIT.split(command)]
    return [p for p in parts if p]


@attrs.frozen
class RuleProblem:
    """A rule or file that was refused at load, with where it came from and why."""

    source: str
    rule: str
    reason: str

    def __str__(self) -> str:
        return (
            f"{self.source}: {self.rule}: {self.reason}"
            if self.rule
            else f"{self.source}: {self.reason}"
        )


@attrs.frozen
class RuleSet:
    """Allow and deny rules (each with its source file) plus what was refused."""

    allow: tuple[tuple[Rule, str], ...] = ()
    deny: tuple[tuple[Rule, str], ...] = ()
    problems: tuple[RuleProblem, ...] = ()

    def merged(self, other: RuleSet) -> RuleSet:
        """This set followed by *other*."""
        return RuleSet(
            self.allow + other.allow, self.deny + other.deny, self.problems + other.problems
        )

    @staticmethod
    def from_mapping(data: Any, source: str = "<rules>") -> RuleSet:
        """Build from ``{"allow": [...], "deny": [...]}``; bad entries become problems."""
        if not isinstance(data, Mapping):
            return RuleSet(problems=(RuleProblem(source, "", "must be a JSON object"),))
        allow: list[tuple[Rule, str]] = []
        deny: list[tuple[Rule, str]] = []
        problems: list[RuleProblem] = []
        for key, into in (("allow", allow), ("deny", deny)):
            items = data.get(key, [])
            if not isinstance(items, list):
                problems.append(RuleProblem(source, "", f"{key!r} must be a list of rules"))
                continue
            for item in items:
                try:
                    into.append((parse_rule(item), source))
                except RuleError as exc:
                    problems.append(RuleProblem(source, str(item), str(exc)))
        return RuleSet(tuple(allow), tuple(deny), tuple(problems))


def user_rules_path(home: str | os.PathLike[str] | None = None) -> Path:
    """``$HARNESS_HOME/permissions.json`` (``~/.harness`` when unset)."""
    if home is None:
        home = os.environ.get("HARNESS_HOME") or Path.home() / ".harness"
    return Path(home) / "permissions.json"


def _load_file(path: Path) -> RuleSet:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return RuleSet()
    except (OSError, UnicodeDecodeError) as exc:
        return RuleSet(problems=(RuleProblem(str(path), "", f"cannot read: {exc}"),))
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        return RuleSet(problems=(RuleProblem(str(path), "", f"not valid JSON: {exc}"),))
    return RuleSet.from_mapping(data, str(path))


def load_rules(paths: Iterable[str | os.PathLike[str]]) -> RuleSet:
    """Load and merge rule files in order; missing files are fine, broken ones are problems."""
    rules = RuleSet()
    for p in paths:
        rules = rules.merged(_load_file(Path(p)))
    return rules


def _append_rule(path: Path, key: str, rule: Rule) -> None:
    """Add *rule* to *path*'s *key* list, atomically, keeping everything else in the file."""
    data: dict[str, Any] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise PermissionFileError(f"cannot read {path}: {exc}") from None
    if text.strip():
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PermissionFileError(
                f"{path} is not valid JSON ({exc}); fix it before adding rules"
            ) from None
        if not isinstance(loaded, dict):
            raise PermissionFileError(f"{path} must hold a JSON object")
        data = loaded
    items = data.setdefault(key, [])
    if not isinstance(items, list):
        raise PermissionFileError(f"{path}: {key!r} must be a list")
    if str(rule) not in items:
        items.append(str(rule))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".permissions.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
        self.mode: Mode = "ask"
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
        if mode not in MODES:
            raise ValueError(f"unknown permission mode {mode!r}; use one of {', '.join(MODES)}")
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
            _append_rule(self.user_path, kind, rule)
        entry = (rule, str(self.user_path) if persist else "<session>")
        if kind == "allow":
            self.rules = attrs.evolve(self.rules, allow=(*self.rules.allow, entry))
        else:
            self.rules = attrs.evolve(self.rules, deny=(*self.rules.deny, entry))
        return rule

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
            if self._deny_matches(rule, name, value, shell):
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

    @staticmethod
    def _deny_matches(rule: Rule, name: str, value: str | None, shell: bool) -> bool:
        if rule.matches(name, value):
            return True
        if shell and value is not None and rule.pattern is not None and rule.matches_tool(name):
            return any(_pattern_match(rule.pattern, seg) for seg in _segments(value))
        return False

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
