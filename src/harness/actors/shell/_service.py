"""From a :class:`ToolInvoke` to a pool call: argument checks and the tool names."""

from __future__ import annotations

from typing import Any

from harness.actors.shell._format import error_outcome
from harness.actors.shell._pool import SessionPool
from harness.messages.tools import ToolInvoke, ToolOutcome

__all__ = ["ShellService"]


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
        args = req.arguments
        try:
            if req.name == "run_cmd":
                return await self.pool.run_cmd(
                    _str(args, "command"),
                    stdin=_stdin(args.get("stdin")),
                    timeout=_timeout(args.get("timeout")),
                    cwd=_opt_str(args, "cwd"),
                    workspace=req.workspace or None,
                )
            if req.name == "send_input":
                text = args.get("text", "")
                if text is None:
                    text = ""
                if not isinstance(text, str):
                    raise _BadArgument("text must be a string")
                return await self.pool.send_input(_str(args, "session"), text)
            if req.name == "end_process":
                return await self.pool.end_process(_str(args, "session"))
        except _BadArgument as exc:
            return error_outcome(f"{req.name}: {exc}")
        return error_outcome(f"the shell worker has no tool named {req.name!r}")

    async def shutdown(self) -> None:
        """End every live command."""
        if self.pool is not None:
            await self.pool.shutdown()


class _BadArgument(Exception):
    pass


def _str(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.strip():
        raise _BadArgument(f"{name} must be a non-empty string")
    return value


def _opt_str(args: dict[str, Any], name: str) -> str | None:
    value = args.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _BadArgument(f"{name} must be a string")
    return value


def _stdin(value: Any) -> str | list[str] | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise _BadArgument("stdin must be a string (one line per prompt) or a list of strings")


def _timeout(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise _BadArgument("timeout must be a number of seconds")
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise _BadArgument("timeout must be a number of seconds") from None
    if not isinstance(value, (int, float)) or not value > 0:
        raise _BadArgument("timeout must be a number of seconds above 0")
    return float(value)
