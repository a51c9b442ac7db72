"""What a write or edit left broken, said in its result.

A linter's first checks: the file still parses (Python, JSON, TOML), and every name a
Python file uses is defined, imported or built in. A file that does not parse is said
whenever a change leaves it so ("does not parse", or "still does not parse" when it did
not before either: a fix that did not work); a name is said only when the change brought
it (a name already undefined is the user's business). Where a name the file now lacks is
defined at the top of another Python file of the workspace, the note says which, and the
import that brings it. A test file defining its own copy of a function a module of the
workspace defines is said too: its tests check the copy. So is an import the change
brought of a module that is nowhere, or of a name its module does not define
(:mod:`._checks_imports`).

JavaScript (``node --check``, where node is on the PATH), shell scripts (``bash -n``) and
YAML come in dialects the checker may not know (JSX in a ``.js`` file, zsh in a ``.sh``,
a Helm template's ``{{ }}``), so they are said only when a change broke a file that
parsed before: the file's own dialect parsed then. Neither program runs the text it
reads, and each is started with no environment but ``PATH`` (``BASH_ENV`` and
``NODE_OPTIONS`` would run code of their own) outside the workspace. Measured (bench
local-tasks, half A, ``fix-board-night-times``): the 1.5B model's edit declared ``const
PERIOD`` a second time in ``board/tideboard.js``, which no longer loaded, was told
"edited", and the run ended ``ok``.

A model that writes a file sees "created test_pricing.py" and takes the work as done; a
test that fails on ``NameError`` is found only when someone runs it. Measured on the
embedded model (the fresh task set's half A): asked for a unittest test of
``apply_discount``, it wrote one calling it without the import (``create-pricing-test``);
asked to fix a JSON file that failed to load, it made an edit that left the file as
broken, and said it was fixed (``error-json-comma``).
"""

from __future__ import annotations

import ast
import builtins
import difflib
import json
import os
import re
import shutil
import subprocess
import symtable
import tomllib
from collections.abc import Callable, Collection
from pathlib import PurePosixPath

import attrs
import yaml

from harness.actors.tools._checks_imports import import_notes
from harness.actors.tools._jail import Workspace
from harness.actors.tools._readfile import line_hash
from harness.actors.tools._search import lines_matching
from harness.errors import ToolError

__all__ = ["Notes", "change_notes", "deletion_that_breaks"]

MAX_NAMES = 5
"""Names said at most: past a few, the file is a draft of something else."""

MAX_LINE = 200
"""Characters of a line shown beside a parse error at most."""

MAX_CHECKED = 512 * 1024
"""Characters of a file checked at most: parsing is linear, but a generated file of
megabytes is no one's hand-written module."""

CHECK_SECONDS = 10.0
"""How long a checking program (node, bash) may take before the check is given up."""

