"""Noticing a reply that has started to repeat itself, so generation stops there.

A small model can write the same lines over and over to the output limit, minutes of
generation under load. A prose line of some length written for the fourth time is such a
loop. In a fenced block, where code repeats lines for good reasons, it is the eighth time.
Inside a tool call (from its tag, or from the JSON a call opens with) a file body is the
user's: only the same line :data:`BODY_RUN` times in a row is a loop there, and in a call
of a tool whose arguments hold no body (a read, a search, a command) a piece repeated
inside one line, as in code. A run of empty lines is a loop anywhere. A loop can also stay
inside one line: the model once wrote a regular expression whose one piece of 33
characters came again and again, 4,000 characters to the output limit, before any call.
The line being written whose last :data:`PIECE_RUN` characters are one piece of at most
:data:`PIECE` characters over and over is such a loop (in a fence,
:data:`PIECE_RUN_IN_CODE`). What was measured is in ``docs/models.md``.

A loop seen inside a call leaves that call cut off: :attr:`LoopWatch.finish` is then
``looped``, which the conversation ends as it ends a reply cut at the output limit (no call
of the reply runs), never ``stop``, which would read the cut call, repair it, and run it.
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["LoopWatch"]

MIN_CHARS = 16
"""Shorter lines ("```", "}", "**Step**:") repeat in good replies."""

TIMES = 4
"""The same line this many times is a loop."""

TIMES_IN_CODE = 8
"""The same line this many times in a fenced block is a loop."""

BLANK_RUN = 12
"""Empty lines in a row that are a loop, in prose or code."""

BODY_RUN = 24
"""The same line (of at least :data:`MIN_CHARS`; shorter ones are passed over) this many times
in a row inside a call is a loop. The 8,065 text files under 300 KB of the Python packages
the project installs, each fed to the watch as a written file's body, stop it nowhere; the
longest such run in them is 21 (a C table of ``0xffffffff``), every other one under 16. A
loop the 1.5B wrote into a page (the fresh set's create-running-page) went on to the output
limit, 198 s."""

PIECE = 64
"""The longest piece whose repetition inside one line is looked for."""

PIECE_RUN = 256
"""Characters at the end of the line being written that, made of one piece repeated (at
least four times: 256 / 64), are a loop. Good lines hold far fewer: in the lines of 100
characters or more of the 6,942 text files of the Python packages the project installs,
the longest such run is 136 characters (minified JavaScript); in this repository's own
files, every one is under 100 but an SVG's run of spaces written as entities, which a
reply would write only inside a call."""

PIECE_RUN_IN_CODE = 512
"""The same in a fenced block, where a literal may repeat a piece ("0, 0, 0, ...")."""

# where a call opens: its tags, or the JSON the call grammar triggers on ({"name": ...)
_CALL_OPENS = re.compile(r'<tool_call>|<content>|<old_content>|<new_content>|\{\s*"name"\s*:')
# the tool a call names
_CALL_NAME = re.compile(r'"name"\s*:\s*"(\w+)"')
# tools whose arguments hold no file body: a piece repeated in one of their lines is the
# model's loop, not the user's text (measured: a search_text call, asked for by a nudge,
# whose pattern grew one piece to the output limit)
_NO_BODY = frozenset({"read_file", "search_text", "find_files", "list_dir", "run_cmd"})


class LoopWatch:
    """Fed the reply piece by piece; says when a prose line comes for the :data:`TIMES`-th
    time, or the line being written ends in one piece repeated (:data:`PIECE_RUN`)."""

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()
        self._line = ""
        self._in_fence = False
        self._in_call = False
        self._blank = 0
        self._before = ""  # the last lines written, where a call may have started to open
        self._line_calls = False  # whether a call opened on the line being written
        self._call = ""  # the tool the call being written names, once it is known
        self._last = ""  # the last line ended inside a call, and how often it came in a row
        self._run = 0

    @property
    def finish(self) -> str:
        """How a reply the watch stopped ends: ``looped`` if a call was being written (the
        call is cut, and must not run), else ``stop``."""
        return "looped" if self._in_call or self._line_calls else "stop"

    def looping(self, piece: str) -> bool:
        """Whether the lines *piece* completes, or the line it continues, make the reply a
        loop."""
        *done, self._line = (self._line + piece).split("\n")
        if done:
            self._line_calls = False
        for line in done:
            text = line.strip()
            self._blank = 0 if text else self._blank + 1
            if self._blank >= BLANK_RUN:
                return True
            if text.startswith("```"):
                self._in_fence = not self._in_fence
                continue
            # a JSON call opens over lines, pretty-printed ("{", then '"name": ...')
            self._before = "\n".join([*self._before.split("\n")[-2:], text])
            self._in_call = self._in_call or _CALL_OPENS.search(self._before) is not None
            if len(text) < MIN_CHARS:
                continue
            if self._in_call:
                self._run = self._run + 1 if text == self._last else 1
                self._last = text
                if self._run >= BODY_RUN:
                    return True
                continue
            self._seen[text] += 1
            if self._seen[text] >= (TIMES_IN_CODE if self._in_fence else TIMES):
                return True
        return self._repeats_within(len(piece))

    def _repeats_within(self, added: int) -> bool:
        """Whether the line being written, *added* characters longer, ends in one short
        piece repeated (not in a call: a call may open on this line, and its body is the
        user's)."""
        line = self._line
        if not self._line_calls:
            # an opening is a few characters: only the line's new end can hold one now, and
            # a line of 17,000 characters searched whole at every token cost 0.2 ms a token
            near = f"{self._before}\n{line}" if len(line) <= added + 64 else line[-added - 64 :]
            self._line_calls = _CALL_OPENS.search(near) is not None
        run = PIECE_RUN_IN_CODE if self._in_fence else PIECE_RUN
        if self._in_call or self._line_calls:
            if not self._call:  # the name follows the opening within a few tokens
                named = _CALL_NAME.search(f"{self._before}\n{line[-added - 300 :]}")
                self._call = named.group(1) if named else ""
            if self._call not in _NO_BODY:
                return False
            run = PIECE_RUN_IN_CODE
        if len(line) < run:
            return False
        tail = line[-run:]
        # the tail repeats a piece of p characters when it equals itself shifted by p
        return any(tail[p:] == tail[:-p] for p in range(1, PIECE + 1))
