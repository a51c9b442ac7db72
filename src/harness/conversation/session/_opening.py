"""Opening a session: the session's workers, the loop, the log, the tools the
conversation runs itself, MCP and sub-agents, put together into a :class:`Session`.

:func:`open_session` is what the Python API, headless mode and the terminal use.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from harness._atomic import read_json
from harness.conversation import events as ev
from harness.conversation._calls import LocalTool
from harness.conversation._loop import Conversation
from harness.conversation._loop_config import LoopConfig
from harness.conversation._ports import Approver, ExecutorPort, FrontendPort
from harness.conversation._secrets import SecretMasker
from harness.conversation._titles import plain_title
from harness.conversation.context import ContextShaper
from harness.conversation.mcp import McpExecutors, McpManager
from harness.conversation.session._editor import EditorExecutors, EditorPort
from harness.conversation.session._features import keep_working_memory, recall_history
from harness.conversation.session._guard import ConfigGuard, GuardedExecutors
from harness.conversation.session._hooks import (
    session_end,
    session_hooks,
    session_start,
    watch_hooks,
)
from harness.conversation.session._local_tools import memory_tools, skill_tool
from harness.conversation.session._memory import MemoryStore
from harness.conversation.session._options import (
    ModelChoice,
    SessionOptions,
    loop_config,
    model_choice,
)
from harness.conversation.session._project import PermissionsPolicy, Project, read_project
from harness.conversation.session._prompt import build_system_prompt
from harness.conversation.session._store import (
    SessionInfo,
    SessionLog,
    SessionNotFound,
    SessionStore,
)
from harness.conversation.session._warm import preload_env, prepare_model, warm_runners
from harness.conversation.strategies import run_stages
from harness.conversation.subagents import SubagentPool
from harness.conversation.workers import Workers, WorkerSettings, open_workers, worker_env
from harness.home import harness_home
from harness.keys import held_values
from harness.messages.model import ChatMessage
from harness.messages.tools import ToolOutcome
from harness.trust import ignored_notice

if TYPE_CHECKING:
    from harness.actors.tools import ToolTable
    from harness.hooks import Hooks

from harness.conversation.session._session import Session

__all__ = ["TRUST_HINT", "list_sessions", "open_session", "provider_keys"]

# How to trust a workspace's configuration, said under what was ignored.
TRUST_HINT = (
    "Review and trust it with `harness trust`, or pass --trust-project "
    "(trust_project=True in the Python API) to trust it for one run."
)


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


@asynccontextmanager
async def open_session(
    options: SessionOptions | None = None,
    /,
    *,
    approver: Approver | None = None,
    frontend: FrontendPort | None = None,
    editor: EditorPort | None = None,
    model: str | None = None,
    **fields: Any,
) -> AsyncIterator[Session]:
    """Open (or resume) a session and start its workers; all stopped on exit.

    Give a :class:`SessionOptions`, or its fields as keywords (``workspace``,
    ``provider``, ``models``, ``base_url``, ``permission_mode``, ``max_turns``,
    ``verify``, ``resume`` ...); ``model="x"`` is short for ``models=("x",)``.
    *approver* answers calls that need the user's approval (without one they are
    denied); *frontend* answers ``get_user_input`` and ``submit_plan``; with *editor*, the
    file tools read and change the user's editor's buffers (:class:`EditorExecutors`).

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
    plan = _plan(options)  # everything settled before a process starts
    async with open_workers(_worker_settings(plan)) as workers:
        workers.session_id = plan.session_id
        mcp = _mcp(plan, workers)
        shaper = ContextShaper()
        pool: list[SubagentPool] = []  # made with the loop, which needs its tool first
        conv = _conversation(plan, workers, mcp, shaper, approver, frontend, editor, pool)
        pool.append(_join_features(plan, conv, workers, mcp, shaper))
        session = Session(
            conversation=conv,
            workers=workers,
            log=plan.log,
            store=plan.store,
            table=plan.table,
            permissions=plan.project.permissions,
            masker=plan.masker,
            opening=_opening_events(plan),
            problems=plan.problems,
            resumed=plan.resume_id is not None,
            subagents=pool[0],
            mcp=mcp,
        )
        for event in session.opening:
            conv.emit(event)
        await session_start(conv, plan.hooks, resumed=plan.resume_id is not None)
        try:
            yield session
        finally:
            await session_end(conv, plan.hooks)
            _close_log(conv, plan.log)