# set by the interpreter in every module
_MODULE_NAMES = frozenset(
    {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__"}
    | {"__package__", "__path__", "__annotations__", "__dict__", "__cached__"}
)
_KNOWN = frozenset(dir(builtins)) | _MODULE_NAMES


@attrs.frozen
class Notes:
    """What a change left broken: the notes for its result; *unparsed*, the parse error
    of the file as the change left it, in a format checked here (``""``: it parses, or
    is of no such format); and *broke*, that error where the change took the file from
    parsing (or not being there) to not parsing (a file that did not parse before is not
    the change's doing)."""

    text: str = ""
    broke: str = ""
    unparsed: str = ""


def change_notes(
    ws: Workspace, shown: str, old: str | None, new: str, said: Collection[str] = ()
) -> Notes:
    """The notes for the result of a change that made *shown* read *new* (it read *old*,
    or did not exist): no text for a file of no format checked here, or left sound.
    Names in *said* have a note of their own already (a rename's)."""
    if len(new) > MAX_CHECKED:
        return Notes()
    notes = _format_notes(ws, shown, old, new, said)
    copied = _copied_hits(ws, shown, old, new)
    return attrs.evolve(notes, text=copied + notes.text) if copied else notes


# a line as search_text prints a hit: "README.md:6:- `python3 report.py` prints …"
_HIT_LINE = re.compile(r"^((?:[\w.-]+/)*[\w.-]+):(\d+):(.*)$")


def _copied_hits(ws: Workspace, shown: str, old: str | None, new: str) -> str:
    """The note on lines the change brought that are a search's hits copied as they were
    printed (``path:line:text``, where that file of the workspace has that text at that
    line), not text of the file's own; ``""`` where none. Measured (bench local-tasks):
    asked for RUNNING.md after a search, the 1.5B model wrote the search's two lines as
    the page (half A); asked for price.py, the search's lines as the script (half B)."""
    before = set(old.splitlines()) if old else set()
    copied: list[str] = []
    for line in new.splitlines():
        hit = _HIT_LINE.match(line)
        if hit is None or line in before:
            continue
        path, n, text = hit.group(1), int(hit.group(2)), hit.group(3)
        try:
            # through the jail: a line naming ../ or a symlink out is no file to compare
            real = ws.resolve(path, alias=False)
            lines = real.read_text(errors="replace").splitlines() if real.is_file() else []
        except (ToolError, OSError):
            continue
        if 0 < n <= len(lines) and text.strip() and lines[n - 1].strip().startswith(text.strip()):
            copied.append(line)
    if not copied:
        return ""
    many = f"{len(copied)} lines" if len(copied) > 1 else "a line"
    return (
        f"\nnote: {shown} holds {many} of a search's result as it was printed "
        f"({copied[0][:MAX_LINE]!r}), not text of its own: write what the file should say"
    )


def _format_notes(
    ws: Workspace, shown: str, old: str | None, new: str, said: Collection[str]
) -> Notes:
    """The notes of :func:`change_notes` on the file's format: whether it parses, and
    the names and imports of a Python file."""
    if _JSON_WITH_COMMENTS.search(shown):
        return Notes()
    broken = _parse_error(shown, new)
    if broken:
        was = old is not None and _parse_error(shown, old)
        still = "still " if was else ""
        text = f"\nnote: {shown} {still}does not parse: {broken}{_around(new, broken)}"
        return Notes(text, "" if was else broken, broken)
    check = _dialect(shown, old)
    unparsed = check(new) if check is not None else ""
    if check is not None and unparsed:
        if old is None or check(old):
            return Notes(unparsed=unparsed)  # a new file, or one of a dialect maybe not this
        text = f"\nnote: {shown} does not parse: {unparsed}{_around(new, unparsed)}"
        return Notes(text, unparsed, unparsed)
    if not shown.endswith(".py"):
        return Notes()
    lacking = sorted(_undefined(new) - (_undefined(old) if old else set()) - set(said))
    notes = [_lacking(ws, shown, name) for name in lacking[:MAX_NAMES]]
    notes.append(import_notes(ws, shown, old, new))
    if _TEST_FILE.search(shown):
        copies = sorted(_defined(new) - (_defined(old) if old else set()))
        notes += [_copied(ws, shown, name) for name in copies[:MAX_NAMES]]
    return Notes("".join(notes))


def deletion_that_breaks(shown: str, old: str, new: str) -> str:
    """Why a change that only deletes lines of *shown* (*old* -> *new*) must not be
    written, when it leaves the file not parsing; ``""`` for any other change.

    Removing lines is how a file is wrecked by an edit whose old text runs past the lines
    meant, with only those lines as the new text: each such edit deletes what it carried
    along. Measured on the embedded model asked to fix a JSON file missing a comma
    (``error-json-comma``): after an edit that did not fix it, each next edit's old text
    took in the following section and its new text left it out, deleting the ``email``
    and then the ``stock`` services while the file went on not parsing. A deletion that
    leaves the file parsing (a section removed on purpose) is written as asked."""
    if len(new) >= len(old) or len(new) > MAX_CHECKED or _JSON_WITH_COMMENTS.search(shown):
        return ""
    broken = _parse_error(shown, new)  # first: most changes leave the file parsing
    if not broken:
        return ""
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    ops = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    gone = [(i1, i2) for op, i1, i2, _, _ in ops if op == "delete"]
    if not gone or any(op not in ("equal", "delete") for op, *_ in ops):
        return ""
    spans = ", ".join(f"{i1 + 1}" if i2 == i1 + 1 else f"{i1 + 1}-{i2}" for i1, i2 in gone)
    first = before[gone[0][0]].strip()[:MAX_LINE]
    return (
        f"not written: this change only deletes lines of {shown} ({spans}, from "
        f"{first!r}), and would leave it not parsing: {broken}"
    )


# a test module, as pytest and unittest's discovery name them
_TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test)\.py$")


