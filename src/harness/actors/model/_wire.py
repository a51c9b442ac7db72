"""Incremental parsers for the two streaming wire formats: SSE and NDJSON.

Both take bytes as they arrive, in pieces of any size (a piece may end mid-line or
mid-character), and return what has become complete. Neither ever raises on bad input:
a line that is not JSON becomes a :class:`BadLine` for the provider to judge.
"""

from __future__ import annotations

from typing import Any

import attrs
import orjson

__all__ = ["BadLine", "NdjsonParser", "SseEvent", "SseParser"]


@attrs.frozen
class SseEvent:
    """One server-sent event: its ``event`` name (``message`` by default) and ``data``."""

    event: str
    data: str


@attrs.frozen
class BadLine:
    """An NDJSON line that is not JSON."""

    line: str
    error: str


class _Lines:
    """Split bytes into lines (``\\n``, ``\\r\\n`` or ``\\r``), keeping the unfinished tail."""

    def __init__(self) -> None:
        self._tail = b""

    def feed(self, data: bytes) -> list[bytes]:
        buf = self._tail + data
        if b"\r" in buf:
            # A lone CR at the very end may be the first half of CRLF: keep it.
            hold_cr = buf.endswith(b"\r")
            if hold_cr:
                buf = buf[:-1]
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if hold_cr:
                buf += b"\r"
        lines = buf.split(b"\n")
        self._tail = lines.pop()
        return lines

    def rest(self) -> bytes:
        tail, self._tail = self._tail, b""
        return tail.rstrip(b"\r")


class SseParser:
    """Server-sent events, per the WHATWG rules: ``data:`` lines joined by newlines,
    comments (``:``) and unknown fields ignored, an event dispatched at a blank line."""

    def __init__(self) -> None:
        self._lines = _Lines()
        self._event = ""
        self._data: list[str] = []

    def feed(self, data: bytes) -> list[SseEvent]:
        """Take the next bytes; return the events they complete."""
        out: list[SseEvent] = []
        for raw in self._lines.feed(data):
            self._line(raw, out)
        return out

    def close(self) -> list[SseEvent]:
        """The stream ended: dispatch an event whose lines were whole but lacked the final
        blank line. A line cut off mid-way is dropped: the stream was truncated there."""
        out: list[SseEvent] = []
        self._lines.rest()
        self._line(b"", out)
        return out

    def _line(self, raw: bytes, out: list[SseEvent]) -> None:
        if not raw:
            if self._data:
                out.append(SseEvent(self._event or "message", "\n".join(self._data)))
            self._event, self._data = "", []
            return
        line = raw.decode("utf-8", "replace")
        if line.startswith(":"):
            return
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value


class NdjsonParser:
    """Newline-delimited JSON: one value a line, blank lines skipped."""

    def __init__(self) -> None:
        self._lines = _Lines()

    def feed(self, data: bytes) -> list[Any]:
        """Take the next bytes; return the values (or :class:`BadLine`) they complete."""
        return [self._decode(line) for line in self._lines.feed(data) if line.strip()]

    def close(self) -> list[Any]:
        """The stream ended: decode a last line that had no newline, when it is whole
        (a line cut off mid-way is dropped: the stream was truncated there)."""
        rest = self._lines.rest()
        if not rest.strip():
            return []
        value = self._decode(rest)
        return [] if isinstance(value, BadLine) else [value]

    @staticmethod
    def _decode(line: bytes) -> Any:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            return BadLine(line.decode("utf-8", "replace"), str(exc))
