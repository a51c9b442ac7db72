"""The windows servers said their models have (see
:mod:`harness.conversation.context._window`), and the question in flight, which a
model round waits for a moment so the first request already carries the answer."""

from __future__ import annotations

import trio

__all__ = ["WINDOW_WAIT", "ServedWindows", "WindowKey"]

#: ``(provider, base_url, model)``: what a served window is known by
WindowKey = tuple[str, str, str]

#: seconds a round waits for the server's answer about the model's window
WINDOW_WAIT = 2.0


class ServedWindows:
    """What servers said of their models' windows in one conversation."""

    def __init__(self) -> None:
        self._known: dict[WindowKey, int] = {}
        self._asked: trio.Event | None = None

    def __contains__(self, key: WindowKey) -> bool:
        return key in self._known

    def get(self, key: WindowKey) -> int | None:
        """The window the server said the model *key* has (``None``: not said)."""
        return self._known.get(key)

    def learn(self, key: WindowKey, window: int) -> None:
        """The server said the model *key* has *window* tokens."""
        self._known[key] = window

    def expect(self, answered: trio.Event) -> None:
        """A server was asked; *answered* is set when it answered or failed."""
        self._asked = answered

    async def wait(self) -> None:
        """Wait for the question in flight a moment, never the answer's whole time."""
        asked = self._asked
        if asked is not None and not asked.is_set():
            with trio.move_on_after(WINDOW_WAIT):
                await asked.wait()
