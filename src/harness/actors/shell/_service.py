"""From a :class:`ToolInvoke` to a pool call: arguments bound through the tool table.

The shell worker checks a call's arguments exactly as the tools worker does: by the
one tool table's schema (:meth:`harness.actors.tools.ToolSpec.bind`), so what the
model is told a tool takes and what the worker accepts never disagree.
"""

from __future__ import annotations

from harness.actors.shell._format import error_outcome
from harness.actors.shell._pool import SessionPool
from harness.actors.tools import ToolArgumentError, UnknownToolError, builtin_table
from harness.messages.tools import ToolInvoke, ToolOutcome

__all__ = ["ShellService"]

_TABLE = builtin_table()


class ShellService:
    """Answers ``ToolInvoke`` for ``run_cmd``, ``send_input`` and ``end_process``.

    Args:
        pool: the sessions; ``None`` with *problem* set when the worker's settings
            were bad (every call then reports *problem* instead of running anything).
        problem: why the worker cannot run commands.
    """

    def __init__(self, pool: SessionPool | None, problem: str | None = None) -> None:
        self.pool = pool
        self.problem = problem

    async def invoke(self, req: ToolInvoke) -> ToolOutcome:
        """Run one tool call; every bad input becomes a ``ToolOutcome`` with ``ok=False``."""
        if self.pool is None:
            return error_outcome(f"the shell worker cannot run commands: {self.problem}")
        try:
            spec = _TABLE.get(req.name)
            if spec.executor != "shell":
                raise UnknownToolError(req.name)
            args = spec.bind(req.arguments)
        except UnknownToolError:
            return error_outcome(f"the shell worker has no tool named {req.name!r}")
        except ToolArgumentError as exc:
            return error_outcome(str(exc))
        if req.name == "run_cmd":
            return await self.pool.run_cmd(
                args["command"],
                stdin=args.get("stdin"),
                timeout=args.get("timeout"),
                cwd=args.get("cwd") or None,
                workspace=req.workspace or None,
                read_only=req.read_only,
            )
        if req.name == "send_input":
            return await self.pool.send_input(
                args["session"], args["text"], read_only=req.read_only
            )
        return await self.pool.end_process(args["session"])

    async def shutdown(self) -> None:
        """End every live command."""
        if self.pool is not None:
            await self.pool.shutdown()