@attrs.frozen
class _Plan:
    """What a session opens with, settled before any process starts."""

    options: SessionOptions
    environ: dict[str, str]
    workspace: Path
    home: Path
    store: SessionStore
    resume_id: str | None
    history: list[ChatMessage]
    title: str
    #: what the user is told at the start (a rule file that cannot be used ...)
    problems: list[str]
    choice: ModelChoice
    config: LoopConfig
    table: ToolTable
    project: Project
    masker: SecretMasker
    log: SessionLog | None
    session_id: str
    #: ``None``: no file configures a hook
    hooks: Hooks | None


def _plan(options: SessionOptions) -> _Plan:
    from harness.actors.tools import builtin_table

    environ = dict(os.environ if options.environ is None else options.environ)
    workspace, home = _paths(options, environ)
    store = SessionStore(home, workspace)
    resume_id = _resume_id(store, options)
    history: list[ChatMessage] = []
    problems: list[str] = []
    title = ""
    if resume_id:
        loaded = store.load(resume_id, events=False)
        history, problems, title = loaded.history, list(loaded.problems), loaded.title
    choice = model_choice(options, environ)
    config = _loop_settings(options, choice, workspace, home, problems)
    table = builtin_table().copy()
    project = read_project(options, table, workspace=workspace, home=home, environ=environ)
    problems.extend(project.problems)
    masker = SecretMasker(environ, [options.api_key or "", *provider_keys(home), *held_values()])
    log: SessionLog | None = None
    if options.record:
        log = store.open_log(resume_id) if resume_id else store.create()
    session_id = log.id if log else (resume_id or "unrecorded")
    hooks = session_hooks(options, workspace, home, session_id, log, problems)
    return _Plan(
        options, environ, workspace, home, store, resume_id, history, title, problems,
        choice, config, table, project, masker, log, session_id, hooks,
    )  # fmt: skip


def _mcp(plan: _Plan, workers: Workers) -> McpManager:
    """The MCP servers' manager, its bridges started once the session's workers are up
    (the fork server imports the SDK for the bridges: a worker forked after would carry it)."""
    mcp = McpManager(
        plan.project.mcp,
        workers.supervisor,
        workspace=str(plan.workspace),
        env={"HARNESS_HOME": str(plan.home)},
        loader=plan.project.reload_mcp,
    )
    workers.start_soon(mcp.run, after_start=True)
    return mcp


def _conversation(
    plan: _Plan,
    workers: Workers,
    mcp: McpManager,
    shaper: ContextShaper,
    approver: Approver | None,
    frontend: FrontendPort | None,
    editor: EditorPort | None,
    pool: list[SubagentPool],
) -> Conversation:
    """The loop and its ports: the workers (behind MCP, the editor's buffers and the guard
    of harness's own configuration), the project's permissions, the context shaper,
    deepthink."""
    local: dict[str, LocalTool] = memory_tools(MemoryStore(plan.home / "memory.json"))
    local["use_skill"] = skill_tool(plan.workspace, plan.home)

    async def spawn_agent(args: dict[str, Any]) -> ToolOutcome:
        # the pool needs the conversation: it is looked up when the model first hires
        return await pool[0].tool(args)

    # not add_local_tool: a short tool list (a small model's) stays short
    local["spawn_agent"] = spawn_agent

    def guarded(message: str) -> None:
        conv.emit(ev.Notice(session_id=plan.session_id, kind="config_guard", message=message))

    guard = ConfigGuard(plan.workspace, plan.home)
    executors: ExecutorPort = McpExecutors(workers, mcp)
    if editor is not None:
        # a sandboxed command runs only in the shell worker
        mode = plan.options.sandbox or plan.environ.get("HARNESS_SHELL_SANDBOX") or "off"
        sandboxed = mode != "off"
        executors = EditorExecutors(
            executors, editor, plan.workspace, sandboxed=sandboxed, environ=plan.environ
        )
    conv = Conversation(
        session_id=plan.session_id,
        config=plan.config,
        model=workers,
        executors=GuardedExecutors(executors, guard, guarded),
        table=plan.table,
        policy=PermissionsPolicy(plan.project.permissions),
        shaper=shaper,
        approver=approver,
        frontend=frontend,
        local_tools=local,
        masker=plan.masker,
        history=plan.history,
        title=plan.title,
        hooks=plan.hooks,
        deepthink=run_stages,
    )
    return conv


