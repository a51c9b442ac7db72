"""Settings of one conversation: who answers, what may run, the limits."""

from __future__ import annotations

import attrs

from harness.actors.model import ModelProfile, profile_for
from harness.conversation._budget import ContextSettings
from harness.messages import PERMISSION_MODES, PermissionMode

__all__ = ["LoopConfig"]


@attrs.define
class LoopConfig:
    """How a conversation runs.

    Attributes:
        workspace: the project folder (absolute).
        provider: ``ollama``, ``openai``, ``anthropic``, ``gemini`` or ``local``.
        models: models to try in order (the first is the one asked).
        base_url: the provider's URL (``None``: its default).
        api_key: a key given on the command line or by the API (masked everywhere).
        tool_protocol: ``native``, ``text`` or ``auto``.
        permission_mode: ``ask``, ``auto``, ``plan`` or ``deny``.
        max_turns: model requests a run may make (default 50).
        verify: a shell command run when the model says it is done.
        verify_attempts: failures of *verify* sent back to the model before giving up.
        verify_timeout: seconds the verify command may run.
        tool_timeout: seconds a tool call may take on its worker (``None``: the
            worker's own limits).
        keep_thinking: store the model's thinking in the history.
        autotitle: ask the model for a title after the first exchange.
        system: the system prompt (instructions, AGENTS.md, skills, memory).
        temperature: sampling temperature (``None``: the provider's).
        seed: sampling seed, for runs that can be repeated (``None``: the provider's).
        context: the window and output reserve.
        tools: offer only these tools (``None``: every tool of the table).
        tool_limit: the only tools a call may use while it is set (a file command's
            ``allowed-tools``): only those are offered, and a call to any other is
            refused, naming *tool_limit_by* (``None``: no limit).
        tool_limit_by: who set the limit, for the refusal (``/review's allowed-tools``).
        strict_writes: ``write_file`` only creates files, and ``edit_file`` changes only
            files the model has seen (``None``: as the model's profile says; see
            :mod:`harness.conversation._seen`).
        workspace_map: the system prompt holds the workspace's map (``None``: as the
            model's profile says; see :mod:`harness.workspace_map`).
        deepthink: run each prompt as five stages (plan, check, implement, review,
            verify; see :mod:`harness.conversation.strategies`).
    """

    workspace: str
    provider: str = "ollama"
    models: tuple[str, ...] = ()
    base_url: str | None = None
    api_key: str | None = None
    tool_protocol: str = "auto"
    permission_mode: PermissionMode = "ask"
    max_turns: int = 50
    verify: str | None = None
    verify_attempts: int = 3
    verify_timeout: float = 600.0
    tool_timeout: float | None = None
    keep_thinking: bool = False
    autotitle: bool = False
    system: str = ""
    temperature: float | None = None
    seed: int | None = None
    context: ContextSettings = attrs.field(factory=ContextSettings)
    tools: tuple[str, ...] | None = None
    tool_limit: tuple[str, ...] | None = None
    tool_limit_by: str = ""
    strict_writes: bool | None = None
    workspace_map: bool | None = None
    deepthink: bool = False

    def __attrs_post_init__(self) -> None:
        if self.permission_mode not in PERMISSION_MODES:
            raise ValueError(
                f"permission mode must be one of {', '.join(PERMISSION_MODES)},"
                f" not {self.permission_mode!r}"
            )
        if self.max_turns < 1:
            raise ValueError("max turns must be at least 1")

    def profile(self) -> ModelProfile:
        """The profile of the model asked (see :func:`harness.actors.model.profile_for`),
        with strict writes and the workspace's map as set here."""
        model = self.models[0] if self.models else ""
        overrides = {"strict_writes": self.strict_writes, "maps_workspace": self.workspace_map}
        return profile_for(self.provider, model, overrides)

    def writes_strictly(self) -> bool:
        """Whether the model is held to strict writes: as set, else as its profile says."""
        return self.profile().strict_writes
