"""Turn a command's raw terminal bytes into plain text a model (and a screen) can take.

Three stages, each streaming so a chunk boundary may fall anywhere:

- :class:`StreamDecoder`: UTF-8 first; at the first byte that is not UTF-8 it switches
  to the fallback encoding (the locale's) for the rest of that command.
- :class:`TerminalCleaner`: drops every escape sequence (CSI, OSC, DCS, 8-bit C1) and
  every other control character, and plays carriage-return redraws (progress bars) and
  backspaces so only the final state of a line is kept. Nothing it emits can move a
  cursor or rewrite a terminal.
- :class:`CappedText`: keeps the head and the tail of long output and counts what was
  cut between them.
"""

from __future__ import annotations

import codecs
import locale
import re
from collections import deque

__all__ = ["CappedText", "StreamDecoder", "TerminalCleaner", "default_fallback_encoding"]

# Complete escape sequences. CSI: ESC [ params intermediates final. OSC: ESC ] ... BEL
# or ST. DCS/SOS/PM/APC: ESC P|X|^|_ ... ST. Anything else: ESC intermediates final.
# The 8-bit forms (U+009B CSI, U+009D OSC) come out of a latin-1 style fallback decode.
_SEQUENCE = re.compile(
    r"""
    \x1b\[ [0-?]* [\ -/]* [@-~]
  | \x9b [0-?]* [\ -/]* [@-~]
  | \x1b\] [^\x07\x1b]* (?:\x07|\x1b\\)
  | \x9d [^\x07\x1b\x9c]* (?:\x07|\x1b\\|\x9c)
  | \x1b[PX^_] .*? \x1b\\
  | \x1b [\ -/]* [0-~]
    """,
    re.VERBOSE | re.DOTALL,
)
# An escape sequence cut off by the end of a chunk: held back until the next chunk.
_PARTIAL_TAIL = re.compile(
    r"""
    (?: \x1b (?: \[ [0-?]* [\ -/]* | \] [^\x07\x1b]* \x1b? | [PX^_] [^\x1b]* \x1b? | [\ -/]* )
      | \x9b [0-?]* [\ -/]*
      | \x9d [^\x07\x1b\x9c]*
    ) \Z
    """,
    re.VERBOSE | re.DOTALL,
)
# Control characters left after the sequences are gone; \t, \n, \r and \b are kept
# here because the line logic below plays them.
_CONTROL = re.compile(r"[\x00-\x07\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LINE_EVENTS = re.compile(r"[\r\n\x08]")
_MAX_PENDING = 4096


def default_fallback_encoding() -> str:
    """The locale's preferred encoding, the fallback for bytes that are not UTF-8."""
    return locale.getpreferredencoding(False) or "latin-1"


class StreamDecoder:
    """Incremental bytes -> text: UTF-8 until the first invalid byte, then *fallback*.

    Args:
        fallback: codec used for the rest of the stream once UTF-8 failed; invalid
            bytes in it become U+FFFD. Default: the locale's encoding.
    """

    def __init__(self, fallback: str | None = None) -> None:
        self.fallback = codecs.lookup(fallback or default_fallback_encoding()).name
        self._decoder: codecs.IncrementalDecoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.switched = False

    def decode(self, data: bytes, final: bool = False) -> str:
        """Decode the next chunk; *final* flushes a trailing partial character."""
        if self.switched:
            return self._decoder.decode(data, final)
        pending = self._decoder.getstate()[0]
        try:
            return self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            raw = pending + data
            good = raw[: exc.start].decode("utf-8")
            self._decoder = codecs.getincrementaldecoder(self.fallback)("replace")
            self.switched = True
            return good + self._decoder.decode(raw[exc.start :], final)


class TerminalCleaner:
    """Streaming filter from terminal text to plain lines.

    Feed text with :meth:`feed`; complete lines come back at once, the line being
    drawn is held (a ``\\r`` may still redraw it) until :meth:`flush_line`.

    Args:
        max_line: longest line held back; a longer one is emitted as it stands.
    """

    def __init__(self, max_line: int = 65536) -> None:
        self._pending = ""  # start of an escape sequence cut by the chunk boundary
        self._line: list[str] = []
        self._line_len = 0
        self._after_cr = False  # a \r ended the last chunk: redraw unless \n follows
        self._max_line = max_line

    def feed(self, text: str) -> str:
        """Take the next piece of terminal text; return the lines it completed."""
        text = self._pending + text
        self._pending = ""
        partial = _PARTIAL_TAIL.search(text)
        if partial is not None and len(text) - partial.start() <= _MAX_PENDING:
            self._pending = text[partial.start() :]
            text = text[: partial.start()]
        text = _CONTROL.sub("", _SEQUENCE.sub("", text))
        out: list[str] = []
        pos = 0
        for match in _LINE_EVENTS.finditer(text):
            self._add(text[pos : match.start()], out)
            pos = match.end()
            char = match.group()
            if char == "\n":
                self._after_cr = False
                out.append(self._take_line() + "\n")
            elif char == "\r":
                self._after_cr = True
            else:  # backspace erases the character before it
                self._resolve_cr()
                if self._line:
                    last = self._line[-1][:-1]
                    self._line_len -= 1
                    if last:
                        self._line[-1] = last
                    else:
                        self._line.pop()
        self._add(text[pos:], out)
        return "".join(out)

    def flush_line(self) -> str:
        """Return the line still being drawn (a prompt, a progress bar) and forget it."""
        return self._take_line()

    def _add(self, piece: str, out: list[str]) -> None:
        if not piece:
            return
        self._resolve_cr()
        self._line.append(piece)
        self._line_len += len(piece)
        if self._line_len >= self._max_line:
            out.append(self._take_line())

    def _resolve_cr(self) -> None:
        # A \r followed by anything but \n starts the line again (a redraw).
        if self._after_cr:
            self._after_cr = False
            self._line.clear()
            self._line_len = 0

    def _take_line(self) -> str:
        line = "".join(self._line)
        self._line.clear()
        self._line_len = 0
        return line


class CappedText:
    """Keeps the first *head* and last *tail* characters of a stream of text.

    What falls between is counted (characters and lines) and reported by
    :meth:`render` in one marker line.
    """

    def __init__(self, head: int = 6000, tail: int = 10000) -> None:
        self._head_cap = head
        self._tail_cap = tail
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self.total_chars = 0
        self.total_lines = 0

    def append(self, text: str) -> None:
        """Add text at the end."""
        if not text:
            return
        self.total_chars += len(text)
        self.total_lines += text.count("\n")
        room = self._head_cap - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
            if not text:
                return
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail_len - len(self._tail[0]) >= self._tail_cap:
            self._tail_len -= len(self._tail.popleft())

    @property
    def cut(self) -> bool:
        """Whether anything was dropped."""
        return self.total_chars > self._head_len + min(self._tail_len, self._tail_cap)

    def render(self) -> tuple[str, int, int]:
        """``(text, cut_chars, cut_lines)``; the cut is marked inside the text."""
        head = "".join(self._head)
        tail = "".join(self._tail)
        if self._tail_len > self._tail_cap:
            tail = tail[self._tail_len - self._tail_cap :]
        kept = len(head) + len(tail)
        if kept >= self.total_chars:
            return head + tail, 0, 0
        # Cut on line boundaries where there are some, so no half lines are shown.
        end = head.rfind("\n")
        if end >= len(head) // 2:
            head = head[: end + 1]
        start = tail.find("\n")
        if 0 <= start < len(tail) // 2:
            tail = tail[start + 1 :]
        cut_chars = self.total_chars - len(head) - len(tail)
        cut_lines = self.total_lines - head.count("\n") - tail.count("\n")
        if not head.endswith("\n"):
            head += "\n"
        marker = f"[... {cut_lines} lines ({cut_chars} characters) cut ...]\n"
        return head + marker + tail, cut_chars, cut_lines
