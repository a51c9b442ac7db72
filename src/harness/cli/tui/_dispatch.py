"""What each slash command does, given the app (its session, console and settings)."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio
from rich.table import Table
from rich.text import Text

from harness.cli.tui._commands import (
    COMMANDS,
    CommandError,
    ParsedCommand,
    help_rows,
    lookup,
    on_off,
)
from harness.cli.tui._sanitize import clean, clean_line

if TYPE_CHECKING:
    from harness.cli.tui._app import App

__all__ = ["completion_sources", "dispatch"]

Handler = Callable[["App", ParsedCommand], Awaitable[None]]
_HANDLERS: dict[str, Handler] = {}
_PROVIDERS = ("ollama", "openai", "anthropic", "gemini", "local")


def _cmd(name: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        _HANDLERS[name] = fn
        return fn

    return deco


async def dispatch(app: App, parsed: ParsedCommand) -> None:
    """Run one parsed slash command."""
    handler = _HANDLERS.get(parsed.command.name)
    if handler is None:
        raise CommandError(f"/{parsed.command.name} is not available in this build")
    await handler(app, parsed)


def _say(app: App, text: str, style: str = "") -> None:
    app.console.print(Text(text, style=style))


async def _live(app: App) -> Any:
    live = await app.session()
    if live is None:
        raise CommandError(f"no session ({app.open_error}); try /connect")
    return live


async def _request(app: App, worker: str, msg: Any, timeout: float = 30) -> Any:
    live = await _live(app)
    sup = live.engine.supervisor
    if worker not in sup:
        raise CommandError(f"there is no {worker} worker in this session")
    return await sup.get(worker).request(msg, timeout=timeout)


async def _pick(app: App, rows: list[str], what: str) -> int | None:
    """A numbered picker; the index chosen, or ``None`` (Enter / Ctrl+C / Ctrl+D)."""
    for i, row in enumerate(rows, 1):
        _say(app, f"  {i:>2}. {clean_line(row)}")
    try:
        answer = (await app.read_line(f"{what} (number, Enter cancels): ")).strip()
    except EOFError:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(rows):
        if answer and answer != "\x03":
            _say(app, f"no {what} {answer!r}", "yellow")
        return None
    return int(answer) - 1


# -- help, exit, expand ---------------------------------------------------------------------


@_cmd("help")
async def _help(app: App, p: ParsedCommand) -> None:
    if p.args:
        cmd = lookup(p.args[0].lstrip("/"))
        if cmd is None:
            raise CommandError(f"no command /{p.args[0].lstrip('/')}")
        _say(app, f"/{cmd.name} {cmd.usage}".rstrip(), "bold")
        _say(app, f"  {cmd.help}")
        return
    table = Table(show_header=False, box=None, padding=(0, 2))
    for usage, text in help_rows():
        table.add_row(Text(usage, style="cyan"), Text(text))
    app.console.print(table)
    _say(
        app,
        "Enter sends · Ctrl+J newline · @path adds a file · Esc/Ctrl+C cancels a "
        "response · Ctrl+D exits",
        "dim",
    )


@_cmd("exit")
async def _exit(app: App, p: ParsedCommand) -> None:
    from harness.cli.tui._app import ExitApp

    raise ExitApp


@_cmd("expand")
async def _expand(app: App, p: ParsedCommand) -> None:
    n = int(p.args[0]) if p.args and p.args[0].isdigit() else 1
    if not app.tools_done or n > len(app.tools_done) or n < 1:
        raise CommandError("no tool output to expand yet")
    rec = app.tools_done[-n]
    _say(app, f"── {clean_line(rec.name)} {clean_line(rec.main_argument)} ──", "bold")
    app.console.print(Text(clean(rec.output) or "(no output)"))


# -- provider and model ---------------------------------------------------------------------


async def _list_models(app: App, provider: str) -> list[str]:
    from harness.actors.protocol.model import ListModels, ModelList

    reply = await _request(
        app, "model", ListModels(provider=provider, base_url=app.base_url), timeout=10
    )
    return list(reply.models) if isinstance(reply, ModelList) else []


def _apply_model(app: App, provider: str, model: str) -> None:
    app.provider, app.model = provider, model
    live = app.live
    if live is not None:
        cfg = live.conversation.config
        cfg.provider, cfg.models = provider, ((model,) if model else ())
        cfg.base_url = app.base_url
    app.prefs.update(provider=provider, model=model, base_url=app.base_url)


async def _ensure_key(app: App, provider: str) -> bool:
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
        _say(app, "no key given; the provider is unchanged", "yellow")
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
    _say(app, f"key saved to {saved} (readable by you only)", "green")
    return True


@_cmd("connect")
async def _connect(app: App, p: ParsedCommand) -> None:
    if not p.args or p.args[0] == "status":
        _say(
            app,
            f"provider {app.provider or '(none)'} · model {app.model or '(default)'}"
            + (f" · {app.base_url}" if app.base_url else ""),
        )
        try:
            models = await _list_models(app, app.provider)
        except CommandError:
            raise
        except Exception as exc:
            _say(app, f"not connected: {clean_line(str(exc))[:200]}", "red")
            return
        _say(app, f"connected: {len(models)} models available", "green")
        return
    provider = p.args[0].lower()
    if provider not in _PROVIDERS:
        raise CommandError(f"unknown provider {provider!r}; choose one of {', '.join(_PROVIDERS)}")
    model = p.args[1] if len(p.args) > 1 else ""
    app.base_url = None
    if not await _ensure_key(app, provider):
        return
    _apply_model(app, provider, model)
    _say(app, f"provider {provider}" + (f", model {model}" if model else ""), "green")
    if not model:
        await _model(app, ParsedCommand(command=p.command, args=(), raw_args=""))


@_cmd("model")
async def _model(app: App, p: ParsedCommand) -> None:
    if p.args:
        _apply_model(app, app.provider, p.args[0])
        _say(app, f"model {p.args[0]} (remembered for this folder)", "green")
        return
    try:
        with app.console.status("asking the provider for its models…"):
            models = await _list_models(app, app.provider)
    except CommandError:
        raise
    except Exception as exc:
        msg = f"cannot list {app.provider} models: {clean_line(str(exc))[:200]}"
        raise CommandError(msg) from exc
    if not models:
        raise CommandError(f"{app.provider} has no models to offer")
    app.model_names = models
    index = await _pick(app, models, "model")
    if index is not None:
        _apply_model(app, app.provider, models[index])
        _say(app, f"model {models[index]} (remembered for this folder)", "green")


# -- status ---------------------------------------------------------------------------------


def _rss(n: int) -> str:
    return f"{n / 2**20:.0f} MB" if n else "-"


@_cmd("status")
async def _status(app: App, p: ParsedCommand) -> None:
    live = await _live(app)
    table = Table(title="workers", title_justify="left", box=None, padding=(0, 2))
    for col in ("worker", "pid", "state", "uptime", "restarts", "rss"):
        table.add_column(col)
    for w in live.engine.status():
        table.add_row(
            w.name,
            str(w.pid or "-"),
            str(getattr(w.state, "value", w.state)),
            f"{w.uptime:.0f}s",
            str(w.restarts),
            _rss(w.rss),
        )
    app.console.print(table)
    cfg = live.conversation.config
    chars = sum(len(m.content) for m in live.history) + len(cfg.system)
    # the provider's own count of the last request (it includes the tool schemas)
    # beats the estimate from the history's size
    used = max(chars // 4, app.last_prompt_tokens)
    try:
        window, _reserve = cfg.context.resolved(cfg.provider)
        ctx = f"~{used:,} of {window:,} tokens"
    except Exception:
        ctx = f"~{used:,} tokens"
    _say(
        app,
        f"provider {cfg.provider} · model {', '.join(cfg.models) or '(default)'} · "
        f"tool protocol {cfg.tool_protocol} · permission mode {cfg.permission_mode}",
    )
    _say(
        app,
        f"session {live.id}"
        + (f" “{clean_line(app.title)}”" if app.title else "")
        + f" · {len(live.history)} messages · context {ctx}",
    )


# -- changes: undo, autocommit, modes -------------------------------------------------------


@_cmd("undo")
async def _undo(app: App, p: ParsedCommand) -> None:
    from harness.actors.protocol.tools import Undo

    live = await _live(app)
    out = await _request(app, "tools", Undo(workspace=str(app.workspace), session_id=live.id))
    _say(app, clean_line(out.message), "green" if out.ok else "yellow")
    for path in getattr(out, "paths", ()):
        _say(app, f"  {clean_line(path)}", "dim")


@_cmd("autocommit")
async def _autocommit(app: App, p: ParsedCommand) -> None:
    from harness.actors.protocol.tools import SetAutocommit

    ws = str(app.workspace)
    state = await _request(app, "tools", SetAutocommit(workspace=ws, enabled=None))
    new = on_off(p.args, state.enabled)
    state = await _request(app, "tools", SetAutocommit(workspace=ws, enabled=new))
    git = "" if state.git else " (this folder is not a git repository)"
    _say(app, f"autocommit {'on' if state.enabled else 'off'}{git}")


async def _mode(app: App, p: ParsedCommand, mode: str) -> None:
    live = await _live(app)
    cfg = live.conversation.config
    turn_on = on_off(p.args, cfg.permission_mode == mode)
    cfg.permission_mode = mode if turn_on else "ask"
    _say(app, f"permission mode {cfg.permission_mode}")


@_cmd("automode")
async def _automode(app: App, p: ParsedCommand) -> None:
    await _mode(app, p, "auto")


@_cmd("planmode")
async def _planmode(app: App, p: ParsedCommand) -> None:
    await _mode(app, p, "plan")


@_cmd("think")
async def _think(app: App, p: ParsedCommand) -> None:
    app.show_thinking = on_off(p.args, app.show_thinking)
    _say(app, f"thinking {'shown (dimmed)' if app.show_thinking else 'hidden'}")


@_cmd("deepthink")
async def _deepthink(app: App, p: ParsedCommand) -> None:
    live = await _live(app)
    cfg = live.conversation.config
    cfg.keep_thinking = on_off(p.args, bool(cfg.keep_thinking))
    _say(app, f"deep thinking {'on' if cfg.keep_thinking else 'off'}")


@_cmd("perms")
async def _perms(app: App, p: ParsedCommand) -> None:
    live = await _live(app)
    perms = getattr(live.conversation.policy, "perms", None)
    if perms is None:
        raise CommandError("permissions are not available in this session")
    if not p.args or p.args[0] == "list":
        app.console.print(Text(clean(perms.describe())))
        return
    verb, rule = p.args[0], " ".join(p.args[1:])
    if verb in ("allow", "deny") and rule:
        perms.add(verb, rule)
        _say(app, f"{verb} {rule} (saved)", "green")
    elif verb == "remove" and rule and hasattr(perms, "remove"):
        perms.remove(rule)
        _say(app, f"removed {rule}", "green")
    elif verb == "remove" and rule:
        where = getattr(perms, "user_path", None) or "the permissions file"
        raise CommandError(f"rules are removed by editing {where} (or .permissions.json)")
    else:
        raise CommandError("usage: /perms [list | allow RULE | deny RULE | remove RULE]")


# -- mcp, agents, skills, memory ------------------------------------------------------------


@_cmd("mcp")
async def _mcp(app: App, p: ParsedCommand) -> None:
    path = app.workspace / ".mcp.json"
    try:
        servers = json.loads(path.read_text()).get("mcpServers", {})
    except FileNotFoundError:
        _say(app, "no MCP servers: this folder has no .mcp.json")
        return
    except (OSError, ValueError, AttributeError) as exc:
        raise CommandError(f".mcp.json cannot be read: {exc}") from exc
    for name, spec in servers.items():
        kind = spec.get("type") or ("stdio" if "command" in spec else "http")
        where = clean_line(str(spec.get("command") or spec.get("url", "")))
        _say(app, f"  {clean_line(name)}  {kind}  {where}")
    _say(app, "MCP bridges are not started by this build of harness.", "dim")


@_cmd("agents")
async def _agents(app: App, p: ParsedCommand) -> None:
    if not app.subagents:
        _say(app, "no sub-agents in this session")
    for name, state in app.subagents.items():
        _say(app, f"  {clean_line(name)}  {clean_line(state)[:100]}")


@_cmd("skills")
async def _skills(app: App, p: ParsedCommand) -> None:
    from harness.skills import discover_skills, find_skill, render_skill, skill_dirs

    if p.args:
        from harness.skills import SkillError

        try:
            skill = find_skill(app.workspace, p.args[0], app.home)
        except SkillError as exc:
            raise CommandError(str(exc)) from exc
        app.console.print(Text(clean(render_skill(skill))))
        return
    problems: list[str] = []
    skills = discover_skills(app.workspace, app.home, problems=problems)
    if not skills:
        dirs = ", ".join(str(d) for d, _ in skill_dirs(app.workspace, app.home))
        _say(app, f"no skills (searched {dirs})")
    for s in skills:
        line = Text("  ")
        line.append(clean_line(s.name), style="cyan")
        line.append(f"  {clean_line(s.description)[:100]}")
        line.append(f"  ({s.source})", style="dim")
        app.console.print(line)
    for problem in problems:
        _say(app, f"  skipped: {clean_line(problem)}", "yellow")


@_cmd("memory")
async def _memory(app: App, p: ParsedCommand) -> None:
    path = app.home / "memory.json"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        data = {}
    except (OSError, ValueError) as exc:
        raise CommandError(f"memory cannot be read: {exc}") from exc
    entries = data.get("entries", data) if isinstance(data, dict) else {}
    if not entries:
        _say(app, "nothing remembered yet")
        return
    for key, value in entries.items():
        text = value if isinstance(value, str) else json.dumps(value)
        _say(app, f"  {clean_line(str(key))}: {clean_line(text)[:120]}")


# -- sessions -------------------------------------------------------------------------------


@_cmd("title")
async def _title(app: App, p: ParsedCommand) -> None:
    live = await _live(app)
    if not p.raw_args:
        _say(app, f"title: {clean_line(app.title) or '(none yet)'}")
        return
    title = " ".join(p.args)
    live.set_title(title)
    app.title = title
    _say(app, f"session titled “{clean_line(title)}”", "green")


@_cmd("save")
async def _save(app: App, p: ParsedCommand) -> None:
    live = await _live(app)
    if p.args:
        title = " ".join(p.args)
        live.set_title(title)
        app.title = title
    name = app.title or live.id
    _say(app, f"session saved as “{clean_line(name)}” (/load {clean_line(name)})", "green")


@_cmd("autotitle")
async def _autotitle(app: App, p: ParsedCommand) -> None:
    live = await _live(app)
    cfg = live.conversation.config
    cfg.autotitle = on_off(p.args, cfg.autotitle)
    _say(app, f"autotitle {'on' if cfg.autotitle else 'off'}")


def _ago(ts: float) -> str:
    d = max(0.0, time.time() - ts)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if d >= size:
            return f"{d / size:.0f}{unit} ago"
    return "just now"


def _session_rows(app: App) -> list[Any]:
    live = app.live
    if live is None:
        return []
    return [s for s in live.store.list()]


@_cmd("sessions")
async def _sessions(app: App, p: ParsedCommand) -> None:
    await _live(app)
    rows = _session_rows(app)
    if not rows:
        _say(app, "no sessions in this folder yet")
    for s in rows:
        _say(
            app,
            f"  {s.id}  {_ago(s.updated):>8}  {clean_line(s.title or '(untitled)')[:40]}"
            f"  {clean_line(s.first_prompt)[:50]}",
        )


async def _switch(app: App, target: str) -> None:
    app.resume = target
    await app.reopen()


@_cmd("resume")
async def _resume(app: App, p: ParsedCommand) -> None:
    live = await _live(app)
    if p.args:
        await _switch(app, " ".join(p.args))
        return
    rows = [s for s in _session_rows(app) if s.id != live.id]
    if not rows:
        raise CommandError("no earlier session in this folder to resume")
    index = await _pick(
        app,
        [f"{s.title or '(untitled)'} · {_ago(s.updated)} · {s.first_prompt[:60]}" for s in rows],
        "session",
    )
    if index is not None:
        await _switch(app, rows[index].id)


@_cmd("load")
async def _load(app: App, p: ParsedCommand) -> None:
    if not p.args:
        raise CommandError("usage: /load TITLE|ID (or /resume for a picker)")
    await _switch(app, " ".join(p.args))


@_cmd("export")
async def _export(app: App, p: ParsedCommand) -> None:
    from harness.actors.conversation._store import export_json, export_markdown

    live = await _live(app)
    fmt = (p.args[0] if p.args else "md").lower()
    if fmt not in ("json", "md"):
        raise CommandError("usage: /export json|md [path]")
    loaded = live.store.load(live.id)
    path = Path(p.args[1]) if len(p.args) > 1 else Path(f"harness-{live.id}.{fmt}")
    data = export_json(loaded) if fmt == "json" else export_markdown(loaded).encode()
    await trio.Path(path).write_bytes(data)
    _say(app, f"exported to {path}", "green")


@_cmd("compact")
async def _compact(app: App, p: ParsedCommand) -> None:
    live = await _live(app)
    with app.console.status("summarising…"):
        done = await live.conversation.compact()
    _say(app, "history summarised" if done else "nothing to compact yet")


@_cmd("clear")
async def _clear(app: App, p: ParsedCommand) -> None:
    app.resume = None
    app.title = ""
    await app.reopen()
    _say(app, "new session", "green")


# -- completion -----------------------------------------------------------------------------


def completion_sources(app: App) -> dict[str, Callable[[], list[str]]]:
    """Dynamic argument lists for the completer."""

    def models() -> list[str]:
        return list(getattr(app, "model_names", []) or ([app.model] if app.model else []))

    def sessions() -> list[str]:
        out: list[str] = []
        for s in _session_rows(app):
            out.append(s.title or s.id)
        return out

    def skills() -> list[str]:
        from harness.skills import discover_skills

        return [s.name for s in discover_skills(app.workspace, app.home)]

    return {
        "@models": models,
        "@sessions": sessions,
        "@skills": skills,
        "@providers": lambda: list(_PROVIDERS),
        "@commands": lambda: [c.name for c in COMMANDS],
    }
