"""The agent loop: user turn -> model stream -> tool calls -> results -> again.

A run ends when the model answers with no tool call (and the verify command, if
any, passes), a terminating tool succeeds, a call is denied by the user, the turn
limit is reached, the model fails, or the run is cancelled. An answer that claims
what no call did, or announces an action and stops, ends the run as not done (see
:mod:`._endings`). Whatever happens the
last event is ``result`` and the history stays well-formed, so the next run (or a
resume from the log) goes on from a valid state. A failing worker never raises
out of :meth:`Conversation.run`: it becomes a tool result or an ``error`` event.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs
import trio

from harness.conversation import events as ev
from harness.conversation._budget import BudgetExceeded, ContextBudget
from harness.conversation._calls import CallRunner, LocalTool
from harness.conversation._deepthink import run_stages
from harness.conversation._endings import Ending, honest_ending
from harness.conversation._history import apply_compaction, unanswered_calls
from harness.conversation._listeners import Listener, Listeners
from harness.conversation._loop_config import LoopConfig
from harness.conversation._offered import OfferedTools
from harness.conversation._ports import (
    Approver,
    ExecutorPort,
    FrontendPort,
    ModelPort,
    PermissionPolicy,
    RequestShaper,
)
from harness.conversation._reply import ModelFailed, Reply, StreamItem, read_reply, stream_event
from harness.conversation._requests import Requests
from harness.conversation._secrets import SecretMasker
from harness.conversation._seen import SeenFiles
from harness.conversation._sync import HistorySync
from harness.conversation._verify import verify
from harness.conversation._windows import ServedWindows, WindowKey
from harness.messages import model as pm

if TYPE_CHECKING:
    from harness.actors.tools import ToolTable

__all__ = ["Conversation", "Listener"]


class Conversation:
    """One session's loop over the model and the tool executors.

    Args:
        session_id: the session's id (every event carries it).
        config: who answers, permission mode, limits, the system prompt.
        model: streams model replies (the model worker).
        executors: runs tool calls (the tools/shell workers).
        table: the tool table (``harness.actors.tools``).
        policy: permission decisions.
        shaper: what of the history each request carries (recall, compaction).
        approver: asks the user; ``None`` (headless) denies what would be asked.
        frontend: answers ``get_user_input`` / ``submit_plan`` (``None``: headless).
        local_tools: tools the conversation runs itself (memory, skills, API tools).
        masker: masks secrets in tool output.
        history: the history to start from (a resumed session).
        agent_name: shown in approval requests of a sub-agent.
    """

    def __init__(
        self,
        *,
        session_id: str,
        config: LoopConfig,
        model: ModelPort,
        executors: ExecutorPort,
        table: ToolTable,
        policy: PermissionPolicy,
        shaper: RequestShaper,
        approver: Approver | None = None,
        frontend: FrontendPort | None = None,
        local_tools: dict[str, LocalTool] | None = None,
        masker: SecretMasker | None = None,
        history: list[pm.ChatMessage] | None = None,
        agent_name: str = "",
        title: str = "",
    ) -> None:
        self.session_id = session_id
        self.config = config
        self.model = model
        self.executors = executors
        self.table = table
        self.policy = policy
        self.shaper = shaper
        self.approver = approver
        self.frontend = frontend
        self.local_tools: dict[str, LocalTool] = dict(local_tools or {})
        self.masker = masker or SecretMasker({}, [config.api_key or ""])
        self.history: list[pm.ChatMessage] = list(history or [])
        self.agent_name = agent_name
        self.title = title
        self.budget = ContextBudget(
            config.provider, config.context, config.models[0] if config.models else ""
        )
        self.workspace = config.workspace
        # what it has read or written, so write_file never replaces a file it has not seen
        self.seen_files = SeenFiles(config.workspace, self.history, strict=config.writes_strictly())
        self.final_text = ""
        self._listeners = Listeners()
        self._inbox: list[str] = []
        self._scope: trio.CancelScope | None = None
        self._running = False
        self._reply: Reply | None = None
        self._runner: CallRunner | None = None
        self._current_start = len(self.history)
        self.usage_total = {"prompt_tokens": 0, "completion_tokens": 0}
        self._offered = OfferedTools(table, headless=frontend is None)
        self.requests = Requests(model, lambda: self.config, self.budget)
        # what the model worker holds of the history, so a round sends only what is new
        self.history_sync = HistorySync()
        #: windows servers said their models have, by :meth:`window_key`
        self.served_windows = ServedWindows()
        #: the estimated tokens of the last request sent
        self.last_request_tokens = 0
        # the tools whose calls succeeded in the current run: what a last reply's claims
        # are checked against (see _endings)
        self._succeeded: list[str] = []

    # --- events -----------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call *listener* with every event from now on; returns an unsubscribe function."""
        return self._listeners.subscribe(listener)

    def open_event_channel(self) -> trio.MemoryReceiveChannel[ev.ConversationEvent]:
        """A channel that receives every event from now on (unbounded; close it when done)."""
        return self._listeners.channel()

    def emit(self, event: ev.ConversationEvent) -> None:
        """Hand *event* to every listener (the session log is one)."""
        if isinstance(event, ev.ToolCallFinished) and event.ok:
            self._succeeded.append(event.name)
        self._listeners(event)

    # --- control ----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while :meth:`run` is going."""
        return self._running

    def post(self, text: str) -> None:
        """Add a user message to the running loop; it joins at the next model request."""
        self._inbox.append(text)

    def cancel(self) -> None:
        """Stop the running run: the stream and the tools in flight end at once."""
        if self._scope is not None:
            self._scope.cancel()

    def tool_names(self) -> list[str]:
        """The tools the model is offered now."""
        return [s.name for s in self.schemas()]

    def schemas(self) -> tuple[pm.ToolSchema, ...]:
        """The schemas of the tools the model is offered now."""
        return self._offered.schemas(self.config)

    def configure(self, **changes: Any) -> None:
        """Change settings (fields of :class:`LoopConfig`) from the next step on.

        Raises:
            ValueError: a value the loop cannot use (the settings stay as they were).
        """
        self.config = attrs.evolve(self.config, **changes)
        self._offered.forget()
        if {"provider", "models", "base_url"} & changes.keys():
            self._retarget()

    def window_key(self) -> WindowKey:
        """``(provider, base_url, model)``: what a served window is known by."""
        cfg = self.config
        return cfg.provider, cfg.base_url or "", cfg.models[0] if cfg.models else ""

    def learn_window(self, key: WindowKey, window: int) -> None:
        """The server said the model *key* names has *window* tokens (used unless the
        user set the model's window)."""
        self.served_windows.learn(key, window)
        if key == self.window_key():
            self._retarget()

    def _retarget(self) -> None:
        key = self.window_key()
        self.budget.retarget(key[0], key[2], self.served_windows.get(key))

    def add_local_tool(self, name: str, fn: LocalTool) -> None:
        """Run tool *name* (already in the table) by calling *fn*, and offer it to the
        model from the next request on, even when the offer is a short list."""
        offered = self.config.tools
        if offered is not None and name not in offered:
            self.config = attrs.evolve(self.config, tools=(*offered, name))
        self.local_tools[name] = fn
        self._offered.forget()

    def add_tool_result(self, call: pm.ToolCall, output: str) -> None:
        """Append a tool result to the history (the call runner does, per call)."""
        self.history.append(
            pm.ChatMessage(role="tool", content=output, tool_call_id=call.id, name=call.name)
        )

    def _user(self, text: str, source: str) -> None:
        self.emit(ev.UserMessage(session_id=self.session_id, text=text, source=source))
        self.history.append(pm.ChatMessage(role="user", content=text))

    # --- the run ----------------------------------------------------------------------

    async def run(self, prompt: str) -> ev.Result:
        """Run *prompt* to the end and return the ``result`` event (also emitted)."""
        if self._running:
            raise RuntimeError("a run is already going; post() adds a message to it")
        self._running = True
        started = time.monotonic()
        self.final_text = ""
        self._turns = 0
        self._succeeded = []
        reason = "error"
        self.usage_total = {"prompt_tokens": 0, "completion_tokens": 0}
        self._scope = trio.CancelScope()
        try:
            with self._scope:
                try:
                    if self.config.deepthink:
                        reason, self.final_text = await run_stages(self, prompt, self._run_stage)
                    else:
                        reason = await self._run(prompt)
                except BudgetExceeded as exc:
                    self._error("budget", str(exc), fatal=True)
                except ModelFailed as exc:
                    self._error(exc.kind, exc.message, fatal=True)
            if self._scope.cancelled_caught:
                reason = "cancelled"
                self._settle_cancel()
            if reason in ("done", "terminated") and self.config.autotitle and not self.title:
                with trio.move_on_after(30):
                    await self._autotitle(prompt)
        finally:
            self._running = False
            self._scope = None
        result = ev.Result(
            session_id=self.session_id,
            ok=reason in ("done", "terminated"),
            text=self.final_text,
            reason=reason,
            turns=self._turns,
            usage=dict(self.usage_total),
            duration=time.monotonic() - started,
        )
        self.emit(result)
        return result

    def _error(self, kind: str, message: str, *, fatal: bool) -> None:
        self.emit(
            ev.ErrorEvent(
                session_id=self.session_id,
                kind=kind,
                message=self.masker.mask(message),
                fatal=fatal,
            )
        )

    async def _run_stage(self, message: str, policy: PermissionPolicy, read_only: bool) -> str:
        return await self._run(message, "deepthink", policy, read_only=read_only)

    async def _run(
        self,
        prompt: str,
        source: str = "prompt",
        policy: PermissionPolicy | None = None,
        *,
        read_only: bool = False,
    ) -> str:
        self._current_start = len(self.history)
        self._user(prompt, source)
        plan_mode = self.config.permission_mode == "plan"
        runner = CallRunner(self, policy or self.policy, read_only=read_only or plan_mode)
        self._runner = runner
        verify_failures = 0
        while True:
            while self._inbox:
                self._user(self._inbox.pop(0), "inbox")
            if self._turns >= self.config.max_turns:
                self._error(
                    "max_turns",
                    f"stopped after {self._turns} model requests (--max-turns "
                    f"{self.config.max_turns})",
                    fatal=True,
                )
                return "max_turns"
            self._turns += 1
            turn = self._turns
            self.emit(
                ev.TurnStarted(
                    session_id=self.session_id,
                    turn=turn,
                    model=self.config.models[0] if self.config.models else "",
                )
            )
            reply = await self._model_round()
            if reply.finish == "length":
                return self._cut_off(turn, reply)
            self._commit_reply(reply)
            if not reply.calls:
                self.final_text = reply.text
                if self._inbox:
                    self._turn_finished(turn, "inbox")
                    continue
                if self.config.verify:
                    ok, output = await verify(self, verify_failures + 1)
                    if not ok:
                        verify_failures += 1
                        if verify_failures > self.config.verify_attempts:
                            self._turn_finished(turn, "verify_failed")
                            return "verify_failed"
                        self._turn_finished(turn, "verify_failed")
                        self._user(
                            f"The verify command `{self.config.verify}` failed:\n{output}\n"
                            "Fix the problem, then say when you are done.",
                            "verify",
                        )
                        continue
                ending = self._honest_ending(reply.text)
                if ending is not None:
                    self._error(ending.reason, ending.message, fatal=True)
                    self._turn_finished(turn, ending.reason)
                    return ending.reason
                self._turn_finished(turn, "done")
                return "done"
            outcome = await runner.run(reply.calls, notes=reply.repaired)
            self.final_text = self.final_text or outcome.answer
            if outcome.stop:
                self._turn_finished(turn, outcome.stop)
                return outcome.stop
            self._turn_finished(turn, "tool_calls")

    def _honest_ending(self, text: str) -> Ending | None:
        # a stage of deepthink may end on a plan ("I will edit calc.py"): only claims count
        kinds = [self.table.get(n).kind if n in self.table else "other" for n in self._succeeded]
        return honest_ending(text, kinds, announcements=not self.config.deepthink)

    def _turn_finished(self, turn: int, reason: str) -> None:
        self.emit(ev.TurnFinished(session_id=self.session_id, turn=turn, reason=reason))

    def _cut_off(self, turn: int, reply: Reply) -> str:
        # Hit the output limit: the text is kept but marked, and no call runs, since
        # the last one may be half-written and the rest were never meant alone.
        dropped = len(reply.calls)
        self._commit_reply(attrs.evolve(reply, calls=[]), incomplete=True)
        self.final_text = reply.text
        calls = f"; none of its {dropped} tool calls was run" if dropped else ""
        self._error(
            "incomplete",
            f"the answer was cut off at the output token limit ({self.budget.reserve} "
            f"tokens){calls}. Ask the model to go on, or in smaller steps.",
            fatal=False,
        )
        self._turn_finished(turn, "incomplete")
        return "incomplete"

    def _commit_reply(self, reply: Reply, *, incomplete: bool = False) -> None:
        calls = tuple(c for c, _ in reply.calls)
        thinking = reply.thinking if self.config.keep_thinking else ""
        self.emit(
            ev.AssistantMessage(
                session_id=self.session_id,
                text=reply.text,
                tool_calls=tuple(self.table.loggable(c) for c in calls),
                thinking=thinking,
                model=reply.model,
                incomplete=incomplete,
            )
        )
        self.history.append(
            pm.ChatMessage(
                role="assistant", content=reply.text, tool_calls=calls, thinking=thinking
            )
        )
        self._reply = None

    async def _model_round(self) -> Reply:
        await self.served_windows.wait()
        tools = self.schemas()
        system = self.config.system
        budget = self.budget
        chosen = await self.shaper.select(
            self.history,
            self._current_start,
            provider=self.config.provider,
            base_url=self.config.base_url,
            fits=lambda m: budget.estimate(system, m, tools) <= budget.soft_limit,
        )
        if chosen is not None:
            plan = budget.plan(system, chosen[0], tools, chosen[1])
        else:
            plan = self.budget.plan(system, self.history, tools, self._current_start)
            if plan.summarise:
                await self.compact(plan.summarise)
                plan = self.budget.plan(system, self.history, tools, self._current_start)
        if plan.tokens > self.budget.limit:
            raise BudgetExceeded(
                f"the request needs about {plan.tokens} tokens but the model's window allows "
                f"{self.budget.limit}; shorten the prompt or choose a larger window"
            )
        self.budget.note_sent(system, plan.messages, tools)
        self.last_request_tokens = plan.tokens
        request = self.requests.build(plan.messages, system=system, tools=tools)
        self._reply = Reply()
        reply = await read_reply(
            self.model,
            request,
            into=self._reply,
            on_item=self._streamed,
            call_prefix=f"call_{self._turns}",
            sync=self.history_sync,
        )
        if reply.usage is not None:
            self.budget.calibrate(reply.usage.prompt_tokens)
        return reply

    def _streamed(self, item: StreamItem) -> None:
        if isinstance(item, pm.Usage):
            self.add_usage(item.prompt_tokens or 0, item.completion_tokens or 0)
        self.emit(stream_event(self.session_id, item))

    def add_usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Count tokens of this run's model requests (a sub-agent's count too)."""
        self.usage_total["prompt_tokens"] += prompt_tokens
        self.usage_total["completion_tokens"] += completion_tokens

    def _settle_cancel(self) -> None:
        """Record a cancel and leave the history well-formed for the next run: the
        cut-off reply is kept without its calls, and every call left without a result
        gets one saying it was cancelled."""
        reply = self._reply
        if reply is not None and (reply.text or reply.calls):
            # the model was cut off mid-reply: keep what it said, run none of its calls
            self._commit_reply(attrs.evolve(reply, calls=[]))
        runner = self._runner
        for call in unanswered_calls(self.history, runner.finished if runner else ()):
            output = "Cancelled by the user before the call finished."
            self.emit(
                ev.ToolCallFinished(
                    session_id=self.session_id,
                    call_id=call.id,
                    name=call.name,
                    ok=False,
                    output=output,
                )
            )
            self.add_tool_result(call, output)
            if runner:
                runner.finished.add(call.id)
        self.emit(ev.Cancelled(session_id=self.session_id, reason="cancelled by the user"))
        self._turn_finished(self._turns, "cancelled")

    # --- compaction, titles ---------------------------------------------------------

    async def compact(self, upto: int | None = None) -> bool:
        """Summarise the history before the current turn (or its first *upto*
        messages) with the model; returns whether it did.

        Never fails a run: a summary that cannot be had is an ``error`` event that
        is not fatal.
        """
        history = self.history
        n = self._current_start if upto is None else upto
        if not self._running and upto is None:
            n = len(history)
        n = self.shaper.cut(history, n)
        if n < 2:
            return False
        system = self.config.system
        before = self.budget.estimate(system, history, ())
        try:
            summary = await self.shaper.summarise(
                history[:n], max_chars=self.budget.limit * 3, ask=self.requests.ask
            )
        except ModelFailed as exc:
            self._error(exc.kind, f"could not summarise the history: {exc.message}", fatal=False)
            return False
        if not summary:
            return False
        self.history = apply_compaction(self.history, summary, n)
        self._current_start = max(1, self._current_start - n + 1)
        after = self.budget.estimate(system, self.history, ())
        self.emit(
            ev.Compacted(
                session_id=self.session_id,
                summary=summary,
                replaced=n,
                tokens_before=before,
                tokens_after=after,
            )
        )
        return True

    async def ask_aside(self, system: str, content: str, timeout: float) -> str | None:
        """One quiet model request beside the conversation (no events, no history):
        the answer's text, or ``None`` when it failed or took over *timeout* seconds."""
        return await self.requests.aside(system, content, timeout)

    async def _autotitle(self, prompt: str) -> None:
        title = await self.requests.title(prompt, self.final_text)
        if title:
            self.set_title(title, by_user=False)

    def set_title(self, title: str, *, by_user: bool = True) -> None:
        """Name the session (``/title``)."""
        self.title = title
        self.emit(ev.TitleChanged(session_id=self.session_id, title=title, by_user=by_user))
