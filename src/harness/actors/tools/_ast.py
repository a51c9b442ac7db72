"""get_code_skeleton and query_ast with tree-sitter (grammars bundled, offline).

Parsing runs in the tools worker only: a grammar that crashes takes down that
worker, which the supervisor restarts, and never the conversation.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import tree_sitter
import tree_sitter_language_pack as tslp

from harness.actors.tools._jail import ToolError, Workspace
from harness.actors.tools._readfile import open_regular
from harness.actors.tools._result import Result

__all__ = ["LANGUAGES", "get_code_skeleton", "language_for", "query_ast"]

MAX_SOURCE_BYTES = 4 * 1024 * 1024
MAX_CAPTURES = 300
MAX_OUTLINE = 600

LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".rb": "ruby", ".sh": "bash", ".bash": "bash",
    ".cs": "csharp", ".php": "php", ".kt": "kotlin", ".swift": "swift", ".scala": "scala",
    ".lua": "lua", ".ex": "elixir", ".exs": "elixir", ".hs": "haskell", ".zig": "zig",
}  # fmt: skip

# Node types that are outline entries, across the common grammars.
_DEFINITIONS = frozenset(
    {
        # python
        "function_definition", "class_definition",
        # javascript / typescript
        "function_declaration", "generator_function_declaration", "class_declaration",
        "abstract_class_declaration", "method_definition", "interface_declaration",
        "type_alias_declaration", "enum_declaration", "abstract_method_signature",
        # go
        "method_declaration", "type_spec",
        # rust
        "function_item", "struct_item", "enum_item", "trait_item", "impl_item", "mod_item",
        "function_signature_item", "macro_definition", "type_item",
        # java / c#
        "constructor_declaration", "record_declaration", "struct_declaration",
        "namespace_declaration",
        # c / c++
        "struct_specifier", "class_specifier", "enum_specifier", "union_specifier",
        "namespace_definition",
        # ruby
        "class", "module", "method", "singleton_method",
    }
)  # fmt: skip
_GENERIC = re.compile(
    r"^(function|method|class|interface|struct|enum|trait|impl|module|namespace|constructor)"
    r"(_(definition|declaration|item|specifier))?$"
)
# Specifiers count only with a body (`struct x y;` is a use, not a definition).
_NEEDS_BODY = frozenset(
    {"struct_specifier", "class_specifier", "enum_specifier", "union_specifier"}
)
_parsers: dict[str, tree_sitter.Parser] = {}


def language_for(path: str) -> str | None:
    """The tree-sitter language name for *path*'s extension, or ``None``."""
    return LANGUAGES.get(Path(path).suffix.lower())


def _parse(ws: Workspace, path: str) -> tuple[str, str, bytes, tree_sitter.Tree]:
    target = ws.resolve(path)
    shown = ws.rel(target)
    lang = language_for(shown)
    if lang is None:
        known = " ".join(sorted(set(LANGUAGES)))
        raise ToolError(f"no tree-sitter grammar for {shown}; known extensions: {known}")
    f, st = open_regular(target, shown)
    with f:
        if st.st_size > MAX_SOURCE_BYTES:
            raise ToolError(f"{shown} is {st.st_size} bytes, over the {MAX_SOURCE_BYTES} limit")
        source = f.read()
    if b"\x00" in source[:8192]:
        raise ToolError(f"{shown} is a binary file")
    parser = _parsers.get(lang)
    if parser is None:
        parser = _parsers[lang] = tslp.get_parser(lang)  # type: ignore[arg-type]
    return shown, lang, source, parser.parse(source)


def _is_definition(node: tree_sitter.Node) -> bool:
    kind = node.type
    if kind in _NEEDS_BODY:
        return node.child_by_field_name("body") is not None
    if kind in _DEFINITIONS or _GENERIC.match(kind):
        return True
    if kind == "variable_declarator":  # const f = () => ... / function () {...}
        value = node.child_by_field_name("value")
        return value is not None and value.type in (
            "arrow_function",
            "function",
            "function_expression",
        )
    return False


def _signature(node: tree_sitter.Node, source: bytes) -> str:
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None and body.start_byte > node.start_byte else None
    if end is None:
        end = source.find(b"\n", node.start_byte)
        end = node.end_byte if end == -1 else min(end, node.end_byte)
    text = source[node.start_byte : end].decode("utf-8", "replace")
    text = " ".join(text.split()).rstrip(" {:")
    return text if len(text) <= 200 else text[:200] + " …"


def get_code_skeleton(ws: Workspace, args: dict[str, Any]) -> Result:
    shown, lang, source, tree = _parse(ws, args["path"])
    lines: list[str] = []
    total = 0

    def visit(node: tree_sitter.Node, depth: int) -> None:
        nonlocal total
        for child in node.named_children:
            if _is_definition(child):
                total += 1
                if len(lines) < MAX_OUTLINE:
                    start, end = child.start_point[0] + 1, child.end_point[0] + 1
                    where = f"{start}-{end}" if end != start else f"{start}"
                    lines.append(f"{where:>9}  {'  ' * depth}{_signature(child, source)}")
                visit(child, depth + 1)
            else:
                visit(child, depth)

    visit(tree.root_node, 0)
    if total > MAX_OUTLINE:
        lines.append(f"[truncated: showing {MAX_OUTLINE} of {total} definitions]")
    errors = (
        " (the file has syntax errors; the outline may be partial)"
        if tree.root_node.has_error
        else ""
    )
    nlines = source.count(b"\n") + 1
    head = f"{shown} ({lang}, {nlines} lines){errors}"
    body = "\n".join(lines) if lines else "(no definitions found)"
    return Result(f"{head}\n{body}", {"language": lang, "definitions": total})


def query_ast(ws: Workspace, args: dict[str, Any]) -> Result:
    _shown, lang, source, tree = _parse(ws, args["path"])
    try:
        query = tree_sitter.Query(tslp.get_language(lang), args["query"])  # type: ignore[arg-type]
    except (tree_sitter.QueryError, ValueError) as exc:
        raise ToolError(f"bad tree-sitter query for {lang}: {exc}") from None
    captures = tree_sitter.QueryCursor(query).captures(tree.root_node)
    found = sorted(
        ((node.start_byte, name, node) for name, nodes in captures.items() for node in nodes),
        key=lambda c: (c[0], c[1]),
    )
    lines = []
    for _, name, node in found[:MAX_CAPTURES]:
        text = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        first = text.split("\n", 1)[0]
        more = " …" if "\n" in text or len(first) > 200 else ""
        row, col = node.start_point
        lines.append(f"{row + 1}:{col + 1} @{name} {node.type}: {first[:200]}{more}")
    if len(found) > MAX_CAPTURES:
        lines.append(f"[truncated: showing {MAX_CAPTURES} of {len(found)} captures]")
    out = "\n".join(lines) if found else "no captures"
    return Result(out, {"language": lang, "captures": len(found)})
