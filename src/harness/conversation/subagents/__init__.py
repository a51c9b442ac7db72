"""Sub-agents: a task run by a loop of its own in a runner process.

The parent's side is :class:`SubagentPool` (a temporary ``subagent:agent-N`` child
per :class:`Task`, within :class:`SubagentLimits`, each shown as an
:class:`AgentState`); the runner's side is :func:`run_subagent`
(``python -m harness.actors.subagent``). A task may name an agent defined as a file
(``agents/<name>.md``, read by :mod:`harness.custom`): the pool offers the definitions
through ``spawn_agent`` and runs a named one with its prompt, model and tools.
"""

from harness.conversation.subagents._pool import SubagentPool
from harness.conversation.subagents._runner import run_subagent
from harness.conversation.subagents._task import (
    AgentState,
    SubagentLimits,
    SubagentReport,
    Task,
)

__all__ = [
    "AgentState",
    "SubagentLimits",
    "SubagentPool",
    "SubagentReport",
    "Task",
    "run_subagent",
]
