"""One open session: the engine's workers, the loop, the log, and what a frontend may do.

:func:`open_session` is what the Python API, headless mode and the terminal use, and
:class:`Session` the one surface they hold: running prompts, the events, and the
settings a person changes mid-session (permission mode and rules, model, undo,
autocommit, title, compaction).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs
import trio

from harness.actors.mcp import load_mcp_config
from harness.conversation import events as ev
from harness.conversation._atomic import read_json
from harness.conversation._calls import LocalTool
from harness.conversation._compact import plain_title
from harness.conversation._diagnostics import Diagnostics, RoundStats, ToolStats
from harness.conversation._engine import Engine, WorkerSettings, open_engine, worker_env
from harness.conversation._local_tools import memory_tools, skill_tool
from harness.conversation._loop import Conversation, Listener
from harness.conversation._mcp import McpManager
from harness.conversation._memory import MemoryStore
from harness.conversation._options import SessionOptions, loop_config, model_choice
from harness.conversation._ports import Approver, FrontendPort
from harness.conversation._prompt import build_system_prompt
from harness.conversation._secrets import SecretMasker
from harness.conversation._store import (
    SessionInfo,
    SessionLog,
    SessionNotFound,
    SessionStore,
    export_json,
    export_markdown,
)
from harness.conversation._subagents import AgentState, SubagentPool, Task
from harness.conversation._workmem import MEMORY_FILE, UPDATE_TIMEOUT, WorkingMemoryKeeper
from harness.home import harness_home
from harness.keys import held_items, held_values, provider_key
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
    from harness.actors.tools import Kind, Permissions, ToolSpec, ToolTable
    from harness.supervisor import WorkerStatus

__all__ = ["Session", "SubagentReport", "list_sessions", "open_session"]


@attrs.frozen
class SubagentReport:
    """What one sub-agent came back with (:meth:`Session.spawn_subagents`).

    Attributes:
        agent: its id (``agent-1``), as its events carry it.
        ok: it finished and reported.
        text: its report, or what stopped it, what it had done and its last words.
        reason: ``done``, ``max_turns`` (it reported at its turn limit), ``stopped``
            (a budget, a crash or a cancel ended it) or the loop's own reason.
    """

    agent: str
    ok: bool
    text: str
    reason: str


class _PermissionsPolicy:
    """The tools package's permission engine, as the loop's :class:`PermissionPolicy`."""

    def __init__(self, perms: Permissions) -> None:
        self.perms = perms

    def decide(
        self, spec: ToolSpec, arguments: Mapping[str, Any], mode: str
    ) -> tuple[Literal["allow", "deny", "ask"], str]:
        if self.perms.mode != mode:
            self.perms.set_mode(mode)
        d = self.perms.decide(spec.name, arguments)
        return ("deny" if d.action == "off" else d.action), d.reason

    def allow_always(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> None:
        self.perms.allow_always(spec.name, arguments)


def provider_keys(home: Path) -> list[str]:
    """Key values saved by ``/connect`` (to mask them); unreadable files give none."""
    try:
        data = read_json(home / "providers.json", {})
    except (ValueError, OSError):
        return []
    out: list[str] = []

    def walk(obj: object, key: str = "") -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, str(k))
        elif isinstance(obj, str) and "key" in key.lower():
            out.append(obj)

    walk(data)
    return out


class Session:
    """An open session (see :func:`open_session`): run prompts, watch their events,
    and change what a person changes mid-session.

    Attributes:
        problems: what was wrong with the configuration or the resumed log, one
            sentence each (also sent as ``error`` events when it opened).
        resumed: whether it went on from an earlier session's log.
        conversation, engine, log, store: the loop, the workers, the session log and
            the workspace's sessions underneath, for this package's tests and for
            diagnostics; a frontend needs only the methods.
        mcp: the MCP servers (``/mcp`` reads and restarts them through it).
    """

    def __init__(
        self,
        *,
        conversation: Conversation,
        engine: Engine,
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
        self.engine = engine
        self.log = log
        self.store = store
        self._table = table
        self._permissions = permissions
        self._masker = masker
        self._opening = opening
        self.problems = problems
        self.resumed = resumed
        self.mcp = mcp
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
        """``(tokens, window)``: the estimated size of the next request, and the model's window."""
        conv = self.conversation
        cfg = conv.config
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
        pool = self._pool()
        outcomes = await pool.run_many(tasks)
        return [
            SubagentReport(
                agent=str(o.data.get("agent", "")),
                ok=o.ok,
                text=o.output,
                reason=str(o.data.get("reason", "")),
            )
            for o in outcomes
        ]

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
        return self.engine.status()

    async def undo(self) -> UndoResult:
        """Revert this session's newest change to the files (the tools worker does)."""
        return await self.engine.call(
            "tools", Undo(workspace=self.workspace, session_id=self.id), UndoResult, timeout=30
        )

    async def autocommit(self, enabled: bool | None = None) -> AutocommitState:
        """Commit each change to git (``True``), or not (``False``); ``None`` only asks."""
        return await self.engine.call(
            "tools",
            SetAutocommit(workspace=self.workspace, enabled=enabled),
            AutocommitState,
            timeout=30,
        )

    async def list_models(self, provider: str, base_url: str | None = None) -> list[str]:
        """The models *provider* offers (asked through the model worker)."""
        # keys are held in memory, never in a worker's environment: each request carries one
        ask = ListModels(provider=provider, base_url=base_url, api_key=provider_key(provider))
        reply = await self.engine.call("model", ask, ModelList, timeout=10)
        return list(reply.models)

    # --- the session log ----------------------------------------------------------------

    def sessions(self) -> list[SessionInfo]:
        """The sessions of this workspace, newest activity first."""
        return self.store.list()

    def export(self, fmt: Literal["json", "md"]) -> bytes:
        """This session as JSON or markdown.

        Raises:
            SessionNotFound: it was opened with ``record=False``.
        """
        loaded = self.store.load(self.id)
        return export_json(loaded) if fmt == "json" else export_markdown(loaded).encode()


