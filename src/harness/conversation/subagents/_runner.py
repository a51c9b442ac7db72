"""A sub-agent's side of its run: the conversation loop with ports that ask the parent.

The runner process (``python -m harness.actors.subagent``) hands each
:class:`SubagentRun` to :func:`run_subagent`. The loop is the parent's loop; only
its ports differ: model replies are streamed through the parent's model worker,
every tool call is decided and run by the parent (its rules, its approval prompt
with this agent's name, its workers), and what the loop does is sent back as
notes. The runner holds no key, no permission rule and no hook of its own: when its
model answers with no tool call and the parent has SubagentStop hooks, it asks the
parent (a ``stopping`` note), and goes on with the reason when a hook blocks the stop,
as the parent's own loop does for Stop.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

import trio

from harness.conversation import events as ev
from harness.conversation._calls import LocalTool
from harness.conversation._loop import Conversation
from harness.conversation._loop_config import LoopConfig
from harness.conversation.context import ContextShaper
from harness.ipc import Message, ProtocolError
from harness.messages.model import ChatRequest
from harness.messages.subagent import (
    SubagentAck,
    SubagentNote,
    SubagentReport,
    SubagentRun,
    SubagentToolCall,
)
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

if TYPE_CHECKING:
    from collections.abc import Mapping

    from harness.actors.tools import ToolSpec
    from harness.hooks import Verdict

__all__ = ["REPORT_REQUEST", "ParentPort", "run_subagent"]

#: What a sub-agent is told once its turns are used up.
REPORT_REQUEST = (
    "You have used all your turns. Do not call any tool. Write your final report now, "
    "from what you have: what you found or did, what is left undone, and why."
)

_TEXT_NOTE = 400  # characters of each reply the parent keeps as "the last thing it said"


class ParentPort(Protocol):
    """The runner's channel to the parent (a :class:`harness.ipc.Channel`)."""

    async def request(self, msg: Message, *, timeout: float | None = None) -> Message:
        """Send *msg* and wait for its one reply."""
        ...

    def stream(
        self, msg: Message, *, timeout: float | None = None
    ) -> AbstractAsyncContextManager[AsyncIterator[Message]]:
        """Send *msg* and iterate the streamed reply."""
        ...


class _ParentModel:
    def __init__(self, peer: ParentPort) -> None:
        self.peer = peer

    def stream(self, request: ChatRequest) -> AbstractAsyncContextManager[AsyncIterator[Message]]:
        return self.peer.stream(request, timeout=None)


class _ParentTools:
    def __init__(self, peer: ParentPort) -> None:
        self.peer = peer

    async def invoke(
        self, executor: str, request: ToolInvoke, timeout: float | None
    ) -> ToolOutcome:
        del executor  # the parent's table says who runs it
        reply = await self.peer.request(SubagentToolCall(invoke=request, timeout=timeout))
        if not isinstance(reply, ToolOutcome):
            raise ProtocolError(f"the parent answered a tool call with {type(reply).TAG}")
        return reply

    async def preview(self, request: ToolPreview) -> ToolPreviewResult | None:
        del request  # the parent previews when it asks its user
        return None


class _ParentStops:
    """The loop's hooks, in a runner: its Stop is the parent's SubagentStop."""

    def __init__(self, peer: ParentPort, on: bool) -> None:
        self.peer = peer
        self.on = on

    def listens(self, event: str) -> bool:
        return self.on and event == "Stop"

    async def fire(self, event: str, *, stop_hook_active: bool = False, **_: Any) -> Verdict:
        from harness.hooks import NOTHING, Verdict

        reply = await self.peer.request(
            SubagentNote(kind="stopping", stop_hook_active=stop_hook_active)
        )
        if isinstance(reply, SubagentAck) and reply.go_on:
            return Verdict(decision="block", reason=reply.go_on)
        return NOTHING


