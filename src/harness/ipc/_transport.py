"""How a worker finds its end of the channel: names of the variables the parent sets."""

__all__ = ["IPC_FD_ENV", "MAX_FRAME_ENV", "WORKER_NAME_ENV", "WORKER_TAG_ENV"]

#: the number of the inherited socket file descriptor
IPC_FD_ENV = "HARNESS_IPC_FD"
#: the largest frame the parent accepts, in bytes
MAX_FRAME_ENV = "HARNESS_MAX_FRAME"
#: the worker's name
WORKER_NAME_ENV = "HARNESS_WORKER_NAME"
#: a tag unique to one worker process, inherited by everything it starts, so the
#: supervisor can find descendants that left the process group (``setsid``)
WORKER_TAG_ENV = "HARNESS_WORKER_TAG"