@asynccontextmanager
async def open_session(
    options: SessionOptions | None = None,
    /,
    *,
    approver: Approver | None = None,
    frontend: FrontendPort | None = None,
    model: str | None = None,
    **fields: Any,
) -> AsyncIterator[Session]:
    """Open (or resume) a session and start its workers; all stopped on exit.

    Give a :class:`SessionOptions`, or its fields as keywords (``workspace``,
    ``provider``, ``models``, ``base_url``, ``permission_mode``, ``max_turns``,
    ``verify``, ``resume`` ...); ``model="x"`` is short for ``models=("x",)``.
    *approver* answers calls that need the user's approval (without one they are
    denied); *frontend* answers ``get_user_input`` and ``submit_plan``.

    Raises:
        SessionNotFound: *resume* names no session of this workspace.
        ValueError: a bad option (the message says which).
    """
    if options is None:
        if model is not None:
            fields["models"] = (model,)
        options = SessionOptions(**fields)
    elif fields or model is not None:
        raise TypeError("give SessionOptions or its fields as keywords, not both")
    from harness.actors.tools import Permissions, builtin_table

    environ = dict(os.environ if options.environ is None else options.environ)
    workspace, home = _paths(options, environ)
    store = SessionStore(home, workspace)
    problems: list[str] = []
    history: list[ChatMessage] = []
    title = ""
    resume_id: str | None = None
    if options.resume:
        resume_id = store.find(options.resume).id
    elif options.continue_latest:
        latest = store.latest()
        if latest is None:
            raise SessionNotFound("there is no earlier session in this workspace to continue")
        resume_id = latest.id
    if resume_id:
        loaded = store.load(resume_id, events=False)
        history, problems, title = loaded.history, list(loaded.problems), loaded.title

    choice = model_choice(options, environ)
    config = loop_config(
        options,
        choice,
        workspace=str(workspace),
        system=build_system_prompt(
            workspace,
            home=home,
            extra=options.system_extra,
            problems=problems,
            base=options.system_prompt,
        ),
    )
    table = builtin_table().copy()
    perms = Permissions(
        table,
        workspace=workspace,
        home=home,
        mode=options.permission_mode,
        extra={"allow": list(options.allow), "deny": list(options.deny)},
    )
    problems.extend(str(p) for p in perms.problems)
    # MCP entries may name secrets harness took out of its environment at start
    mcp_config = load_mcp_config(
        workspace,
        home=home,
        environ={**held_items(), **environ},
        extra_files=options.mcp_config_files,
        entries=options.mcp_servers,
    )
    problems.extend(mcp_config.problems)
    masker = SecretMasker(environ, [options.api_key or "", *provider_keys(home), *held_values()])
    # workers get HARNESS_HOME so they read the same keys store and state
    worker_settings = WorkerSettings(
        workspace=str(workspace),
        modules=dict(options.workers),
        env=worker_env(environ, sandbox=options.sandbox),
    )
    for name in worker_settings.modules:
        env = worker_settings.env.setdefault(name, {})
        env["HARNESS_HOME"] = str(home)
        env.update(options.worker_env.get(name, {}))
    if config.provider == "local" and config.models and "model" in worker_settings.modules:
        # the embedded model loads while the user types, not at the first request
        worker_settings.env["model"].setdefault("HARNESS_LOCAL_MODEL", config.models[0])

    log: SessionLog | None = None
    if options.record:
        log = store.open_log(resume_id) if resume_id else store.create()
    session_id = log.id if log else (resume_id or "unrecorded")
    async with open_engine(worker_settings) as engine:
        # the bridges start once the session's own workers are up, in the background:
        # started beside them, their forks and imports delayed the first prompt
        mcp = McpManager(
            mcp_config, engine.supervisor, workspace=str(workspace), env={"HARNESS_HOME": str(home)}
        )
        engine.start_soon(mcp.run)
        engine.session_id = session_id
        local: dict[str, LocalTool] = memory_tools(MemoryStore(home / "memory.json"))
        local["use_skill"] = skill_tool(workspace, home)
        conv = Conversation(
            session_id=session_id,
            config=config,
            model=engine,
            executors=mcp.executors(engine),
            table=table,
            policy=_PermissionsPolicy(perms),
            approver=approver,
            frontend=frontend,
            local_tools=local,
            masker=masker,
            history=history,
            title=title,
        )
        pool = SubagentPool(
            conv,
            engine,
            options.subagents,
            env={"HARNESS_HOME": str(home), **options.worker_env.get("subagent", {})},
        )
        # not add_local_tool: a short tool list (a small model's) stays short
        conv.local_tools["spawn_agent"] = pool.tool
        if log is not None:
            conv.subscribe(log.append)
            engine.start_soon(log.write_behind)
        _keep_working_memory(conv, engine, log, options.memory_updates)
        engine.subscribe(conv.emit)
        problems.extend(mcp.attach(conv, perms))
        opening: list[ev.ConversationEvent] = [
            ev.SessionStarted(
                session_id=session_id,
                workspace=str(workspace),
                provider=config.provider,
                model=config.models[0] if config.models else "",
                resumed=resume_id is not None,
                title=title,
                chosen=choice.said,
            ),
            *(ev.ErrorEvent(session_id=session_id, kind="config", message=p) for p in problems),
        ]
        session = Session(
            conversation=conv,
            engine=engine,
            log=log,
            store=store,
            table=table,
            permissions=perms,
            masker=masker,
            opening=opening,
            problems=problems,
            resumed=resume_id is not None,
            subagents=pool,
            mcp=mcp,
        )
        for event in opening:
            conv.emit(event)
        try:
            yield session
        finally:
            if log is not None:
                if not conv.title:
                    first = next((m.content for m in conv.history if m.role == "user"), "")
                    if first:
                        # a plain title from the first prompt, so --resume TITLE works
                        # even when the model was not asked for one
                        log.meta["title"] = log.meta.get("title") or plain_title(first)
                        log.write_meta()
                log.close()


def _keep_working_memory(
    conv: Conversation, engine: Engine, log: SessionLog | None, updates: bool
) -> None:
    keeper = WorkingMemoryKeeper(
        log.dir / MEMORY_FILE if log is not None else None,
        lambda system, content: conv.ask_aside(system, content, UPDATE_TIMEOUT),
    )
    conv.subscribe(keeper)
    conv.compaction_note = keeper.memory_text
    if updates:

        def after_run(event: ev.ConversationEvent) -> None:
            # in the background: the answer is already out, and the next run need not wait
            if isinstance(event, ev.Result) and event.ok:
                engine.start_soon(keeper.update)

        conv.subscribe(after_run)


def list_sessions(workspace: str = ".", home: str | None = None) -> list[SessionInfo]:
    """The sessions of *workspace*, newest activity first (*home*: ``HARNESS_HOME``)."""
    return SessionStore(Path(home) if home else harness_home(), Path(workspace)).list()


def _paths(options: SessionOptions, environ: dict[str, str]) -> tuple[Path, Path]:
    workspace = Path(options.workspace or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise ValueError(f"workspace {workspace} is not a folder")
    home = Path(options.home).expanduser() if options.home else harness_home(environ)
    return workspace, home
