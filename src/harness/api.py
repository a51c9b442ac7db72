"""The Python API: the same engine as the terminal and headless mode, without a terminal.

Everything is async, under trio::

    import trio
    from harness.api import open_session

    async def main() -> None:
        async with open_session(workspace=".", provider="openai", model="gpt-4o-mini",
                                permission_mode="auto") as session:
            result = await session.run("add a docstring to util.py")
            print(result.ok, result.text)

            # events as they happen
            async for event in session.stream("now run the tests"):
                print(event.TAG)

    trio.run(main)

Extra tools run in your process; a terminating tool ends the run when it succeeds::

    async def submit(args: dict) -> str:
        return f"submitted {args['answer']}"

    session.register_tool("submit", "Submit the final answer.",
                          {"type": "object", "properties": {"answer": {"type": "string"}},
                           "required": ["answer"]},
                          submit, terminating=True)

Approvals: pass ``approver=`` (an async function taking an :class:`ApprovalRequest`
and returning ``"yes"``, ``"no"`` or ``"always"``); without one, calls that would
ask are denied (use ``permission_mode="auto"`` or ``allow=`` rules to let them run).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio

from harness.conversation import events
from harness.conversation._budget import ContextSettings
from harness.conversation._ports import ApprovalRequest, Approver, Decision, FrontendPort
from harness.conversation._session import LiveSession, SessionOptions
from harness.conversation._session import open_session as _open_session
from harness.conversation._store import (
    SessionInfo,
    SessionNotFound,
    SessionStore,
    export_json,
    export_markdown,
)
from harness.home import harness_home
from harness.messages.tools import ToolOutcome

__all__ = [
    "ApprovalRequest",
    "Approver",
    "ContextSettings",
    "Decision",
    "Session",
    "SessionInfo",
    "SessionNotFound",
    "SessionOptions",
    "ToolOutcome",
    "events",
    "export_json",
    "export_markdown",
    "list_sessions",
    "open_session",
]


class Session:
    """An open session (see :func:`open_session`)."""

    def __init__(self, live: LiveSession) -> None:
        self._live = live

    @property
    def id(self) -> str:
        """The session id (give it to ``resume=`` later)."""
        return self._live.id

    @property
    def live(self) -> LiveSession:
        """The underlying live session (history, engine, status)."""
        return self._live

    async def run(self, prompt: str) -> events.Result:
        """Run *prompt* to its end; the ``result`` event."""
        return await self._live.run(prompt)

    async def stream(self, prompt: str) -> AsyncIterator[events.ConversationEvent]:
        """Run *prompt* and yield every event as it happens, ``result`` last.

        Leaving the loop early cancels the run.
        """
        channel = self._live.events()
        async with trio.open_nursery() as nursery:

            async def runner() -> None:
                await self._live.run(prompt)

            nursery.start_soon(runner)
            try:
                # ``result`` is always the run's last event
                async for event in channel:
                    yield event
                    if isinstance(event, events.Result):
                        break
            finally:
                if self._live.conversation.running:
                    self._live.cancel()
                channel.close()

    def cancel(self) -> None:
        """Cancel the running prompt (its stream and tools stop at once)."""
        self._live.cancel()

    def post(self, text: str) -> None:
        """Add a user message to the running prompt; it joins at the next model request."""
        self._live.post(text)

    def events(self) -> trio.MemoryReceiveChannel[events.ConversationEvent]:
        """A channel of every event from now on (close it when done)."""
        return self._live.events()

    def register_tool(self, *args: Any, **kwargs: Any) -> None:
        """Add a tool run in this process (see :meth:`LiveSession.register_tool`)."""
        self._live.register_tool(*args, **kwargs)

    def set_title(self, title: str) -> None:
        """Name the session (``resume=`` accepts the title)."""
        self._live.set_title(title)

    async def compact(self) -> bool:
        """Summarise the history now; whether it did."""
        return await self._live.conversation.compact()


@asynccontextmanager
async def open_session(
    *,
    approver: Approver | None = None,
    frontend: FrontendPort | None = None,
    model: str | None = None,
    **options: Any,
) -> AsyncIterator[Session]:
    """Open a session (its workers start; all stop on exit).

    Keyword arguments are the fields of :class:`SessionOptions` (``workspace``,
    ``provider``, ``models``, ``base_url``, ``permission_mode``, ``max_turns``,
    ``verify``, ``resume`` ...); ``model="x"`` is short for ``models=("x",)``.

    Raises:
        SessionNotFound: ``resume`` names no session of the workspace.
        ValueError: a bad option.
    """
    if model is not None:
        options["models"] = (model,)
    opts = SessionOptions(**options)
    async with _open_session(opts, approver=approver, frontend=frontend) as live:
        yield Session(live)


def list_sessions(workspace: str = ".", home: str | None = None) -> list[SessionInfo]:
    """The sessions of *workspace*, newest activity first."""
    from pathlib import Path

    return SessionStore(Path(home) if home else harness_home(), Path(workspace)).list()
