"""The user's hooks around a tool call, as the call runner meets them.

``PreToolUse`` fires before the permission decision. A deny (exit 2, or
``permissionDecision: "deny"``) refuses the call with the hook's reason, which the model
reads. ``updatedInput`` replaces the arguments, bound against the tool's schema again, and
the rules decide on the new ones. ``allow`` skips the approval question and nothing else:
the call is decided as auto mode decides it, so deny rules, the jail, plan mode and the
files that always ask still hold. ``ask`` turns an allow into the question (headless: a
refusal). ``PostToolUse`` fires after the call ran: its block reason and its context join
the result the model reads. ``Notification`` fires while the approval question waits.
``continue: false`` from any of them stops the run after the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import attrs
import trio

from harness.messages.subagent import SubagentAck
from harness.messages.tools import ToolOutcome

if TYPE_CHECKING:
    from harness.actors.tools import ToolSpec
    from harness.conversation._ports import (
        ApprovalRequest,
        Approver,
        Decision,
        HooksPort,
        PermissionPolicy,
    )
    from harness.hooks import Verdict

__all__ = [
    "Before",
    "HookedCall",
    "ToolUse",
    "asking",
    "post_tool_use",
    "pre_tool_use",
    "subagent_stop",
    "subagent_stopping",
]


class HookedCall(Protocol):
    """What of a prepared call the hooks read and may change."""

    call: Any
    args: dict[str, Any]
    main: str

    @property
    def tool(self) -> ToolSpec: ...


@attrs.define
class ToolUse:
    """A call outside the call runner (a sub-agent's, run by its parent), in the shape
    the hooks take."""

    call: Any  # its ``id`` names it
    tool: ToolSpec
    args: dict[str, Any]
    main: str = ""


class _Host(Protocol):
    hooks: HooksPort

    def hook_said(self, verdict: Verdict) -> None: ...


@attrs.frozen
class Before:
    """What the PreToolUse hooks decided for one call."""

    refused: str = ""
    decision: str = ""
    reason: str = ""

    def mode(self, mode: str) -> str:
        """The permission mode the call is decided in: a hook's allow answers the question
        auto mode would not ask (plan mode stays plan mode)."""
        return "auto" if self.decision == "allow" and mode in ("ask", "deny") else mode

    def decide(
        self, policy: PermissionPolicy, spec: ToolSpec, arguments: dict[str, Any], mode: str
    ) -> tuple[Any, str]:
        """*policy*'s decision on the call in :meth:`mode`, :meth:`adjust`-ed."""
        return self.adjust(*policy.decide(spec, arguments, self.mode(mode)))

    def adjust(self, decision: str, why: str) -> tuple[Any, str]:
        """The policy's ``(decision, reason)`` with the hooks' say applied."""
        if self.refused:
            return "deny", self.refused
        if self.decision == "ask" and decision == "allow":
            return "ask", f"a PreToolUse hook asks first: {self.reason or 'no reason given'}"
        if self.decision == "allow" and decision == "allow":
            return "allow", f"allowed by a PreToolUse hook: {self.reason}".rstrip(": ")
        return decision, why


NOTHING = Before()


async def pre_tool_use(conv: _Host, p: HookedCall) -> Before:
    """Fire PreToolUse for *p*; replacement arguments are bound and put in *p*."""
    if not conv.hooks.listens("PreToolUse"):
        return NOTHING
    spec = p.tool
    verdict = await conv.hooks.fire(
        "PreToolUse", tool=spec.name, arguments=p.args, call_id=p.call.id
    )
    conv.hook_said(verdict)
    if verdict.blocked:
        return Before(refused=f"a PreToolUse hook refused it: {verdict.reason}")
    if verdict.updated_input is not None:
        try:
            p.args = spec.bind(verdict.updated_input)
        except (ValueError, TypeError) as exc:
            return Before(refused=f"a PreToolUse hook rewrote its arguments badly: {exc}")
        p.main = spec.main_value(p.args) or ""
    if verdict.decision in ("allow", "ask"):
        return Before(decision=verdict.decision, reason=verdict.reason)
    return NOTHING


async def post_tool_use(conv: _Host, p: HookedCall, outcome: ToolOutcome) -> ToolOutcome:
    """Fire PostToolUse for *p*'s *outcome*; what the hooks tell the model joins it."""
    if not conv.hooks.listens("PostToolUse"):
        return outcome
    verdict = await conv.hooks.fire(
        "PostToolUse",
        tool=p.tool.name,
        arguments=p.args,
        result=(outcome.ok, outcome.output),
        call_id=p.call.id,
    )
    conv.hook_said(verdict)
    notes = [f"[PostToolUse hook] {text}" for text in (verdict.reason, verdict.context) if text]
    if not notes:
        return outcome
    output = outcome.output + "\n\n" + "\n".join(notes)
    return ToolOutcome(ok=outcome.ok, output=output, data=outcome.data)


async def asking(conv: _Host, approver: Approver, request: ApprovalRequest) -> Decision:
    """Ask *approver*, firing Notification beside the question."""
    if not conv.hooks.listens("Notification"):
        return await approver(request)
    message = f"harness needs your permission to use {request.name}"
    answer: list[Decision] = []
    async with trio.open_nursery() as nursery:

        async def notify() -> None:
            conv.hook_said(await conv.hooks.fire("Notification", message=message))

        nursery.start_soon(notify)
        answer.append(await approver(request))
    return answer[0]


class _Stopping(Protocol):
    id: str
    stop_verdict: Verdict | None


async def subagent_stopping(conv: _Host, agent: _Stopping, active: bool) -> SubagentAck:
    """Fire SubagentStop as sub-agent *agent*'s model answers with no tool call (its
    runner asks before it stops): the answer says why it must go on (a hook blocked the
    stop), or nothing (it may stop); the verdict is kept on *agent* for its report."""
    verdict = await conv.hooks.fire("SubagentStop", stop_hook_active=active, agent=agent.id)
    conv.hook_said(verdict)
    agent.stop_verdict = verdict
    if verdict.blocked and not verdict.stop:
        return SubagentAck(go_on=verdict.reason or "a SubagentStop hook asks you to go on")
    return SubagentAck()


async def subagent_stop(
    conv: _Host, agent: str, outcome: ToolOutcome, fired: Verdict | None = None
) -> ToolOutcome:
    """Sub-agent *agent*'s report came back: the context of the SubagentStop verdict
    *fired* as it stopped joins it. One that ended otherwise (its turn limit, a budget,
    a crash) fires SubagentStop now; a block's reason and the context join its report
    (it has ended: nothing can keep it going)."""
    if fired is not None:
        verdict = fired
    elif conv.hooks.listens("SubagentStop"):
        verdict = await conv.hooks.fire("SubagentStop", stop_hook_active=False, agent=agent)
        conv.hook_said(verdict)
    else:
        return outcome
    notes = [f"[SubagentStop hook] {text}" for text in (verdict.reason, verdict.context) if text]
    if not notes:
        return outcome
    output = outcome.output + "\n\n" + "\n".join(notes)
    return ToolOutcome(ok=outcome.ok, output=output, data=outcome.data)
