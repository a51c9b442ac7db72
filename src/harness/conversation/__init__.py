"""The conversation actor: the agent loop, its typed events and the session log.

This package's ``__init__`` stays light: it exposes the event vocabulary only.
The loop, the engine and the session store live in private modules imported by
:mod:`harness.api` and the command line when they need them.
"""

from harness.conversation import events

__all__ = ["events"]
