"""What the terminal's session opens with: the provider and model settled at start-up,
and the :class:`SessionOptions` built from the command line and the environment."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from harness.cli.tui._app import App
    from harness.conversation import SessionOptions

__all__ = ["choose_model", "session_options"]


def _say(app: App, text: str, style: str = "dim") -> None:
    app.console.print(Text(text, style=style))


def choose_model(app: App) -> None:
    """Settle *app*'s provider and model: the command line, the workspace's last
    choice, the environment's (``HARNESS_PROVIDER``, ``HARNESS_MODEL``,
    ``OLLAMA_MODEL``), then a reachable Ollama, then the embedded model. Says which,
    and why."""
    provider = getattr(app.args, "provider", None)
    model = app.models[0] if app.models else None
    saved = app.prefs.get()
    if not provider and not model and saved.get("provider"):
        app.provider, app.model = saved["provider"], saved.get("model", "")
        app.base_url = app.base_url or saved.get("base_url")
        _say(app, f"model {app.provider}:{app.model} (remembered for this folder)")
        return
    if not provider and not model:
        from harness.cli._options import default_model

        try:
            provider, model = default_model(app.environ)
        except ValueError as exc:
            _say(app, f"{exc}; ignored", "yellow")
    try:
        from harness.actors.model.local import (
            NoModelAvailable,
            choose_startup_model,
        )
    except ImportError:  # the local provider is an optional part of the build
        app.provider, app.model = provider or "ollama", model or ""
        shown = f"{app.provider}:{app.model}" if app.model else app.provider
        _say(app, f"model {shown}" + ("" if provider else " (default; /connect to change)"))
        return
    try:
        choice = choose_startup_model(provider, model, env=app.environ)
    except NoModelAvailable as exc:
        app.provider, app.model = "local", ""
        _say(app, str(exc), "yellow")
        _say(app, "Type /connect to choose a provider.", "yellow")
        return
    app.provider, app.model = choice.provider, choice.model or ""
    _say(app, choice.header)
    if choice.source == "embedded":
        _say(
            app,
            "The embedded model is small: fine for trying harness offline and simple "
            "tasks. /connect ollama|openai|anthropic|gemini for real work.",
            "yellow",
        )


def session_options(app: App) -> SessionOptions:
    """The ``SessionOptions`` for *app*'s next session: the command line's
    (:func:`harness.cli._options.session_options`) with *app*'s current choices.
    A bad ``HARNESS_WORKERS`` is reported and left out, not fatal."""
    from harness.cli._options import session_options as from_command_line

    choices = {
        "workspace": str(app.workspace),
        "home": str(app.home),
        "provider": app.provider or "ollama",
        "models": tuple(dict.fromkeys([app.model, *app.models[1:]] if app.model else [])),
        "base_url": app.base_url,
        "resume": app.resume,
        "continue_latest": app.continue_latest,
        "autotitle": True,
    }
    try:
        return from_command_line(app.args, app.environ, **choices)
    except ValueError as exc:
        _say(app, f"{exc}; ignored", "yellow")
        environ = {k: v for k, v in app.environ.items() if k != "HARNESS_WORKERS"}
        return from_command_line(app.args, environ, **choices)
