"""A runner's tool calls, run by the parent: the parent's permission rules, its
approval prompt (shown with the agent's name, one question at a time), then the
parent's executors; a hiring call goes back to the pool."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs
import trio

from harness.conversation._call_errors import describe_worker_error
from harness.conversation._ports import ApprovalRequest
from harness.conversation._preview import preview_call
from harness.conversation._tool_hooks import ToolUse, asking, post_tool_use, pre_tool_use
from harness.conversation.subagents._task import NOT_FOR_SUBAGENTS, AgentState
from harness.ipc import IpcError
from harness.messages.model import ToolCall
from harness.messages.subagent import SubagentToolCall
from harness.messages.tools import ToolOutcome

if TYPE_CHECKING:
    from harness.conversation._loop import Conversation

__all__ = ["RunnerCalls"]

#: hire a sub-agent for ``spawn_agent``'s bound arguments, hired by the agent given
Hire = Callable[[dict[str, Any], AgentState], Awaitable[ToolOutcome]]


class RunnerCalls:
    """The calls of the runners of *conv*'s sub-agents; *may_hire* says whether an
    agent that deep may hire, and *hire* hires."""

    def __init__(self, conv: Conversation, may_hire: Callable[[int], bool], hire: Hire) -> None:
        self.conv = conv
        self._may_hire = may_hire
        self._hire = hire
        # sub-agents running side by side ask one question at a time
        self._asking = trio.Lock()

    async def run(self, agent: AgentState, req: SubagentToolCall) -> ToolOutcome:
        """Run a runner's call through the parent's rules, approver and executors."""
        conv = self.conv
        inv = req.invoke
        name = inv.name
        hires = name == "spawn_agent" and self._may_hire(agent.depth)
        if (name in NOT_FOR_SUBAGENTS and not hires) or name not in conv.table:
            return ToolOutcome(ok=False, output=f"{name} is not available to a sub-agent.")
        spec = conv.table.get(name)
        try:
            args = spec.bind(inv.arguments)
        except (ValueError, TypeError) as exc:
            return ToolOutcome(ok=False, output=f"Invalid arguments: {exc}")
        use = ToolUse(ToolCall(f"{agent.id}:{inv.call_id}", name, args), spec, args)
        before = await pre_tool_use(conv, use)  # the parent's hooks: a sub-agent meets them
        args, main = use.args, spec.main_value(use.args) or ""
        decision, why = before.decide(conv.policy, spec, args, conv.config.permission_mode)
        if decision == "deny":
            return ToolOutcome(ok=False, output=f"The call was not run: {why or 'denied'}.")
        if decision == "ask":
            refused = await self._ask(agent, spec.name, spec.kind, args, main, inv.call_id)
            if refused:
                return ToolOutcome(ok=False, output=f"The call was not run: {refused}.")
        if hires:
            return await self._hire(args, agent)
        try:
            if spec.executor == "conversation":
                local = conv.local_tools.get(name)
                if local is None:
                    return ToolOutcome(ok=False, output=f"{name} is not available here.")
                out = await local(args)
            elif spec.executor == "frontend":
                return ToolOutcome(ok=False, output=f"{name} is not available to a sub-agent.")
            else:
                invoke = attrs.evolve(
                    inv,
                    arguments=args,
                    call_id=f"{agent.id}:{inv.call_id}",
                    session_id=conv.session_id,
                    workspace=conv.workspace,
                )
                # the conversation's executors: the session's workers and the MCP bridges
                out = await conv.executors.invoke(
                    spec.executor, invoke, req.timeout or conv.config.tool_timeout
                )
        except IpcError as exc:
            return ToolOutcome(ok=False, output=describe_worker_error(exc, name, main))
        out = await post_tool_use(conv, attrs.evolve(use, args=args), out)
        return ToolOutcome(ok=out.ok, output=conv.masker.mask(out.output), data=out.data)

    async def _ask(
        self,
        agent: AgentState,
        name: str,
        kind: str,
        args: dict[str, Any],
        main: str,
        call_id: str,
    ) -> str:
        """Ask the parent's user about a runner's call; the refusal, or ``""``."""
        conv = self.conv
        if conv.approver is None:
            return "denied: no terminal to ask for approval (headless ask mode)"
        spec = conv.table.get(name)
        summary, diff = await preview_call(conv.executors, conv.workspace, spec, args)
        async with self._asking:
            answer = await asking(
                conv,
                conv.approver,
                ApprovalRequest(
                    call_id=f"{agent.id}:{call_id}",
                    name=name,
                    arguments=args,
                    main_argument=main,
                    kind=kind,
                    summary=summary,
                    diff=conv.masker.mask(diff),
                    agent=agent.id,
                ),
            )
        if answer == "always":
            conv.policy.allow_always(spec, args)
        return "" if answer in ("yes", "always") else "denied by the user"
