"""What a shell command does, read with a real bash grammar (tree-sitter-bash).

Permission rules must not be fooled by spelling: ``(rm x)``, ``{ rm x; }``,
``if true; then rm x; fi``, ``time rm x`` and ``rm<TAB>x`` all start with
something other than ``rm``. :func:`analyse` parses a command and returns every
simple command anywhere in it (subshells, groups, loops, conditionals, command
substitutions, ``bash -c`` / ``sh -c`` / ``eval`` strings), what it cannot be
sure of, and whether it writes files. :func:`shape` is the flat form an allow
rule is compared with: simple commands joined by operators, nothing else.

The grammar loads on first use (tree-sitter is a tenth of a second to import).
"""

from __future__ import annotations

import functools
import posixpath
from typing import Any

import attrs

__all__ = ["Analysis", "Segment", "Shape", "analyse", "read_only", "shape"]

# Programs that run their arguments as another command. The command they run is
# found by trying every later word as its start (so options are skipped without
# knowing each program's options): deny rules see more, never less.
_WRAPPERS = frozenset(
    {
        "builtin",
        "busybox",
        "chroot",
        "command",
        "coproc",
        "doas",
        "env",
        "exec",
        "flock",
        "ionice",
        "nice",
        "nohup",
        "setsid",
        "stdbuf",
        "strace",
        "sudo",
        "taskset",
        "time",
        "timeout",
        "unbuffer",
        "watch",
        "xargs",
    }
)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"})
_SOURCES = frozenset({"source", ".", "eval"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

# Programs that only read, for plan mode. An allow list: a program missing here is
# treated as a writer. Each is listed with the options that would make it write or
# run something else; those make the command a writer too.
_READERS: dict[str, frozenset[str]] = {
    name: frozenset()
    for name in [
        "basename",
        "cat",
        "cmp",
        "column",
        "cut",
        "df",
        "diff",
        "dirname",
        "du",
        "echo",
        "false",
        "fold",
        "free",
        "grep",
        "egrep",
        "fgrep",
        "head",
        "hexdump",
        "id",
        "ls",
        "md5sum",
        "nl",
        "nproc",
        "od",
        "printenv",
        "printf",
        "ps",
        "pwd",
        "readlink",
        "realpath",
        "rev",
        "seq",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "sleep",
        "stat",
        "tail",
        "test",
        "tr",
        "true",
        "type",
        "uname",
        "uptime",
        "wc",
        "which",
        "whoami",
        "[",
        "jq",
    ]
}
_READERS["sort"] = frozenset({"-o", "--output"})
_READERS["rg"] = frozenset({"--pre"})
_READERS["find"] = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_SAFE_TARGETS = frozenset({"/dev/null"})
_STRUCTURE = frozenset({"program", "list", "pipeline"})


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
            reading a script, a computed command name, a parse error).
        writes: a redirection to a file (other than ``/dev/null``).
    """

    commands: tuple[str, ...]
    uncertain: tuple[str, ...]
    writes: bool


@functools.cache
def _parser() -> Any:
    import tree_sitter_language_pack as tslp

    return tslp.get_parser("bash")


def _parse(command: str) -> Any:
    return _parser().parse(command.encode("utf-8", "surrogatepass")).root_node


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def _unquote(node: Any) -> str | None:
    """The literal value of a word, or ``None`` when it depends on an expansion."""
    kind = node.type
    if kind in ("word", "number", "command_name", "file_descriptor"):
        if kind == "command_name":
            return _unquote(node.children[0]) if node.child_count == 1 else None
        text = _text(node)
        out, i = [], 0
        while i < len(text):
            if text[i] == "\\" and i + 1 < len(text):
                i += 1
            out.append(text[i])
            i += 1
        return "".join(out)
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "string":
        parts = [c for c in node.children if c.is_named]
        if any(c.type != "string_content" for c in parts):
            return None
        inner = "".join(_text(c) for c in parts)
        for a, b in (('\\"', '"'), ("\\$", "$"), ("\\`", "`"), ("\\\\", "\\")):
            inner = inner.replace(a, b)
        return inner
    if kind == "concatenation":
        pieces = [_unquote(c) for c in node.children]
        if any(p is None for p in pieces):
            return None
        return "".join(p for p in pieces if p is not None)
    return None


def _words(cmd: Any) -> tuple[list[str | None], list[Any]]:
    """A ``command`` node's words (``None`` for one that depends on an expansion)
    and the nodes that are its arguments and name."""
    words: list[str | None] = []
    nodes: list[Any] = []
    for child in cmd.children:
        if child.type == "variable_assignment":
            continue
        if child.is_named:
            words.append(_unquote(child))
            nodes.append(child)
    return words, nodes


class _Walker:
    def __init__(self, depth: int = 0) -> None:
        self.commands: list[str] = []
        self.uncertain: list[str] = []
        self.writes = False
        self.depth = depth

    def walk_source(self, source: str) -> None:
        if self.depth > 8:
            self.uncertain.append("commands nested too deep to follow")
            return
        self.depth += 1
        self.walk(_parse(source))
        self.depth -= 1

    def walk(self, node: Any) -> None:
        if node.type == "ERROR" or node.is_missing:
            self.uncertain.append("the command does not parse as bash")
        if node.type == "command":
            self.command(node)
        elif node.type == "file_redirect":
            self.redirect(node)
        for child in node.children:
            self.walk(child)

    def redirect(self, node: Any) -> None:
        ops = [c.type for c in node.children if not c.is_named]
        if not any(">" in op for op in ops):
            return
        dest = node.child_by_field_name("destination")
        value = None if dest is None else _unquote(dest)
        if dest is not None and dest.type == "number" and any(op.endswith("&") for op in ops):
            return  # 2>&1: a descriptor, not a file
        if value not in _SAFE_TARGETS:
            self.writes = True

    def command(self, node: Any) -> None:
        words, nodes = _words(node)
        if not words:
            return
        if words[0] is None:
            self.uncertain.append(f"the command name {_text(nodes[0])!r} is computed")
            return
        self.run(words, nodes)

    def run(self, words: list[str | None], nodes: list[Any]) -> None:
        literal = [w if w is not None else _text(n) for w, n in zip(words, nodes, strict=True)]
        name = literal[0]
        base = posixpath.basename(name) or name
        self.commands.append(" ".join(literal))
        if base != name:
            self.commands.append(" ".join([base, *literal[1:]]))
        if base in _WRAPPERS:
            self.uncertain.append(f"{base} runs another command")
            for i in range(1, len(words)):
                if words[i] is not None and not str(words[i]).startswith("-"):
                    self.run(words[i:], nodes[i:])
        elif base in _SHELLS:
            self.shell(words, base)
        elif base in _SOURCES:
            if base == "eval" and all(w is not None for w in words[1:]):
                self.walk_source(" ".join(str(w) for w in words[1:]))
            else:
                self.uncertain.append(f"{base} runs code the command line does not show")
        elif base == "find":
            self.find(words, nodes)

    def shell(self, words: list[str | None], base: str) -> None:
        for i, w in enumerate(words[1:], 1):
            if w is not None and w.startswith("-") and "c" in w.lstrip("-") and len(w) < 6:
                script = words[i + 1] if i + 1 < len(words) else None
                if script is None:
                    self.uncertain.append(f"{base} -c runs a computed string")
                else:
                    self.walk_source(script)
                return
        self.uncertain.append(f"{base} runs a script the command line does not show")

    def find(self, words: list[str | None], nodes: list[Any]) -> None:
        for i, w in enumerate(words):
            if w in _FIND_EXEC:
                end = i + 1
                while end < len(words) and words[end] not in (";", "+"):
                    end += 1
                if end > i + 1:
                    self.run(words[i + 1 : end], nodes[i + 1 : end])


def analyse(command: str) -> Analysis:
    """Every simple command in *command*, what is uncertain, and whether it writes."""
    walker = _Walker()
    walker.walk_source(command)
    return Analysis(
        commands=tuple(walker.commands),
        uncertain=tuple(dict.fromkeys(walker.uncertain)),
        writes=walker.writes,
    )


def read_only(command: str) -> str | None:
    """``None`` when *command* only reads, by its parsed shape; else why it may write.

    Every program it runs must be a known reader used without its writing options,
    and no output may be redirected to a file. Anything uncertain counts as a writer.
    """
    a = analyse(command)
    if a.uncertain:
        return a.uncertain[0]
    if a.writes:
        return "it redirects output to a file"
    for cmd in a.commands:
        words = cmd.split()
        name = words[0] if words else ""
        if name not in _READERS:
            return f"{name!r} is not a known read-only program"
        for w in words[1:]:
            if _writing_option(w, _READERS[name]):
                return f"{name} {w} may write or run something"
    return None


def _writing_option(word: str, bad: frozenset[str]) -> bool:
    if word.split("=", 1)[0] in bad:
        return True
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
            redirects.append("".join(_text(c) for c in child.children))
        node = body
    if node is None or node.type != "command":
        return None
    return Segment(tuple(_text(c) for c in node.children if c.is_named), tuple(redirects))


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
    other structure (subshells, groups, loops, substitutions, ``${...}``, a parse error)."""
    if any(tok in command for tok in ("$(", "`", "${", "<(", ">(")):
        return None
    root = _parse(command)
    if root.has_error:
        return None
    segments: list[Segment] = []
    ops: list[str] = []
    if not _flatten(root, segments, ops) or not segments:
        return None
    return Shape(tuple(segments), tuple(ops))
