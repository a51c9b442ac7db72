"""The session's hooks: loaded with the session, told to the loop, fired as it opens and
closes, their starts and ends made conversation events. A session whose files configure
no hook has none (``None``: the loop then holds its ``no_hooks``), and never loads what
runs hooks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import trio

from harness.conversation import events as ev
from harness.hooks import load_hooks
from harness.trust import TrustStore, WorkspaceTrust

if TYPE_CHECKING:
    from harness.conversation._loop import Conversation
    from harness.conversation.session._options import SessionOptions
    from harness.conversation.session._store import SessionLog
    from harness.hooks import HookHandler, HookOutcome, Hooks

__all__ = ["session_end", "session_hooks", "session_start", "watch_hooks"]


def session_hooks(
    options: SessionOptions,
    workspace: Path,
    home: Path,
    session_id: str,
    log: SessionLog | None,
    problems: list[str],
) -> Hooks | None:
    """The hooks of a session: the user's, and the project's that the workspace's trust
    covers as they are now (``--trust-project`` trusts them for this run); each faulty
    file or entry is added to *problems*. ``None`` when no file configures a hook."""
    trust = WorkspaceTrust(workspace, TrustStore(home), trust_all=options.trust_project)
    loaded = load_hooks(workspace, home=home, trusts=trust.trusts)
    problems.extend(loaded.problems)
    if not loaded.config:
        return None
    from harness.hooks import Hooks

    return Hooks(
        loaded.config,
        cwd=workspace,
        session_id=session_id,
        transcript_path=str(log.path) if log is not None else "",
    )


def watch_hooks(conv: Conversation, hooks: Hooks | None) -> None:
    """Make each hook's start and end a ``hook_started``/``hook_finished`` event."""
    if hooks is None:
        return

    def listener(h: HookHandler, outcome: HookOutcome | None, call_id: str) -> None:
        sid = conv.session_id
        if outcome is None:
            conv.emit(
                ev.HookStarted(
                    session_id=sid, event=h.event, hook=h.label, source=h.source, call_id=call_id
                )
            )
            return
        conv.emit(
            ev.HookFinished(
                session_id=sid,
                event=h.event,
                hook=h.label,
                source=h.source,
                call_id=call_id,
                decision=outcome.decision,
                reason=conv.masker.mask(outcome.reason),
                ms=round(outcome.ms, 1),
                exit_code=outcome.exit_code,
            )
        )

    hooks.listener = listener


async def session_start(conv: Conversation, hooks: Hooks | None, *, resumed: bool) -> None:
    """Fire SessionStart (``source``: ``startup`` or ``resume``); what the hooks give the
    model joins the first prompt."""
    if hooks is None or not hooks.listens("SessionStart"):
        return
    source = "resume" if resumed else "startup"
    verdict = await hooks.fire("SessionStart", match=source, source=source)
    conv.hook_said(verdict)
    if verdict.context:
        conv.hook_context.append(verdict.context)


async def session_end(conv: Conversation, hooks: Hooks | None) -> None:
    """Fire SessionEnd as the session closes, even when it closes on a cancel (each hook
    is bounded by its own timeout)."""
    if hooks is None or not hooks.listens("SessionEnd"):
        return
    with trio.CancelScope(shield=True):
        conv.hook_said(await hooks.fire("SessionEnd", match="exit", reason="exit"))
