"""Draws a run's conversation events on a rich console.

:class:`RunView` is fed every event of one run (``handle``) and ``tick``\\ ed a few
times a second for the spinner. Settled output (markdown blocks, finished tool
calls, notices) is printed once, above a transient live region that holds only
what is still changing: the growing markdown tail, the running tool calls and
the status line (spinner, tokens per second, elapsed time).

Each event class has its method (:data:`RunView.handle` looks it up by the
event's class); events the view does not draw are ignored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

from harness.cli.tui._markdown import MarkdownStream
from harness.cli.tui._sanitize import clean, clean_line
from harness.cli.tui._timeline import ToolRecord, folded_output, tool_line
from harness.cli.tui._usage import usage_line
from harness.conversation import events as ev

__all__ = ["RunView"]

_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

_E = TypeVar("_E", bound=ev.ConversationEvent)
_Drawer = Callable[["RunView", Any], None]
_DRAWERS: dict[type[ev.ConversationEvent], _Drawer] = {}


def _draws(
    cls: type[_E],
) -> Callable[[Callable[[RunView, _E], None]], Callable[[RunView, _E], None]]:
    """Make the method below the one that draws events of class *cls*."""

    def register(fn: Callable[[RunView, _E], None]) -> Callable[[RunView, _E], None]:
        _DRAWERS[cls] = fn
        return fn

    return register


class RunView:
    """Renders the events of one run.

    Args:
        console: where to draw.
        show_thinking: print the model's thinking, dimmed (``/think on``).
        clock: monotonic seconds (injected so tests are exact).
        live: use a live region (spinner, growing tail); off for dumb terminals
            and exact-output tests, where only settled output is printed.
        provider: the provider name, for cost.
        model: the model name, for cost.
    """

    def __init__(
        self,
        console: Console,
        *,
        show_thinking: bool = False,
        clock: Callable[[], float] = time.monotonic,
        live: bool = True,
        provider: str = "",
        model: str = "",
    ) -> None:
        self.console = console
        self.show_thinking = show_thinking
        self.provider = provider
        self.model = model
        self._clock = clock
        self._start = clock()
        self._first_token: float | None = None
        self._chars = 0
        self._md = MarkdownStream(self._print)
        self._thinking = MarkdownStream(self._print_dim)
        self._in_thinking = False
        self._tools: dict[str, ToolRecord] = {}
        self.finished_tools: list[ToolRecord] = []
        self._denied: set[str] = set()
        self._worker_exit: dict[str, str] = {}
        # running sub-agents: name -> (task, turn, last tool, tokens, started)
        self._agents: dict[str, tuple[str, int, str, int, float]] = {}
        self._usage: tuple[int | None, int | None] = (None, None)
        self._cached: int | None = None  # prompt tokens the server did not read again
        self._phase = "waiting for the model"
        self._stage = ""  # the deepthink stage, while one runs
        self._live: Live | None = None
        if live and console.is_terminal:
            self._live = Live(
                console=console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
                vertical_overflow="visible",
            )
            self._live.start()

    # -- output helpers ------------------------------------------------------------------

    def _print(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    def _print_dim(self, renderable: RenderableType) -> None:
        if isinstance(renderable, Text):
            renderable.stylize("dim italic")
            self.console.print(renderable)
        else:
            self.console.print(renderable, style="dim italic")

    def _settle_text(self) -> None:
        self._md.finish()
        self._md = MarkdownStream(self._print)

    def _settle_thinking(self) -> None:
        if self._in_thinking:
            self._thinking.finish()
            self._thinking = MarkdownStream(self._print_dim)
            self._in_thinking = False

    # -- the live region -----------------------------------------------------------------

    def tokens_per_second(self) -> float | None:
        """The live rate of the current answer (estimated at 4 characters a token)."""
        if self._first_token is None:
            return None
        elapsed = self._clock() - self._first_token
        return (self._chars / 4) / elapsed if elapsed > 0.2 else None

    def status_line(self) -> Text:
        """Spinner, phase, tokens per second and elapsed time."""
        now = self._clock()
        frame = _SPINNER[int(now * 10) % len(_SPINNER)]
        line = Text()
        line.append(frame + " ", style="cyan")
        if self._stage:
            line.append(f"[{self._stage}] ", style="magenta")
        line.append(self._phase, style="dim")
        rate = self.tokens_per_second()
        if rate is not None:
            line.append(f" · {rate:.1f} tok/s · ~{self._chars // 4:,} tokens", style="dim")
        line.append(f" · {now - self._start:.0f}s · esc to cancel", style="dim")
        return line

    def live_renderable(self) -> RenderableType:
        """What the live region shows now."""
        parts: list[RenderableType] = []
        tail = self._md.tail()
        if tail is not None:
            parts.append(tail)
        if self._in_thinking and self.show_thinking:
            ttail = self._thinking.tail()
            if ttail is not None:
                parts.append(Text(clean(str(getattr(ttail, "markup", ""))), style="dim italic"))
        now = self._clock()
        width = self.console.width
        for rec in self._tools.values():
            if rec.state in ("running", "requested", "approved"):
                parts.append(tool_line(rec, width=width, now=now))
        parts.extend(self.agent_lines())
        parts.append(self.status_line())
        return Group(*parts)

    def agent_lines(self) -> list[Text]:
        """One line per running sub-agent: name, task, turn, last tool, tokens, elapsed."""
        now = self._clock()
        out = []
        for name, (task, turn, tool, tokens, started) in self._agents.items():
            line = Text()
            line.append("  ⇉ ", style="magenta")
            line.append(clean_line(name), style="magenta")
            line.append(f" {clean_line(task)[:40]}", style="dim")
            line.append(f" · turn {turn}", style="dim")
            if tool:
                line.append(f" · {clean_line(tool)}", style="dim")
            line.append(f" · {tokens:,} tok · {now - started:.0f}s", style="dim")
            line.truncate(self.console.width, overflow="ellipsis")
            out.append(line)
        return out

    def tick(self) -> None:
        """Redraw the live region (spinner, rate, the growing tail)."""
        if self._live is not None:
            self._live.update(self.live_renderable(), refresh=True)

    def pause(self) -> None:
        """Take the live region off the screen (before an approval prompt)."""
        if self._live is not None:
            self._live.stop()

    def resume(self) -> None:
        """Put the live region back after :meth:`pause`."""
        if self._live is not None:
            self._live.start()
            self.tick()

    def close(self) -> None:
        """Settle everything and remove the live region."""
        self._settle_thinking()
        self._settle_text()
        if self._live is not None:
            self._live.stop()
            self._live = None

    # -- events --------------------------------------------------------------------------

    def handle(self, event: ev.ConversationEvent) -> None:
        """Draw one conversation event."""
        draw = _DRAWERS.get(type(event))
        if draw is not None:
            draw(self, event)

    @_draws(ev.TurnStarted)
    def _on_turn_started(self, e: ev.TurnStarted) -> None:
        self._phase = "waiting for the model"
        self.model = e.model or self.model

    @_draws(ev.TextDelta)
    def _on_text_delta(self, e: ev.TextDelta) -> None:
        self._settle_thinking()
        if self._first_token is None:
            self._first_token = self._clock()
        self._phase = "writing"
        self._chars += len(e.text)
        self._md.feed(e.text)

    @_draws(ev.ToolCallWriting)
    def _on_tool_call_writing(self, e: ev.ToolCallWriting) -> None:
        # the call itself is drawn when it is whole; till then the status line says so
        # (no rate: a call's text is not counted, so it would read 0 tok/s)
        self._phase = f"writing a call to {clean_line(e.name)}"

    @_draws(ev.ModelProgress)
    def _on_model_progress(self, e: ev.ModelProgress) -> None:
        # the embedded model loading or reading a long prompt: said, never a silent wait
        self._phase = "waiting for the model" if e.stage == "ready" else clean_line(e.message)

    @_draws(ev.ThinkingDelta)
    def _on_thinking_delta(self, e: ev.ThinkingDelta) -> None:
        if self._first_token is None:
            self._first_token = self._clock()
        self._phase = "thinking"
        self._chars += len(e.text)
        if self.show_thinking:
            self._in_thinking = True
            self._thinking.feed(e.text)

    @_draws(ev.UsageReported)
    def _on_usage(self, e: ev.UsageReported) -> None:
        pin, pout = self._usage
        if e.prompt_tokens is not None:
            pin = (pin or 0) + e.prompt_tokens
        if e.completion_tokens is not None:
            pout = (pout or 0) + e.completion_tokens
        self._usage = (pin, pout)
        if e.cached_tokens is not None:
            self._cached = (self._cached or 0) + e.cached_tokens

    @_draws(ev.AssistantMessage)
    def _on_assistant_message(self, e: ev.AssistantMessage) -> None:
        self._settle_thinking()
        self._settle_text()

    @_draws(ev.ToolCallRequested)
    def _on_tool_call_requested(self, e: ev.ToolCallRequested) -> None:
        self._settle_text()
        self._tools[e.call_id] = ToolRecord(
            call_id=e.call_id, name=e.name, main_argument=e.main_argument or ""
        )
        self._phase = f"calling {clean_line(e.name)}"

    def _record(
        self,
        e: ev.ToolCallApproved
        | ev.ToolCallDenied
        | ev.ToolCallStarted
        | ev.ToolCallProgress
        | ev.ToolCallFinished,
    ) -> ToolRecord:
        rec = self._tools.get(e.call_id)
        if rec is None:
            rec = self._tools[e.call_id] = ToolRecord(call_id=e.call_id, name=e.name)
        return rec

    @_draws(ev.ToolCallApproved)
    def _on_tool_call_approved(self, e: ev.ToolCallApproved) -> None:
        self._record(e).state = "approved"

    @_draws(ev.ToolCallDenied)
    def _on_tool_call_denied(self, e: ev.ToolCallDenied) -> None:
        rec = self._record(e)
        rec.state, rec.reason = "denied", e.reason
        self._denied.add(e.call_id)
        self._finish_tool(rec)

    @_draws(ev.ToolCallStarted)
    def _on_tool_call_started(self, e: ev.ToolCallStarted) -> None:
        rec = self._record(e)
        rec.state, rec.started = "running", self._clock()
        self._phase = f"running {clean_line(e.name)}"

    @_draws(ev.ToolCallProgress)
    def _on_tool_call_progress(self, e: ev.ToolCallProgress) -> None:
        share = f"{e.progress:g}/{e.total:g}" if e.total else f"{e.progress:g}"
        said = f"{share} {e.message}".strip()
        self._record(e).progress = said
        self._phase = f"running {clean_line(e.name)} · {clean_line(said)[:60]}"

    @_draws(ev.ToolCallFinished)
    def _on_tool_call_finished(self, e: ev.ToolCallFinished) -> None:
        if e.call_id in self._denied:
            return  # already shown; the finished event only carries the denial text
        rec = self._record(e)
        rec.state = "ok" if e.ok else "failed"
        rec.output = e.output
        duration = e.duration
        if duration:
            rec.duration = duration
        elif rec.started is not None:
            rec.duration = self._clock() - rec.started
        self._finish_tool(rec)
        self._phase = "waiting for the model"

    def _finish_tool(self, rec: ToolRecord) -> None:
        self._tools.pop(rec.call_id, None)
        self.finished_tools.append(rec)
        width = self.console.width
        self.console.print(tool_line(rec, width=width))
        extra = folded_output(rec, width=width)
        if extra is not None:
            self.console.print(extra)

    def _notice(self, text: str, style: str = "dim") -> None:
        self._settle_text()
        self.console.print(Text("  " + clean_line(text), style=style))

    @_draws(ev.WorkerExited)
    def _on_worker_exited(self, e: ev.WorkerExited) -> None:
        why = (
            e.reason
            or e.description
            or (f"exit code {e.exit_code}" if e.exit_code is not None else "exited")
        )
        self._worker_exit[e.worker] = why

    @_draws(ev.WorkerRestarted)
    def _on_worker_restarted(self, e: ev.WorkerRestarted) -> None:
        why = self._worker_exit.pop(e.worker, "")
        self._notice(f"{e.worker} worker restarted" + (f" ({why})" if why else ""))

    @_draws(ev.WorkerGaveUp)
    def _on_worker_gave_up(self, e: ev.WorkerGaveUp) -> None:
        self._notice(f"{e.worker} worker stopped: {e.reason or 'too many restarts'}", "yellow")

    @_draws(ev.SubagentStarted)
    def _on_subagent_started(self, e: ev.SubagentStarted) -> None:
        self._agents[e.name] = (e.task, 0, "", 0, self._clock())
        self._notice(f"sub-agent {e.name} started: {e.task}")

    @_draws(ev.SubagentProgress)
    def _on_subagent_progress(self, e: ev.SubagentProgress) -> None:
        known = self._agents.get(e.name)
        if known is not None:
            self._agents[e.name] = (known[0], e.turn, e.tool, e.tokens, known[4])

    @_draws(ev.SubagentFinished)
    def _on_subagent_finished(self, e: ev.SubagentFinished) -> None:
        started = self._agents.pop(e.name, None)
        took = f" in {self._clock() - started[4]:.0f}s" if started else ""
        how = "finished" if e.ok else f"failed ({e.reason})" if e.reason else "failed"
        tokens = sum(e.usage.values())
        self._notice(f"sub-agent {e.name} {how}{took} · {e.turns} turns · {tokens:,} tokens")

    @_draws(ev.StageStarted)
    def _on_stage_started(self, e: ev.StageStarted) -> None:
        self._settle_thinking()
        self._settle_text()
        self._notice(f"── deepthink {e.index}/5: {e.stage} ──", "bold magenta")
        self._stage = clean_line(e.stage)

    @_draws(ev.StageFinished)
    def _on_stage_finished(self, e: ev.StageFinished) -> None:
        if e.reason == "question":
            self._notice("a question: it ends after the plan")
        elif e.reason == "nothing_changed":
            self._notice("the implement stage changed nothing: the chain ends here")

    @_draws(ev.Compacted)
    def _on_compacted(self, e: ev.Compacted) -> None:
        self._notice(f"context compacted: {e.tokens_before:,} → {e.tokens_after:,} tokens")

    @_draws(ev.VerifyStarted)
    def _on_verify_started(self, e: ev.VerifyStarted) -> None:
        self._notice(f"verifying: {e.command}")

    @_draws(ev.VerifyFinished)
    def _on_verify_finished(self, e: ev.VerifyFinished) -> None:
        self._notice(
            f"verify {'passed' if e.ok else 'failed'}: {e.command}", "green" if e.ok else "red"
        )

    @_draws(ev.HookFinished)
    def _on_hook_finished(self, e: ev.HookFinished) -> None:
        if e.decision:  # a hook that decided nothing stays out of the timeline
            said = f": {e.reason}" if e.reason else ""
            text = f"hook {e.event} {e.hook}: {e.decision} ({e.ms:.0f} ms){said}"
            self._notice(text, "yellow" if e.decision in ("deny", "block", "error") else "dim")

    @_draws(ev.Cancelled)
    def _on_cancelled(self, e: ev.Cancelled) -> None:
        self._notice("cancelled", "yellow")

    @_draws(ev.ErrorEvent)
    def _on_error(self, e: ev.ErrorEvent) -> None:
        self._notice(f"✗ {e.message}", "red")

    @_draws(ev.Notice)
    def _on_notice(self, e: ev.Notice) -> None:
        self._notice(e.message)

    @_draws(ev.TitleChanged)
    def _on_title_changed(self, e: ev.TitleChanged) -> None:
        self._notice(f"session titled “{e.title}”")

    @_draws(ev.Result)
    def _on_result(self, e: ev.Result) -> None:
        self.close()
        usage = e.usage or {}
        pin = usage.get("prompt_tokens", self._usage[0])
        pout = usage.get("completion_tokens", self._usage[1])
        self.console.print(
            usage_line(
                prompt_tokens=pin,
                completion_tokens=pout,
                cached_tokens=self._cached,
                seconds=e.duration or (self._clock() - self._start),
                turns=e.turns,
                provider=self.provider,
                model=self.model,
            )
        )

    def handle_error(self, message: str) -> None:
        """Show one error sentence that did not come as an event."""
        self._notice(f"✗ {message}", "red")
