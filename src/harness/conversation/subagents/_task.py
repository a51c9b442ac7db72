"""What a sub-agent is given and what comes back: a :class:`Task`, the
:class:`SubagentLimits` of a session, the :class:`AgentState` ``/agents`` shows, and
the tool result its report becomes."""

from __future__ import annotations

import functools
import time
from collections.abc import Collection
from typing import TYPE_CHECKING, Literal

import attrs

from harness.messages.subagent import OfferedTool
from harness.messages.subagent import SubagentReport as RunnerReport
from harness.messages.tools import ToolOutcome

if TYPE_CHECKING:
    from harness.actors.tools import ToolTable
    from harness.hooks import Verdict
    from harness.supervisor import WorkerHandle

__all__ = [
    "NOT_FOR_SUBAGENTS",
    "AgentState",
    "SubagentLimits",
    "SubagentReport",
    "Task",
    "declarations",
    "prose",
    "report_outcome",
]

#: Tools a sub-agent is never offered: it has no user to ask, no plan to submit,
#: and hires nobody.
NOT_FOR_SUBAGENTS = frozenset({"get_user_input", "submit_plan", "spawn_agent"})


@attrs.frozen
class Task:
    """One job for a sub-agent.

    Attributes:
        task: what to do, self-contained (the sub-agent sees nothing else).
        context: facts the parent already has that the task needs.
        model: a model of the parent's provider (default: the parent's).
        tools: the tools it may use (default: all but those it is never offered).
        agent: a named agent (``agents/<name>.md``) to run it: its prompt, its model
            and its tools, which *tools* may narrow further.
    """

    task: str
    context: str = ""
    model: str | None = None
    tools: tuple[str, ...] | None = None
    agent: str | None = None


@attrs.frozen
class SubagentLimits:
    """What one sub-agent may use, and how many run at once.

    Attributes:
        max_concurrent: runners at once; more wait for a free slot (default 4).
        max_turns: model requests before it is asked for its report (default 12).
        wall_time: seconds from its start to its report (default 600).
        max_tokens: prompt plus completion tokens it may use (default 400 000).
        rss_limit: the runner's resident memory, bytes (default 512 MiB).
        report_grace: seconds it has to report once asked (default 60).
        max_depth: how deep hiring goes: 1 (default) lets the session hire sub-agents
            that hire nobody; 2 lets those hire one level more, and so on.
    """

    max_concurrent: int = 4
    max_turns: int = 12
    wall_time: float = 600.0
    max_tokens: int = 400_000
    rss_limit: int = 512 * 1024 * 1024
    report_grace: float = 60.0
    max_depth: int = 1


@attrs.define
class AgentState:
    """One sub-agent as ``/agents`` and the live lines show it."""

    id: str
    task: str
    state: Literal["queued", "running", "finished"] = "queued"
    turn: int = 0
    last_tool: str = ""
    last_text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = 0.0
    ended: float = 0.0
    reason: str = ""
    stopped_by: str = ""
    depth: int = 1
    hirer: str = ""
    definition: str = ""  # the named agent it runs as, if any
    tools: tuple[str, ...] = ()  # what it was offered: the parent refuses the rest
    stop_verdict: Verdict | None = None  # what SubagentStop hooks said as it last stopped
    handle: WorkerHandle | None = attrs.field(default=None, repr=False)

    @property
    def tokens(self) -> int:
        """Tokens used so far, in and out."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def elapsed(self) -> float:
        """Seconds since it started (0 while queued)."""
        if not self.started:
            return 0.0
        return (self.ended or time.monotonic()) - self.started


@attrs.frozen
class SubagentReport:
    """What one sub-agent came back with (:meth:`Session.spawn_subagents`).

    Attributes:
        agent: its id (``agent-1``), as its events carry it.
        ok: it finished and reported.
        text: its report, or what stopped it, what it had done and its last words.
        reason: ``done``, ``max_turns`` (it reported at its turn limit), ``stopped``
            (a budget, a crash or a cancel ended it) or the loop's own reason.
    """

    agent: str
    ok: bool
    text: str
    reason: str

    @classmethod
    def of(cls, outcome: ToolOutcome) -> SubagentReport:
        """The report a sub-agent's tool result (``spawn_agent``'s) says."""
        return cls(
            agent=str(outcome.data.get("agent", "")),
            ok=outcome.ok,
            text=outcome.output,
            reason=str(outcome.data.get("reason", "")),
        )


def prose(text: str, tools: Collection[str]) -> str:
    """*text* without the tool calls written in it (``<tool_call>`` blocks, fenced or
    bare call objects naming one of *tools*): what a person would read of it."""
    from harness.actors.model import parse_reply

    parsed = parse_reply(text, tools)
    return parsed.text.strip() if parsed.calls else text.strip()


def report_outcome(agent: AgentState, report: RunnerReport | None, max_turns: int) -> ToolOutcome:
    """What *agent*'s *report* (``None``: it gave none) becomes as the parent's tool
    result; a stopped agent's says what stopped it and the last thing it said.

    A report asked for at the turn limit is read for tool calls first: a model that
    answers "write your report" with another call (small models do) has not reported,
    and the call's text is never passed on as if it were the report.
    """
    if report is not None and not agent.stopped_by:
        agent.reason = report.reason
        agent.turn = max(agent.turn, report.turns)
        text = report.text.strip() or "(the sub-agent gave no report)"
        if report.reason == "max_turns":
            text = prose(report.text, agent.tools)
            if not text:
                answered = (
                    "answered with a tool call instead (not run)"
                    if report.text.strip()
                    else "gave no text"
                )
                agent.stopped_by = (
                    f"it reached its turn limit ({max_turns}) and, asked for its report, "
                    f"{answered}, so it gave no report"
                )
                return report_outcome(agent, None, max_turns)
            return ToolOutcome(
                ok=True,
                output=(
                    f"{agent.id} was stopped at its turn limit ({max_turns}) before it "
                    f"finished, and reported from what it had:\n{text}"
                ),
                data={"agent": agent.id, "reason": report.reason},
            )
        if not report.ok:
            return ToolOutcome(
                ok=False,
                output=f"{agent.id} ended without finishing ({report.reason}):\n{text}",
                data={"agent": agent.id, "reason": report.reason},
            )
        return ToolOutcome(ok=True, output=text, data={"agent": agent.id, "reason": "done"})
    agent.reason = "stopped"
    said = agent.last_text or "(nothing)"
    tool = f", the last tool it called was {agent.last_tool}" if agent.last_tool else ""
    return ToolOutcome(
        ok=False,
        output=(
            f"{agent.id} was stopped: {agent.stopped_by or 'the run was cancelled'}. "
            f"It had run {agent.turn} turn(s){tool}, using {agent.tokens} tokens. "
            f"The last thing it said: {said}"
        ),
        data={"agent": agent.id, "reason": "stopped"},
    )


@functools.cache
def _builtin_names() -> frozenset[str]:
    from harness.actors.tools import builtin_table

    return frozenset(builtin_table().names())


def declarations(table: ToolTable, tools: tuple[str, ...]) -> tuple[OfferedTool, ...]:
    """The declarations of the offered *tools* a runner's built-in table lacks (the
    MCP servers' and the tools registered through the Python API)."""
    builtin = _builtin_names()
    return tuple(
        OfferedTool(
            name=spec.name,
            description=spec.description,
            parameters=spec.parameters,
            kind=spec.kind,
            executor=spec.executor,
            main_arg=spec.main_arg,
        )
        for spec in (table.get(n) for n in tools if n in table and n not in builtin)
    )
