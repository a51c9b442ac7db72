"""The ACP agent: each ACP session is one harness :class:`~harness.conversation.Session`.

:class:`HarnessAgent` answers the methods the SDK's router hands it (initialize,
authenticate, session/new, session/load, session/list, session/set_mode,
session/prompt, session/cancel, and the pinned SDK's unstable session/fork,
session/resume and session/close). A session is opened with the same options as the
terminal and headless mode (the caller's *options_for*), held open in a task of the
connection's nursery, and closed when the client goes. Its events become
``session/update`` notifications (:mod:`harness.acp._updates`); the calls that need
approval become ``session/request_permission`` requests (:mod:`harness.acp._ask`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import trio
from acp.exceptions import RequestError
from acp.schema import (
    AgentCapabilities,
    AuthMethodAgent,
    ClientCapabilities,
    CloseSessionResponse,
    FileSystemCapabilities,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionModeResponse,
    Usage,
    UsageUpdate,
)

from acp import PROTOCOL_VERSION, helpers
from harness._version import __version__
from harness.acp._ask import Asker
from harness.acp._editor import EditorFiles
from harness.acp._live import (
    COMMANDS,
    KEYED,
    MODES,
    Live,
    check_key,
    find_skills,
    folder,
    mcp_entries,
    own_command,
    session_modes,
    skill_prompt,
)
from harness.acp._prompt import prompt_text
from harness.acp._rpc import Connection, ConnectionClosed
from harness.acp._updates import Update, UpdateMapper, replay
from harness.conversation import (
    SessionNotFound,
    SessionOptions,
    fork_session,
    list_sessions,
    open_session,
)
from harness.conversation import events as ev
from harness.home import harness_home
from harness.keys import ENV_KEYS, provider_key, take_keys

__all__ = ["HarnessAgent", "OptionsFor"]

#: ``options_for(cwd, mcp_servers, resume)``: the options of a session the client opens
OptionsFor = Callable[[str, dict[str, Any], str | None], SessionOptions]

_STOP = {"cancelled": "cancelled", "max_turns": "max_turn_requests"}


class HarnessAgent:
    """The agent side of one client connection.

    Args:
        conn: the JSON-RPC connection to the client.
        nursery: where sessions are held open (closed when it ends).
        options_for: the options of a session for a folder, MCP servers and a session
            to resume (the command line's settings, like the other frontends).
        environ: the environment (``HARNESS_SHOW_THINKING``, provider addresses).
    """

    def __init__(
        self,
        conn: Connection,
        nursery: trio.Nursery,
        options_for: OptionsFor,
        environ: Mapping[str, str],
    ) -> None:
        self.conn = conn
        self.nursery = nursery
        self.options_for = options_for
        self.environ = environ
        self.client = ClientCapabilities()
        self.sessions: dict[str, Live] = {}
        self.show_thinking = environ.get("HARNESS_SHOW_THINKING", "").strip().lower() in (
            "1",
            "on",
            "yes",
            "true",
        )

    # --- starting up ----------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **_: Any,
    ) -> InitializeResponse:
        """Say what harness offers; remember what the client offers."""
        self.client = client_capabilities or ClientCapabilities()
        methods: list[Any] = [
            # the stable kind of method (the env-var kind is not in protocol version 1 yet):
            # the description says where harness reads the key
            AuthMethodAgent(
                id=f"{provider}-key",
                name=f"{provider} API key",
                description=f"Set {ENV_KEYS[provider][0]} in the agent's environment "
                "or in $HARNESS_HOME/.env, then authenticate",
            )
            for provider in KEYED
        ]
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    fork=SessionForkCapabilities(),
                    resume=SessionResumeCapabilities(),
                    close=SessionCloseCapabilities(),
                ),
            ),
            auth_methods=methods,
            agent_info=Implementation(name="harness", title="harness", version=__version__),
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        """Check that the key the method names is at hand (the environment or
        ``$HARNESS_HOME/.env``, read again now)."""
        provider = method_id.removesuffix("-key")
        if provider not in KEYED:
            raise RequestError.invalid_params({"methodId": f"no method {method_id!r}"})
        from harness.settings import load_settings

        load_settings()
        take_keys()
        if not provider_key(provider):
            raise RequestError.auth_required(
                {
                    "details": f"set {ENV_KEYS[provider][0]} where harness acp starts, "
                    "or in $HARNESS_HOME/.env"
                }
            )

    # --- sessions -------------------------------------------------------------------

    async def _hold(self, options: SessionOptions, *, task_status: trio.TaskStatus[Live]) -> None:
        asker = Asker(self.conn, self)
        files = EditorFiles(
            self.conn, self.client.fs or FileSystemCapabilities(), bool(self.client.terminal)
        )
        editor = files if files.offered else None
        started = False
        try:
            async with open_session(
                options, approver=asker.approve, frontend=asker, editor=editor
            ) as session:
                mapper = UpdateMapper(session.workspace, show_thinking=self.show_thinking)
                files.session_id, files.shown = session.id, mapper.shown
                live = Live(
                    session=session,
                    mapper=mapper,
                    asker=asker,
                    files=files,
                )
                asker.live = live
                self.sessions[session.id] = live
                try:
                    task_status.started(live)
                    started = True
                    await live.closed.wait()
                finally:
                    self.sessions.pop(session.id, None)
                    session.cancel()
        except Exception as exc:
            if not started:
                raise  # session/new answers with it
            # a session that fails as it closes must not take the connection with it
            self.conn.log(f"closing a session failed: {type(exc).__name__}: {exc}")

    async def _open(self, cwd: str, mcp_servers: Any, resume: str | None) -> Live:
        try:
            options = self.options_for(folder(cwd), mcp_entries(mcp_servers), resume)
            live: Live = await self.nursery.start(self._hold, options)
        except SessionNotFound as exc:
            raise RequestError.resource_not_found(resume) from exc
        except ValueError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from exc
        check_key(live, options, self.environ)
        await find_skills(live, self.environ)
        return live

    async def _commands(self, session_id: str) -> None:
        live = self.sessions.get(session_id)
        if live is not None:
            # what the opening said (configuration problems, an untrusted project's
            # servers left out) is the first thing the user reads
            for event in live.session.opening:
                for update in live.mapper.updates(event):
                    await self.send(session_id, update)
        offered = live.commands if live is not None else list(COMMANDS)
        await self.send(session_id, helpers.update_available_commands(offered))

    async def new_session(
        self, cwd: str, mcp_servers: Sequence[Any] | None = None, **_: Any
    ) -> Any:
        """Open a session in *cwd* with the client's MCP servers beside the configured."""
        live = await self._open(cwd, mcp_servers, None)
        sid = live.session.id
        response = NewSessionResponse(session_id=sid, modes=session_modes(live.session))
        return self.conn.after_reply(response, lambda: self._commands(sid))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Sequence[Any] | None = None, **_: Any
    ) -> LoadSessionResponse:
        """Resume session *session_id* and replay its history as updates."""
        live = self.sessions.get(session_id)
        if live is None:
            live = await self._open(cwd, mcp_servers, session_id)
        session = live.session
        recorded = await trio.to_thread.run_sync(session.recorded)
        for update in replay(session.workspace, recorded, show_thinking=self.show_thinking):
            await self.send(session.id, update)
        await self._commands(session.id)
        return LoadSessionResponse(modes=session_modes(session))

    async def resume_session(
        self, cwd: str, session_id: str, mcp_servers: Sequence[Any] | None = None, **_: Any
    ) -> ResumeSessionResponse:
        """Resume session *session_id* without replaying it (the client shows it)."""
        live = self.sessions.get(session_id)
        if live is None:
            live = await self._open(cwd, mcp_servers, session_id)
        await self._commands(live.session.id)
        return ResumeSessionResponse(modes=session_modes(live.session))

    async def fork_session(
        self, cwd: str, session_id: str, mcp_servers: Sequence[Any] | None = None, **_: Any
    ) -> ForkSessionResponse:
        """A new session holding *session_id*'s conversation as it stands, opened; the
        source is not touched."""
        where, home = folder(cwd), harness_home(self.environ)
        try:
            forked = await trio.to_thread.run_sync(lambda: fork_session(where, home, session_id))
        except SessionNotFound as exc:
            raise RequestError.resource_not_found(session_id) from exc
        live = await self._open(cwd, mcp_servers, forked.id)
        await self._commands(live.session.id)
        return ForkSessionResponse(session_id=live.session.id, modes=session_modes(live.session))

    async def close_session(self, session_id: str, **_: Any) -> CloseSessionResponse:
        """Stop the session's running prompt and close it (its log written whole)."""
        live = self._live(session_id)
        live.asker.cancel_all()
        live.session.cancel()
        with trio.move_on_after(5.0):
            await live.idle.wait()
        live.closed.set()
        return CloseSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        """The sessions of *cwd* (default: the folder harness acp started in)."""
        where = folder(cwd) if cwd else os.getcwd()
        home = str(harness_home(self.environ))
        rows = await trio.to_thread.run_sync(lambda: list_sessions(where, home))
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=row.id,
                    cwd=where,
                    title=row.title or row.first_prompt[:80] or None,
                    updated_at=datetime.fromtimestamp(row.updated, UTC).isoformat(),
                )
                for row in rows
            ]
        )

    def _live(self, session_id: str) -> Live:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params({"sessionId": f"no open session {session_id!r}"})
        return live

    async def set_session_mode(
        self, session_id: str, mode_id: str, **_: Any
    ) -> SetSessionModeResponse:
        """Switch the permission mode (ask, auto, plan)."""
        live = self._live(session_id)
        if mode_id not in {m.id for m in MODES}:
            raise RequestError.invalid_params({"modeId": f"no mode {mode_id!r}"})
        live.session.set_permission_mode(mode_id)  # type: ignore[arg-type]
        return SetSessionModeResponse()

    async def send(self, session_id: str, update: Update | Any) -> None:
        """One ``session/update`` notification."""
        await self.conn.notify("session/update", helpers.session_notification(session_id, update))

    # --- prompts --------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: Sequence[Any], **_: Any) -> PromptResponse:
        """Run one prompt, streaming its events as updates; the stop reason."""
        live = self._live(session_id)
        if live.running:
            raise RequestError.invalid_request({"details": "a prompt is already running"})
        text = skill_prompt(prompt_text(prompt, live.session.workspace), live.skills)
        live.idle = trio.Event()
        try:
            command = await own_command(live, text, self.send)
            if command is not None:
                return PromptResponse(stop_reason="end_turn")
            if live.session.mcp is not None and not live.mcp_ready:
                # the servers the client named must be there for its first prompt
                await live.session.mcp.wait_started()
                live.mcp_ready = True
            result: ev.Result | None = None
            async for event in live.session.stream(text):
                for update in live.mapper.updates(event):
                    await self.send(session_id, update)
                if isinstance(event, ev.ToolCallRequested):
                    live.asker.announced(event.call_id)
                    live.files.announced(event.call_id)
                if isinstance(event, ev.Result):
                    result = event
        except ConnectionClosed:
            live.session.cancel()
            raise
        finally:
            live.idle.set()
        used, size = live.session.context()
        # how full the model's window is now (editors show it beside the thread)
        await self.send(
            session_id,
            UsageUpdate(session_update="usage_update", used=max(used, 0), size=max(size, 0)),
        )
        if result is None:
            return PromptResponse(stop_reason="end_turn")
        given = int(result.usage.get("prompt_tokens", 0))
        made = int(result.usage.get("completion_tokens", 0))
        return PromptResponse(
            stop_reason=_STOP.get(result.reason, "end_turn"),  # type: ignore[arg-type]
            usage=Usage(input_tokens=given, output_tokens=made, total_tokens=given + made),
        )

    async def cancel(self, session_id: str, **_: Any) -> None:
        """Stop the running prompt; the session stays open."""
        live = self.sessions.get(session_id)
        if live is not None:
            live.asker.cancel_all()
            live.session.cancel()

    async def close_all(self, grace: float = 5.0) -> None:
        """The client went: stop every run (bounded), then close every session."""
        for live in list(self.sessions.values()):
            live.asker.cancel_all()
            live.session.cancel()
        with trio.move_on_after(grace):
            for live in list(self.sessions.values()):
                await live.idle.wait()
        for live in list(self.sessions.values()):
            live.closed.set()
