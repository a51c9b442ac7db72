"""The conversation: the agent loop as an engine with one public face.

Open a session, run prompts, watch their events::

    async with open_session(workspace=".", provider="ollama", permission_mode="auto") as s:
        result = await s.run("explain main.py")

What a frontend holds is a :class:`Session` (from :func:`open_session`, given a
:class:`SessionOptions` or its fields as keywords). An :data:`Approver` answers the
calls that need a person's approval, given an :class:`ApprovalRequest`; a
:class:`FrontendPort` answers the tools only a person can (``get_user_input``,
``submit_plan``); an :class:`EditorPort` lets the file tools work on an editor's buffers
and ``run_cmd`` run in its terminals (a :class:`TerminalRun` each). Every event is a
class in :mod:`harness.conversation.events`.

The errors a caller can catch (all under :class:`harness.errors.HarnessError`):
:class:`SessionNotFound` (``resume`` names no session), :class:`BudgetExceeded` (a
request cannot fit the model's window), :class:`ModelFailed` (the model or its
worker failed a round); a bad option is a ``ValueError``. A run itself never
raises them: they end it as an ``error`` event and a ``result``.

Sub-agents: :meth:`Session.spawn_subagents` runs :class:`Task` s in parallel, each
in a runner process of its own within :class:`SubagentLimits`, and returns a
:class:`SubagentReport` each; :class:`AgentState` is one as ``/agents`` shows it.
:func:`run_subagent` is the runner's side (``python -m harness.actors.subagent``).
:meth:`Session.diagnostics` gives the last model rounds and tool calls
(:class:`RoundStats`, :class:`ToolStats`).

The session log of a workspace: :func:`list_sessions`, :func:`export_json`,
:func:`export_markdown` (of a :class:`LoadedSession`), and :class:`SessionInfo`,
a row of the list.

Checkpoints: ``Session.checkpoints`` (:class:`Checkpoints`) lists the prompts
(:class:`Checkpoint`), says what going back to one changes (:class:`RewindPlan`), goes
back (:class:`RewindOutcome`) and forks the session.

MCP servers: ``Session.mcp`` (an :class:`McpManager`) shows each as a :class:`ServerView`;
its ``reload()`` reads the configuration again and says what changed in a
:class:`ReloadReport`.
"""

from harness.conversation import events
from harness.conversation._budget import BudgetExceeded, ContextSettings
from harness.conversation._ports import ApprovalRequest, Approver, Decision, FrontendPort
from harness.conversation._reply import ModelFailed
from harness.conversation.mcp import McpManager, ReloadReport, ServerView
from harness.conversation.session import (
    Checkpoint,
    Checkpoints,
    EditorPort,
    LoadedSession,
    RewindOutcome,
    RewindPlan,
    RoundStats,
    Session,
    SessionInfo,
    SessionNotFound,
    SessionOptions,
    TerminalRun,
    ToolStats,
    export_json,
    export_markdown,
    fork_session,
    list_sessions,
    open_session,
    run_shell_line,
    tools_limited,
)
from harness.conversation.subagents import (
    AgentState,
    SubagentLimits,
    SubagentReport,
    Task,
    run_subagent,
)

__all__ = [
    "AgentState",
    "ApprovalRequest",
    "Approver",
    "BudgetExceeded",
    "Checkpoint",
    "Checkpoints",
    "ContextSettings",
    "Decision",
    "EditorPort",
    "FrontendPort",
    "LoadedSession",
    "McpManager",
    "ModelFailed",
    "ReloadReport",
    "RewindOutcome",
    "RewindPlan",
    "RoundStats",
    "ServerView",
    "Session",
    "SessionInfo",
    "SessionNotFound",
    "SessionOptions",
    "SubagentLimits",
    "SubagentReport",
    "Task",
    "TerminalRun",
    "ToolStats",
    "events",
    "export_json",
    "export_markdown",
    "fork_session",
    "list_sessions",
    "open_session",
    "run_shell_line",
    "run_subagent",
    "tools_limited",
]