def _join_features(
    plan: _Plan, conv: Conversation, workers: Workers, mcp: McpManager, shaper: ContextShaper
) -> SubagentPool:
    """What listens to the loop or feeds it: hooks, the served window, sub-agents, the
    log, working memory, recall, the workers' events, the MCP servers' tools."""
    watch_hooks(conv, plan.hooks)
    prepare_model(conv, workers)
    options, log = plan.options, plan.log
    env = {"HARNESS_HOME": str(plan.home), **options.worker_env.get("subagent", {})}
    pool = SubagentPool(conv, workers, options.subagents, env=env)
    warm_runners(conv, workers)
    plan.problems.extend(pool.definitions.problems)  # agents/*.md skipped, or read loosely
    if log is not None:
        conv.subscribe(log.append)
        workers.start_soon(log.write_behind)
    keep_working_memory(conv, shaper, workers, log, options.memory_updates)
    if options.history_embedding_model:
        recall_history(conv, shaper, workers, log, options.history_embedding_model)
    workers.subscribe(conv.emit)
    plan.problems.extend(mcp.attach(conv, plan.project.permissions))
    return pool


def _close_log(conv: Conversation, log: SessionLog | None) -> None:
    if log is None:
        return
    if not conv.title:
        first = next((m.content for m in conv.history if m.role == "user"), "")
        if first:
            # a plain title from the first prompt, so --resume TITLE works even when
            # the model was not asked for one
            log.meta["title"] = log.meta.get("title") or plain_title(first)
            log.write_meta()
    log.close()


def list_sessions(workspace: str = ".", home: str | None = None) -> list[SessionInfo]:
    """The sessions of *workspace*, newest activity first (*home*: ``HARNESS_HOME``)."""
    return SessionStore(Path(home) if home else harness_home(), Path(workspace)).list()


def _paths(options: SessionOptions, environ: dict[str, str]) -> tuple[Path, Path]:
    workspace = Path(options.workspace or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise ValueError(f"workspace {workspace} is not a folder")
    home = Path(options.home).expanduser() if options.home else harness_home(environ)
    return workspace, home


def _resume_id(store: SessionStore, options: SessionOptions) -> str | None:
    """The session *options* resume (``None``: a new one)."""
    if options.resume:
        return store.find(options.resume).id
    if options.continue_latest:
        latest = store.latest()
        if latest is None:
            raise SessionNotFound("there is no earlier session in this workspace to continue")
        return latest.id
    return None


def _loop_settings(
    options: SessionOptions, choice: ModelChoice, workspace: Path, home: Path, problems: list[str]
) -> LoopConfig:
    """The loop's settings, with the system prompt assembled for *workspace*."""
    config = loop_config(options, choice, workspace=str(workspace), system="")
    system = build_system_prompt(
        workspace,
        home=home,
        extra=options.system_extra,
        problems=problems,
        base=options.system_prompt,
        # a model not offered use_skill (the embedded model's short list) is not told of skills
        skills=config.tools is None or "use_skill" in config.tools,
        workspace_map=config.profile().maps_workspace,
    )
    return attrs.evolve(config, system=system)


def _worker_settings(plan: _Plan) -> WorkerSettings:
    """How the session's workers start; each gets ``HARNESS_HOME`` so it reads the same
    keys store and state."""
    options, config = plan.options, plan.config
    settings = WorkerSettings(
        workspace=str(plan.workspace),
        modules=dict(options.workers),
        env=worker_env(plan.environ, sandbox=options.sandbox),
    )
    for name in settings.modules:
        env = settings.env.setdefault(name, {})
        env["HARNESS_HOME"] = str(plan.home)
        env.update(options.worker_env.get(name, {}))
    if "model" in settings.modules:  # the embedded model loads while the user types
        for key, value in preload_env(config, plan.environ).items():
            settings.env["model"].setdefault(key, value)
    return settings


def _opening_events(plan: _Plan) -> list[ev.ConversationEvent]:
    """``session_started``, then an ``error`` per problem, then what trust left out:
    what a listener that came later is shown first."""
    config, session_id = plan.config, plan.session_id
    started = ev.SessionStarted(
        session_id=session_id,
        workspace=str(plan.workspace),
        provider=config.provider,
        model=config.models[0] if config.models else "",
        resumed=plan.resume_id is not None,
        title=plan.title,
        chosen=plan.choice.said,
    )
    opening: list[ev.ConversationEvent] = [
        started,
        *(ev.ErrorEvent(session_id=session_id, kind="config", message=p) for p in plan.problems),
    ]
    if plan.project.ignored:
        message = ignored_notice(plan.project.ignored, TRUST_HINT)
        opening.append(ev.Notice(session_id=session_id, kind="trust", message=message))
    return opening
