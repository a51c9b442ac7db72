"""Driving ``harness acp`` as a real subprocess with the official Python SDK's client side.

:func:`agent` starts ``python -m harness acp`` against the scripted model and gives a
:class:`Recorder` (the client: it keeps every ``session/update``, answers each
``session/request_permission`` with the next of its ``answers``) and the SDK's
``ClientSideConnection``. Every raw message the agent sends is validated again
against the SDK's own models (the SDK's router only logs a bad notification).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp.client.connection import ClientSideConnection
from acp.connection import StreamEvent
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
)

import harness
from acp import PROTOCOL_VERSION, spawn_agent_process
from tests.scripted import ScriptedModel

SRC = str(Path(harness.__file__).resolve().parents[1])
ROOT = str(Path(__file__).resolve().parents[2])


class Recorder:
    """The editor: what it was sent, and what it answers."""

    def __init__(self, answers: list[str] | None = None) -> None:
        self.updates: list[SessionNotification] = []
        self.asked: list[RequestPermissionRequest] = []
        self.answers = list(answers or [])
        self.raw: list[dict[str, Any]] = []
        self.bad: list[str] = []
        self.answering: asyncio.Event | None = None
        self._changed: asyncio.Event | None = None

    def observe(self, event: StreamEvent) -> None:
        message = event.message
        if event.direction.value != "incoming":
            return
        self.raw.append(message)
        method = message.get("method")
        try:
            if method == "session/update":
                SessionNotification.model_validate(message["params"])
            elif method == "session/request_permission":
                RequestPermissionRequest.model_validate(message["params"])
        except Exception as exc:
            self.bad.append(f"{method}: {exc}")

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.updates.append(SessionNotification(session_id=session_id, update=update))
        if update.session_update == "agent_message_chunk" and self.answering is not None:
            self.answering.set()
        self.changed()

    def changed(self) -> None:
        """Wake :meth:`wait_for` (after an update, or anything else a test waits on)."""
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def wait_for(self, ready: Any) -> None:
        """Wait until *ready()* is true, checked after each :meth:`changed`."""
        while not ready():
            self._changed = self._changed or asyncio.Event()
            await self._changed.wait()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: Any, **kw: Any
    ) -> RequestPermissionResponse:
        self.asked.append(
            RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options)
        )
        answer = self.answers.pop(0) if self.answers else "cancelled"
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    def kinds(self) -> list[str]:
        return [u.update.session_update for u in self.updates]

    def of(self, kind: str) -> list[Any]:
        return [u.update for u in self.updates if u.update.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))


def env_for(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_HOME=str(home),
        PYTHONPATH=os.pathsep.join([SRC, ROOT]),
        HARNESS_WORKERS='{"model": "harness.actors.model", "tools": "harness.actors.tools"}',
    )
    env.update(extra or {})
    return env


def flags(model: ScriptedModel, *more: str) -> list[str]:
    return ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url, *more]


@asynccontextmanager
async def agent(
    model: ScriptedModel,
    workspace: Path,
    home: Path,
    recorder: Recorder,
    *more: str,
    env: dict[str, str] | None = None,
    args: list[str] | None = None,
) -> AsyncIterator[tuple[ClientSideConnection, Any]]:
    """``harness acp`` started for *recorder*, its connection and process (*args*
    replace the scripted model's flags and *more*; *env* adds to the environment)."""
    log = os.open(home / "acp-stderr.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        async with spawn_agent_process(
            recorder,  # type: ignore[arg-type]
            sys.executable,
            "-m",
            "harness",
            "acp",
            *(flags(model, *more) if args is None else args),
            env=env_for(home, env),
            cwd=workspace,
            transport_kwargs={"stderr": log, "shutdown_timeout": 10.0},
            observers=[recorder.observe],
        ) as (conn, process):
            yield conn, process
    finally:
        os.close(log)


class SharedAgent:
    """One ``harness acp`` (default flags, the scripted model) for a whole test file,
    its client running on an asyncio loop in a thread; each test opens sessions of its
    own in its own folder (:meth:`use` gives it a fresh :class:`Recorder` view)."""

    def __init__(
        self, home: Path, recorder: Recorder | None = None, env: dict[str, str] | None = None
    ) -> None:
        import threading

        self.home = home
        self.model = ScriptedModel()
        self.model.__enter__()
        self.recorder = recorder or Recorder()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        # thinking is shown (a reply without it shows none)
        env = {"HARNESS_SHOW_THINKING": "1", **(env or {})}
        self._cm = agent(self.model, home, home, self.recorder, env=env)
        self.conn, self.process = self.run(self._cm.__aenter__())
        self.run(self.conn.initialize(protocol_version=PROTOCOL_VERSION))

    def run(self, coro: Any, timeout: float = 120.0) -> Any:
        """Run *coro* on the client's loop; its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def use(self, answers: list[str] | None = None) -> Recorder:
        """Forget what earlier tests saw; the recorder, answering with *answers*."""
        # a reply an earlier test left unplayed would answer this test's first request
        assert self.model.remaining == 0, f"{self.model.remaining} scripted replies unplayed"
        rec = self.recorder
        rec.updates.clear()
        rec.asked.clear()
        rec.raw.clear()
        rec.bad.clear()
        rec.answers = list(answers or [])
        rec.answering = None
        self.requests_before = len(self.model.requests)
        return rec

    def requests(self) -> list[dict[str, Any]]:
        """The model requests since :meth:`use`."""
        return self.model.requests[self.requests_before :]

    def close(self) -> None:
        try:
            self.run(self._cm.__aexit__(None, None, None))
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
            self.loop.close()
            self.model.__exit__(None, None, None)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedAgent]:
    """A :class:`SharedAgent` for the test file."""
    s = SharedAgent(tmp_path_factory.mktemp("acp-home"))
    try:
        yield s
    finally:
        s.close()
