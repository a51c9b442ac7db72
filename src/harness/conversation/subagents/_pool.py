"""Hiring sub-agents: runners in processes of their own, with budgets that hold.

Each sub-agent is a temporary child of the session's supervisor running
``python -m harness.actors.subagent``. The parent answers what the runner asks:
model replies (through the parent's model worker, with the parent's provider and
key), tool calls (the parent's rules and approval prompt, shown with the agent's
name, then the parent's workers) and notes (the live line, the session's usage,
the budgets). The runner's history never enters the parent's: only its report
comes back, as the ``spawn_agent`` result.

Budgets: the runner asks its model once for a report at its turn limit; the
parent kills it when that report does not come within ``report_grace``, when the
wall time or the token budget runs out, or (the supervisor does) when its RSS
passes the limit. A killed or crashed runner becomes a report saying what was
done, what stopped it and the last thing it said. Leaving :meth:`SubagentPool.run`
early (the parent's turn was cancelled) kills the runner at once; a runner whose
parent process dies kills itself (the worker base's lifeline).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import trio

from harness.conversation import events as ev
from harness.conversation._call_errors import describe_worker_error
from harness.conversation._tool_hooks import subagent_stop, subagent_stopping
from harness.conversation.subagents._named import load_definitions, resolve
from harness.conversation.subagents._runner_calls import RunnerCalls
from harness.conversation.subagents._task import (
    NOT_FOR_SUBAGENTS,
    AgentState,
    SubagentLimits,
    Task,
    declarations,
    prose,
    report_outcome,
)
from harness.conversation.workers import SUBAGENT_PREFIX
from harness.ipc import Emit, IpcError, Message, WorkerDied
from harness.keys import provider_key
from harness.messages.model import ChatRequest
from harness.messages.subagent import (
    SubagentAck,
    SubagentNote,
    SubagentReport,
    SubagentRun,
    SubagentToolCall,
)
from harness.messages.tools import ToolOutcome

if TYPE_CHECKING:
    from harness.conversation._loop import Conversation
    from harness.conversation.workers import Workers
    from harness.supervisor import WorkerHandle

__all__ = ["SubagentPool"]

_SUBAGENT_SYSTEM = (
    "You are a sub-agent: another agent hired you for one self-contained task. "
    "Nobody can answer questions; decide with your best judgement. Work with the "
    "tools you have, then answer with a short report: what you found or did, with "
    "the exact paths, names and figures the other agent needs. Only that report is "
    "passed on."
)


class SubagentPool:
    """The sub-agents of one session.

    Args:
        conv: the parent conversation (its rules, approver, usage, events).
        workers: the parent's workers and supervisor.
        limits: the budgets and the concurrency cap.
        env: environment added to each runner.
    """

    def __init__(
        self,
        conv: Conversation,
        workers: Workers,
        limits: SubagentLimits | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.conv = conv
        self.workers = workers
        self.limits = limits or SubagentLimits()
        self.env = dict(env or {})
        self.agents: dict[str, AgentState] = {}
        self._ids = itertools.count(1)
        self._slots = trio.Semaphore(self.limits.max_concurrent)
        self._calls = RunnerCalls(conv, self._may_hire, lambda args, hirer: self.tool(args, hirer))
        # the named agents (agents/*.md), offered through spawn_agent's description
        self.definitions = load_definitions(
            conv.workspace, self.env.get("HARNESS_HOME"), conv.table
        )

    # --- what a frontend sees -----------------------------------------------------------

    def running(self) -> list[AgentState]:
        """The sub-agents queued or running now."""
        return [a for a in self.agents.values() if a.state != "finished"]

    def kill(self, agent_id: str) -> bool:
        """Stop sub-agent *agent_id* now (its report says it was stopped); whether it ran."""
        agent = self.agents.get(agent_id)
        if agent is None or agent.state == "finished":
            return False
        self._stop(agent, "stopped by the user")
        return True

    # --- running ----------------------------------------------------------------------

    async def tool(self, args: dict[str, Any], hirer: AgentState | None = None) -> ToolOutcome:
        """``spawn_agent`` as the conversation runs it (bound arguments)."""
        tools = args.get("tools")
        model = args.get("model") or None
        named = args.get("agent") or None
        return await self.run(
            Task(
                task=str(args["task"]),
                context=str(args.get("context") or ""),
                model=str(model) if model else None,
                tools=tuple(str(t) for t in tools) if isinstance(tools, list) else None,
                agent=str(named) if named else None,
            ),
            hirer,
        )

    async def run_many(self, tasks: Sequence[Task]) -> list[ToolOutcome]:
        """Run *tasks* in parallel (at most ``max_concurrent`` at once); their reports
        in the order given."""
        out: list[ToolOutcome | None] = [None] * len(tasks)

        async def one(i: int, task: Task) -> None:
            out[i] = await self.run(task)

        async with trio.open_nursery() as nursery:
            for i, task in enumerate(tasks):
                nursery.start_soon(one, i, task)
        return [o for o in out if o is not None]

    async def run(self, task: Task, hirer: AgentState | None = None) -> ToolOutcome:
        """Run *task* in a runner of its own and return its report as a tool outcome
        (*hirer*: the sub-agent that hired this one, if one did)."""
        agent = AgentState(
            id=f"agent-{next(self._ids)}",
            task=task.task,
            depth=hirer.depth + 1 if hirer else 1,
            hirer=hirer.id if hirer else "",
        )
        self.agents[agent.id] = agent
        system = _SUBAGENT_SYSTEM
        notes: tuple[str, ...] = ()
        if task.agent is not None:
            everything = self._offered(attrs.evolve(task, tools=None), agent.depth)
            named = resolve(task, self.definitions, everything, _SUBAGENT_SYSTEM)
            if isinstance(named, str):
                agent.state = "finished"
                return ToolOutcome(ok=False, output=named)
            task, system, notes = named[0], named[1].system, named[1].notes
            agent.definition = task.agent or ""
        offered = self._offered(task, agent.depth)
        if isinstance(offered, str):
            agent.state = "finished"
            return ToolOutcome(ok=False, output=offered)
        agent.tools = offered
        async with self._slots:
            out = await self._run(agent, task, offered, system)
        return (
            attrs.evolve(out, output=f"{out.output}\n\nNote: {' '.join(notes)}") if notes else out
        )

    def _may_hire(self, depth: int) -> bool:
        return depth < self.limits.max_depth

    def _offered(self, task: Task, depth: int) -> tuple[str, ...] | str:
        conv = self.conv
        never = NOT_FOR_SUBAGENTS - ({"spawn_agent"} if self._may_hire(depth) else set())
        # a terminating tool ends the parent's run: only the parent may call it
        everything = [
            n
            for n in conv.tool_names()
            if n not in never and not (n in conv.table and conv.table.get(n).terminating)
        ]
        if task.tools is None:
            return tuple(everything)
        unknown = [n for n in task.tools if n not in everything]
        if unknown:
            return (
                f"A sub-agent cannot be given {', '.join(unknown)}; it may use: "
                f"{', '.join(everything)}."
            )
        return tuple(task.tools)

    async def _run(
        self, agent: AgentState, task: Task, tools: tuple[str, ...], system: str
    ) -> ToolOutcome:
        from harness.actors.subagent import MODULE
        from harness.supervisor import ChildSpec

        conv, limits = self.conv, self.limits
        cfg = conv.config
        agent.state, agent.started = "running", time.monotonic()
        conv.emit(ev.SubagentStarted(session_id=conv.session_id, name=agent.id, task=task.task))
        spec = ChildSpec(
            name=SUBAGENT_PREFIX + agent.id,
            module=MODULE,
            restart="temporary",
            cwd=conv.workspace,
            env=dict(self.env),
            heartbeat_interval=0.5,
            rss_limit=limits.rss_limit,
            request_timeout=None,
            shutdown_grace=1.0,
        )
        prompt = task.task if not task.context else f"{task.task}\n\nContext:\n{task.context}"
        run = SubagentRun(
            agent=agent.id,
            task=prompt,
            workspace=conv.workspace,
            provider=cfg.provider,
            # the session's models after it: a model the provider lacks fails over
            models=(task.model, *(m for m in cfg.models if m != task.model))
            if task.model
            else cfg.models,
            tool_protocol=cfg.tool_protocol,
            permission_mode=cfg.permission_mode,
            tools=tools,
            extra_tools=declarations(conv.table, tools),
            max_turns=limits.max_turns,
            system=system,
            temperature=cfg.temperature,
            seed=cfg.seed,
            stop_hooks=conv.hooks.listens("SubagentStop"),
        )
        report: SubagentReport | None = None
        crash = ""
        try:
            with trio.move_on_after(limits.wall_time) as wall:
                handle = await self.workers.supervisor.start(spec)
                agent.handle = handle
                handle.on_stream(ChatRequest, self._chat_for(agent))
                handle.on_request(SubagentToolCall, self._tools_for(agent))
                handle.on_request(SubagentNote, self._notes_for(agent))
                answer = await handle.request(run, timeout=None)
                if isinstance(answer, SubagentReport):
                    report = answer
                else:
                    crash = f"its runner answered {type(answer).TAG}"
            if wall.cancelled_caught:
                agent.stopped_by = f"its wall time of {limits.wall_time:g} s ran out"
        except WorkerDied as exc:
            if not agent.stopped_by:
                agent.stopped_by = (
                    f"its runner passed the memory limit of {limits.rss_limit // 2**20} MB"
                    if exc.reason == "memory"
                    else f"its runner crashed: {describe_worker_error(exc, 'the task', '')}"
                )
        except IpcError as exc:
            crash = str(exc)
        finally:
            agent.state, agent.ended = "finished", time.monotonic()
            sup = self.workers.supervisor
            # a cancel may come while the runner starts, before its handle is ours
            left = agent.handle or (sup.get(spec.name) if spec.name in sup else None)
            if left is not None and left.state not in ("stopped", "gave_up"):
                # the report is in, or it is given up: nothing it holds is worth a wait
                _kill_now(left)
                left.kill("finished" if report is not None else "cancelled")
                # No runner outlives the call that ran it: wait (bounded, even when
                # cancelled) until the supervisor has seen it end and swept its tree.
                with trio.move_on_after(5) as done:
                    done.shield = True
                    await left.stop()
            for hired in self.agents.values():
                if hired.hirer == agent.id and hired.state != "finished":
                    self._stop(hired, f"{agent.id}, which hired it, ended")
        if crash and not agent.stopped_by:
            agent.stopped_by = f"its runner failed: {crash}"
        ended = report_outcome(agent, report, limits.max_turns)
        outcome = await subagent_stop(conv, agent.id, ended, agent.stop_verdict)
        conv.emit(
            ev.SubagentFinished(
                session_id=conv.session_id,
                name=agent.id,
                ok=outcome.ok,
                result=outcome.output,
                reason=agent.reason,
                turns=agent.turn,
                usage={
                    "prompt_tokens": agent.prompt_tokens,
                    "completion_tokens": agent.completion_tokens,
                },
            )
        )
        return outcome

    def _stop(self, agent: AgentState, why: str) -> None:
        if not agent.stopped_by:
            agent.stopped_by = why
        if agent.handle is not None:
            _kill_now(agent.handle)
            agent.handle.kill("budget")

    # --- what a runner asks --------------------------------------------------------------

    def _chat_for(self, agent: AgentState) -> Callable[[ChatRequest, Emit], Awaitable[None]]:
        async def chat(request: ChatRequest, emit: Emit) -> None:
            cfg = self.conv.config
            # the runner holds no key: the parent's provider, address and key answer it
            request = attrs.evolve(
                request,
                provider=cfg.provider,
                base_url=cfg.base_url,
                api_key=cfg.api_key or provider_key(cfg.provider),
            )
            async with self.workers.stream(request) as items:
                async for item in items:
                    await emit(item)

        return chat

    def _notes_for(self, agent: AgentState) -> Callable[[SubagentNote], Awaitable[Message]]:
        async def note(n: SubagentNote) -> Message:
            if n.kind == "stopping":  # a SubagentStop hook may keep it going
                return await subagent_stopping(self.conv, agent, n.stop_hook_active)
            self._noted(agent, n)
            return SubagentAck()

        return note

    def _noted(self, agent: AgentState, n: SubagentNote) -> None:
        conv = self.conv
        if n.kind == "turn":
            agent.turn = n.turn
        elif n.kind == "tool":
            agent.last_tool = n.tool
        elif n.kind == "text" and prose(n.text, agent.tools):
            # a call written as text (at the report request) is not something it said
            agent.last_text = prose(n.text, agent.tools)
        elif n.kind == "usage":
            agent.prompt_tokens += n.prompt_tokens
            agent.completion_tokens += n.completion_tokens
            # the session's usage counts what its sub-agents used
            conv.add_usage(n.prompt_tokens, n.completion_tokens)
            if agent.tokens > self.limits.max_tokens:
                self._stop(
                    agent,
                    f"it used {agent.tokens} tokens, over its budget of {self.limits.max_tokens}",
                )
        elif n.kind == "report_requested":
            self.workers.start_soon(lambda: self._grace(agent))
        conv.emit(
            ev.SubagentProgress(
                session_id=conv.session_id,
                name=agent.id,
                turn=agent.turn,
                tool=agent.last_tool,
                tokens=agent.tokens,
                elapsed=agent.elapsed,
            )
        )

    async def _grace(self, agent: AgentState) -> None:
        await trio.sleep(self.limits.report_grace)
        if agent.state != "finished":
            self._stop(
                agent,
                f"it reached its turn limit ({self.limits.max_turns}) and gave no report "
                f"within {self.limits.report_grace:g} s",
            )

    def _tools_for(self, agent: AgentState) -> Callable[[SubagentToolCall], Awaitable[Message]]:
        async def tool(req: SubagentToolCall) -> Message:
            # its runner offers only these; a call to another is refused here too, so
            # a named agent's tools (or a call's narrowing) hold whatever the runner does
            if req.invoke.name not in agent.tools:
                return ToolOutcome(ok=False, output=f"{req.invoke.name} is not one of its tools.")
            return await self._calls.run(agent, req)

        return tool


def _kill_now(handle: WorkerHandle) -> None:
    """SIGKILL the runner's process group this moment; the supervisor's kill that
    follows sweeps whatever escaped the group, and reaps."""
    import signal

    from harness.supervisor import signal_group

    if handle.pid is not None:
        signal_group(handle.pid, signal.SIGKILL)
