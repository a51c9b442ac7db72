"""What harness asks the editor's user: approvals and plans, as
``session/request_permission``.

An approval offers allow once, allow always (harness then keeps an allow rule for
calls like it, as the terminal's "always" does) and reject; a plan from
``submit_plan`` is shown as the session's plan and offered for approval (approve:
the session goes to ask mode and the model implements it; keep planning). A
cancelled prompt, a client that answers with an error or goes away: the call is
denied, never run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio
from acp.exceptions import RequestError
from acp.schema import (
    PermissionOption,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ToolCallUpdate,
)
from pydantic import ValidationError

from acp import helpers
from harness.acp._rpc import Connection, ConnectionClosed
from harness.acp._updates import diff_contents, plan_entries, tool_kind
from harness.conversation import ApprovalRequest, Decision
from harness.messages.tools import ToolOutcome

if TYPE_CHECKING:
    from harness.acp._agent import HarnessAgent
    from harness.acp._live import Live

__all__ = ["APPROVAL_OPTIONS", "PLAN_OPTIONS", "Asker"]

APPROVAL_OPTIONS = (
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
)
_DECISIONS: dict[str, Decision] = {"allow": "yes", "always": "always", "reject": "no"}

PLAN_OPTIONS = (
    PermissionOption(option_id="approve", name="Approve the plan", kind="allow_once"),
    PermissionOption(option_id="keep", name="Keep planning", kind="reject_once"),
)

# how long an approval waits for its tool_call update to be on the wire first
_ANNOUNCE_WAIT = 1.0


class Asker:
    """One session's approver and frontend port (``get_user_input``, ``submit_plan``)."""

    def __init__(self, conn: Connection, agent: HarnessAgent) -> None:
        self.conn = conn
        self.agent = agent
        self.live: Live | None = None
        self._announced: dict[str, trio.Event] = {}
        self._scopes: set[trio.CancelScope] = set()

    def announced(self, call_id: str) -> None:
        """The ``tool_call`` update for *call_id* has been sent."""
        self._announced.setdefault(call_id, trio.Event()).set()

    def cancel_all(self) -> None:
        """Give up every question in flight (the prompt was cancelled)."""
        for scope in list(self._scopes):
            scope.cancel()

    async def _ask(
        self, tool_call: ToolCallUpdate, options: tuple[PermissionOption, ...]
    ) -> str | None:
        # the option the user picked, None when cancelled or the client failed
        assert self.live is not None
        request = RequestPermissionRequest(
            session_id=self.live.session.id, tool_call=tool_call, options=list(options)
        )
        with trio.CancelScope() as scope:
            self._scopes.add(scope)
            try:
                answer = await self.conn.request("session/request_permission", request)
                outcome = RequestPermissionResponse.model_validate(answer).outcome
            except (ConnectionClosed, RequestError, ValidationError):
                return None
            finally:
                self._scopes.discard(scope)
            if outcome.outcome == "selected":
                return str(getattr(outcome, "option_id", ""))
        return None

    async def approve(self, request: ApprovalRequest) -> Decision:
        """The :data:`~harness.conversation.Approver` of the session."""
        assert self.live is not None
        event = self._announced.setdefault(request.call_id, trio.Event())
        with trio.move_on_after(_ANNOUNCE_WAIT):
            await event.wait()
        self._announced.pop(request.call_id, None)
        workspace = self.live.session.workspace
        title = f"{request.name} {request.main_argument}".strip()
        if request.agent:
            title = f"[{request.agent}] {title}"
        content: list[Any] = list(
            diff_contents(workspace, request.name, request.arguments, request.diff)
        )
        if not content and request.summary:
            content.append(helpers.tool_content(helpers.text_block(request.summary)))
        tool_call = ToolCallUpdate(
            tool_call_id=request.call_id,
            title=title,
            kind=tool_kind(request.name),
            status="pending",
            content=content or None,
            raw_input=request.arguments,
        )
        picked = await self._ask(tool_call, APPROVAL_OPTIONS)
        return _DECISIONS.get(picked or "", "no")

    async def frontend_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Answer ``submit_plan`` (the plan, offered for approval) and
        ``get_user_input`` (the editor has no question dialog: the model decides)."""
        if name == "submit_plan":
            return await self._plan(str(arguments.get("plan", "")))
        return ToolOutcome(
            ok=False,
            output=(
                f"{name}: the editor cannot ask the user a question here; decide with your "
                "best judgement, say what you assumed, and ask in your answer if you must."
            ),
        )

    async def _plan(self, plan: str) -> ToolOutcome:
        assert self.live is not None
        session = self.live.session
        await self.agent.send(session.id, helpers.update_plan(plan_entries(plan)))
        call = ToolCallUpdate(
            tool_call_id=f"plan-{id(plan)}",
            title="Approve this plan?",
            kind="switch_mode",
            status="pending",
            content=[helpers.tool_content(helpers.text_block(plan))],
        )
        picked = await self._ask(call, PLAN_OPTIONS)
        if picked == "approve":
            session.set_permission_mode("ask")
            await self.agent.send(session.id, helpers.update_current_mode("ask"))
            return ToolOutcome(
                ok=True,
                output="The user approved the plan. The session is now in ask mode: you may "
                "change files (each change still asks for approval). Implement the plan now.",
                data={"plan": True, "continue": True, "review": "approve"},
            )
        if picked == "keep":
            return ToolOutcome(
                ok=True,
                output="The user has not approved the plan yet and wants you to keep planning: "
                "look further (read-only), then submit a fuller plan with submit_plan.",
                data={"plan": True, "continue": True, "review": "keep"},
            )
        return ToolOutcome(ok=True, output=plan, data={"plan": True})
