"""The keyboard while no prompt is open: what each key does during a run or an approval.

prompt_toolkit owns the terminal only while the prompt is open. During a run a
:class:`~harness.cli.tui._keys.KeyReader` thread reads the keys and they are
routed here, on trio's thread: Esc or Ctrl+C cancels the response; a line typed
ahead joins the running task (through its inbox), or, when it is a slash command
or there is no run to join, waits for the next prompt; an unfinished line
prefills the next prompt. While an approval is asked, every key goes to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import trio
from rich.console import Console
from rich.text import Text

from harness.cli.tui._commands import is_command
from harness.cli.tui._sanitize import clean_line

if TYPE_CHECKING:
    from harness.cli.tui._keys import KeyReader

# The key reader and the approval keys are imported when first used: the app
# builds this before the first prompt is on the screen.

__all__ = ["RunKeys"]


class RunKeys:
    """Routes the keys read while no prompt is open.

    Args:
        console: where a line typed ahead is acknowledged.
        cancel: stops the running response (Esc, Ctrl+C).
        post: adds a finished line to the running task; ``False`` when there is no
            run to join (the line then waits for the next prompt).
        fd: the terminal to read (default stdin).
    """

    def __init__(
        self,
        console: Console,
        *,
        cancel: Callable[[], None],
        post: Callable[[str], bool],
        fd: int | None = None,
    ) -> None:
        self.console = console
        self._cancel = cancel
        self._post = post
        self._fd = fd
        self._reader: KeyReader | None = None
        self._approval: trio.MemorySendChannel[str] | None = None
        #: the unfinished line typed during a run: the next prompt starts with it
        self.typeahead = ""
        #: finished lines that wait for the next prompt, oldest first
        self.queued: list[str] = []

    def start(self) -> None:
        """Start reading the terminal's keys (call on trio's thread)."""
        from harness.cli.tui._keys import KeyReader

        self._reader = KeyReader(self._deliver(trio.lowlevel.current_trio_token()), self._fd)
        self._reader.start()

    @property
    def reading(self) -> bool:
        """Whether the terminal's keys are being read now."""
        return self._reader is not None

    def stop(self) -> None:
        """Stop reading and give the terminal back (idempotent)."""
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.stop()

    async def settled(self) -> None:
        """Wait until every key already read has been acted on.

        The reader thread hands keys over with ``run_sync_soon``; a line typed
        just as a run ends can still be on its way when the reader is stopped.
        Callbacks run in the order they were scheduled, so once this one has run,
        so have they: the Enter of that line is not lost to a prompt that took
        the line's first characters as its prefill.
        """
        done = trio.Event()
        trio.lowlevel.current_trio_token().run_sync_soon(done.set)
        await done.wait()

    async def decision(self) -> Literal["yes", "no", "always"]:
        """Wait for an approval key: ``yes``, ``always``, or ``no`` (also Enter, Esc,
        Ctrl+C). Reads the keys for the wait when no run is reading them."""
        from harness.cli.tui._approval import decision_for_key

        send, recv = trio.open_memory_channel[str](64)
        decision: Literal["yes", "no", "always"] | None = None
        started_here = self._reader is None
        if started_here:
            self.start()
        self._approval = send
        try:
            async with recv:
                async for key in recv:
                    decision = decision_for_key(key)
                    if decision is not None:
                        break
        finally:
            self._approval = None
            if started_here:
                self.stop()
        return decision or "no"

    def _deliver(self, token: trio.lowlevel.TrioToken) -> Callable[[str], None]:
        def deliver(key: str) -> None:
            try:
                token.run_sync_soon(self.on_key, key)
            except trio.RunFinishedError:
                pass

        return deliver

    def _note(self, text: str) -> None:
        self.console.print(Text(text, style="dim"))

    def on_key(self, key: str) -> None:
        """Act on one key (on trio's thread)."""
        if self._approval is not None:
            try:
                self._approval.send_nowait(key)
            except (trio.WouldBlock, trio.ClosedResourceError):
                pass
            return
        if key in ("esc", "c-c"):
            self._cancel()
            return
        if key == "backspace":
            self.typeahead = self.typeahead[:-1]
        elif key == "enter":
            line, self.typeahead = self.typeahead, ""
            if not line.strip():
                return
            if is_command(line) or not self._post(line):
                self.queued.append(line)
                self._note(f"  ↳ after this answer: {clean_line(line)}")
            else:
                self._note(f"  ↳ added to the running task: {clean_line(line)}")
        elif len(key) == 1:
            self.typeahead += key
