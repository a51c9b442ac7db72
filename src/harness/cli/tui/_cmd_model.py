"""The slash commands that choose who answers: ``/connect`` (the provider, its key)
and ``/model`` (a model of that provider, remembered per workspace)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.cli.tui._cmd_common import live_session, pick, say
from harness.cli.tui._commands import CommandError, ParsedCommand, command
from harness.cli.tui._sanitize import clean_line
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
    live = await live_session(app)
    return await live.list_models(provider, app.base_url)


def apply_model(app: App, provider: str, model: str) -> None:
    """Switch to *provider* and *model*: the app, the live session, and the prefs."""
    app.provider, app.model = provider, model
    if app.live is not None:
        app.live.set_model(provider, (model,) if model else (), app.base_url)
    app.prefs.update(provider=provider, model=model, base_url=app.base_url)


async def ensure_key(app: App, provider: str) -> bool:
    """Ask for a hosted provider's key when neither the environment nor the keys store
    has one, and save it (``providers.json``, mode 0600); ``False`` when skipped."""
    from harness.actors.model import providers_path, resolve_credentials, save_key
    from harness.errors import ProviderError
    from harness.keys import provider_key

    if provider not in ("openai", "anthropic", "gemini"):
        return True
    try:
        known, _url = resolve_credentials(provider, env=app.environ)
    except ProviderError as exc:
        path = providers_path(app.environ)
        raise CommandError(f"{path} cannot be read: {clean_line(exc.message)}") from exc
    if known or provider_key(provider):
        return True
    key = await app.read_secret(f"{provider} API key (Enter cancels): ")
    key = key.strip()
    if not key:
        say(app, "no key given; the provider is unchanged", "yellow")
        return False
    try:
        saved = save_key(provider, key, env=app.environ)
    except Exception as exc:
        raise CommandError(f"the key could not be saved: {clean_line(str(exc))}") from exc
    if app.live is not None:
        app.live.add_secret(key)
    say(app, f"key saved to {saved} (readable by you only)", "green")
    return True


@command(
    "connect",
    "[provider [model]] | status",
    "choose the provider, then a model (pickers without arguments); 'status' checks them all",
    complete=(("@providers", "status"), ("@models",)),
)
async def cmd_connect(app: App, p: ParsedCommand) -> None:
    """Switch provider (asking for its key when none is known, then for a model when
    none is named), or check the connection and what every provider still needs."""
    from harness.cli.tui._providers import readiness

    await _settled(app)
    if p.args and p.args[0] == "status":
        await _status(app)
        return
    if not p.args:
        states = [await readiness(app, name) for name in PROVIDERS]
        index = await pick(app, [f"{s.provider:<10} {s.text}" for s in states], "provider")
        if index is None:
            return
        provider, model = PROVIDERS[index], ""
    else:
        provider = p.args[0].lower()
        model = p.args[1] if len(p.args) > 1 else ""
    if provider not in PROVIDERS:
        raise CommandError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    if not await ensure_key(app, provider):
        return
    if provider != app.provider:
        app.base_url = None  # the new provider's own URL; only once the switch is certain
    apply_model(app, provider, model)
    say(app, f"provider {provider}" + (f", model {model}" if model else ""), "green")
    await _retry_failed(app)
    if not model:
        await cmd_model.run(app, ParsedCommand(command=cmd_model, args=(), raw_args=""))


async def _status(app: App) -> None:
    from harness.cli.tui._providers import readiness

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
    else:
        say(app, f"connected: {len(models)} models available", "green")
    for name in PROVIDERS:
        state = await readiness(app, name)
        say(app, f"  {name:<10} {clean_line(state.text)}", "" if state.ready else "yellow")


@command(
    "model",
    "[name]",
    "pick a model of the provider (remembered per workspace)",
    complete=(("@models",),),
)
async def cmd_model(app: App, p: ParsedCommand) -> None:
    """Use *name*, or pick from the models the provider lists."""
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
