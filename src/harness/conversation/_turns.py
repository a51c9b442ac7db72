"""One run of one prompt: turns of model reply -> tool calls -> results, until it ends.

A run ends when the model answers with no tool call (and the verify command, if
any, passes), a terminating tool succeeds, a call is denied by the user, the turn
limit is reached, the model fails, or the run is cancelled. An answer that claims
what no call did, or announces an action and stops, ends the run as not done (see
:mod:`._endings`). A failing worker never raises out of a run: it becomes a tool
result or an ``error`` event. With deepthink on, the run strategy the loop was handed
(:mod:`harness.conversation.strategies`) runs the prompt as stages, each a run of one
message under the stage's policy.

The run holds what belongs to it (its turns, the reply in flight, its calls, its
answer and usage); the conversation's history changes only through its
:class:`~harness.conversation._transcript.Transcript`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import attrs

from harness.conversation import events as ev
from harness.conversation._budget import BudgetExceeded, ContextBudget
from harness.conversation._calls import CallHost, CallRunner
from harness.conversation._ports import (
    ModelPort,
    PermissionPolicy,
    RequestShaper,
    RunStrategy,
    StageHost,
)
from harness.conversation._reply import ModelFailed, Reply, StreamItem, read_reply, stream_event
from harness.conversation._requests import Requests
from harness.conversation._run_log import Ending, RunLog
from harness.conversation._sync import HistorySync
from harness.conversation._transcript import Transcript
from harness.conversation._verify import VerifyHost, retry_message, verify
from harness.conversation._windows import ServedWindows
from harness.messages import model as pm

if TYPE_CHECKING:
    from harness.conversation._loop_config import LoopConfig

__all__ = ["MAX_STOP_BLOCKS", "PromptRun", "RunHost"]

#: How often Stop hooks may send the model back to work in one run (then it stops).
MAX_STOP_BLOCKS = 3


class RunHost(CallHost, VerifyHost, StageHost, Protocol):
    """What a run uses of its conversation (the conversation is one)."""

    config: LoopConfig
    model: ModelPort
    shaper: RequestShaper
    budget: ContextBudget
    requests: Requests
    transcript: Transcript
    history_sync: HistorySync
    served_windows: ServedWindows
    hook_context: list[str]
    hook_stop: str
    deepthink: RunStrategy | None

    def schemas(self) -> tuple[pm.ToolSchema, ...]: ...
    def emit_error(self, kind: str, message: str, *, fatal: bool) -> None: ...
    async def compact(self, upto: int | None = None) -> bool: ...


class PromptRun:
    """The run of one prompt in *conv*."""

    def __init__(self, conv: RunHost, inbox: list[str]) -> None:
        self.conv = conv
        # the conversation's inbox: post() adds to it while the run goes
        self._inbox = inbox
        self.turns = 0
        #: the run's answer: the last reply's text (or a terminating call's output)
        self.answer = ""
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0}
        #: the estimated tokens of the last request sent
        self.request_tokens = 0
        #: what the run's calls and replies did: what its ending is read against
        self.log = RunLog()
        self._reply: Reply | None = None
        self._runner: CallRunner | None = None
        self.stop_blocks = 0  # how often a Stop hook sent the model back to work

    async def run(self, prompt: str) -> str:
        """Run *prompt* (as deepthink's stages when that is on); why it ended."""
        conv = self.conv
        try:
            if conv.config.deepthink:
                if conv.deepthink is None:  # a loop put together without the strategy
                    why = "deepthink is on but this loop was given no stages to run"
                    conv.emit_error("config", why, fatal=True)
                    return "error"
                reason, self.answer = await conv.deepthink(conv, prompt, self._stage)
                return reason
            return await self._run(prompt)
        except BudgetExceeded as exc:
            conv.emit_error("budget", str(exc), fatal=True)
        except ModelFailed as exc:
            conv.emit_error(exc.kind, exc.message, fatal=True)
        return "error"

    def call_finished(self, call: ev.ToolCallFinished) -> None:
        """Note how a call ended: what the replies' claims are checked against at the end
        (:class:`~harness.conversation._run_log.RunLog`)."""
        self.log.call_finished(call.name, call.ok, call.data, call.output)

    def add_usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Count tokens of this run's model requests (a sub-agent's count too)."""
        self.usage["prompt_tokens"] += prompt_tokens
        self.usage["completion_tokens"] += completion_tokens

    async def _stage(self, message: str, policy: PermissionPolicy, read_only: bool) -> str:
        return await self._run(message, "deepthink", policy, read_only=read_only)

    async def _run(
        self,
        prompt: str,
        source: str = "prompt",
        policy: PermissionPolicy | None = None,
        *,
        read_only: bool = False,
    ) -> str:
        conv = self.conv
        conv.transcript.begin_turn()
        conv.transcript.user(prompt, source)
        while conv.hook_context:  # what SessionStart/UserPromptSubmit hooks added
            conv.transcript.user(conv.hook_context.pop(0), "hook")
        plan_mode = conv.config.permission_mode == "plan"
        runner = CallRunner(conv, policy or conv.policy, read_only=read_only or plan_mode)
        self._runner = runner
        verify_failures = 0
        while True:
            while self._inbox:
                conv.transcript.user(self._inbox.pop(0), "inbox")
            if self.turns >= conv.config.max_turns:
                conv.emit_error(
                    "max_turns",
                    f"stopped after {self.turns} model requests (--max-turns "
                    f"{conv.config.max_turns})",
                    fatal=True,
                )
                return "max_turns"
            self.turns += 1
            turn = self.turns
            model = conv.config.models[0] if conv.config.models else ""
            conv.emit(ev.TurnStarted(session_id=conv.session_id, turn=turn, model=model))
            reply = await self._model_round()
            if reply.finish in ("length", "looped"):
                return self._cut_off(turn, reply)
            self._commit_reply(reply)
            if not reply.calls:
                self.answer = reply.text
                if self._inbox:
                    self._turn_finished(turn, "inbox")
                    continue
                if conv.config.verify:
                    ok, output = await verify(conv, verify_failures + 1)
                    if not ok:
                        verify_failures += 1
                        self._turn_finished(turn, "verify_failed")
                        if verify_failures > conv.config.verify_attempts:
                            return "verify_failed"
                        conv.transcript.user(retry_message(conv.config, output), "verify")
                        continue
                if await self._stop_hook():
                    self._turn_finished(turn, "stop_hook")
                    continue
                ending = self._honest_ending(reply, prompt)
                if ending is not None:
                    conv.emit_error(ending.reason, ending.message, fatal=True)
                    self._turn_finished(turn, ending.reason)
                    return ending.reason
                self._turn_finished(turn, "done")
                return "done"
            outcome = await runner.run(reply.calls, notes=reply.repaired)
            self.answer = self.answer or outcome.answer
            if conv.hook_stop:
                conv.emit_error("hook", conv.hook_stop, fatal=True)
                self._turn_finished(turn, "hook_stopped")
                return "hook_stopped"
            if outcome.stop:
                self._turn_finished(turn, outcome.stop)
                return outcome.stop
            self._turn_finished(turn, "tool_calls")

    async def _stop_hook(self) -> bool:
        """Fire Stop; whether a hook blocked the stop (the model then goes on, told why)."""
        conv = self.conv
        if not conv.hooks.listens("Stop") or self.stop_blocks >= MAX_STOP_BLOCKS:
            return False
        verdict = await conv.hooks.fire("Stop", stop_hook_active=self.stop_blocks > 0)
        conv.hook_said(verdict)
        if not verdict.blocked or verdict.stop:
            return False
        self.stop_blocks += 1
        conv.transcript.user(f"[Stop hook] {verdict.reason}", "hook")
        return True

    def _honest_ending(self, reply: Reply, prompt: str) -> Ending | None:
        # Imported here, at the end of the first reply: its patterns took a twentieth
        # of the frontend's import, in front of the first request.
        from harness.conversation._endings import run_ending

        # a stage of deepthink may end on a plan ("I will edit calc.py", "add should
        # return a + b"): only claims count
        plan = self.conv.config.deepthink
        kind = self.conv.table.kind_of
        return run_ending(self.log, kind, prompt=prompt, finish=reply.finish, plan=plan)

    def _turn_finished(self, turn: int, reason: str) -> None:
        self.conv.emit(ev.TurnFinished(session_id=self.conv.session_id, turn=turn, reason=reason))

    def _cut_off(self, turn: int, reply: Reply) -> str:
        # Hit the output limit, or stopped repeating itself inside a call: the text is
        # kept but marked, and no call runs, since the last one is half-written and the
        # rest were never meant alone.
        dropped = len(reply.calls)
        self._commit_reply(attrs.evolve(reply, calls=[]), incomplete=True)
        self.answer = reply.text
        if reply.finish == "looped":
            why = "the model was stopped writing one line over and over in a tool call"
            calls = "; the call was not run"
            ask = "Ask again in other words, or in smaller steps."
        else:
            limit = self.conv.budget.reserve
            why = f"the answer was cut off at the output token limit ({limit} tokens)"
            calls = f"; none of its {dropped} tool calls was run" if dropped else ""
            ask = "Ask the model to go on, or in smaller steps."
        self.conv.emit_error("incomplete", f"{why}{calls}. {ask}", fatal=False)
        self._turn_finished(turn, "incomplete")
        return "incomplete"

    def _commit_reply(self, reply: Reply, *, incomplete: bool = False) -> None:
        self.log.said.append(reply.text)
        thinking = reply.thinking if self.conv.config.keep_thinking else ""
        self.conv.transcript.assistant(reply, thinking=thinking, incomplete=incomplete)
        self._reply = None

    async def _model_round(self) -> Reply:
        conv = self.conv
        await conv.served_windows.wait()
        tools = conv.schemas()
        system = conv.config.system
        budget = conv.budget
        transcript = conv.transcript
        chosen = await conv.shaper.select(
            transcript.messages,
            transcript.start,
            provider=conv.config.provider,
            base_url=conv.config.base_url,
            fits=lambda m: budget.estimate(system, m, tools) <= budget.soft_limit,
        )
        if chosen is not None:
            plan = budget.plan(system, chosen[0], tools, chosen[1])
        else:
            plan = budget.plan(system, transcript.messages, tools, transcript.start)
            if plan.summarise:
                await conv.compact(plan.summarise)
                plan = budget.plan(system, transcript.messages, tools, transcript.start)
        if plan.tokens > budget.limit:
            raise BudgetExceeded(
                f"the request needs about {plan.tokens} tokens but the model's window allows "
                f"{budget.limit}; shorten the prompt or choose a larger window"
            )
        budget.note_sent(system, plan.messages, tools)
        self.request_tokens = plan.tokens
        request = conv.requests.build(plan.messages, system=system, tools=tools)
        self._reply = Reply()
        reply = await read_reply(
            conv.model,
            request,
            into=self._reply,
            on_item=self._streamed,
            call_prefix=f"call_{self.turns}",
            sync=conv.history_sync,
        )
        if reply.usage is not None:
            budget.calibrate(reply.usage.prompt_tokens)
        return reply

    def _streamed(self, item: StreamItem) -> None:
        if isinstance(item, pm.Usage):
            self.add_usage(item.prompt_tokens or 0, item.completion_tokens or 0)
        self.conv.emit(stream_event(self.conv.session_id, item))

    def settle_cancel(self) -> None:
        """Record a cancel and leave the history well-formed for the next run: the
        cut-off reply is kept without its calls, and every call left without a result
        gets one saying it was cancelled."""
        conv = self.conv
        reply = self._reply
        if reply is not None and (reply.text or reply.calls):
            # the model was cut off mid-reply: keep what it said, run none of its calls
            self._commit_reply(attrs.evolve(reply, calls=[]))
        runner = self._runner
        settled = conv.transcript.settle(runner.finished if runner else ())
        if runner:
            runner.finished.update(settled)
        conv.emit(ev.Cancelled(session_id=conv.session_id, reason="cancelled by the user"))
        self._turn_finished(self.turns, "cancelled")
