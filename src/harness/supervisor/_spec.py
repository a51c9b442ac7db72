"""What the supervisor needs to know to run, watch and restart one worker."""

from __future__ import annotations

from typing import Literal

import attrs

from harness.ipc import DEFAULT_MAX_FRAME

__all__ = ["ChildSpec", "Restart"]

Restart = Literal["permanent", "transient", "temporary"]


def _positive(instance: object, attribute: attrs.Attribute[float], value: float | None) -> None:
    if value is not None and value <= 0:
        raise ValueError(f"{attribute.name} must be positive, got {value!r}")


@attrs.frozen
class ChildSpec:
    """How to run one worker (after Erlang/OTP's child specs).

    Args:
        name: the worker's name in events, errors and ``/status`` (``"shell"``).
        module: the module run as ``python -m <module>``.
        args: extra command-line arguments for the module.
        restart: ``permanent`` (always restarted), ``transient`` (restarted only
            after an abnormal exit) or ``temporary`` (never restarted).
        max_restarts: restarts allowed within ``restart_period`` seconds before the
            worker is given up (default 5 in 60 s).
        restart_period: the intensity window, in seconds.
        backoff_initial: wait before the second restart in a window; the first is
            immediate, later ones double up to ``backoff_max`` (defaults 0.1 s, 5 s).
        backoff_max: longest wait between restarts.
        request_timeout: default timeout of a call, in seconds (``None``: none).
        request_grace: seconds a worker has to acknowledge a cancel (after a timeout
            or a caller walking away) before it is killed as stuck (default 2).
        heartbeat_interval: seconds between pings (``None`` disables heartbeats).
        heartbeat_misses: pongs that may be missed before the worker is killed.
        rss_limit: resident memory in bytes past which the worker is killed.
        shutdown_grace: seconds between ``Shutdown`` and SIGTERM, and between
            SIGTERM and SIGKILL.
        env: variables added to the worker's environment.
        cwd: the worker's working folder (default: the parent's).
        max_frame: the largest frame either side may send, in bytes.
        fork: start the process by fork from the supervisor's fork server, which
            has imported trio and the worker base already (a few milliseconds
            instead of an interpreter's start-up). ``False`` starts a new
            interpreter, as the fork server also does whenever it cannot fork.
            Either way the worker is ``python -m <module>`` in its own session.
    """

    name: str
    module: str
    args: tuple[str, ...] = ()
    restart: Restart = "permanent"
    max_restarts: int = 5
    restart_period: float = attrs.field(default=60.0, validator=_positive)
    backoff_initial: float = 0.1
    backoff_max: float = 5.0
    request_timeout: float | None = attrs.field(default=None, validator=_positive)
    request_grace: float = attrs.field(default=2.0, validator=_positive)
    heartbeat_interval: float | None = attrs.field(default=1.0, validator=_positive)
    heartbeat_misses: int = 3
    rss_limit: int | None = None
    shutdown_grace: float = attrs.field(default=2.0, validator=_positive)
    env: dict[str, str] = attrs.field(factory=dict)
    cwd: str | None = None
    max_frame: int = DEFAULT_MAX_FRAME
    fork: bool = True
