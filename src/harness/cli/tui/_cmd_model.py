"""The slash commands that choose who answers: ``/connect`` (the provider, its key)
and ``/model`` (a model of that provider, remembered per workspace)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.cli.tui._commands import CommandError, ParsedCommand, command
from harness.cli.tui._sanitize import clean_line
from harness.messages import PROVIDERS
from harness.words import HOSTED_PROVIDERS

if TYPE_CHECKING:
    from harness.cli.tui._context import CommandContext

__all__ = ["apply_model", "cmd_connect", "cmd_model", "ensure_key", "list_models"]


async def _settled(ctx: CommandContext) -> None:
    # Start-up settles its own provider and model on a thread, then opens the
    # session. A choice made before then would be overwritten by it, and would
    # import the model package on this thread while that one imports it too (the
    # two import locks taken in opposite orders: a deadlock Python breaks by
    # raising in one of them). So a choice waits for start-up, whether the session
    # opened or not.
    await ctx.host.session()


async def _retry_failed(ctx: CommandContext) -> None:
    # A session that could not open waits for a reopen; its error says "try
    # /connect", so a new choice is what reopens it.
    if ctx.live is None and ctx.host.open_error is not None:
        await ctx.host.reopen()


async def list_models(ctx: CommandContext, provider: str) -> list[str]:
    """The models *provider* offers, asked through the session's model worker."""
    live = await ctx.session()
    return await live.list_models(provider, ctx.choice.base_url)


def apply_model(ctx: CommandContext, provider: str, model: str) -> None:
    """Switch to *provider* and *model*: the app, the live session, and the prefs."""
    ctx.choice.provider, ctx.choice.model = provider, model
    if ctx.live is not None:
        ctx.live.set_model(provider, (model,) if model else (), ctx.choice.base_url)
    ctx.prefs.update(provider=provider, model=model, base_url=ctx.choice.base_url)


async def ensure_key(ctx: CommandContext, provider: str) -> bool:
    """Ask for a hosted provider's key when neither the environment nor the keys store
    has one, and save it (``providers.json``, mode 0600); ``False`` when skipped."""
    from harness.actors.model import providers_path, resolve_credentials, save_key
    from harness.errors import ProviderError
    from harness.keys import provider_key

    if provider not in HOSTED_PROVIDERS:
        return True
    try:
        known, _url = resolve_credentials(provider, env=ctx.environ)
    except ProviderError as exc:
        path = providers_path(ctx.environ)
        raise CommandError(f"{path} cannot be read: {clean_line(exc.message)}") from exc
    if known or provider_key(provider):
        return True
    key = await ctx.host.read_secret(f"{provider} API key (Enter cancels): ")
    key = key.strip()
    if not key:
        ctx.say("no key given; the provider is unchanged", "yellow")
        return False
    try:
        saved = save_key(provider, key, env=ctx.environ)
    except Exception as exc:
        raise CommandError(f"the key could not be saved: {clean_line(str(exc))}") from exc
    if ctx.live is not None:
        ctx.live.add_secret(key)
    ctx.say(f"key saved to {saved} (readable by you only)", "green")
    return True


@command(
    "connect",
    "[provider [model]] | status",
    "choose the provider, then a model (pickers without arguments); 'status' checks them all",
    complete=(("@providers", "status"), ("@models",)),
)
async def cmd_connect(ctx: CommandContext, p: ParsedCommand) -> None:
    """Switch provider (asking for its key when none is known, then for a model when
    none is named), or check the connection and what every provider still needs."""
    from harness.cli.tui._providers import readiness

    await _settled(ctx)
    if p.args and p.args[0] == "status":
        await _status(ctx)
        return
    if not p.args:
        states = [await readiness(ctx.environ, name) for name in PROVIDERS]
        index = await ctx.pick([f"{s.provider:<10} {s.text}" for s in states], "provider")
        if index is None:
            return
        provider, model = PROVIDERS[index], ""
    else:
        provider = p.args[0].lower()
        model = p.args[1] if len(p.args) > 1 else ""
    if provider not in PROVIDERS:
        raise CommandError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    if not await ensure_key(ctx, provider):
        return
    same = provider == ctx.choice.provider
    base_url = ctx.choice.base_url if same else None  # the new provider's own URL
    if not model and ctx.live is not None:
        # The model is chosen before anything switches: a provider that cannot be
        # reached, or a picker left empty, leaves the one in use as it was.
        picked = await _pick_model(ctx, provider, base_url)
        if picked is None:
            ctx.say(f"no model chosen; still on {ctx.choice.label()}", "yellow")
            return
        model = picked
    ctx.choice.base_url = base_url
    apply_model(ctx, provider, model)
    ctx.say(f"provider {provider}" + (f", model {model}" if model else ""), "green")
    await _retry_failed(ctx)
    if not model:
        await cmd_model.run(ctx, ParsedCommand(command=cmd_model, args=(), raw_args=""))


async def _pick_model(ctx: CommandContext, provider: str, base_url: str | None) -> str | None:
    """A model *provider* offers, picked by the user (``None``: none picked).

    Raises:
        CommandError: the provider cannot be reached or offers none; the message says
            why, and that the model in use is unchanged.
    """
    from harness.cli.tui._providers import installed_models

    live = await ctx.session()
    still = f"still on {ctx.choice.label() or 'no provider'}"
    try:
        with ctx.console.status(f"asking {provider} for its models…"):
            models = await live.list_models(provider, base_url)
    except Exception as exc:
        why = clean_line(str(exc))[:200] or type(exc).__name__
        raise CommandError(f"cannot list {provider} models: {why}; {still}") from exc
    if not models:
        raise CommandError(f"{provider} has no models to offer; {still}")
    installed = installed_models(provider, models, ctx.home)
    ctx.choice.offered = [m for m in models if installed[m]]
    rows = [m if installed[m] else f"{m}  (not installed)" for m in models]
    index = await ctx.pick(rows, "model")
    if index is None:
        return None
    if not installed[models[index]]:
        raise CommandError(f"{models[index]} is not installed; {still}")
    return models[index]


async def _status(ctx: CommandContext) -> None:
    from harness.cli.tui._providers import readiness

    ctx.say(
        f"provider {ctx.choice.provider or '(none)'} · model {ctx.choice.model or '(default)'}"
        + (f" · {ctx.choice.base_url}" if ctx.choice.base_url else ""),
    )
    try:
        models = await list_models(ctx, ctx.choice.provider)
    except CommandError:
        raise
    except Exception as exc:
        ctx.say(f"not connected: {clean_line(str(exc))[:200]}", "red")
    else:
        ctx.say(f"connected: {len(models)} models available", "green")
    for name in PROVIDERS:
        state = await readiness(ctx.environ, name)
        ctx.say(f"  {name:<10} {clean_line(state.text)}", "" if state.ready else "yellow")


@command(
    "model",
    "[name]",
    "pick a model of the provider (remembered per workspace)",
    complete=(("@models",),),
)
async def cmd_model(ctx: CommandContext, p: ParsedCommand) -> None:
    """Use *name*, or pick from the models the provider lists."""
    await _settled(ctx)
    if p.args:
        apply_model(ctx, ctx.choice.provider, p.args[0])
        ctx.say(f"model {p.args[0]} (remembered for this folder)", "green")
        await _retry_failed(ctx)
        return
    picked = await _pick_model(ctx, ctx.choice.provider, ctx.choice.base_url)
    if picked is not None:
        apply_model(ctx, ctx.choice.provider, picked)
        ctx.say(f"model {picked} (remembered for this folder)", "green")