def _defined(text: str) -> set[str]:
    """The functions and classes *text* defines at its top level."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name for node in tree.body if isinstance(node, kinds)}


# JSON files that editors and tools read with comments allowed: not plain JSON
_JSON_WITH_COMMENTS = re.compile(
    r"(?:^|/)(?:tsconfig[^/]*|jsconfig[^/]*|\.vscode/.*|\.devcontainer/.*)\.json$"
)


def _parse_error(shown: str, text: str) -> str:
    """Where *text*, the content of a file named *shown*, fails to parse as its format
    (Python, JSON, TOML), as a reader needs it to find the error; ``""`` when it parses
    or is of no format checked here."""
    try:
        if shown.endswith(".py"):
            ast.parse(text)
        elif shown.endswith(".json"):
            json.loads(text)
        elif shown.endswith(".toml"):
            tomllib.loads(text)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except json.JSONDecodeError as exc:
        return f"line {exc.lineno} column {exc.colno}: {exc.msg}{_json_comma(exc)}"
    except tomllib.TOMLDecodeError as exc:
        return str(exc)
    except ValueError:  # a NUL byte in Python source: not for this check to say
        return ""
    return ""


def _dialect(shown: str, old: str | None) -> Callable[[str], str] | None:
    """The check of *shown* where it is JavaScript, a shell script (by its suffix, or
    the first line of *old*) or YAML: it gives a text's parse error, ``""`` where it
    parses."""
    check = _DIALECTS.get(PurePosixPath(shown).suffix.lower())
    if check is None and old is not None and _SHELL_LINE.match(old):
        return _bash_error
    return check


def _yaml_error(text: str) -> str:
    """Where *text* fails to load as YAML (every document of it)."""
    try:
        for _ in yaml.load_all(text, Loader=_YAML_LOADER):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        return f"{where}{exc.problem or exc.context}"
    except yaml.YAMLError as exc:
        return str(exc).split("\n")[0]
    return ""


def _bash_error(text: str) -> str:
    """Where bash, reading *text* without running it (``bash -n``), finds it broken."""
    said = _checked(["bash", "-n", "/dev/stdin"], text)
    first = said.strip().split("\n")[0] if said else ""
    return re.sub(r"^/dev/stdin: ", "", first)


def _js_error(text: str, kinds: tuple[str, ...] = ("commonjs", "module")) -> str:
    """Where node, reading *text* without running it (``node --check``), finds it broken:
    as a CommonJS script, else as an ES module (which of the two a ``.js`` file is
    depends on a package.json it is not read with here); the module's error where the
    text imports or exports, else the script's. ``""`` where node is not installed."""
    errors = []
    for kind in kinds:
        said = _checked(["node", f"--input-type={kind}", "--check", "-"], text)
        if not said:  # it parses, or node could not say
            return ""
        errors.append(_node_said(said))
    module = "module" in kinds and re.search(r"^\s*(?:import|export)\b", text, re.M)
    return errors[-1] if module else errors[0]


def _node_said(said: str) -> str:
    """node's syntax error as ``line N: SyntaxError: …`` (it prints ``[stdin]:N``, the
    line, a caret, then the error and a stack)."""
    at = re.search(r"^\[stdin\]:(\d+)", said, re.M)
    error = re.search(r"^(\w*Error: .*)$", said, re.M)
    what = error.group(1) if error else said.strip().split("\n")[-1]
    return f"line {at.group(1)}: {what}" if at else what


