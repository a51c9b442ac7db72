"""What a hook decided, read the way Claude Code reads it, and what all of an event's hooks
decided together.

Exit 0: stdout may be a JSON object (``hookSpecificOutput.permissionDecision`` and its
reason, ``decision: "block"`` and ``reason``, ``additionalContext``, ``updatedInput``,
``continue: false`` with ``stopReason``, ``systemMessage``); plain stdout is context for
the model on ``UserPromptSubmit`` and ``SessionStart`` and a note for the user on the
others. Exit 2 blocks where the event can be blocked, stderr being the reason. Any other
end (another exit, a timeout, a command that did not start) is an error the user sees,
unless the handler says ``onFailure: "block"``: then it blocks (a guard fails closed).

Together: a block or deny from any hook wins, then ``ask``, then ``allow``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import attrs

from harness.hooks._config import HookHandler
from harness.hooks._run import HandlerRun

__all__ = ["NOTHING", "HookOutcome", "Verdict", "combine", "interpret"]

# Events a hook can stop: exit 2 (or a block decision) there means "no".
_BLOCKABLE = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"})
# Events whose plain stdout is context for the model (Claude Code's rule).
_CONTEXT_STDOUT = frozenset({"UserPromptSubmit", "SessionStart"})
_MAX_TEXT = 10_000


@attrs.frozen
class HookOutcome:
    """One handler's run, read.

    Attributes:
        handler: which hook.
        decision: ``allow``/``deny``/``ask`` (PreToolUse), ``block``, ``error`` (it failed and
            the step goes on) or ``""`` (no decision).
        reason: the reason given (for a block: what the model or the user is told).
        context: text to add for the model.
        updated_input: replacement tool arguments (PreToolUse), in the shape the hook saw.
        stop: it asked the whole run to stop (``continue: false``).
        message: a line for the user (``systemMessage``, an error, plain stdout).
        ms: how long it ran.
        exit_code: how it ended (``None``: killed at its timeout, or never started).
    """

    handler: HookHandler
    decision: str = ""
    reason: str = ""
    context: str = ""
    updated_input: dict[str, Any] | None = None
    stop: bool = False
    message: str = ""
    ms: float = 0.0
    exit_code: int | None = 0


@attrs.frozen
class Verdict:
    """What every hook of one event decided together.

    Attributes:
        decision: ``deny``/``block`` (some hook blocked), ``ask``, ``allow`` or ``""``.
        reason: the blocking (or asking, or allowing) hooks' reasons, one a line.
        context: every hook's context for the model, one a paragraph.
        updated_input: the first replacement arguments given (PreToolUse).
        stop: some hook asked the run to stop; ``stop_reason`` says why.
        messages: lines for the user.
        outcomes: each handler's own outcome, in the order they are configured.
    """

    decision: str = ""
    reason: str = ""
    context: str = ""
    updated_input: dict[str, Any] | None = None
    stop: bool = False
    stop_reason: str = ""
    messages: tuple[str, ...] = ()
    outcomes: tuple[HookOutcome, ...] = ()

    @property
    def blocked(self) -> bool:
        """Whether some hook said no (``deny`` or ``block``)."""
        return self.decision in ("deny", "block")


#: The verdict of an event no hook listens to.
NOTHING = Verdict()


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + " [cut]"


def _failure(handler: HookHandler, run: HandlerRun, why: str) -> HookOutcome:
    said = f"hook {handler.label!r} ({handler.source}) {why}"
    if handler.on_failure == "block" and handler.event in _BLOCKABLE:
        decision = "deny" if handler.event == "PreToolUse" else "block"
        return HookOutcome(
            handler,
            decision,
            f"{said}; it fails closed",
            message=said,
            ms=run.ms,
            exit_code=run.exit_code,
        )
    return HookOutcome(handler, "error", why, message=said, ms=run.ms, exit_code=run.exit_code)


def interpret(handler: HookHandler, run: HandlerRun) -> HookOutcome:
    """Read *run* of *handler* as Claude Code reads a hook's exit, stdout and stderr."""
    event = handler.event
    if run.timed_out:
        why = f"ran past its {handler.timeout:g} s timeout and was killed"
        return _failure(handler, run, why + (f" ({run.error})" if run.error else ""))
    if run.exit_code is None:
        return _failure(handler, run, run.error or "did not run")
    if run.exit_code == 2:
        reason = _cut(run.stderr) or f"blocked by hook {handler.label!r}"
        if event in _BLOCKABLE:
            decision = "deny" if event == "PreToolUse" else "block"
            return HookOutcome(handler, decision, reason, ms=run.ms, exit_code=2)
        return HookOutcome(handler, "", reason, message=reason, ms=run.ms, exit_code=2)
    if run.exit_code != 0:
        tail = _cut(run.stderr)[-500:]
        return _failure(
            handler, run, f"failed (exit {run.exit_code})" + (f": {tail}" if tail else "")
        )
    text = run.stdout.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return _from_json(handler, data, run)
    if not text:
        return HookOutcome(handler, ms=run.ms)
    if event in _CONTEXT_STDOUT:
        return HookOutcome(handler, context=_cut(text), ms=run.ms)
    return HookOutcome(handler, message=_cut(text), ms=run.ms)


