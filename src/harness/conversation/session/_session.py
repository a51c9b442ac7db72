"""The one surface a frontend holds of an open session: running prompts, the events,
and the settings a person changes mid-session (permission mode and rules, model, undo,
autocommit, title, compaction, sub-agents, diagnostics). :func:`open_session` (in
``_opening``) builds it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import trio

from harness.conversation import events as ev
from harness.conversation._history import effective
from harness.conversation._loop import Conversation, Listener
from harness.conversation._secrets import SecretMasker
from harness.conversation.mcp import McpManager
from harness.conversation.session._checkpoints import Checkpoints
from harness.conversation.session._diagnostics import Diagnostics, RoundStats, ToolStats
from harness.conversation.session._store import (
    SessionInfo,
    SessionLog,
    SessionNotFound,
    SessionStore,
    export_json,
    export_markdown,
)
from harness.conversation.session._warm import prepare_model
from harness.conversation.subagents import AgentState, SubagentPool, SubagentReport, Task
from harness.conversation.workers import Workers
from harness.keys import provider_key
from harness.messages import PermissionMode
from harness.messages.model import ChatMessage, ListModels, ModelList
from harness.messages.tools import (
    AutocommitState,
    SetAutocommit,
    ToolOutcome,
    Undo,
    UndoResult,
)

if TYPE_CHECKING:
    from harness.actors.tools import Kind, Permissions, ToolTable
    from harness.supervisor import WorkerStatus

__all__ = ["Session"]


class Session:
    """An open session (see :func:`open_session`): run prompts, watch their events,
    and change what a person changes mid-session.

    Attributes:
        problems: what was wrong with the configuration or the resumed log, one
            sentence each (also sent as ``error`` events when it opened).
        resumed: whether it went on from an earlier session's log.
        conversation, workers, log, store: the loop, the workers, the session log and
            the workspace's sessions underneath, for this package's tests and for
            diagnostics; a frontend needs only the methods.
        mcp: the MCP servers (``/mcp`` reads and restarts them through it).
        checkpoints: its prompts (``/rewind`` goes back to one, ``/fork`` copies it).
    """

    def __init__(
        self,
        *,
        conversation: Conversation,
        workers: Workers,
        log: SessionLog | None,
        store: SessionStore,
        table: ToolTable,
        permissions: Permissions,
        masker: SecretMasker,
        opening: list[ev.ConversationEvent],
        problems: list[str],
        resumed: bool,
        subagents: SubagentPool | None = None,
        mcp: McpManager | None = None,
    ) -> None:
        self.conversation = conversation
        self._subagents = subagents
        self.workers = workers
        self.log = log
        self.store = store
        self._table = table
        self._permissions = permissions
        self._masker = masker
        self._opening = opening
        self.problems = problems
        self.resumed = resumed
        self.mcp = mcp
        self.checkpoints = Checkpoints(conversation, workers, log, store)
        self._diagnostics = Diagnostics(lambda: self.context()[0])
        conversation.subscribe(self._diagnostics)

    # --- what it is -------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The session id (give it to ``resume=`` later)."""
        return self.conversation.session_id

    @property
    def workspace(self) -> str:
        """The project folder (absolute)."""
        return self.conversation.workspace

    @property
    def title(self) -> str:
        """The session's title (``""`` until it has one)."""
        return self.conversation.title

    @property
    def history(self) -> list[ChatMessage]:
        """The model history (without the system prompt)."""
        return self.conversation.history

    @property
    def opening(self) -> list[ev.ConversationEvent]:
        """The events sent as the session opened (``session_started``, then an
        ``error`` per configuration problem), for a listener that came later."""
        return list(self._opening)

    @property
    def running(self) -> bool:
        """True while a prompt runs."""
        return self.conversation.running

    @property
    def usage(self) -> dict[str, int]:
        """Tokens in and out of the current (or the last) run."""
        return dict(self.conversation.usage_total)

    def tool_names(self) -> list[str]:
        """The tools the model is offered now."""
        return self.conversation.tool_names()

    def context(self) -> tuple[int, int]:
        """``(tokens, window)``: the estimated size of the next request (with history
        retrieval on, of the last one: what the next carries depends on its prompt), and
        the model's window."""
        conv = self.conversation
        cfg = conv.config
        if conv.shaper.selects and conv.last_request_tokens:
            return conv.last_request_tokens, conv.budget.window
        used = conv.budget.estimate(cfg.system, conv.history, conv.schemas())
        return used, conv.budget.window

    def diagnostics(self) -> tuple[list[RoundStats], list[ToolStats]]:
        """The last model rounds (request size, tokens, time to first token, duration)
        and tool calls (time, output size), oldest first; a bounded number of each."""
        return list(self._diagnostics.rounds), list(self._diagnostics.tools)

    # --- running ----------------------------------------------------------------------

    async def run(self, prompt: str) -> ev.Result:
        """Run *prompt* to its end; the ``result`` event."""
        return await self.conversation.run(prompt)

    async def stream(self, prompt: str) -> AsyncIterator[ev.ConversationEvent]:
        """Run *prompt* and yield every event as it happens, ``result`` last.

        Leaving the loop early cancels the run.
        """
        channel = self.events()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.conversation.run, prompt)
            try:
                # ``result`` is always the run's last event
                async for event in channel:
                    yield event
                    if isinstance(event, ev.Result):
                        break
            finally:
                if self.conversation.running:
                    self.cancel()
                channel.close()

    def cancel(self) -> None:
        """Cancel the running prompt (its stream and tools stop at once)."""
        self.conversation.cancel()

    # --- sub-agents ---------------------------------------------------------------------

    async def spawn_subagents(self, tasks: Sequence[Task]) -> list[SubagentReport]:
        """Run *tasks* as sub-agents in parallel (each in a runner of its own, at most
        ``SubagentLimits.max_concurrent`` at once) and return their reports in order.

        Their events (``subagent_started`` / ``_progress`` / ``_finished``) go to this
        session's listeners; their tokens count into :attr:`usage`. Leaving early
        (a cancel scope) stops every runner at once.
        """
        return [SubagentReport.of(o) for o in await self._pool().run_many(tasks)]

    def subagents(self) -> list[AgentState]:
        """The sub-agents queued or running now (``/agents``)."""
        return self._pool().running()

    def kill_subagent(self, agent: str) -> bool:
        """Stop sub-agent *agent* (``agent-3``) now; whether it was running."""
        return self._pool().kill(agent)

    def _pool(self) -> SubagentPool:
        if self._subagents is None:
            raise RuntimeError("this session has no sub-agents")
        return self._subagents

    def post(self, text: str) -> None:
        """Add a user message to the running prompt; it joins at the next model request."""
        self.conversation.post(text)

    def events(self) -> trio.MemoryReceiveChannel[ev.ConversationEvent]:
        """A channel of every event from now on (close it when done)."""
        return self.conversation.open_event_channel()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call *listener* with every event from now on; returns an unsubscribe function."""
        return self.conversation.subscribe(listener)

    async def compact(self) -> bool:
        """Summarise the history now; whether it did."""
        return await self.conversation.compact()

    def set_title(self, title: str) -> None:
        """Name the session (``resume=`` accepts the title)."""
        self.conversation.set_title(title, by_user=True)

    def register_tool(
        self,
        name: str,
        description: str,
        parameters: dict[str, Any],
        fn: Callable[[dict[str, Any]], Awaitable[str | ToolOutcome]],
        *,
        kind: Kind = "read",
        terminating: bool = False,
        main_arg: str | None = None,
    ) -> None:
        """Add a tool the conversation runs by calling *fn* (an async function that
        gets the bound arguments and returns text or a :class:`ToolOutcome`); a
        *terminating* tool ends the run when it succeeds."""
        from harness.actors.tools import ToolSpec

        spec = ToolSpec(
            name=name,
            description=description,
            parameters=parameters,
            main_arg=main_arg,
            kind=kind,
            executor="conversation",
            terminating=terminating,
        )
        self._table.register(spec, replace=True)

        async def call(args: dict[str, Any]) -> ToolOutcome:
            out = await fn(args)
            return out if isinstance(out, ToolOutcome) else ToolOutcome(ok=True, output=str(out))

        self.conversation.add_local_tool(name, call)

    # --- settings a person changes ------------------------------------------------------

    @property
    def provider(self) -> str:
        """Who answers."""
        return self.conversation.config.provider

    @property
    def models(self) -> tuple[str, ...]:
        """The models tried in order (the first is the one asked)."""
        return self.conversation.config.models

    @property
    def tool_protocol(self) -> str:
        """``native``, ``text`` or ``auto``."""
        return self.conversation.config.tool_protocol

    def set_model(self, provider: str, models: tuple[str, ...], base_url: str | None) -> None:
        """Ask *provider* (at *base_url*, ``None``: its default) from the next request on."""
        self.conversation.configure(provider=provider, models=models, base_url=base_url)
        prepare_model(self.conversation, self.workers)

    @property
    def permission_mode(self) -> PermissionMode:
        """``ask``, ``auto``, ``plan`` or ``deny``."""
        return self.conversation.config.permission_mode

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode from the next tool call on.

        Raises:
            ValueError: not one of the modes.
        """
        self.conversation.configure(permission_mode=mode)

    @property
    def keep_thinking(self) -> bool:
        """Whether the model is asked to think, and its thinking kept in the history."""
        return self.conversation.config.keep_thinking

    def set_keep_thinking(self, on: bool) -> None:
        """Ask the model to think (and keep its thinking), or not."""
        self.conversation.configure(keep_thinking=on)

    @property
    def deepthink(self) -> bool:
        """Whether each prompt runs as five stages: plan, check, implement, review, verify."""
        return self.conversation.config.deepthink

    def set_deepthink(self, on: bool) -> None:
        """Run each prompt as the five deepthink stages from the next prompt on, or not."""
        self.conversation.configure(deepthink=on)

    @property
    def autotitle(self) -> bool:
        """Whether the model titles the session after its first exchange."""
        return self.conversation.config.autotitle

    def set_autotitle(self, on: bool) -> None:
        """Let the model title the session, or not."""
        self.conversation.configure(autotitle=on)

    def add_secret(self, value: str) -> None:
        """Mask *value* (a key typed mid-session) in everything from now on."""
        self._masker.add(value)

    # --- permission rules ---------------------------------------------------------------

    def rules(self) -> str:
        """The permission rules in force and where each came from, as text."""
        return self._permissions.describe()

    def add_rule(self, kind: Literal["allow", "deny"], rule: str) -> None:
        """Add an allow or deny *rule* (saved to the user's rules file).

        Raises:
            RuleError: the rule does not parse.
        """
        self._permissions.add(kind, rule)

    def reload_rules(self) -> list[str]:
        """Read the rule files again (edited by hand); the rules and files refused."""
        return [str(p) for p in self._permissions.reload().problems]

    def remove_rule(self, rule: str) -> bool:
        """Remove *rule* from the user's rules file; whether it was there."""
        return self._permissions.remove(rule)

    # --- the workers --------------------------------------------------------------------

    def worker_status(self) -> list[WorkerStatus]:
        """The workers: pid, state, uptime, restarts, memory."""
        return self.workers.status()

    async def undo(self) -> UndoResult:
        """Revert this session's newest change to the files (the tools worker does)."""
        return await self.workers.call(
            "tools", Undo(workspace=self.workspace, session_id=self.id), UndoResult, timeout=30
        )

    async def autocommit(self, enabled: bool | None = None) -> AutocommitState:
        """Commit each change to git (``True``), or not (``False``); ``None`` only asks."""
        return await self.workers.call(
            "tools",
            SetAutocommit(workspace=self.workspace, enabled=enabled),
            AutocommitState,
            timeout=30,
        )

    async def list_models(self, provider: str, base_url: str | None = None) -> list[str]:
        """The models *provider* offers (asked through the model worker)."""
        # keys are held in memory, never in a worker's environment: each request carries one
        ask = ListModels(provider=provider, base_url=base_url, api_key=provider_key(provider))
        reply = await self.workers.call("model", ask, ModelList, timeout=10)
        return list(reply.models)

    # --- the session log ----------------------------------------------------------------

    def sessions(self) -> list[SessionInfo]:
        """The sessions of this workspace, newest activity first."""
        return self.store.list()

    def recorded(self) -> list[ev.ConversationEvent]:
        """The durable events of this session's log, in order (an editor's ``session/load``
        replays them); none when it was opened with ``record=False``."""
        try:
            return effective(self.store.load(self.id).events)  # as rewinds left it
        except SessionNotFound:
            return []

    def export(self, fmt: Literal["json", "md"]) -> bytes:
        """This session as JSON or markdown.

        Raises:
            SessionNotFound: it was opened with ``record=False``.
        """
        loaded = self.store.load(self.id)
        return export_json(loaded) if fmt == "json" else export_markdown(loaded).encode()