def _checked(argv: list[str], text: str) -> str | None:
    """What *argv* printed reading *text* on its stdin, ``""`` where it exited 0, and
    ``None`` where it could not say (not installed, too slow, killed)."""
    if shutil.which(argv[0]) is None:
        return None
    env = {"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C"}
    try:
        ran = subprocess.run(
            argv,
            input=text,
            capture_output=True,
            text=True,
            timeout=CHECK_SECONDS,
            env=env,
            cwd=os.path.abspath(os.sep),
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if ran.returncode == 0:
        return ""
    return (ran.stderr or ran.stdout or "") if ran.returncode in (1, 2) else None


_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# a script with no suffix that names its shell on its first line
_SHELL_LINE = re.compile(r"#!\s*/(?:usr/)?bin/(?:env\s+)?(?:ba)?sh\b")
_DIALECTS: dict[str, Callable[[str], str]] = {
    ".js": _js_error,
    ".cjs": lambda text: _js_error(text, ("commonjs",)),
    ".mjs": lambda text: _js_error(text, ("module",)),
    ".sh": _bash_error,
    ".bash": _bash_error,
    ".yaml": _yaml_error,
    ".yml": _yaml_error,
}


def _json_comma(exc: json.JSONDecodeError) -> str:
    """Where a comma JSON expects is missing at the end of a line (the next member or
    element starts the line the error names), or one ends a line that only the close of
    its array or object follows (JSON has no trailing comma), that line as it should read,
    as the fix to copy; else ``""``. The error is found at the line after the one to fix."""
    before = exc.doc[: exc.pos]
    head, _, start = before.rpartition("\n")
    if start.strip() or not head.strip():
        return ""
    lines = head.split("\n")
    n = max(i for i, line in enumerate(lines) if line.strip())
    line = lines[n].rstrip()
    if exc.msg == "Expecting ',' delimiter" and not line.endswith((",", "{", "[", ":")):
        return f" (line {n + 1} lacks the comma at its end: {line.strip()[:MAX_LINE]},)"
    closes = exc.doc[exc.pos : exc.pos + 1] in ("]", "}")
    if closes and line.endswith(",") and exc.msg.startswith("Expecting "):
        fixed = line[:-1].strip()[:MAX_LINE]
        return f" (line {n + 1} ends with a comma that nothing follows: {fixed})"
    return ""


def _around(text: str, error: str) -> str:
    """The line *error* names and the one before it: an error is often found at the line
    after the one to fix (a JSON comma missing at the end of a line is "expected" at the
    start of the next). Tagged as read_file shows lines (``12:a3|``), whose tags the edit
    tool takes off a text copied with them and the embedded model does not see: measured,
    the 1.5B model copied a plainer "  12: " numbering into its edit's new text."""
    at = re.search(r"\bline (\d+)", error)
    if at is None:
        return ""
    lines = text.split("\n")
    n = int(at.group(1))
    shown = range(max(n - 1, 1), min(n, len(lines)) + 1)
    return "".join(f"\n{i}:{line_hash(lines[i - 1])}|{lines[i - 1][:MAX_LINE]}" for i in shown)


def _undefined(text: str) -> set[str]:
    """The global names *text* reads that nothing in it binds and Python does not give:
    empty for a file that does not parse or imports ``*`` (which may bind anything)."""
    try:
        tree = ast.parse(text)
        top = symtable.symtable(text, "<file>", "exec")
    except (SyntaxError, ValueError):
        return set()
    stars = (
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
    )
    if any(stars):
        return set()
    bound: set[str] = set()
    read: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        tables += table.get_children()
        for sym in table.get_symbols():
            name = sym.get_name()
            at_top = table is top or sym.is_declared_global()
            if at_top and (sym.is_assigned() or sym.is_imported() or sym.is_namespace()):
                bound.add(name)
            if sym.is_referenced() and (table is top or sym.is_global()):
                read.add(name)
    return read - bound - _KNOWN


def _lacking(ws: Workspace, shown: str, name: str) -> str:
    """The note on one name the file uses and does not define or import."""
    here = f"\nnote: {name} is used in {shown} but not defined or imported there"
    place = _defined_elsewhere(ws, shown, name, definitions_only=False)
    if place is None:
        return here
    rel, n, module = place
    return f"{here} ({rel}:{n} defines it{f': from {module} import {name}' if module else ''})"


def _copied(ws: Workspace, shown: str, name: str) -> str:
    """The note on a function or class a test file defines that a module it could test
    defines too ("" when none does): its tests check the copy."""
    place = _defined_elsewhere(ws, shown, name, definitions_only=True)
    if place is None or _TEST_FILE.search(place[0]):
        return ""
    rel, n, module = place
    bring = f"; import it instead: from {module} import {name}" if module else ""
    return (
        f"\nnote: {shown} defines its own {name}, so its tests check that copy, not "
        f"{rel}'s ({rel}:{n}){bring}"
    )


def _defined_elsewhere(
    ws: Workspace, shown: str, name: str, *, definitions_only: bool
) -> tuple[str, int, str] | None:
    """The first other Python file of the workspace defining *name* at its top level, as
    ``(path, line, module to import it from, or "")``; a plain assignment counts unless
    *definitions_only*."""

    defines = rf"^(?:(?:async\s+)?def|class)\s+{name}\b"
    if not definitions_only:
        defines += rf"|^{name}\s*(?::[^=]*)?=(?!=)"
    places = [(rel, n) for rel, n, _ in lines_matching(ws, defines, "*.py") if rel != shown]
    if not places:
        return None
    rel, n = places[0]
    module = rel.removeprefix("src/").removesuffix(".py").replace("/", ".")
    if not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", module):
        module = ""
    return rel, n, module