def _str(value: Any) -> str:
    return _cut(value) if isinstance(value, str) else ""


def _from_json(handler: HookHandler, data: dict[str, Any], run: HandlerRun) -> HookOutcome:
    event = handler.event
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    decision = ""
    reason = ""
    permission = specific.get("permissionDecision")
    if event == "PreToolUse" and permission in ("allow", "deny", "ask"):
        decision = str(permission)
        reason = _str(specific.get("permissionDecisionReason"))
    legacy = data.get("decision")
    if not decision and legacy == "block" and event in _BLOCKABLE:
        decision = "deny" if event == "PreToolUse" else "block"
        reason = _str(data.get("reason"))
    elif not decision and legacy == "approve" and event == "PreToolUse":
        decision, reason = "allow", _str(data.get("reason"))
    if decision in ("deny", "block") and not reason:
        reason = f"blocked by hook {handler.label!r}"
    context = _str(specific.get("additionalContext")) or _str(data.get("additionalContext"))
    updated = specific.get("updatedInput")
    stop = data.get("continue") is False
    message = _str(data.get("systemMessage"))
    if stop:
        stop_reason = _str(data.get("stopReason")) or f"stopped by hook {handler.label!r}"
        message = f"{message}\n{stop_reason}".strip()
    return HookOutcome(
        handler,
        decision,
        reason,
        context,
        updated if isinstance(updated, dict) and event == "PreToolUse" else None,
        stop,
        message,
        run.ms,
        run.exit_code,
    )


_RANK = {"deny": 4, "block": 4, "ask": 2, "allow": 1}


def combine(outcomes: Iterable[HookOutcome]) -> Verdict:
    """One verdict from every handler's outcome: a block or deny wins, then ask, then allow."""
    outcomes = tuple(outcomes)
    if not outcomes:
        return NOTHING
    best = max((_RANK.get(o.decision, 0) for o in outcomes), default=0)
    decision = ""
    reasons: list[str] = []
    if best:
        deciding = [o for o in outcomes if _RANK.get(o.decision, 0) == best]
        decision = deciding[0].decision
        reasons = [o.reason for o in deciding if o.reason]
    updated = next((o.updated_input for o in outcomes if o.updated_input is not None), None)
    stops = [o for o in outcomes if o.stop]
    return Verdict(
        decision=decision,
        reason="\n".join(reasons),
        context="\n\n".join(o.context for o in outcomes if o.context),
        updated_input=updated if decision not in ("deny", "block") else None,
        stop=bool(stops),
        stop_reason="\n".join(o.message for o in stops if o.message),
        messages=tuple(o.message for o in outcomes if o.message),
        outcomes=outcomes,
    )
