"""``python -m harness.actors.search``: the search worker process.

All network fetching for tools happens here, so a slow site, a huge page or a
parser that chokes on a broken one costs only this worker. Settings come from
the environment (:meth:`SearchConfig.from_env`).
"""

from __future__ import annotations

import os

from harness.actors.search._config import SearchConfig
from harness.actors.search._service import SearchService
from harness.messages.tools import ToolInvoke, ToolOutcome
from harness.worker import Worker


def _service() -> SearchService:
    try:
        return SearchService(SearchConfig.from_env(os.environ))
    except ValueError as exc:
        return SearchService(None, str(exc))


worker = Worker("search")
service = _service()


@worker.handle(ToolInvoke)
async def invoke(req: ToolInvoke) -> ToolOutcome:
    """Run ``search_web`` / ``get_url`` / ``call_api``."""
    return await service.invoke(req)


@worker.on_shutdown
async def cleanup() -> None:
    """Close kept connections before the worker exits."""
    await service.aclose()


if __name__ == "__main__":
    worker.run()