class _ParentDecides:
    """Every call goes to the parent, which applies its own rules and asks its user."""

    def decide(
        self, spec: ToolSpec, arguments: Mapping[str, Any], mode: str
    ) -> tuple[Literal["allow", "deny", "ask"], str]:
        return "allow", "decided by the parent"

    def allow_always(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> None:
        return None


def _note(event: ev.ConversationEvent) -> SubagentNote | None:
    if isinstance(event, ev.TurnStarted):
        return SubagentNote(kind="turn", turn=event.turn)
    if isinstance(event, ev.ToolCallStarted):
        return SubagentNote(kind="tool", tool=event.name)
    if isinstance(event, ev.UsageReported):
        return SubagentNote(
            kind="usage",
            prompt_tokens=event.prompt_tokens or 0,
            completion_tokens=event.completion_tokens or 0,
        )
    if isinstance(event, ev.AssistantMessage) and event.text.strip():
        return SubagentNote(kind="text", text=event.text.strip()[:_TEXT_NOTE])
    return None


async def run_subagent(run: SubagentRun, peer: ParentPort) -> SubagentReport:
    """Run *run*'s task to its end through *peer* and return the report.

    At the turn limit the model is asked once, with no tool offered, for a report
    from what it has; the parent times that answer (the grace) and kills the
    runner if it does not come.
    """
    from harness.actors.tools import Executor, Kind, ToolSpec, builtin_table

    table = builtin_table()
    for extra in run.extra_tools:
        if extra.name not in table:
            # the parent's own declaration; the parent checked it and runs the calls
            table.register(
                ToolSpec(
                    name=extra.name,
                    description=extra.description,
                    parameters=extra.parameters,
                    main_arg=extra.main_arg,
                    # ToolSpec checks both against its lists
                    kind=cast("Kind", extra.kind),
                    executor=cast("Executor", extra.executor),
                )
            )
    config = LoopConfig(
        workspace=run.workspace,
        provider=run.provider,
        models=run.models,
        tool_protocol=run.tool_protocol,
        permission_mode=run.permission_mode,
        max_turns=run.max_turns,
        system=run.system,
        temperature=run.temperature,
        seed=run.seed,
        tools=run.tools,
    )
    tools = _ParentTools(peer)
    stops = _ParentStops(peer, run.stop_hooks)

    def forward(name: str) -> LocalTool:
        async def call(args: dict[str, Any]) -> ToolOutcome:
            return await tools.invoke(
                "conversation", ToolInvoke(name=name, arguments=args, workspace=run.workspace), None
            )

        return call

    local = {
        n: forward(n) for n in run.tools if n in table and table.get(n).executor == "conversation"
    }
    conv = Conversation(
        session_id=run.agent,
        config=config,
        model=_ParentModel(peer),
        executors=tools,
        table=table,
        policy=_ParentDecides(),
        shaper=ContextShaper(),
        local_tools=local,
        agent_name=run.agent,
        hooks=stops,
    )
    send, receive = trio.open_memory_channel[SubagentNote](math.inf)

    def listener(event: ev.ConversationEvent) -> None:
        note = _note(event)
        if note is not None:
            send.send_nowait(note)

    async def post_notes() -> None:
        async for note in receive:
            await peer.request(note)

    conv.subscribe(listener)
    usage = {"prompt_tokens": 0, "completion_tokens": 0}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(post_notes)
        result = await conv.run(run.task)
        turns = result.turns
        _add(usage, result.usage)
        reason, text = result.reason, result.text
        if result.reason == "max_turns":
            stops.on = False  # the report request's answer is the end: nothing to go on to
            send.send_nowait(SubagentNote(kind="report_requested", turn=turns))
            conv.configure(tools=(), max_turns=1)
            last = await conv.run(REPORT_REQUEST)
            turns += last.turns
            _add(usage, last.usage)
            text = last.text
        send.close()
    return SubagentReport(
        ok=result.ok,
        text=text,
        reason=reason,
        turns=turns,
        prompt_tokens=usage["prompt_tokens"],
        completion_tokens=usage["completion_tokens"],
    )


def _add(total: dict[str, int], more: Mapping[str, int]) -> None:
    for key in total:
        total[key] += more.get(key, 0)
