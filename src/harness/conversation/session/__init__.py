"""A session: opening it, what it is opened with, its log, and the :class:`Session`
a frontend holds.

:func:`open_session` is the composition root: it starts the workers and hands the
loop its ports (the request shaper, the executors with MCP, sub-agents, the log as a
listener). :class:`SessionOptions` is what callers fill; the session log of a
workspace is read with :func:`list_sessions`, :func:`export_json` and
:func:`export_markdown`.
"""

from harness.conversation.session._checkpoints import (
    Checkpoint,
    Checkpoints,
    RewindOutcome,
    RewindPlan,
    fork_session,
)
from harness.conversation.session._diagnostics import RoundStats, ToolStats
from harness.conversation.session._editor import EditorPort, TerminalRun
from harness.conversation.session._opening import list_sessions, open_session
from harness.conversation.session._options import SessionOptions
from harness.conversation.session._prompt import build_system_prompt
from harness.conversation.session._session import Session
from harness.conversation.session._shell_line import run_shell_line
from harness.conversation.session._store import (
    LoadedSession,
    SessionInfo,
    SessionNotFound,
    SessionStore,
    export_json,
    export_markdown,
)
from harness.conversation.session._tool_limit import tools_limited

__all__ = [
    "Checkpoint",
    "Checkpoints",
    "EditorPort",
    "LoadedSession",
    "RewindOutcome",
    "RewindPlan",
    "RoundStats",
    "Session",
    "SessionInfo",
    "SessionNotFound",
    "SessionOptions",
    "SessionStore",
    "TerminalRun",
    "ToolStats",
    "build_system_prompt",
    "export_json",
    "export_markdown",
    "fork_session",
    "list_sessions",
    "open_session",
    "run_shell_line",
    "tools_limited",
]
