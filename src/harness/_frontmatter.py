"""A small reader for the YAML frontmatter of skill files.

Skill files start with a ``---`` block of simple YAML: ``key: value`` pairs,
quoted strings, inline lists (``[a, b]``), block lists (``- a``) and folded or
literal block scalars (``>`` / ``|``). That subset is all skills use, so a full
YAML parser (and its import time) is not needed; anything outside it is an
error with the line number.
"""

from __future__ import annotations

from typing import Any

from harness.errors import ConfigError

__all__ = ["FrontmatterError", "split_frontmatter"]


class FrontmatterError(ConfigError, ValueError):
    """The frontmatter block is not the simple YAML this reader understands."""


def _scalar(raw: str) -> Any:
    raw = raw.strip()
    if not raw:
        return ""
    if raw[0] in "\"'" and raw[-1] == raw[0] and len(raw) >= 2:
        inner = raw[1:-1]
        return inner.replace("''", "'") if raw[0] == "'" else inner.replace('\\"', '"')
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1].strip()
        return [_scalar(p) for p in inner.split(",")] if inner else []
    if " #" in raw:
        raw = raw.split(" #", 1)[0].rstrip()
    low = raw.lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    if low in ("null", "~"):
        return None
    return raw


def _parse(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t" or ":" not in line:
            raise FrontmatterError(f"frontmatter line {i}: expected 'key: value', got {line!r}")
        key, _, rest = line.partition(":")
        key, rest = key.strip(), rest.strip()
        if rest in (">", "|", ">-", "|-", ">+", "|+"):
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t"):
                block.append(lines[i].strip())
                i += 1
            out[key] = ("\n" if rest[0] == "|" else " ").join(block).strip()
        elif rest == "":
            items: list[Any] = []
            while i < len(lines) and lines[i].lstrip().startswith("- "):
                items.append(_scalar(lines[i].lstrip()[2:]))
                i += 1
            out[key] = items if items else ""
        else:
            out[key] = _scalar(rest)
    return out


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """The frontmatter fields of *text* and the body after it.

    Text without a leading ``---`` block has no fields; the whole text is the body.

    Raises:
        FrontmatterError: the block is not closed, or a line is not understood.
    """
    text = text.lstrip("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            fields = _parse([ln.rstrip("\r") for ln in lines[1:end]])
            return fields, "\n".join(lines[end + 1 :]).lstrip("\n")
    raise FrontmatterError("frontmatter starts with '---' but is never closed")
