"""The agent loop: one session's conversation with the model and the tool executors.

:class:`Conversation` holds what lasts between runs (the settings, the history in its
:class:`~._transcript.Transcript`, the budget, the listeners) and is the one place
its own state is set. Each prompt is a :class:`~._turns.PromptRun` (user turn ->
model stream -> tool calls -> results -> again). Whatever happens the last event is
``result`` and the history stays well-formed, so the next run (or a resume from the
log) goes on from a valid state.

What the loop talks to it is handed as ports (:mod:`._ports`): the model, the
executors, the permission policy, the request shaper (what of the history a request
carries), the approver and the frontend.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import trio

from harness.conversation import events as ev
from harness.conversation._budget import ContextBudget
from harness.conversation._calls import LocalTool
from harness.conversation._listeners import Listener, Listeners
from harness.conversation._loop_config import LoopConfig
from harness.conversation._offered import OfferedTools
from harness.conversation._ports import (
    Approver,
    ExecutorPort,
    FrontendPort,
    HooksPort,
    ModelPort,
    PermissionPolicy,
    RequestShaper,
    RunStrategy,
    no_hooks,
)
from harness.conversation._reply import ModelFailed
from harness.conversation._requests import Requests
from harness.conversation._secrets import SecretMasker
from harness.conversation._seen import SeenFiles
from harness.conversation._sync import HistorySync
from harness.conversation._transcript import Transcript
from harness.conversation._turns import PromptRun
from harness.conversation._windows import ServedWindows, WindowKey
from harness.messages import model as pm

if TYPE_CHECKING:
    from harness.actors.tools import ToolTable
    from harness.hooks import Verdict

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
        hooks: the user's hooks (default: none, which costs a lookup per step).
        deepthink: the run strategy used while ``config.deepthink`` is on
            (:mod:`harness.conversation.strategies`; ``None``: this loop has none).
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
        hooks: HooksPort | None = None,
        deepthink: RunStrategy | None = None,
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
        self.transcript = Transcript(session_id, list(history or []), self.emit, table)
        self.agent_name = agent_name
        self.title = title
        self.hooks: HooksPort = hooks or no_hooks()
        self.deepthink = deepthink
        #: what SessionStart/UserPromptSubmit hooks add for the model, joined after the prompt
        self.hook_context: list[str] = []
        #: why a hook said ``continue: false`` in this run (the run stops after that step)
        self.hook_stop = ""
        self.budget = ContextBudget(
            config.provider, config.context, config.models[0] if config.models else ""
        )
        self.workspace = config.workspace
        # what it has read or written, so write_file never replaces a file it has not seen
        self.seen_files = SeenFiles(config.workspace, self.history, strict=config.writes_strictly())
        self._listeners = Listeners()
        self._inbox: list[str] = []
        self._scope: trio.CancelScope | None = None
        self._running = False
        self._run = PromptRun(self, self._inbox)  # the current (or the last) run
        self._offered = OfferedTools(table, headless=frontend is None)
        self.requests = Requests(model, lambda: self.config, self.budget)
        # what the model worker holds of the history, so a round sends only what is new
        self.history_sync = HistorySync()
        #: windows servers said their models have, by :meth:`window_key`
        self.served_windows = ServedWindows()

    # --- events -----------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call *listener* with every event from now on; returns an unsubscribe function."""
        return self._listeners.subscribe(listener)

    def open_event_channel(self) -> trio.MemoryReceiveChannel[ev.ConversationEvent]:
        """A channel that receives every event from now on (unbounded; close it when done)."""
        return self._listeners.channel()

    def emit(self, event: ev.ConversationEvent) -> None:
        """Hand *event* to every listener (the session log is one)."""
        if isinstance(event, ev.ToolCallFinished):
            self._run.call_finished(event)
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

    @property
    def history(self) -> list[pm.ChatMessage]:
        """The model history (without the system prompt)."""
        return self.transcript.messages

    def add_tool_result(
        self, call: pm.ToolCall, output: str, images: Sequence[Mapping[str, str]] = ()
    ) -> None:
        """Append a tool result to the history (the call runner does, per call); its
        *images* (``mime_type``, base64 ``data``) go along when the model sees images
        (its profile says), else only *output*'s note of each does."""
        parts = (
            tuple(pm.ImagePart(i["mime_type"], i["data"]) for i in images)
            if images and self.config.profile().images
            else ()
        )
        self.transcript.tool_result(call, output, parts)

    # --- the run ----------------------------------------------------------------------

    async def run(self, prompt: str) -> ev.Result:
        """Run *prompt* to the end and return the ``result`` event (also emitted)."""
        if self._running:
            raise RuntimeError("a run is already going; post() adds a message to it")
        self._running = True
        started = time.monotonic()
        run = self._run = PromptRun(self, self._inbox)
        reason = "error"
        self.hook_stop = ""
        self._scope = trio.CancelScope()
        try:
            with self._scope:
                reason = await self._submit(prompt) or await run.run(prompt)
            if self._scope.cancelled_caught:
                reason = "cancelled"
                run.settle_cancel()
            if reason in ("done", "terminated") and self.config.autotitle and not self.title:
                with trio.move_on_after(30):
                    await self._autotitle(prompt)
        finally:
            self._running = False
            self._scope = None
        result = ev.Result(
            session_id=self.session_id,
            ok=reason in ("done", "terminated"),
            text=run.answer,
            reason=reason,
            turns=run.turns,
            usage=dict(run.usage),
            duration=time.monotonic() - started,
        )
        self.emit(result)
        return result

    def hook_said(self, verdict: Verdict) -> None:
        """Show the user what hooks said for them (a ``systemMessage``, a failure, plain
        output); a ``continue: false`` stops the run after the step it came in."""
        for message in verdict.messages:
            self.emit(ev.Notice(session_id=self.session_id, kind="hook", message=message))
        if verdict.stop:
            self.hook_stop = verdict.stop_reason or "a hook asked the run to stop"

    async def _submit(self, prompt: str) -> str:
        """Fire UserPromptSubmit: ``""`` when the prompt goes on (with what the hooks add
        for the model), else why the run ends without it."""
        if not self.hooks.listens("UserPromptSubmit"):
            return ""
        verdict = await self.hooks.fire("UserPromptSubmit", prompt=prompt)
        self.hook_said(verdict)
        if verdict.blocked or verdict.stop:
            why = verdict.reason or verdict.stop_reason
            self.emit_error(
                "hook", f"a UserPromptSubmit hook refused the prompt: {why}", fatal=True
            )
            return "hook_blocked"
        if verdict.context:
            self.hook_context.append(verdict.context)
        return ""

    @property
    def final_text(self) -> str:
        """The answer of the current (or the last) run."""
        return self._run.answer

    @property
    def usage_total(self) -> dict[str, int]:
        """Tokens in and out of the current (or the last) run."""
        return self._run.usage

    @property
    def last_request_tokens(self) -> int:
        """The estimated tokens of the last request sent."""
        return self._run.request_tokens

    def add_usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Count tokens into the current run's usage (a sub-agent's, say)."""
        self._run.add_usage(prompt_tokens, completion_tokens)

    def emit_error(self, kind: str, message: str, *, fatal: bool) -> None:
        """An ``error`` event, its message masked."""
        self.emit(
            ev.ErrorEvent(
                session_id=self.session_id,
                kind=kind,
                message=self.masker.mask(message),
                fatal=fatal,
            )
        )

    # --- compaction, titles ---------------------------------------------------------

    async def compact(self, upto: int | None = None) -> bool:
        """Summarise the history before the current turn (or its first *upto*
        messages) with the model; returns whether it did.

        Never fails a run: a summary that cannot be had is an ``error`` event that
        is not fatal.
        """
        history = self.history
        n = self.transcript.start if upto is None else upto
        if not self._running and upto is None:
            n = len(history)
        n = self.shaper.cut(history, n)
        if n < 2:
            return False
        if self.hooks.listens("PreCompact"):
            trigger = "auto" if self._running else "manual"
            verdict = await self.hooks.fire(
                "PreCompact", match=trigger, trigger=trigger, custom_instructions=""
            )
            self.hook_said(verdict)
        system = self.config.system
        before = self.budget.estimate(system, history, ())
        try:
            summary = await self.shaper.summarise(
                history[:n], max_chars=self.budget.limit * 3, ask=self.requests.ask
            )
        except ModelFailed as exc:
            self.emit_error(
                exc.kind, f"could not summarise the history: {exc.message}", fatal=False
            )
            return False
        if not summary:
            return False
        self.transcript.fold(summary, n)
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
