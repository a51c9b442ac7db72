"""What a command line runs (:func:`analyse`), whether it only reads
(:func:`read_only`), and its flat shape for allow rules (:func:`shape`)."""

from __future__ import annotations

import functools
from typing import Any

import attrs

from harness.actors.tools.bash._commands import Walker
from harness.actors.tools.bash._nodes import node_text, parse_tree, without_continuations
from harness.actors.tools.bash._vocabulary import NUMERIC_SPECIALS, OUTPUT, READERS


@attrs.frozen
class Segment:
    """One simple command in a flat command line: its words (as written, quotes
    kept) and its redirections."""

    words: tuple[str, ...]
    redirects: tuple[str, ...] = ()


@attrs.frozen
class Shape:
    """A command line as simple commands joined by operators (``&&``, ``|``, ``;`` ...).

    ``ops`` has one operator between each pair of segments, plus a trailing ``&``
    when the last one runs in the background.
    """

    segments: tuple[Segment, ...]
    ops: tuple[str, ...]


@attrs.frozen
class Analysis:
    """Everything a command runs, as far as the grammar can tell.

    Attributes:
        commands: each simple command's words (quotes removed), anywhere in the tree,
            and for wrappers (``xargs rm``, ``env X=1 rm``, ``/bin/rm``) the command
            they run as well.
        uncertain: why the grammar cannot know every command (``eval $x``, ``sh``
            reading a script, a computed or globbed command name, a parse error).
        writes: a redirection to a file (other than ``/dev/null``).
        evaluates: the places where bash evaluates text as code even though every
            command is known (arithmetic on a variable, ``-v`` tests, ``${x@P}``,
            ``printf -v``): harmless unless a value holds a command substitution, so
            only plan mode's :func:`read_only` refuses them.
    """

    commands: tuple[str, ...]
    uncertain: tuple[str, ...]
    writes: bool
    evaluates: tuple[str, ...] = ()


@functools.lru_cache(maxsize=256)
def analyse(command: str) -> Analysis:
    """Every simple command in *command*, what is uncertain, and whether it writes.

    Remembered for the last 256 commands: one decision reads a command once per deny
    rule, once for the allow rules and once for plan mode, and the result is frozen.
    """
    walker = Walker()
    walker.walk_source(command)
    uncertain = list(walker.uncertain)
    if walker.runs_local and (walker.creates or walker.writes):
        uncertain.append(
            f"{walker.runs_local[0]!r} may run a file this same command line makes "
            "(a link to another program, a script)"
        )
    risky = walker.evaluated & (walker.untrusted | {OUTPUT, "$1"})
    if walker.evaluated and OUTPUT in walker.untrusted:
        risky.add(OUTPUT)
    risky -= NUMERIC_SPECIALS - walker.untrusted
    if risky:
        which = sorted(risky)[0]
        what = {OUTPUT: "a command's output", "$1": "a parameter"}.get(which, f"${which}")
        uncertain.append(
            f"bash evaluates {what} as code (arithmetic, a subscript or a prompt), and a "
            "value set on this line may hold a command substitution"
        )
    return Analysis(
        commands=tuple(walker.commands),
        uncertain=tuple(dict.fromkeys(uncertain)),
        writes=walker.writes,
        evaluates=tuple(dict.fromkeys(walker.evaluates)),
    )


def read_only(command: str) -> str | None:
    """``None`` when *command* only reads, by its parsed shape; else why it may write.

    Every program it runs must be a known reader used without its writing options,
    no output may be redirected to a file, and bash must not evaluate any text as
    code (:attr:`Analysis.evaluates`). Anything uncertain counts as a writer.
    """
    a = analyse(command)
    if a.uncertain:
        return a.uncertain[0]
    if a.writes:
        return "it redirects output to a file"
    if a.evaluates:
        return a.evaluates[0]
    for cmd in a.commands:
        words = cmd.split()
        name = words[0] if words else ""
        if name not in READERS:
            return f"{name!r} is not a known read-only program"
        for w in words[1:]:
            if _writing_option(w, READERS[name]):
                return f"{name} {w} may write or run something"
    return None


def _writing_option(word: str, bad: frozenset[str]) -> bool:
    key = word.split("=", 1)[0]
    if key in bad:
        return True
    if key.startswith("--") and len(key) > 2:
        # GNU getopt takes any unambiguous abbreviation: `--out=F`, `--compress-prog=sh`.
        return any(b.startswith(key) for b in bad if b.startswith("--"))
    if word.startswith("-") and not word.startswith("--") and word[1:].isalnum():
        # `-o` may hide in a cluster (`-ro`) or carry its value (`-oFILE`).
        return any(len(b) == 2 and b[1] in word[1:] for b in bad)
    return False


def _segment(node: Any) -> Segment | None:
    redirects: list[str] = []
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        for child in node.children:
            if child == body:
                continue
            if child.type != "file_redirect":
                return None
            redirects.append("".join(node_text(c) for c in child.children))
        node = body
    if node is None or node.type != "command":
        return None
    return Segment(tuple(node_text(c) for c in node.children if c.is_named), tuple(redirects))


def _flatten(node: Any, segments: list[Segment], ops: list[str]) -> bool:
    pending = False  # a segment was added with no operator after it yet
    for child in node.children:
        if not child.is_named:
            if child.type in ("&&", "||", "|", "|&", ";", "&", "\n"):
                ops.append(";" if child.type == "\n" else child.type)
                pending = False
                continue
            return False
        if child.type == "comment":
            continue
        if pending:
            ops.append(";")  # statements on separate lines
        if child.type in ("list", "pipeline"):
            if not _flatten(child, segments, ops):
                return False
        else:
            seg = _segment(child)
            if seg is None:
                return False
            segments.append(seg)
        pending = True
    return True


def shape(command: str) -> Shape | None:
    """*command* as simple commands joined by operators, or ``None`` when it has any
    other structure (subshells, groups, loops, substitutions, ``${...}``, a parse error).
    Line continuations are taken out first, as bash does."""
    command = without_continuations(command)
    if any(tok in command for tok in ("$(", "`", "${", "<(", ">(")):
        return None
    root = parse_tree(command)
    if root.has_error:
        return None
    segments: list[Segment] = []
    ops: list[str] = []
    if not _flatten(root, segments, ops) or not segments:
        return None
    return Shape(tuple(segments), tuple(ops))
