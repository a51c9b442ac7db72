"""Streaming markdown: settled blocks are rendered once, only the growing tail is live.

Re-rendering a whole answer on every token costs O(n) per token and O(n²) per
answer. :class:`MarkdownStream` splits the text into blocks as it arrives (a
blank line ends a paragraph, a list or a table; a heading is a block of its own;
a fenced code block ends at its closing fence) and hands each finished block to
``emit`` exactly once. What is still growing, the *tail*, is bounded: a
paragraph longer than ``max_block_lines`` is settled early, and a long code block
is settled in chunks of ``code_chunk_lines`` lines, so the cost of drawing the
tail does not grow with the answer.

Code blocks are drawn by :func:`code_block` (not by rich's Markdown) so a block
settled in chunks looks like one block.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from rich.console import RenderableType
from rich.markdown import Markdown
from rich.syntax import Syntax
from rich.text import Text

from harness.cli.tui._sanitize import clean

__all__ = ["MarkdownStream", "code_block", "markdown"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)")
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
_RULE = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")

CODE_THEME = "monokai"


class _Markdown(Markdown):
    """rich's Markdown with one shared parser.

    rich builds a new markdown-it parser per ``Markdown`` (about 1 ms, more than
    parsing a paragraph); a stream builds one per block and per redraw of the tail.
    Links are shown as text with their address, never as terminal hyperlinks,
    since the address came from the model.
    """

    _parser: MarkdownIt | None = None

    def __init__(self, markup: str, code_theme: str = CODE_THEME) -> None:
        cls = type(self)
        if cls._parser is None:
            cls._parser = MarkdownIt().enable("strikethrough").enable("table")
        self.markup = markup
        self.parsed = cls._parser.parse(markup)
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme


@functools.lru_cache(maxsize=64)
def _lexer(name: str) -> Lexer:
    # pygments' lookup by name scans its registry (~0.4 ms); a stream asks per redraw.
    from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
    from pygments.util import ClassNotFound  # type: ignore[import-untyped]

    try:
        return get_lexer_by_name(name or "text")
    except ClassNotFound:
        return get_lexer_by_name("text")


def code_block(code: str, lexer: str, theme: str = CODE_THEME) -> RenderableType:
    """A syntax-highlighted code block with no vertical padding (chunks join up)."""
    return Syntax(
        code.rstrip("\n"),
        _lexer(lexer.lower()),
        theme=theme,
        word_wrap=True,
        padding=(0, 1),
    )


class MarkdownStream:
    """Turns a stream of text deltas into settled renderables plus a live tail.

    Args:
        emit: called once per settled block with the renderable to print.
        max_block_lines: a block outside code fences is settled once it has this
            many lines even without a blank line (default 24).
        code_chunk_lines: an open code block is settled in chunks of this many
            lines (default 40).
        max_line_chars: a single line longer than this is broken at a space and
            settled (default 2000), so even one huge line stays linear.
        code_theme: the pygments theme for code blocks.
    """

    def __init__(
        self,
        emit: Callable[[RenderableType], None],
        *,
        max_block_lines: int = 24,
        code_chunk_lines: int = 40,
        max_line_chars: int = 2000,
        code_theme: str = CODE_THEME,
    ) -> None:
        self._emit = emit
        self._max_block_lines = max_block_lines
        self._code_chunk_lines = code_chunk_lines
        self._max_line_chars = max_line_chars
        self._theme = code_theme
        self._partial = ""  # the incomplete last line
        self._block: list[str] = []  # complete lines of the block being built
        self._fence: str | None = None  # the opening fence marker while inside one
        self._lexer = ""
        self._blocks_emitted = 0
        self._chars = 0
        self._in_code_run = False  # the last block emitted was a chunk of the open fence

    @property
    def chars(self) -> int:
        """How many characters have been fed so far."""
        return self._chars

    @property
    def blocks_emitted(self) -> int:
        """How many settled renderables have been emitted so far."""
        return self._blocks_emitted

    def feed(self, text: str) -> None:
        """Add a delta; settle every block it completes."""
        text = clean(text)
        if not text:
            return
        self._chars += len(text)
        data = self._partial + text
        lines = data.split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line)
        while len(self._partial) > self._max_line_chars:
            cut = self._partial.rfind(" ", 0, self._max_line_chars)
            cut = cut if cut > 0 else self._max_line_chars
            head, self._partial = self._partial[:cut], self._partial[cut:].lstrip(" ")
            self._line(head)
            if self._fence is None:
                self._settle()

    def finish(self) -> None:
        """Settle everything left (the answer is complete)."""
        if self._partial:
            self._line(self._partial)
            self._partial = ""
        self._settle()
        self._fence = None

    def tail(self) -> RenderableType | None:
        """The renderable for the part still growing (``None`` when there is none)."""
        if self._fence is not None:
            code = "\n".join([*self._block, self._partial])
            return code_block(code, self._lexer, self._theme) if code.strip() else None
        text = "\n".join([*self._block, self._partial]) if self._block else self._partial
        if not text.strip():
            return None
        return _Markdown(text, code_theme=self._theme)

    # -- internals ---------------------------------------------------------------------

    def _line(self, line: str) -> None:
        if self._fence is not None:
            stripped = line.strip()
            mark = self._fence[0]
            closes = stripped and set(stripped) == {mark} and len(stripped) >= len(self._fence)
            if closes:
                self._settle()
                self._fence, self._in_code_run = None, False
                return
            self._block.append(line)
            if len(self._block) >= self._code_chunk_lines:
                self._settle()
            return
        fence = _FENCE.match(line)
        if fence:
            self._settle()
            self._fence, self._lexer = fence.group(1), fence.group(2)
            self._in_code_run = False
            return
        if not line.strip():
            self._settle()
            return
        if _HEADING.match(line) or _RULE.match(line):
            self._settle()
            self._block.append(line)
            self._settle()
            return
        self._block.append(line)
        if len(self._block) >= self._max_block_lines and not line.lstrip().startswith("|"):
            self._settle()

    def _settle(self) -> None:
        if not self._block:
            return
        lines, self._block = self._block, []
        if self._fence is not None:
            renderable: RenderableType = code_block("\n".join(lines), self._lexer, self._theme)
            # Chunks of one code block join up: no blank line between them.
            spaced = self._blocks_emitted > 0 and not self._in_code_run
            self._in_code_run = True
        else:
            renderable = _Markdown("\n".join(lines), code_theme=self._theme)
            spaced = self._blocks_emitted > 0
            self._in_code_run = False
        if spaced:
            self._emit(Text(""))
        self._emit(renderable)
        self._blocks_emitted += 1


def markdown(text: str) -> RenderableType:
    """*text* (from the model) drawn as markdown, links shown as text."""
    return _Markdown(clean(text))
