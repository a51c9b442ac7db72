"""What the user is told when the model worker fails a reply it cannot retry.

A request that streamed nothing is retried once on the fresh worker
(:func:`~harness.conversation._reply.read_reply`); one that had shown text cannot be
replayed without showing it twice, so that turn fails with this message and the
conversation goes on: the next prompt (or the loop) may ask again.
"""

from __future__ import annotations

from harness.ipc import IpcError, WorkerDied

__all__ = ["worker_failure"]


def worker_failure(exc: IpcError, streamed: bool) -> str:
    """One sentence on a model worker that failed mid-reply."""
    if isinstance(exc, WorkerDied) and streamed:
        return (
            f"the model worker died while answering ({exc}); the part already shown is "
            "all there is of this reply. A fresh worker is ready: ask again to retry."
        )
    if isinstance(exc, WorkerDied):
        return f"the model worker died twice on this request ({exc}); ask again to retry."
    return f"the model worker failed: {exc}"
