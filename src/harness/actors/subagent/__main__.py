"""``python -m harness.actors.subagent``: one sub-agent's runner process.

It is the one actor that imports the conversation's face: a sub-agent is the
same loop as its parent's, started in a process of its own.
"""

from __future__ import annotations

from harness.conversation import run_subagent
from harness.messages.subagent import SubagentReport, SubagentRun
from harness.worker import Worker

# a short grace: the parent kills a runner it gave up on, and waits for nothing it says
worker = Worker("subagent", shutdown_grace=1.0)


@worker.handle(SubagentRun)
async def run(req: SubagentRun) -> SubagentReport:
    """Run the task and answer with the report."""
    return await run_subagent(req, worker.peer)


if __name__ == "__main__":
    worker.run()
