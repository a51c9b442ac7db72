"""What a session is opened with, and the one place those choices become the loop's settings.

:class:`SessionOptions` is what the command line, the terminal and the Python API
fill; it holds the loop's settings as a :class:`LoopConfig`, which :func:`loop_config`
settles for the session (the loop alone turns that into each model request).
:func:`model_choice` is where the provider and its models are settled when the options
leave them open.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from harness.actors.model import profile_for
from harness.conversation._loop_config import LoopConfig
from harness.conversation.subagents import SubagentLimits
from harness.conversation.workers import DEFAULT_MODULES

__all__ = [
    "DEFAULT_MODELS",
    "LOOP_FIELDS",
    "ModelChoice",
    "SessionOptions",
    "loop_config",
    "model_choice",
]

# Providers' default models when none is named.
DEFAULT_MODELS = {
    "ollama": "qwen2.5-coder:1.5b",
    "openai": "gpt-4o-mini",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "local": "default",
}


#: the fields of :class:`SessionOptions` that are the loop's settings, held in its
#: :class:`LoopConfig` (the rest are the session's own)
LOOP_FIELDS = frozenset(
    f.name for f in attrs.fields(LoopConfig) if f.name not in ("workspace", "system")
)


@attrs.define(init=False)
class SessionOptions:
    """Everything a session is opened with (the command line and the API fill it).

    Give the loop's settings as keywords too (``SessionOptions(provider="openai",
    max_turns=10)``): they are the fields of :class:`LoopConfig` (but ``workspace`` and
    ``system``, which the session settles) and are held in :attr:`loop`, read back as
    ``options.provider`` and so on. ``provider`` defaults to ``""`` here: with no
    provider and no base URL, :func:`model_choice` chooses.

    Attributes:
        loop: the loop's settings as given: who answers (provider, models, base_url,
            api_key, tool_protocol), permission_mode, the limits and checks (max_turns,
            verify, verify_attempts, verify_timeout, tool_timeout), autotitle,
            keep_thinking (ask the model to think, and keep its thinking), temperature,
            seed, context (the model's window and output reserve), tools (offer only
            these built-in tools; ``None``: the model profile's list, which is every tool
            but for a small model; see :func:`harness.actors.model.profile_for`),
            strict_writes (``None``: as the model's profile says; see
            :mod:`harness.conversation._seen`) and deepthink (each prompt as five stages).
            :func:`loop_config` settles it for the session.
        workspace: the project folder (default: the current folder).
        home: ``HARNESS_HOME`` (default: from *environ*, else ``~/.harness``).
        environ: the environment (default: ``os.environ``); secrets in it are masked.
        resume: an id or title to resume; *continue_latest* resumes the newest.
        system_extra: text appended to the system prompt.
        system_prompt: text that replaces the built-in system prompt (``None``: keep
            it); the workspace, instruction files and skills still follow.
        memory_updates: after each completed run, one bounded model request updates
            the working memory's goal, decisions, tasks and problems (file activity is
            kept either way).
        allow, deny: permission rules for this session only.
        sandbox: ``workspace-write`` runs shell commands under bubblewrap.
        workers: worker name -> module (default: model, tools, shell, and search,
            which starts on its first call).
        worker_env: extra environment per worker name.
        record: write the session log (off: nothing is written under HARNESS_HOME).
        subagents: what each sub-agent may use and how many run at once.
        history_embedding_model: an embedding model the provider has: each request
            then carries the older turns most like the prompt instead of the whole
            history (``None``: off; see :mod:`harness.conversation.context`).
        mcp_servers, mcp_config_files: MCP server entries given in code, and
            configuration files beside ``$HARNESS_HOME/mcp.json`` and the workspace's
            ``.mcp.json`` (``--mcp-config``).
        trust_project: trust the workspace's own configuration (the servers of
            ``.mcp.json``, the allow rules of ``.permissions.json``) as it is, for this
            session only. Off, those count only when the user approved their exact
            content (``harness trust``; see :mod:`harness.trust`); deny rules always do.

    Raises:
        ValueError: a permission mode or turn limit the loop cannot use.
        TypeError: a keyword that is no option.
    """

    loop: LoopConfig
    workspace: str | None
    home: str | None
    environ: Mapping[str, str] | None
    resume: str | None
    continue_latest: bool
    system_extra: str
    system_prompt: str | None
    memory_updates: bool
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    sandbox: str | None
    workers: dict[str, str]
    worker_env: dict[str, dict[str, str]]
    record: bool
    subagents: SubagentLimits
    history_embedding_model: str | None
    mcp_servers: dict[str, Any] | None
    mcp_config_files: tuple[str, ...]
    trust_project: bool

    def __init__(
        self,
        *,
        loop: LoopConfig | None = None,
        workspace: str | None = None,
        home: str | None = None,
        environ: Mapping[str, str] | None = None,
        resume: str | None = None,
        continue_latest: bool = False,
        system_extra: str = "",
        system_prompt: str | None = None,
        memory_updates: bool = False,
        allow: tuple[str, ...] = (),
        deny: tuple[str, ...] = (),
        sandbox: str | None = None,
        workers: dict[str, str] | None = None,
        worker_env: dict[str, dict[str, str]] | None = None,
        record: bool = True,
        subagents: SubagentLimits | None = None,
        history_embedding_model: str | None = None,
        mcp_servers: dict[str, Any] | None = None,
        mcp_config_files: tuple[str, ...] = (),
        trust_project: bool = False,
        **loop_fields: Any,
    ) -> None:
        unknown = sorted(set(loop_fields) - LOOP_FIELDS)
        if unknown:
            raise TypeError(f"SessionOptions has no option {', '.join(map(repr, unknown))}")
        if loop is None:
            loop = LoopConfig(workspace="", **{"provider": "", **loop_fields})
        elif loop_fields:
            loop = attrs.evolve(loop, **loop_fields)
        self.__attrs_init__(
            loop,
            workspace,
            home,
            environ,
            resume,
            continue_latest,
            system_extra,
            system_prompt,
            memory_updates,
            allow,
            deny,
            sandbox,
            dict(DEFAULT_MODULES) if workers is None else workers,
            {} if worker_env is None else worker_env,
            record,
            SubagentLimits() if subagents is None else subagents,
            history_embedding_model,
            mcp_servers,
            mcp_config_files,
            trust_project,
        )

    def __getattr__(self, name: str) -> Any:
        # the loop's settings read as options (``options.provider``)
        if name in LOOP_FIELDS:
            return getattr(self.loop, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@attrs.frozen
class ModelChoice:
    """Who answers a session: the provider, the models to try in order, and a line
    saying how they were chosen (``""`` when the options named them)."""

    provider: str
    models: tuple[str, ...]
    said: str = ""


def model_choice(options: SessionOptions, environ: Mapping[str, str]) -> ModelChoice:
    """Who answers: what *options* name; with no provider and no base URL, what the
    terminal would choose (``harness.actors.model.local.choose_startup_model``: a running
    Ollama with a model, else the embedded model); and the provider's default model when
    none is named. Every way into a session (headless, the API, the terminal) settles its
    model here.

    Raises:
        ValueError: nothing to talk to (the message says how to get a model).
    """
    provider, models, said = options.loop.provider, options.loop.models, ""
    if not provider and not options.loop.base_url:
        from harness.actors.model.local import NoModelAvailable, choose_startup_model

        try:
            choice = choose_startup_model(None, models[0] if models else None, env=environ)
        except NoModelAvailable as exc:
            raise ValueError(str(exc)) from None
        provider, said = choice.provider, choice.header
        models = (choice.model, *models[1:]) if choice.model else models
    provider = provider or "ollama"
    models = models or (DEFAULT_MODELS.get(provider, ""),)
    return ModelChoice(provider, tuple(m for m in models if m), said)


def loop_config(
    options: SessionOptions, choice: ModelChoice, *, workspace: str, system: str
) -> LoopConfig:
    """The loop's settings for *options*, with the resolved *workspace*, the assembled
    *system* prompt, who answers (*choice*) and the profile's tools when none were
    chosen: the one place an option reaches the loop."""
    tools = options.loop.tools
    if tools is None:
        tools = profile_for(choice.provider, choice.models[0] if choice.models else "").tools
    return attrs.evolve(
        options.loop,
        workspace=workspace,
        system=system,
        provider=choice.provider,
        models=choice.models,
        tools=tools,
    )
