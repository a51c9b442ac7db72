"""Opening a session: the session's workers, the loop, the log, the tools the
conversation runs itself, MCP and sub-agents, put together into a :class:`Session`.

:func:`open_session` is what the Python API, headless mode and the terminal use.
"""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs

from harness.actors.mcp import McpConfig, load_mcp_config
from harness.conversation import events as ev
from harness.conversation._atomic import read_json
from harness.conversation._calls import LocalTool
from harness.conversation._loop import Conversation
from harness.conversation._ports import Approver, FrontendPort
from harness.conversation._secrets import SecretMasker
from harness.conversation._titles import plain_title
from harness.conversation._workers import Workers, WorkerSettings, open_workers, worker_env
from harness.conversation.context import (
    INDEX_FILE,
    MEMORY_FILE,
    UPDATE_TIMEOUT,
    ContextShaper,
    Recall,
    WorkingMemoryKeeper,
    ask_window,
)
from harness.conversation.mcp import McpExecutors, McpManager
from harness.conversation.session._guard import ConfigGuard, GuardedExecutors
from harness.conversation.session._local_tools import memory_tools, skill_tool
from harness.conversation.session._memory import MemoryStore
from harness.conversation.session._options import SessionOptions, loop_config, model_choice
from harness.conversation.session._prompt import build_system_prompt
from harness.conversation.session._store import (
    SessionInfo,
    SessionLog,
    SessionNotFound,
    SessionStore,
)
from harness.conversation.subagents import SubagentPool
from harness.home import harness_home
from harness.keys import held_items, held_values, provider_key
from harness.messages.model import ChatMessage, Embed, Embeddings
from harness.trust import TrustStore, WorkspaceTrust, ignored_notice

if TYPE_CHECKING:
    from harness.actors.tools import Permissions, ToolSpec

from harness.conversation.session._session import Session

__all__ = ["TRUST_HINT", "list_sessions", "open_session", "provider_keys"]

# How to trust a workspace's configuration, said under what was ignored.
TRUST_HINT = (
    "Review and trust it with `harness trust`, or pass --trust-project "
    "(trust_project=True in the Python API) to trust it for one run."
)


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
    config = loop_config(options, choice, workspace=str(workspace), system="")
    system = build_system_prompt(
        workspace,
        home=home,
        extra=options.system_extra,
        problems=problems,
        base=options.system_prompt,
        # a model not offered use_skill (the embedded model's short list) is not told of skills
        skills=config.tools is None or "use_skill" in config.tools,
    )
    config = attrs.evolve(config, system=system)
    table = builtin_table().copy()
    # project configuration that could act (servers, allow rules) is inert until trusted
    trust = WorkspaceTrust(workspace, TrustStore(home), trust_all=options.trust_project)
    ignored = trust.untrusted()
    perms = Permissions(
        table,
        workspace=workspace,
        home=home,
        mode=options.permission_mode,
        extra={"allow": list(options.allow), "deny": list(options.deny)},
        trust_project=trust.for_file(".permissions.json"),
    )
    problems.extend(str(p) for p in perms.problems)
    # MCP entries may name secrets harness took out of its environment at start
    load_mcp = functools.partial(
        load_mcp_config,
        workspace,
        home=home,
        environ={**held_items(), **environ},
        extra_files=options.mcp_config_files,
        entries=options.mcp_servers,
        trust_project=trust.for_file(".mcp.json"),
    )
    mcp_config = load_mcp()

    def reload_mcp() -> McpConfig:
        # a project file changed since it was trusted is a problem, which leaves the
        # servers as they run (started from what was trusted) instead of stopping them
        config = load_mcp()
        if any(f.name == ".mcp.json" for f in trust.untrusted()):
            problem = (
                f"{workspace / '.mcp.json'}: not trusted as it is now, so nothing of it "
                "was applied; review and trust it with `harness trust`, then reload"
            )
            config = attrs.evolve(config, problems=(*config.problems, problem))
        return config

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
    if config.profile().preloads and config.models and "model" in worker_settings.modules:
        # the embedded model loads while the user types, not at the first request
        worker_settings.env["model"].setdefault("HARNESS_LOCAL_MODEL", config.models[0])

    log: SessionLog | None = None
    if options.record:
        log = store.open_log(resume_id) if resume_id else store.create()
    session_id = log.id if log else (resume_id or "unrecorded")
    async with open_workers(worker_settings) as workers:
        # the bridges start once the session's own workers are up, in the background:
        # started beside them, their forks and imports delayed the first prompt
        mcp = McpManager(
            mcp_config,
            workers.supervisor,
            workspace=str(workspace),
            env={"HARNESS_HOME": str(home)},
            loader=reload_mcp,
        )
        workers.start_soon(mcp.run)
        workers.session_id = session_id
        local: dict[str, LocalTool] = memory_tools(MemoryStore(home / "memory.json"))
        local["use_skill"] = skill_tool(workspace, home)

        def guarded(message: str) -> None:
            conv.emit(ev.Notice(session_id=session_id, kind="config_guard", message=message))

        shaper = ContextShaper()
        conv = Conversation(
            session_id=session_id,
            config=config,
            model=workers,
            executors=GuardedExecutors(
                McpExecutors(workers, mcp), ConfigGuard(workspace, home), guarded
            ),
            table=table,
            policy=_PermissionsPolicy(perms),
            shaper=shaper,
            approver=approver,
            frontend=frontend,
            local_tools=local,
            masker=masker,
            history=history,
            title=title,
        )
        ask_window(conv, workers)
        pool = SubagentPool(
            conv,
            workers,
            options.subagents,
            env={"HARNESS_HOME": str(home), **options.worker_env.get("subagent", {})},
        )
        # not add_local_tool: a short tool list (a small model's) stays short
        conv.local_tools["spawn_agent"] = pool.tool
        if log is not None:
            conv.subscribe(log.append)
            workers.start_soon(log.write_behind)
        _keep_working_memory(conv, shaper, workers, log, options.memory_updates)
        if options.history_embedding_model:
            _recall_history(conv, shaper, workers, log, options.history_embedding_model)
        workers.subscribe(conv.emit)
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
        if ignored:
            message = ignored_notice(ignored, TRUST_HINT)
            opening.append(ev.Notice(session_id=session_id, kind="trust", message=message))
        session = Session(
            conversation=conv,
            workers=workers,
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
    conv: Conversation,
    shaper: ContextShaper,
    workers: Workers,
    log: SessionLog | None,
    updates: bool,
) -> None:
    keeper = WorkingMemoryKeeper(
        log.dir / MEMORY_FILE if log is not None else None,
        lambda system, content: conv.ask_aside(system, content, UPDATE_TIMEOUT),
    )
    conv.subscribe(keeper)
    shaper.keep_notes(keeper.memory_text)
    if updates:

        def after_run(event: ev.ConversationEvent) -> None:
            # in the background: the answer is already out, and the next run need not wait
            if isinstance(event, ev.Result) and event.ok:
                workers.start_soon(keeper.update)

        conv.subscribe(after_run)


