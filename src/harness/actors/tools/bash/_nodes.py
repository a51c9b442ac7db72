"""Reading tree-sitter-bash's nodes as bash reads them: a word's literal value, line
continuations, globs, a command's words and the values of its options."""

from __future__ import annotations

import bisect
import functools
from typing import Any

from harness.actors.tools.bash._vocabulary import LITERAL_SPANS


@functools.cache
def parser() -> Any:
    import tree_sitter_language_pack as tslp

    return tslp.get_parser("bash")


def parse_tree(command: str) -> Any:
    return parser().parse(command.encode("utf-8", "surrogatepass")).root_node


def node_text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def quoted_short(node: Any, width: int = 40) -> str:
    """A node's text for a message, cut to *width* characters."""
    text = node_text(node)
    return repr(text if len(text) <= width else text[:width] + "…")


def without_continuations(command: str) -> str:
    """*command* with its line continuations (backslash-newline) taken out, as bash
    reads it: tree-sitter takes one for a space, bash for nothing (``r\\<nl>m`` is
    ``rm``). Those inside single quotes, comments and here-documents stay."""
    if "\\\n" not in command:
        return command
    data = command.encode("utf-8", "surrogatepass")
    keep: list[tuple[int, int]] = []  # spans where the pair is literal
    leaves: list[tuple[int, int]] = []
    stack = [parse_tree(command)]
    while stack:
        node = stack.pop()
        if node.type in LITERAL_SPANS:
            keep.append((node.start_byte, node.end_byte))
        elif node.child_count == 0:
            leaves.append((node.start_byte, node.end_byte))
        else:
            stack.extend(node.children)
    leaves.sort()
    starts = [s for s, _ in leaves]
    cuts: list[int] = []
    at = data.find(b"\\\n")
    while at != -1:
        if not any(s <= at < e for s, e in keep):
            i = bisect.bisect_right(starts, at) - 1
            first = leaves[i][0] if i >= 0 and leaves[i][0] <= at < leaves[i][1] else at
            run = at
            while run > first and data[run - 1] == 0x5C:
                run -= 1
            if (at - run) % 2 == 0:  # not itself escaped by a backslash before it
                cuts.append(at)
        at = data.find(b"\\\n", at + 1)
    out, prev = [], 0
    for cut in cuts:
        out.append(data[prev:cut])
        prev = cut + 2
    out.append(data[prev:])
    return b"".join(out).decode("utf-8", "surrogatepass")


def unescape_word(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            i += 1
            if text[i] == "\n":
                i += 1
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def unescape_double(text: str) -> str:
    """The inside of a double-quoted string: a backslash escapes only ``$ ` " \\``
    and a newline (which it removes)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def unquote(node: Any) -> str | None:
    """The literal value of a word, or ``None`` when it depends on an expansion."""
    kind = node.type
    if kind in ("word", "number", "command_name", "file_descriptor", "variable_name"):
        if kind == "command_name":
            return unquote(node.children[0]) if node.child_count == 1 else None
        return unescape_word(node_text(node))
    if kind == "raw_string":
        return node_text(node)[1:-1]
    if kind == "string":
        parts = [c for c in node.children if c.is_named]
        if any(c.type != "string_content" for c in parts):
            return None
        return unescape_double("".join(node_text(c) for c in parts))
    if kind == "concatenation":
        pieces = [unquote(c) for c in node.children]
        if any(p is None for p in pieces):
            return None
        return "".join(p for p in pieces if p is not None)
    return None


def is_pattern(node: Any) -> bool:
    """Whether an unquoted part of *node* is a glob or a brace expansion, so that bash
    may turn it into another word (``/bin/r?``, ``/usr/bin/[r]m``, ``{/bin/rm,x}``)."""
    if node.type in ("raw_string", "string", "ansi_c_string"):
        return False
    if node.child_count:
        return any(is_pattern(c) for c in node.children)
    if node.type != "word":
        return False
    text, i = node_text(node), 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "*?[":
            return True
        if ch == "{" and ("," in text[i:] or ".." in text[i:]):
            return True
        i += 1
    return False


def command_words(cmd: Any) -> tuple[list[str | None], list[Any]]:
    """A ``command`` node's words (``None`` for one that depends on an expansion)
    and the nodes that are its arguments and name."""
    words: list[str | None] = []
    nodes: list[Any] = []
    for child in cmd.children:
        if child.type in ("variable_assignment", "comment") or "redirect" in child.type:
            continue
        if child.is_named:
            words.append(unquote(child))
            nodes.append(child)
    return words, nodes


def long_or_short(words: list[str | None], options: frozenset[str]) -> list[str | None]:
    """The values given to *options* (``--opt=V``, ``--opt V``, ``--op=V`` abbreviated,
    ``-XV``, ``-X V``) in a word list that starts with the command's name."""
    out: list[str | None] = []
    for i, w in enumerate(words[1:], 1):
        if w is None:
            continue
        key, eq, value = w.partition("=")
        if key.startswith("--") and len(key) > 2:
            if any(o.startswith(key) for o in options if o.startswith("--")):
                out.append(value if eq else (words[i + 1] if i + 1 < len(words) else None))
        else:
            for o in options:
                if not o.startswith("--") and w.startswith(o):
                    rest = w[len(o) :]
                    out.append(rest if rest else (words[i + 1] if i + 1 < len(words) else None))
    return out


def option_values(words: list[str | None], letters: str) -> list[str | None]:
    """The values given to the short options *letters* (``-C cb``, ``-Ccb``, ``-tC cb``),
    in a word list that starts with the command's name."""
    out: list[str | None] = []
    i = 1
    while i < len(words):
        w = words[i]
        if w == "--":
            break
        if w is not None and w.startswith("-") and len(w) > 1 and not w.startswith("--"):
            for j, ch in enumerate(w[1:], 1):
                if ch in letters:
                    rest = w[j + 1 :]
                    if rest:
                        out.append(rest)
                    else:
                        out.append(words[i + 1] if i + 1 < len(words) else None)
                        i += 1
                    break
        i += 1
    return out
