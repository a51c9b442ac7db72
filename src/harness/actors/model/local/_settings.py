"""Which setting a line of a structured file is: the keys it sits under.

A search lists ``config.json:12:      "retries": 2,`` three times over, once for each
service; which service's it is, the file says only in the lines above (``"email": {``).
:func:`key_path` reads those lines off a file as a read shows it, by indentation (JSON,
YAML, a Python dict) and by the table a TOML or INI file's line sits in, so a rule can
choose the line a request means ("the email service's retries") where the line alone
does not say."""

from __future__ import annotations

import re

__all__ = ["LISTS_TABLES", "STRUCTURED", "TABLES", "key_path", "numbered_lines", "table_of"]

#: files whose lines' meaning is said by the keys above them
STRUCTURED = re.compile(r"\.(?:json|ya?ml|toml|ini|cfg|conf)$")
# a read's line: its number and hash, then the line ("12:a3|  \"retries\": 2,")
_NUMBERED = re.compile(r"^(\d+):[0-9a-f]{2}\|(.*)$", re.M)
# a TOML or INI table, at the left edge: "[mail]", "[services.stock]", "[[servers]]"
_TABLE = re.compile(r"^\[\[?\s*[\w.\-\"' ]+?\s*\]\]?\s*(?:#.*)?$")
_BLANK_OR_COMMENT = re.compile(r"^\s*(?:$|#|//)")
#: files whose settings sit in tables at the left edge (``[pump]``)
TABLES = re.compile(r"\.(?:toml|ini|cfg|conf)$")
#: a search's alternative that lists each table's header too, so that the lines a search
#: finds in such a file are known by their table with no read (a regular expression
#: ripgrep reads too)
LISTS_TABLES = r"|^\[[\w.\- ]+\]\s*$"


def numbered_lines(result: str) -> dict[int, str]:
    """The lines a read's *result* shows, by number."""
    return {int(n): text for n, text in _NUMBERED.findall(result)}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def key_path(lines: dict[int, str], number: int) -> list[str]:
    """The lines that open what line *number* of *lines* sits in, outermost first: each
    line above it with less indentation than any line between (``"services": {``,
    ``"email": {``, a YAML list item's ``- name: hold-ready``), and in a TOML or INI file
    the table it is in (``[mail]``). ``[]`` for a line at the top level, or not shown."""
    if number not in lines:
        return []
    opened: list[str] = []
    depth = _indent(lines[number])
    for n in range(number - 1, 0, -1):
        line = lines.get(n)
        if line is None:
            break  # not shown: what is above it is not known
        if _TABLE.match(line):
            opened.append(line.strip())
            break
        if _BLANK_OR_COMMENT.match(line) or _indent(line) >= depth:
            continue
        depth = _indent(line)
        opened.append(line.strip())
    return opened[::-1]


def table_of(headers: list[tuple[int, str]], number: int) -> str:
    """The header of the table line *number* sits in, of a file's *headers* (each with its
    line number, as a search listed them), or ""."""
    above = [header for n, header in headers if n < number]
    return above[-1] if above else ""
