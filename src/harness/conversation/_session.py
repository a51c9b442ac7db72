"""One live session: the engine's workers, the loop, the log, the tools the loop runs itself.

:func:`open_session` is what the Python API, headless mode and the terminal use.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
import trio

from harness.conversation import events as ev
from harness.conversation._atomic import read_json
from harness.conversation._budget import ContextSettings
from harness.conversation._calls import LocalTool
from harness.conversation._config import LoopConfig
from harness.conversation._engine import (
    DEFAULT_MODULES,
    Engine,
    WorkerSettings,
    open_engine,
    worker_env,
)
from harness.conversation._local_tools import memory_tools, skill_tool
from harness.conversation._loop import Conversation
from harness.conversation._memory import MemoryStore
from harness.conversation._ports import Approver, FrontendPort
from harness.conversation._prompt import build_system_prompt
from harness.conversation._secrets import SecretMasker
from harness.conversation._store import (
    SessionLog,
    SessionNotFound,
    SessionStore,
    harness_home,
)
from harness.messages.model import ChatMessage
from harness.messages.tools import ToolOutcome

__all__ = ["LiveSession", "SessionOptions", "open_session"]

# Providers' default models when none is named.
DEFAULT_MODELS = {
    "ollama": "qwen2.5-coder:1.5b",
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "local": "default",
}


@attrs.define
class SessionOptions:
    """Everything a session is opened with (the command line and the API fill it).

    Attributes:
        workspace: the project folder (default: the current folder).
        home: ``HARNESS_HOME`` (default: from *environ*, else ``~/.harness``).
        environ: the environment (default: ``os.environ``); secrets in it are masked.
        provider, models, base_url, api_key, tool_protocol: who answers. With no
            provider and no base_url the model is chosen as the terminal chooses it
            (``harness.actors.model.local.choose_startup_model``: a running Ollama with a
            model, else the embedded model), and the first event says which.
        permission_mode: ``ask``, ``auto``, ``plan``, ``deny``.
        max_turns, verify, verify_attempts, tool_timeout: limits and checks.
        resume: an id or title to resume; *continue_latest* resumes the newest.
        autotitle: let the model title the session after the first exchange.
        system_extra: text appended to the system prompt.
        allow, deny: permission rules for this session only.
        sandbox: ``workspace-write`` runs shell commands under bubblewrap.
        workers: worker name -> module (default: model, tools, shell).
        worker_env: extra environment per worker name.
        context: the model's window and output reserve.
        record: write the session log (off: nothing is written under HARNESS_HOME).
        tools: offer only these built-in tools (``None``: every one; the embedded
            ``local`` model gets the short list ``SMALL_MODEL_TOOLS``, since each tool
            is prompt it reads before its first token).
        temperature, seed: sampling (``None``: the provider's own).
    """

    workspace: str | None = None
    home: str | None = None
    environ: Mapping[str, str] | None = None
    provider: str = ""
    models: tuple[str, ...] = ()
    base_url: str | None = None
    api_key: str | None = None
    tool_protocol: str = "auto"
    permission_mode: str = "ask"
    max_turns: int = 50
    verify: str | None = None
    verify_attempts: int = 3
    tool_timeout: float | None = None
    resume: str | None = None
    continue_latest: bool = False
    autotitle: bool = False
    system_extra: str = ""
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    sandbox: str | None = None
    workers: dict[str, str] = attrs.field(factory=lambda: dict(DEFAULT_MODULES))
    worker_env: dict[str, dict[str, str]] = attrs.field(factory=dict)
    context: ContextSettings = attrs.field(factory=ContextSettings)
    record: bool = True
    tools: tuple[str, ...] | None = None
    temperature: float | None = None
    seed: int | None = None


class _PermissionsPolicy:
    """The tools engineer's permission engine, as the loop's :class:`PermissionPolicy`."""

    def __init__(self, perms: Any) -> None:
        self.perms = perms

    def decide(self, spec: Any, arguments: Mapping[str, Any], mode: str) -> tuple[Any, str]:
        if self.perms.mode != mode:
            self.perms.set_mode(mode)
        d = self.perms.decide(spec.name, arguments)
        action = "deny" if d.action == "off" else d.action
        return action, d.reason

    def allow_always(self, spec: Any, arguments: Mapping[str, Any]) -> None:
        self.perms.add("allow", self.perms.always_rule(spec.name, arguments))


def provider_keys(home: Path) -> list[str]:
    """Key values saved by ``/connect`` (to mask them); unreadable files give none."""
    try:
        data = read_json(home / "providers.json", {})
    except (ValueError, OSError):
        return []
    out: list[str] = []

    def walk(obj: Any, key: str = "") -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, str(k))
        elif isinstance(obj, str) and "key" in key.lower():
            out.append(obj)

    walk(data)
    return out


class LiveSession:
    """An open session: run prompts, watch events, add tools, resume later."""

    def __init__(
        self,
        *,
        conversation: Conversation,
        engine: Engine,
        log: SessionLog | None,
        store: SessionStore,
        table: Any,
        problems: list[str],
        resumed: bool,
    ) -> None:
        self.conversation = conversation
        self.engine = engine
        self.log = log
        self.store = store
        self.table = table
        self.problems = problems
        self.resumed = resumed
        self.started: ev.SessionStarted | None = None
        """The session's first event, as it was sent."""

    @property
    def id(self) -> str:
        """The session id."""
        return self.conversation.session_id

    @property
    def history(self) -> list[ChatMessage]:
        """The model history (without the system prompt)."""
        return self.conversation.history

    async def run(self, prompt: str) -> ev.Result:
        """Run *prompt* to its end; the ``result`` event."""
        return await self.conversation.run(prompt)

    def cancel(self) -> None:
        """Cancel the running prompt (its stream and tools stop at once)."""
        self.conversation.cancel()

    def post(self, text: str) -> None:
        """Add a user message to the running prompt (the inbox)."""
        self.conversation.post(text)

    def events(self) -> trio.MemoryReceiveChannel[ev.ConversationEvent]:
        """A channel of every event from now on (close it when done)."""
        return self.conversation.open_event_channel()

    def register_tool(
        self,
        name: str,
        description: str,
        parameters: dict[str, Any],
        fn: Callable[[dict[str, Any]], Awaitable[str | ToolOutcome]],
        *,
        kind: str = "read",
        terminating: bool = False,
        main_arg: str | None = None,
    ) -> None:
        """Add a tool the conversation runs by calling *fn* (an async function that
        gets the bound arguments and returns text or a :class:`ToolOutcome`)."""
        from harness.actors.tools import ToolSpec

        spec = ToolSpec(
            name=name,
            description=description,
            parameters=parameters,
            main_arg=main_arg,
            kind=kind,  # type: ignore[arg-type]
            executor="conversation",
            terminating=terminating,
        )
        self.table.register(spec, replace=True)
        offered = self.conversation.config.tools
        if offered is not None and name not in offered:
            self.conversation.config = attrs.evolve(
                self.conversation.config, tools=(*offered, name)
            )
        self.conversation.tools_changed()

        async def call(args: dict[str, Any]) -> ToolOutcome:
            out = await fn(args)
            return out if isinstance(out, ToolOutcome) else ToolOutcome(ok=True, output=str(out))

        self.conversation.local_tools[name] = call

    def set_title(self, title: str) -> None:
        """Rename the session."""
        self.conversation.set_title(title, by_user=True)


@asynccontextmanager
async def open_session(
    options: SessionOptions,
    *,
    approver: Approver | None = None,
    frontend: FrontendPort | None = None,
) -> AsyncIterator[LiveSession]:
    """Open (or resume) a session and start its workers; all stopped on exit.

    Raises:
        SessionNotFound: *resume* names no session of this workspace.
        ValueError: a bad option (the message says which).
    """
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

    provider, models, chosen = _choose_model(options, environ)
    models = models or (DEFAULT_MODELS.get(provider, ""),)
    tools = options.tools
    if tools is None and provider == "local":
        from harness.actors.tools import SMALL_MODEL_TOOLS

        tools = SMALL_MODEL_TOOLS
    config = LoopConfig(
        tools=tools,
        workspace=str(workspace),
        provider=provider,
        models=tuple(m for m in models if m),
        base_url=options.base_url,
        api_key=options.api_key,
        tool_protocol=options.tool_protocol,
        permission_mode=options.permission_mode,
        max_turns=options.max_turns,
        verify=options.verify,
        verify_attempts=options.verify_attempts,
        tool_timeout=options.tool_timeout,
        autotitle=options.autotitle,
        temperature=options.temperature,
        seed=options.seed,
        context=options.context,
        system=build_system_prompt(
            workspace, home=home, extra=options.system_extra, problems=problems
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
    masker = SecretMasker(environ, [options.api_key or "", *provider_keys(home)])
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
    if provider == "local" and config.models and "model" in worker_settings.modules:
        # the embedded model loads while the user types, not at the first request
        worker_settings.env["model"].setdefault("HARNESS_LOCAL_MODEL", config.models[0])

    log: SessionLog | None = None
    if options.record:
        log = store.open_log(resume_id) if resume_id else store.create()
    session_id = log.id if log else (resume_id or "unrecorded")
    async with open_engine(worker_settings) as engine:
        engine.session_id = session_id
        local: dict[str, LocalTool] = memory_tools(MemoryStore(home / "memory.json"))
        local["use_skill"] = skill_tool(workspace, home)
        conv = Conversation(
            session_id=session_id,
            config=config,
            model=engine,
            executors=engine,
            table=table,
            policy=_PermissionsPolicy(perms),
            approver=approver,
            frontend=frontend,
            local_tools=local,
            masker=masker,
            history=history,
            title=title,
        )
        if log is not None:
            conv.subscribe(log.append)
            engine.start_soon(log.write_behind)
        engine.subscribe(conv.emit)
        live = LiveSession(
            conversation=conv,
            engine=engine,
            log=log,
            store=store,
            table=table,
            problems=problems,
            resumed=resume_id is not None,
        )
        live.started = ev.SessionStarted(
            session_id=session_id,
            workspace=str(workspace),
            provider=config.provider,
            model=config.models[0] if config.models else "",
            resumed=resume_id is not None,
            title=title,
            chosen=chosen,
        )
        conv.emit(live.started)
        for problem in problems:
            conv.emit(ev.ErrorEvent(session_id=session_id, kind="config", message=problem))
        try:
            yield live
        finally:
            if log is not None:
                if not conv.title:
                    first = next((m.content for m in conv.history if m.role == "user"), "")
                    if first:
                        # a plain title from the first prompt, so --resume TITLE works
                        # even when the model was not asked for one
                        log.meta["title"] = log.meta.get("title") or _plain_title(first)
                        log.write_meta()
                log.close()


def _choose_model(
    options: SessionOptions, environ: Mapping[str, str]
) -> tuple[str, tuple[str, ...], str]:
    """The provider, the models, and a line saying how they were chosen ("" when named).

    Raises:
        ValueError: nothing to talk to (the message says how to get a model).
    """
    if options.provider or options.base_url:
        return options.provider or "ollama", options.models, ""
    from harness.actors.model.local import NoModelAvailable, choose_startup_model

    model = options.models[0] if options.models else None
    try:
        choice = choose_startup_model(None, model, env=environ)
    except NoModelAvailable as exc:
        raise ValueError(str(exc)) from None
    models = (choice.model, *options.models[1:]) if choice.model else options.models
    return choice.provider, models, choice.header


def _paths(options: SessionOptions, environ: dict[str, str]) -> tuple[Path, Path]:
    workspace = Path(options.workspace or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise ValueError(f"workspace {workspace} is not a folder")
    home = Path(options.home).expanduser() if options.home else harness_home(environ)
    return workspace, home


def _plain_title(prompt: str) -> str:
    words = prompt.strip().split()
    title = " ".join(words[:8])
    return title[:60]
