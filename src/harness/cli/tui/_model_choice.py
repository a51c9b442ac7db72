"""What the terminal's session opens with: the provider and model settled at start-up,
and the :class:`SessionOptions` built from the command line and the environment."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext
    from harness.conversation import SessionOptions
    from harness.words import PermissionMode

__all__ = ["choose_model", "session_options"]


def choose_model(ctx: CommandContext, args: argparse.Namespace) -> None:
    """Settle ``ctx.choice``: the command line, the workspace's last choice, the
    environment's (``HARNESS_PROVIDER``, ``HARNESS_MODEL``, ``OLLAMA_MODEL``), then a
    reachable Ollama, then the embedded model. Says which, and why."""
    chosen = ctx.choice
    provider = getattr(args, "provider", None)
    model = chosen.fallbacks[0] if chosen.fallbacks else None
    saved = ctx.prefs.get()
    if not provider and not model and saved.get("provider"):
        chosen.provider, chosen.model = saved["provider"], saved.get("model", "")
        chosen.base_url = chosen.base_url or saved.get("base_url")
        ctx.say(f"model {chosen.label()} (remembered for this folder)", "dim")
        return
    if not provider and not model:
        from harness.cli._session_options import default_model

        try:
            provider, model = default_model(ctx.environ)
        except ValueError as exc:
            ctx.say(f"{exc}; ignored", "yellow")
    try:
        from harness.actors.model.local import (
            NoModelAvailable,
            choose_startup_model,
        )
    except ImportError:  # the local provider is an optional part of the build
        chosen.provider, chosen.model = provider or "ollama", model or ""
        shown = chosen.label()
        ctx.say(f"model {shown}" + ("" if provider else " (default; /connect to change)"), "dim")
        return
    try:
        choice = choose_startup_model(provider, model, env=ctx.environ)
    except NoModelAvailable as exc:
        chosen.provider, chosen.model = "local", ""
        ctx.say(str(exc), "yellow")
        ctx.say("Type /connect to choose a provider.", "yellow")
        return
    chosen.provider, chosen.model = choice.provider, choice.model or ""
    ctx.say(choice.header, "dim")
    if choice.source == "embedded":
        ctx.say(
            "The embedded model is small: fine for trying harness offline and simple "
            "tasks. /connect ollama|openai|anthropic|gemini for real work.",
            "yellow",
        )


def session_options(
    ctx: CommandContext,
    args: argparse.Namespace,
    *,
    resume: str | None = None,
    continue_latest: bool = False,
    permission_mode: PermissionMode | None = None,
) -> SessionOptions:
    """The ``SessionOptions`` for the terminal's next session: the command line's
    (:func:`harness.cli._session_options.session_options`) with ``ctx.choice``, resuming
    *resume* (or the latest session with *continue_latest*), in *permission_mode*
    when the user changed it in the session before (else the command line's). A bad
    ``HARNESS_WORKERS`` is reported and left out, not fatal."""
    from harness.cli._session_options import session_options as from_command_line

    chosen = ctx.choice
    models = [chosen.model, *chosen.fallbacks[1:]] if chosen.model else []
    choices = {
        "workspace": str(ctx.workspace),
        "home": str(ctx.home),
        "provider": chosen.provider or "ollama",
        "models": tuple(dict.fromkeys(models)),
        "base_url": chosen.base_url,
        "resume": resume,
        "continue_latest": continue_latest,
        "autotitle": True,
    }
    if permission_mode is not None:
        choices["permission_mode"] = permission_mode
    environ = dict(ctx.environ)
    try:
        return from_command_line(args, environ, **choices)
    except ValueError as exc:
        ctx.say(f"{exc}; ignored", "yellow")
        environ = {k: v for k, v in environ.items() if k != "HARNESS_WORKERS"}
        return from_command_line(args, environ, **choices)
