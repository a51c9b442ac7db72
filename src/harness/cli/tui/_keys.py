"""Keys while a response runs: a thread reads the terminal byte by byte.

prompt_toolkit owns the terminal only while the prompt is open. While the model
answers, this reader puts the terminal in a raw-ish mode (no echo, no line
buffering, no signal keys) and reports whole keys: ``"esc"`` for a lone Escape
(an escape *sequence*, such as an arrow key, is swallowed), ``"c-c"``, ``"c-d"``,
``"enter"``, ``"backspace"``, or the character typed. The terminal's mode is restored
on stop (all but its CR->LF translation: see stop). The thread waits on the
terminal and on a pipe that stop() writes to, never on a timer.
"""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["KeyReader", "decode_keys", "keep_enter_a_return"]

_ESC_WAIT = 0.03  # a lone ESC is followed by nothing within this time


def decode_keys(data: bytes) -> list[str]:
    """The keys in one burst of terminal input (escape sequences dropped)."""
    keys: list[str] = []
    i = 0
    while i < len(data):
        b = data[i]
        if b == 0x1B:
            if i + 1 == len(data):
                keys.append("esc")
                i += 1
                continue
            # CSI/SS3 sequences: ESC [ ... final, ESC O x; anything else: ESC + one char.
            j = i + 1
            if data[j] in b"[O":
                j += 1
                while j < len(data) and not (0x40 <= data[j] <= 0x7E):
                    j += 1
            i = j + 1
            continue
        if b == 0x03:
            keys.append("c-c")
        elif b == 0x04:
            keys.append("c-d")
        elif b in (0x0D, 0x0A):
            keys.append("enter")
        elif b in (0x7F, 0x08):
            keys.append("backspace")
        elif b >= 0x20:
            # a UTF-8 character may span bytes; decode leniently, one key per char
            end = i + 1
            while end < len(data) and 0x80 <= data[end] < 0xC0:
                end += 1
            keys.append(data[i:end].decode("utf-8", "replace"))
            i = end
            continue
        i += 1
    return keys


def keep_enter_a_return(fd: int) -> None:
    """Leave the terminal on *fd* in line mode but with Enter untranslated (no
    ``ICRNL``): keys typed before the next prompt takes them keep Enter a carriage
    return, which the prompt reads as Enter, not as Ctrl+J. The interactive terminal
    restores the translation when it exits. Nothing happens when *fd* is no terminal."""
    if not os.isatty(fd):
        return
    import termios

    mode = termios.tcgetattr(fd)
    if mode[0] & termios.ICRNL:
        mode[0] &= ~termios.ICRNL
        termios.tcsetattr(fd, termios.TCSANOW, mode)


class KeyReader:
    """Reads keys from a terminal fd on a thread and hands them to *on_key*.

    Args:
        on_key: called on the reader thread with each key; it must be thread-safe
            (the app passes ``trio_token.run_sync_soon``-wrapped callbacks).
        fd: the terminal (default stdin). Not a terminal: nothing is read.
    """

    def __init__(self, on_key: Callable[[str], None], fd: int | None = None) -> None:
        self._on_key = on_key
        self._fd = 0 if fd is None else fd
        self._wake: tuple[int, int] | None = None  # a pipe: written to stop the thread
        self._thread: threading.Thread | None = None
        self._saved: list[Any] | None = None

    def start(self) -> None:
        """Switch the terminal to raw-ish mode and start reading."""
        if self._thread is not None or not os.isatty(self._fd):
            return
        import termios

        self._saved = termios.tcgetattr(self._fd)
        mode = termios.tcgetattr(self._fd)
        mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
        mode[0] &= ~termios.ICRNL  # Enter stays a carriage return (see stop)
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(self._fd, termios.TCSANOW, mode)
        self._wake = os.pipe()
        self._thread = threading.Thread(
            target=self._loop, args=(self._wake[0],), name="harness-keys", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop reading and restore the terminal (idempotent)."""
        thread, self._thread = self._thread, None
        wake, self._wake = self._wake, None
        if thread is not None and wake is not None:
            os.write(wake[1], b"x")
            thread.join(timeout=1)
            os.close(wake[1])
            if not thread.is_alive():
                os.close(wake[0])  # else the thread still selects on it; it is left open
        if self._saved is not None:
            import termios

            # Back to line mode, but an Enter typed from now until the next prompt
            # takes the keys must stay a carriage return: translated to a line
            # feed, it would reach the prompt as Ctrl+J and add a line instead of
            # sending it. The interactive terminal restores the translation when
            # it exits.
            mode = list(self._saved)
            mode[0] &= ~termios.ICRNL
            termios.tcsetattr(self._fd, termios.TCSANOW, mode)
            self._saved = None

    def _loop(self, wake: int) -> None:
        while True:
            ready, _, _ = select.select([self._fd, wake], [], [])
            if wake in ready:
                return
            try:
                data = os.read(self._fd, 1024)
            except OSError:
                return
            if not data:
                return
            if data.endswith(b"\x1b"):
                # maybe the start of a sequence: wait briefly for the rest
                more, _, _ = select.select([self._fd], [], [], _ESC_WAIT)
                if more:
                    data += os.read(self._fd, 1024)
            for key in decode_keys(data):
                self._on_key(key)
