"""The whole exception tree of the runtime, in one place::

    IpcError                      anything that went wrong talking to another process
    ├── ProtocolError             a frame that does not decode, is over the size limit,
    │                             or names an unknown message type
    ├── ChannelClosed             the channel was closed on purpose (shutdown, stop)
    ├── RemoteError               the peer's handler raised: type name, message, traceback
    └── WorkerError               a worker could not answer
        ├── WorkerDied            the process ended with the call in flight
        │                         (exit code or signal, reason, stderr tail)
        ├── RequestTimeout        no answer within the call's timeout
        └── WorkerUnavailable     the worker is stopped or was given up

Every error names the worker (``worker``) and, where there is one, the request
type (``request``), so a message shown to a user or a model is complete on its own.
"""

from __future__ import annotations

import signal as _signal

from harness.errors import HarnessError

__all__ = [
    "ChannelClosed",
    "IpcError",
    "ProtocolError",
    "RemoteError",
    "RequestTimeout",
    "WorkerDied",
    "WorkerError",
    "WorkerUnavailable",
    "describe_exit",
]


class IpcError(HarnessError):
    """Base of every runtime error."""


class ProtocolError(IpcError):
    """A frame or message that does not decode, is too big, or has an unknown type."""


class ChannelClosed(IpcError):
    """The channel was closed on purpose while the call was waiting."""


class RemoteError(IpcError):
    """The peer's handler raised.

    Attributes:
        worker: name of the peer.
        type_name: the exception's class name in the peer.
        message: ``str()`` of that exception.
        traceback: the formatted traceback from the peer.
    """

    def __init__(self, worker: str, type_name: str, message: str, traceback: str = "") -> None:
        super().__init__(f"{worker}: {type_name}: {message}")
        self.worker = worker
        self.type_name = type_name
        self.message = message
        self.traceback = traceback


class WorkerError(IpcError):
    """A worker could not answer a call."""

    def __init__(self, text: str, *, worker: str, request: str | None = None) -> None:
        super().__init__(text)
        self.worker = worker
        self.request = request


def describe_exit(exit_code: int | None) -> str:
    """``'exited with code 3'`` / ``'killed by signal 9 (SIGKILL)'`` / ``'still running'``."""
    if exit_code is None:
        return "still running"
    if exit_code < 0:
        try:
            name = _signal.Signals(-exit_code).name
        except ValueError:
            name = "unknown"
        return f"killed by signal {-exit_code} ({name})"
    return f"exited with code {exit_code}"


class WorkerDied(WorkerError):
    """The worker's process ended while the call was in flight.

    Attributes:
        pid: the process that died.
        exit_code: its exit status; negative for a signal (``-9`` is SIGKILL),
            ``None`` when it had not been reaped yet.
        reason: why it ended: ``"exited"``, or the supervisor's reason for killing it
            (``"heartbeat"``, ``"deadline"``, ``"memory"``, ``"protocol"``, ``"stopped"``).
        stderr_tail: the last lines the worker wrote to stderr.
    """

    def __init__(
        self,
        *,
        worker: str,
        pid: int | None,
        exit_code: int | None,
        reason: str = "exited",
        stderr_tail: str = "",
        request: str | None = None,
    ) -> None:
        how = describe_exit(exit_code)
        why = "" if reason == "exited" else f" after {reason}"
        text = f"{worker} worker (pid {pid}) {how}{why}"
        if request:
            text += f" while handling {request}"
        super().__init__(text, worker=worker, request=request)
        self.pid = pid
        self.exit_code = exit_code
        self.reason = reason
        self.stderr_tail = stderr_tail

    @property
    def signal(self) -> int | None:
        """The signal number that ended the worker, if one did."""
        if self.exit_code is not None and self.exit_code < 0:
            return -self.exit_code
        return None


class RequestTimeout(WorkerError):
    """No answer within the call's timeout (``timeout`` seconds)."""

    def __init__(self, *, worker: str, request: str, timeout: float) -> None:
        super().__init__(
            f"{worker} worker did not answer {request} within {timeout:g} s",
            worker=worker,
            request=request,
        )
        self.timeout = timeout


class WorkerUnavailable(WorkerError):
    """The worker is stopped, or was given up after too many restarts."""
