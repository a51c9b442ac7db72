"""What a session is opened with, and the one place those choices become the loop's settings.

:class:`SessionOptions` is what the command line, the terminal and the Python API
fill; :func:`loop_config` turns it into the :class:`LoopConfig` the loop reads (and
the loop alone turns that into each model request). :func:`model_choice` is where
the provider and its models are settled when the options leave them open.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from harness.actors.model import profile_for
from harness.conversation._budget import ContextSettings
from harness.conversation._loop_config import LoopConfig
from harness.conversation._workers import DEFAULT_MODULES
from harness.conversation.subagents import SubagentLimits
from harness.messages import PermissionMode

__all__ = ["DEFAULT_MODELS", "ModelChoice", "SessionOptions", "loop_config", "model_choice"]

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
        provider, models, base_url, api_key, tool_protocol: who answers (no
            provider: :func:`model_choice` chooses).
        permission_mode: ``ask``, ``auto``, ``plan``, ``deny``.
        max_turns, verify, verify_attempts, tool_timeout: limits and checks.
        resume: an id or title to resume; *continue_latest* resumes the newest.
        autotitle: let the model title the session after the first exchange.
        system_extra: text appended to the system prompt.
        system_prompt: text that replaces the built-in system prompt (``None``: keep
            it); the workspace, instruction files and skills still follow.
        keep_thinking: ask the model to think, and keep its thinking in the history.
        memory_updates: after each completed run, one bounded model request updates
            the working memory's goal, decisions, tasks and problems (file activity is
            kept either way).
        allow, deny: permission rules for this session only.
        sandbox: ``workspace-write`` runs shell commands under bubblewrap.
        workers: worker name -> module (default: model, tools, shell, and search,
            which starts on its first call).
        worker_env: extra environment per worker name.
        context: the model's window and output reserve.
        record: write the session log (off: nothing is written under HARNESS_HOME).
        tools: offer only these built-in tools (``None``: the model profile's list,
            which is every tool but for a small model, where each tool is prompt it reads
            before its first token; see :func:`harness.actors.model.profile_for`).
        strict_writes: ``write_file`` only creates files, and ``edit_file`` changes only
            files the model has read (``None``: as the model's profile says; see
            :mod:`harness.conversation._seen`).
        temperature, seed: sampling (``None``: the provider's own).
        subagents: what each sub-agent may use and how many run at once.
        deepthink: run each prompt as five stages: plan, check, implement, review, verify.
        history_embedding_model: an embedding model the provider has: each request
            then carries the older turns most like the prompt instead of the whole
            history (``None``: off; see :mod:`harness.conversation.context._recall`).
        trust_project: trust the workspace's own configuration (the servers of
            ``.mcp.json``, the allow rules of ``.permissions.json``) as it is, for this
            session only. Off, those count only when the user approved their exact
            content (``harness trust``; see :mod:`harness.trust`); deny rules always do.
    """

    workspace: str | None = None
    home: str | None = None
    environ: Mapping[str, str] | None = None
    provider: str = ""
    models: tuple[str, ...] = ()
    base_url: str | None = None
    api_key: str | None = None
    tool_protocol: str = "auto"
    permission_mode: PermissionMode = "ask"
    max_turns: int = 50
    verify: str | None = None
    verify_attempts: int = 3
    tool_timeout: float | None = None
    resume: str | None = None
    continue_latest: bool = False
    autotitle: bool = False
    system_extra: str = ""
    system_prompt: str | None = None
    keep_thinking: bool = False
    memory_updates: bool = False
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    sandbox: str | None = None
    workers: dict[str, str] = attrs.field(factory=lambda: dict(DEFAULT_MODULES))
    worker_env: dict[str, dict[str, str]] = attrs.field(factory=dict)
    context: ContextSettings = attrs.field(factory=ContextSettings)
    record: bool = True
    tools: tuple[str, ...] | None = None
    strict_writes: bool | None = None
    temperature: float | None = None
    seed: int | None = None
    subagents: SubagentLimits = attrs.field(factory=SubagentLimits)
    deepthink: bool = False
    history_embedding_model: str | None = None
    # MCP (issue 16): server entries given in code, and configuration files beside
    # $HARNESS_HOME/mcp.json and the workspace's .mcp.json (--mcp-config).
    mcp_servers: dict[str, Any] | None = None
    mcp_config_files: tuple[str, ...] = ()
    trust_project: bool = False


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
    provider, models, said = options.provider, options.models, ""
    if not provider and not options.base_url:
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
    """The loop's settings for *options*, with the resolved *workspace* and the
    assembled *system* prompt: the one place an option reaches the loop.

    Raises:
        ValueError: a permission mode or turn limit the loop cannot use.
    """
    tools = options.tools
    if tools is None:
        tools = profile_for(choice.provider, choice.models[0] if choice.models else "").tools
    return LoopConfig(
        workspace=workspace,
        system=system,
        provider=choice.provider,
        models=choice.models,
        tools=tools,
        strict_writes=options.strict_writes,
        base_url=options.base_url,
        api_key=options.api_key,
        tool_protocol=options.tool_protocol,
        permission_mode=options.permission_mode,
        max_turns=options.max_turns,
        verify=options.verify,
        verify_attempts=options.verify_attempts,
        tool_timeout=options.tool_timeout,
        autotitle=options.autotitle,
        keep_thinking=options.keep_thinking,
        temperature=options.temperature,
        seed=options.seed,
        context=options.context,
        deepthink=options.deepthink,
    )
