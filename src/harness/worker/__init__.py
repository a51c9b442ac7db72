"""The worker side of a worker process: open the channel, serve, shut down cleanly.

A worker module is a few lines::

    worker = Worker("shell")

    @worker.handle(ToolInvoke)
    async def invoke(req: ToolInvoke) -> ToolOutcome: ...

    if __name__ == "__main__":
        worker.run()
"""

from harness.worker._worker import Worker, current_rss

__all__ = ["Worker", "current_rss"]
