"""The session's workers as the loop's ports: the model, tools and shell workers under
one supervisor (:class:`Workers`, from :func:`open_workers`), and the web tools' calls
made hop by hop on the search worker (:func:`run_web_call`), each redirect decided by
the session's rules.

The loop never imports this room: the composition root (``open_session``) hands it a
:class:`Workers` as its model port and, behind the MCP router, its executor port.
"""

from harness.conversation.workers._set import (
    DEFAULT_MODULES,
    FORK_WARM_ENV,
    SUBAGENT_PREFIX,
    Workers,
    WorkerSettings,
    open_workers,
    session_warm,
    worker_env,
)
from harness.conversation.workers._web import WEB_TOOLS, run_web_call

__all__ = [
    "DEFAULT_MODULES",
    "FORK_WARM_ENV",
    "SUBAGENT_PREFIX",
    "WEB_TOOLS",
    "WorkerSettings",
    "Workers",
    "open_workers",
    "run_web_call",
    "session_warm",
    "worker_env",
]
