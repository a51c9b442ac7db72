"""The slash commands that choose who answers: ``/connect`` (the provider, its key)
and ``/model`` (a model of that provider, remembered per workspace)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.cli.tui._cmd_common import pick, request, say
from harness.cli.tui._commands import CommandError, ParsedCommand
from harness.cli.tui._sanitize import clean_line
from harness.keys import provider_key
from harness.messages import PROVIDERS

if TYPE_CHECKING:
    from harness.cli.tui._app import App

__all__ = ["apply_model", "cmd_connect", "cmd_model", "ensure_key", "list_models"]


async def _settled(app: App) -> None:
    # Start-up settles its own provider and model on a thread, then opens the
    # session. A choice made before then would be overwritten by it, and would
    # import the model package on this thread while that one imports it too (the
    # two import locks taken in opposite orders: a deadlock Python breaks by
    # raising in one of them). So a choice waits for start-up, whether the session
    # opened or not.
    await app.session()


async def _retry_failed(app: App) -> None:
    # A session that could not open waits for a reopen; its error says "try
    # /connect", so a new choice is what reopens it.
    if app.live is None and app.open_error is not None:
        await app.reopen()


async def list_models(app: App, provider: str) -> list[str]:
    """The models *provider* offers, asked through the session's model worker."""
    from harness.messages.model import ListModels, ModelList

    reply = await request(
        app,
        "model",
        ListModels(provider=provider, base_url=app.base_url, api_key=provider_key(provider)),
        timeout=10,
    )
    return list(reply.models) if isinstance(reply, ModelList) else []


def apply_model(app: App, provider: str, model: str) -> None:
    """Switch to *provider* and *model*: the app, the live session, and the prefs."""
    app.provider, app.model = provider, model
    live = app.live
    if live is not None:
        cfg = live.conversation.config
        cfg.provider, cfg.models = provider, ((model,) if model else ())
        cfg.base_url = app.base_url
    app.prefs.update(provider=provider, model=model, base_url=app.base_url)


async def ensure_key(app: App, provider: str) -> bool:
    """Ask for a hosted provider's key when neither the environment nor the keys store
    has one, and save it (``providers.json``, mode 0600); ``False`` when skipped."""
    from harness.actors.model._credentials import (
        ENV_KEYS,
        load_providers,
        providers_path,
        save_key,
    )

    if provider not in ("openai", "anthropic", "gemini"):
        return True
    if any(app.environ.get(name) for name in ENV_KEYS.get(provider, ())):
        return True
    path = providers_path(app.environ)
    try:
        if load_providers(path).get(provider, {}).get("api_key"):
            return True
    except Exception as exc:
        raise CommandError(f"{path} cannot be read: {clean_line(str(exc))}") from exc
    env_names = " or ".join(ENV_KEYS.get(provider, ()))
    key = await app.read_secret(f"{provider} API key (Enter cancels; or set {env_names}): ")
    key = key.strip()
    if not key:
        say(app, "no key given; the provider is unchanged", "yellow")
        return False
    try:
        saved = save_key(provider, key, env=app.environ)
    except Exception as exc:
        raise CommandError(f"the key could not be saved: {clean_line(str(exc))}") from exc
    live = app.live
    if live is not None:
        masker = getattr(live.conversation, "masker", None)
        add = getattr(masker, "add", None)
        if callable(add):
            add(key)
    say(app, f"key saved to {saved} (readable by you only)", "green")
    return True


async def cmd_connect(app: App, p: ParsedCommand) -> None:
    """``/connect [provider [model]] | status``: switch provider (asking for its key
    when none is known, then for a model when none is named), or check the connection."""
    await _settled(app)
    if not p.args or p.args[0] == "status":
        say(
            app,
            f"provider {app.provider or '(none)'} · model {app.model or '(default)'}"
            + (f" · {app.base_url}" if app.base_url else ""),
        )
        try:
            models = await list_models(app, app.provider)
        except CommandError:
            raise
        except Exception as exc:
            say(app, f"not connected: {clean_line(str(exc))[:200]}", "red")
            return
        say(app, f"connected: {len(models)} models available", "green")
        return
    provider = p.args[0].lower()
    if provider not in PROVIDERS:
        raise CommandError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    model = p.args[1] if len(p.args) > 1 else ""
    if not await ensure_key(app, provider):
        return
    app.base_url = None  # the new provider's own URL; only once the switch is certain
    apply_model(app, provider, model)
    say(app, f"provider {provider}" + (f", model {model}" if model else ""), "green")
    await _retry_failed(app)
    if not model:
        await cmd_model(app, ParsedCommand(command=p.command, args=(), raw_args=""))


async def cmd_model(app: App, p: ParsedCommand) -> None:
    """``/model [name]``: use *name*, or pick from the models the provider lists."""
    await _settled(app)
    if p.args:
        apply_model(app, app.provider, p.args[0])
        say(app, f"model {p.args[0]} (remembered for this folder)", "green")
        await _retry_failed(app)
        return
    try:
        with app.console.status("asking the provider for its models…"):
            models = await list_models(app, app.provider)
    except CommandError:
        raise
    except Exception as exc:
        msg = f"cannot list {app.provider} models: {clean_line(str(exc))[:200]}"
        raise CommandError(msg) from exc
    if not models:
        raise CommandError(f"{app.provider} has no models to offer")
    app.model_names = models
    index = await pick(app, models, "model")
    if index is not None:
        apply_model(app, app.provider, models[index])
        say(app, f"model {models[index]} (remembered for this folder)", "green")
