"""``python -m harness.actors.shell``: the shell worker process.

Settings come from ``HARNESS_SHELL_*`` variables (:class:`ShellConfig`); the command's
workspace from each :class:`ToolInvoke`. On shutdown every live command's tree is killed.
"""

from __future__ import annotations

import os

from harness.actors.shell._config import ShellConfig
from harness.actors.shell._pool import SessionPool
from harness.actors.shell._service import ShellService
from harness.home import harness_home
from harness.messages.tools import ToolInvoke, ToolOutcome
from harness.worker import Worker


def _service() -> ShellService:
    try:
        config = ShellConfig.from_env(os.environ)
    except ValueError as exc:
        return ShellService(None, str(exc))
    return ShellService(SessionPool(config, hide=(str(harness_home()),)))


worker = Worker("shell")
service = _service()


@worker.handle(ToolInvoke)
async def invoke(req: ToolInvoke) -> ToolOutcome:
    """Run ``run_cmd`` / ``send_input`` / ``end_process``."""
    return await service.invoke(req)


@worker.on_shutdown
async def cleanup() -> None:
    """Kill every live command's tree before the worker exits."""
    await service.shutdown()


if __name__ == "__main__":
    worker.run()
