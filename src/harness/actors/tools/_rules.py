"""Permission rules: parsing, matching, and the files they live in.

A rule is a tool name, optionally with a pattern in parentheses matched against
the call's main argument: ``read_file``, ``run_cmd(git status)``,
``write_file(src/*)``, ``mcp__github__*``. ``*`` matches any text (``/``
included) and ``?`` one character, in the tool name and in the pattern. A
pattern with no wildcard also covers ``<pattern> <more args>``, so
``run_cmd(git status)`` allows ``git status --short``.

For shell tools both sides are parsed with a bash grammar (:mod:`.bash`) and an
allow rule covers a command only when the command has exactly the rule's shape:
the same simple commands joined by the same operators, with the same
redirections; the wildcard and the "more arguments" extension apply inside one
simple command (the last one's arguments), never past an operator. A command the
grammar cannot flatten (subshells, groups, loops, substitutions, ``${...}``) is
covered only by a rule that is that exact text, and so is one whose every part the
grammar cannot see (``eval``, ``xargs``, a script run by ``sh``, wrappers). On top of
that an allow rule never covers a command using an operator it does not contain itself
(:data:`SHELL_OPERATORS`). Deny rules look at every simple command anywhere in the
tree (:func:`deny_matches`), payloads written on the line included (``trap 'rm x'
EXIT``, ``mapfile -C``, ``bash -c -- 'rm x'``, what a wrapper runs, ``tar
--to-command``); what the grammar cannot see at all is uncertain
(:attr:`.bash.Analysis.uncertain`) and never allowed by a pattern.

Files are ``{"allow": [...], "deny": [...]}``; a rule with an empty pattern
(``run_cmd()``) or a file that does not parse becomes a :class:`RuleProblem`
and the other rules still load. Writes keep everything else in the file and go
through a temporary file and a rename.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from harness.actors.tools.bash import analyse, shape
from harness.errors import ConfigError
from harness.home import harness_home

__all__ = [
    "SHELL_OPERATORS",
    "PermissionFileError",
    "Rule",
    "RuleError",
    "RuleProblem",
    "RuleSet",
    "append_rule",
    "covers_shell",
    "deny_matches",
    "drop_rule",
    "load_rules",
    "parse_rule",
    "shell_match",
    "shell_uncertain",
    "user_rules_path",
]

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


class RuleError(ConfigError, ValueError):
    """A rule that cannot be used; the message says why."""


class PermissionFileError(ConfigError, OSError):
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
        if shell:
            if any(op in value and op not in self.pattern for op in SHELL_OPERATORS):
                return False
            return shell_match(self.pattern, value)
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


def shell_match(pattern: str, command: str) -> bool:
    """Whether an allow *pattern* covers *command*, compared by parsed shape.

    Word by word: a wildcard matches inside one word, never across words or
    operators. The last command may have more arguments than the pattern when the
    pattern has no wildcard at all, or when its last word ends in ``*``
    (``git status*``, ``npm run *``): the prefix wildcard reaches that command's
    further arguments and nothing else.
    """
    if pattern.strip() == command.strip():
        return True
    if analyse(command).uncertain:
        return False  # what it runs is not all on the line: only its exact text is allowed
    want, have = shape(pattern), shape(command)
    if want is None or have is None:
        return False
    if want.ops != have.ops or len(want.segments) != len(have.segments):
        return False
    plain = not any(ch in pattern for ch in "*?")
    last = len(want.segments) - 1
    for i, (w, h) in enumerate(zip(want.segments, have.segments, strict=True)):
        if w.redirects != h.redirects:
            return False
        grows = i == last and (plain or w.words[-1].endswith("*"))
        if len(h.words) < len(w.words) or (len(h.words) > len(w.words) and not grows):
            return False
        if not all(_glob_match(p, c) for p, c in zip(w.words, h.words, strict=False)):
            return False
    return True


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
    return (harness_home() if home is None else Path(home)) / "permissions.json"


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


def _read_rules_file(path: Path) -> dict[str, Any]:
    """The JSON object in *path* (empty when there is none); refuses a broken file."""
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
    return data


def _write_rules_file(path: Path, data: dict[str, Any]) -> None:
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


def drop_rule(path: Path, rule: Rule) -> None:
    """Take *rule* out of both lists in *path*, keeping everything else."""
    if not path.exists():
        return
    data = _read_rules_file(path)
    changed = False
    for key in ("allow", "deny"):
        items = data.get(key)
        if isinstance(items, list):
            kept = [i for i in items if not (isinstance(i, str) and _same_rule(i, rule))]
            changed = changed or len(kept) != len(items)
            data[key] = kept
    if changed:
        _write_rules_file(path, data)


def _same_rule(text: str, rule: Rule) -> bool:
    try:
        return parse_rule(text) == rule
    except RuleError:
        return False


def append_rule(path: Path, key: str, rule: Rule) -> None:
    """Add *rule* to *path*'s *key* list, atomically, keeping everything else in the file."""
    data = _read_rules_file(path)
    items = data.setdefault(key, [])
    if not isinstance(items, list):
        raise PermissionFileError(f"{path}: {key!r} must be a list")
    if str(rule) not in items:
        items.append(str(rule))
    _write_rules_file(path, data)


# Text typed into a live command (send_input) reaches whatever that command runs: a
# shell, a REPL, a pager's `!` escape. The deny rules of run_cmd hold for it too.
_TYPED = {"send_input": "run_cmd"}
# Typed text that can only be an answer to a prompt (y, 42, a name, a path).
_ANSWER = re.compile(r"^[\w .,@+/=-]*$")


def covers_shell(rule: Rule, name: str) -> bool:
    """Whether *rule* is a deny rule's kind for shell tool *name*: its own, or run_cmd's
    for the text typed into a live command."""
    if rule.pattern is None:
        return False
    return rule.matches_tool(name) or (name in _TYPED and rule.matches_tool(_TYPED[name]))


def shell_uncertain(name: str, value: str) -> tuple[str, ...]:
    """Why deny rules cannot see everything a shell tool's *value* runs: for a command
    line, :attr:`Analysis.uncertain`; for typed text, also anything but a plain answer
    (the command it goes to may be a REPL or an editor, which run it as code)."""
    unsure = analyse(value).uncertain
    if name in _TYPED and not _ANSWER.match(value):
        unsure = (*unsure, "the text typed into a running command may be code it runs")
    return unsure


def deny_matches(rule: Rule, name: str, value: str | None, shell: bool) -> bool:
    """A deny rule covers the whole call, or (for shell tools) any simple command
    anywhere in it: subshells, groups, loops, conditionals, substitutions, ``sh -c``
    strings, ``trap`` and ``mapfile -C`` payloads, and the command a wrapper runs
    (``xargs rm``, ``/bin/rm``, ``script -c 'rm x'``), line continuations taken out.
    A run_cmd rule also covers the text ``send_input`` types into a live command."""
    if rule.matches(name, value):
        return True
    pattern = rule.pattern
    if shell and value is not None and pattern is not None and covers_shell(rule, name):
        parts = [*_segments(value), *analyse(value).commands]
        return any(_pattern_match(pattern, part) for part in parts)
    return False
