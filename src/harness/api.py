"""The Python API: the same engine as the terminal and headless mode, without a terminal.

This is the documented import path; it re-exports the face of
:mod:`harness.conversation`. Everything is async, under trio::

    import trio
    from harness.api import open_session

    async def main() -> None:
        async with open_session(workspace=".", provider="openai", model="gpt-4o-mini",
                                permission_mode="auto") as session:
            result = await session.run("add a docstring to util.py")
            print(result.ok, result.text)

            # events as they happen
            async for event in session.stream("now run the tests"):
                print(event.TAG)

    trio.run(main)

Extra tools run in your process; a terminating tool ends the run when it succeeds::

    async def submit(args: dict) -> str:
        return f"submitted {args['answer']}"

    session.register_tool("submit", "Submit the final answer.",
                          {"type": "object", "properties": {"answer": {"type": "string"}},
                           "required": ["answer"]},
                          submit, terminating=True)

Sub-agents: several tasks in parallel, each a conversation of its own in a runner
process, within :class:`SubagentLimits` (``subagents=`` of the options); only their
reports come back::

    reports = await session.spawn_subagents([Task("summarise src/a.py"),
                                             Task("list the TODOs in src/b.py")])

Approvals: pass ``approver=`` (an async function taking an :class:`ApprovalRequest`
and returning ``"yes"``, ``"no"`` or ``"always"``); without one, calls that would
ask are denied (use ``permission_mode="auto"`` or ``allow=`` rules to let them run).

Workspace trust: the workspace's own ``.mcp.json`` servers and ``.permissions.json`` allow
rules are ignored unless the user trusted that exact content (``harness trust``) or the
session is opened with ``trust_project=True``; what was ignored is the opening ``notice``
event of kind ``trust`` (in ``session.opening``). Deny rules always apply.
"""

from __future__ import annotations

from harness.conversation import (
    AgentState,
    ApprovalRequest,
    Approver,
    BudgetExceeded,
    Checkpoint,
    Checkpoints,
    ContextSettings,
    Decision,
    EditorPort,
    FrontendPort,
    LoadedSession,
    McpManager,
    ModelFailed,
    ReloadReport,
    RewindOutcome,
    RewindPlan,
    RoundStats,
    ServerView,
    Session,
    SessionInfo,
    SessionNotFound,
    SessionOptions,
    SubagentLimits,
    SubagentReport,
    Task,
    TerminalRun,
    ToolStats,
    events,
    export_json,
    export_markdown,
    fork_session,
    list_sessions,
    open_session,
    run_shell_line,
    run_subagent,
    tools_limited,
)
from harness.messages.tools import ToolOutcome

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
    "ToolOutcome",
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
