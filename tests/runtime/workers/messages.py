"""Messages of the test-only workers."""

from __future__ import annotations

import attrs

from harness.ipc import Message


@attrs.frozen
class Echo(Message, tag="test.echo"):
    text: str


@attrs.frozen
class Echoed(Message, tag="test.echoed"):
    text: str
    pid: int = 0


@attrs.frozen
class Sleep(Message, tag="test.sleep"):
    seconds: float


@attrs.frozen
class Count(Message, tag="test.count"):
    n: int
    delay: float = 0.0


@attrs.frozen
class Number(Message, tag="test.number"):
    value: int


@attrs.frozen
class Crash(Message, tag="test.crash"):
    code: int = 3
    message: str = ""


@attrs.frozen
class Boom(Message, tag="test.boom"):
    message: str


@attrs.frozen
class BlockLoop(Message, tag="test.block_loop"):
    """Block the worker's event loop in synchronous code (no heartbeats)."""

    seconds: float


@attrs.frozen
class IgnoreCancel(Message, tag="test.ignore_cancel"):
    seconds: float


@attrs.frozen
class Leak(Message, tag="test.leak"):
    megabytes: int


@attrs.frozen
class SpawnTree(Message, tag="test.spawn_tree"):
    pass


@attrs.frozen
class Pids(Message, tag="test.pids"):
    pids: tuple[int, ...]


@attrs.frozen
class AskParent(Message, tag="test.ask_parent"):
    text: str


@attrs.frozen
class WriteGarbage(Message, tag="test.write_garbage"):
    data: str


@attrs.frozen
class WhoAmI(Message, tag="test.who_am_i"):
    variable: str = "HARNESS_TEST_MARK"


@attrs.frozen
class Identity(Message, tag="test.identity"):
    pid: int
    ppid: int
    sid: int
    cwd: str
    argv: list[str]
    variable: str | None
    path0: str
    stdin: str
    ipc_fd_inheritable: bool