def _recall_history(
    conv: Conversation,
    shaper: ContextShaper,
    workers: Workers,
    log: SessionLog | None,
    model: str,
) -> None:
    async def embed(
        provider: str, base_url: str | None, texts: tuple[str, ...]
    ) -> tuple[tuple[float, ...], ...]:
        # keys are held in memory, never in a worker's environment: each request carries one
        key = conv.config.api_key or provider_key(provider)
        request = Embed(provider=provider, model=model, texts=texts, base_url=base_url, api_key=key)
        return (await workers.call("model", request, Embeddings, timeout=None)).vectors

    recall = Recall(
        model=model,
        embed=embed,
        path=log.dir / INDEX_FILE if log is not None else None,
        emit=conv.emit,
        session_id=conv.session_id,
        provider=conv.config.provider,
    )
    shaper.use_recall(recall)

    def update() -> None:
        # the history as the run left it: the next run may add its prompt before this runs
        history = list(conv.history)

        async def embed_new_turns() -> None:
            if recall.active(conv.config.provider):
                await recall.update(history, conv.config.base_url)

        workers.start_soon(embed_new_turns)

    def after_run(event: ev.ConversationEvent) -> None:
        # in the background: the answer is already out, and the next run need not wait
        if isinstance(event, ev.Result):
            update()

    conv.subscribe(after_run)
    if recall.index.started_afresh and conv.history:
        update()  # rebuilt from the turns the log holds


def list_sessions(workspace: str = ".", home: str | None = None) -> list[SessionInfo]:
    """The sessions of *workspace*, newest activity first (*home*: ``HARNESS_HOME``)."""
    return SessionStore(Path(home) if home else harness_home(), Path(workspace)).list()


def _paths(options: SessionOptions, environ: dict[str, str]) -> tuple[Path, Path]:
    workspace = Path(options.workspace or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise ValueError(f"workspace {workspace} is not a folder")
    home = Path(options.home).expanduser() if options.home else harness_home(environ)
    return workspace, home
