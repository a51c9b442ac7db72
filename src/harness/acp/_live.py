"""One open ACP session beside its harness :class:`~harness.conversation.Session`, and
what the agent settles for it: the modes and slash commands offered, the client's MCP
servers in harness's form, the key a hosted provider needs, the prompt's own commands.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs
import trio
from acp.exceptions import RequestError
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    SessionMode,
    SessionModeState,
    UnstructuredCommandInput,
)

from acp import helpers
from harness.acp._ask import Asker
from harness.acp._editor import EditorFiles
from harness.acp._updates import Update, UpdateMapper
from harness.conversation import Session, SessionOptions
from harness.home import harness_home
from harness.keys import provider_key

__all__ = [
    "COMMANDS",
    "KEYED",
    "MODES",
    "Live",
    "check_key",
    "find_skills",
    "folder",
    "mcp_entries",
    "own_command",
    "session_modes",
    "skill_prompt",
]

#: the permission modes offered as session modes
MODES = (
    SessionMode(id="ask", name="Ask", description="Ask before every change"),
    SessionMode(id="auto", name="Auto", description="Make changes without asking"),
    SessionMode(id="plan", name="Plan", description="Read only; submit a plan to approve"),
)

#: the slash commands harness answers itself in a prompt
COMMANDS = (
    AvailableCommand(name="compact", description="Summarise the history to free the context"),
    AvailableCommand(name="undo", description="Undo the last change the AI made"),
)

#: hosted providers that cannot answer without a key, as ACP auth methods
KEYED = ("openai", "anthropic", "gemini")


@attrs.define(eq=False)
class Live:
    """One open session and what its connection keeps beside it."""

    session: Session
    mapper: UpdateMapper
    asker: Asker
    files: EditorFiles
    closed: trio.Event = attrs.field(factory=trio.Event)
    mcp_ready: bool = False
    #: the slash commands offered, and the skills among them
    commands: list[AvailableCommand] = attrs.field(factory=lambda: list(COMMANDS))
    skills: set[str] = attrs.field(factory=set)
    #: set while no prompt runs
    idle: trio.Event = attrs.field(factory=trio.Event)

    def __attrs_post_init__(self) -> None:
        self.idle.set()

    @property
    def running(self) -> bool:
        """True while a prompt runs."""
        return not self.idle.is_set()


def mcp_entries(servers: Sequence[Any] | None) -> dict[str, Any]:
    """The client's MCP servers in the ``.mcp.json`` form harness's bridges read."""
    out: dict[str, Any] = {}
    for server in servers or ():
        name = str(getattr(server, "name", "") or f"server{len(out) + 1}")
        if hasattr(server, "command"):
            out[name] = {
                "command": server.command,
                "args": list(server.args),
                "env": {e.name: e.value for e in server.env},
            }
        elif hasattr(server, "url"):
            out[name] = {
                "type": getattr(server, "type", "http"),
                "url": server.url,
                "headers": {h.name: h.value for h in server.headers},
            }
        else:
            raise RequestError.invalid_params({"mcpServers": f"{name}: a transport harness lacks"})
    return out


def skill_prompt(text: str, skills: set[str]) -> str:
    """``/name rest`` for a skill: the model is asked to load it and use it for the rest."""
    word, _, rest = text.strip().partition(" ")
    if not word.startswith("/") or word[1:] not in skills:
        return text
    return f"Use the skill {word[1:]} (load it with use_skill first).\n\n{rest.strip()}".strip()


def folder(cwd: str) -> str:
    """*cwd* when it is an absolute path to a folder, else "invalid params"."""
    if not os.path.isabs(cwd) or not os.path.isdir(cwd):
        raise RequestError.invalid_params({"cwd": f"{cwd!r} is not an absolute path to a folder"})
    return cwd


def session_modes(session: Session) -> SessionModeState:
    """The modes offered, and the session's (one of its own too, when it has another)."""
    modes = list(MODES)
    if session.permission_mode not in {m.id for m in MODES}:
        mode = session.permission_mode
        modes.append(SessionMode(id=mode, name=mode.capitalize()))
    return SessionModeState(current_mode_id=session.permission_mode, available_modes=modes)


def check_key(live: Live, options: SessionOptions, environ: Mapping[str, str]) -> None:
    """Refuse ("authentication required", the session closed) a hosted provider at its
    own address without a key: it cannot answer."""
    provider = live.session.provider
    if provider not in KEYED or provider_key(provider):
        return
    from harness.actors.model import resolve_credentials

    try:
        key, base = resolve_credentials(
            provider, api_key=options.api_key, base_url=options.base_url, env=environ
        )
    except Exception:  # a saved-keys file that cannot be read holds no key
        key, base = None, ""
    if key is None and not base:
        live.closed.set()
        raise RequestError.auth_required({"details": f"{provider} needs an API key"})


async def find_skills(live: Live, environ: Mapping[str, str]) -> None:
    """Offer harness's own commands, then a command per skill (``/name what to do``)."""
    from harness.skills import discover_skills

    home = harness_home(environ)
    skills = await trio.to_thread.run_sync(discover_skills, live.session.workspace, home)
    own = {c.name for c in COMMANDS}
    live.skills = {s.name for s in skills if s.name not in own}
    hint = AvailableCommandInput(root=UnstructuredCommandInput(hint="what to use it for"))
    live.commands = [
        *COMMANDS,
        *(
            AvailableCommand(name=s.name, description=s.description or s.name, input=hint)
            for s in skills
            if s.name in live.skills
        ),
    ]


async def own_command(
    live: Live, text: str, send: Callable[[str, Update], Awaitable[None]]
) -> str | None:
    """Answer a prompt that is one of :data:`COMMANDS` (the command, else ``None``);
    *send* sends an update of the session."""
    word = text.strip().split(maxsplit=1)[0] if text.strip() else ""
    sid = live.session.id
    if word == "/compact":
        done = await live.session.compact()
        said = "The history was summarised." if done else "There was nothing to compact."
    elif word == "/undo":
        undone = await live.session.undo()
        said = undone.message
        if undone.ok:
            await live.files.show_files(live.session.workspace, undone.paths)
    else:
        return None
    await send(sid, helpers.update_agent_message_text(said))
    return word
