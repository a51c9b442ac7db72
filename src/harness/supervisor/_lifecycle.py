"""The life of one worker's processes: spawn, watch, restart, kill, sweep.

A :class:`Lifecycle` runs in the supervisor's nursery for as long as the worker is
supervised; its :class:`~harness.supervisor.WorkerHandle` reads its state and its
running channel, and asks it to kill or stop. Death is detected at once from the
channel's EOF and the process's exit; the kill ladder and the sweep live here.
"""

from __future__ import annotations

import itertools
import os
import secrets
import signal
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from harness.ipc import (
    Channel,
    Control,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    Router,
    Shutdown,
    WorkerDied,
    describe_exit,
)
from harness.supervisor._events import (
    SupervisorEvent,
    WorkerExited,
    WorkerGaveUp,
    WorkerRestarted,
    WorkerStarted,
    WorkerState,
    WorkerStatus,
)
from harness.supervisor._process import OutputTail, Spawned, WorkerProcess, spawn_worker
from harness.supervisor._spec import ChildSpec

if TYPE_CHECKING:
    import psutil

    from harness.supervisor._forkserver import ForkServer

__all__ = ["Lifecycle"]

_serial = itertools.count(1)
START_TIMEOUT = 30.0


class Lifecycle:
    """Spawning, watching, restarting and killing one worker's processes.

    Args:
        spec: how to run the worker.
        emit: where starts, exits, restarts and give-ups are reported.
        router: answers the requests the worker sends to the parent.
        forks: the fork server to start processes from, if there is one.
    """

    def __init__(
        self,
        spec: ChildSpec,
        emit: Callable[[SupervisorEvent], None],
        router: Router,
        forks: ForkServer | None = None,
    ) -> None:
        self.spec = spec
        self._emit = emit
        self._router = router
        self._forks = forks
        self._state: WorkerState = "starting"
        self._changed = trio.Event()
        self._stopping = False
        self._stop_asked = trio.Event()  # set once, never replaced (unlike _down)
        self._stopped = trio.Event()
        self._restarts = 0
        self._background: trio.Nursery | None = None
        # The current process (one incarnation), set anew by each.
        self._spawned: Spawned | None = None
        self._chan: Channel | None = None
        self._nursery: trio.Nursery | None = None
        self._down = trio.Event()
        self._kill_reason: str | None = None
        self._started_at = 0.0
        self._last_pong = 0
        self._rss = 0
        self._tail = OutputTail()

    @property
    def name(self) -> str:
        """The worker's name."""
        return self.spec.name

    @property
    def state(self) -> WorkerState:
        """``starting``, ``running``, ``restarting``, ``stopping``, ``stopped`` or ``gave_up``."""
        return self._state

    @property
    def pid(self) -> int | None:
        """The pid of the current process, if one is running."""
        if self._spawned is None or self._state not in ("running", "stopping"):
            return None
        return self._spawned.process.pid

    def status(self) -> WorkerStatus:
        """This worker's row of the supervisor tree."""
        running = self._state == "running"
        return WorkerStatus(
            name=self.name,
            pid=self.pid,
            state=self._state,
            uptime=trio.current_time() - self._started_at if running else 0.0,
            restarts=self._restarts,
            rss=self._rss if running else 0,
        )

    def ready(self) -> Channel | None:
        """The channel of a running process, if there is one now."""
        chan = self._chan
        if self._state == "running" and chan is not None and not chan.closed:
            return chan
        return None

    async def changed(self) -> None:
        """Wait for the next change of state."""
        await self._changed.wait()

    def kill(self, reason: str) -> None:
        """Kill the current process (SIGKILL to its group); it is restarted per the spec."""
        if self._kill_reason is None and not self._down.is_set():
            self._kill_reason = reason
            self._down.set()

    async def stop(self) -> None:
        """Stop for good with the full kill ladder, and wait until it is done."""
        self._stopping = True
        self._stop_asked.set()
        self._down.set()
        self._wake()
        await self._stopped.wait()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _set_state(self, state: WorkerState) -> None:
        self._state = state
        self._wake()

    # ------------------------------------------------------------------ lifecycle

    async def run(self) -> None:
        """Run, watch and restart the worker until it is stopped or given up."""
        try:
            async with trio.open_nursery() as background:
                self._background = background
                await self._supervise()
                background.cancel_scope.cancel()
        finally:
            if self._state not in ("stopped", "gave_up"):  # cancelled
                self._set_state("stopped")
            self._stopped.set()

    async def _supervise(self) -> None:
        recent: deque[float] = deque()
        # checked before each start, the first too: _incarnation() begins with a new _down,
        # so a stop() asked before it (the supervisor's aclose can run before this task has
        # begun) would be lost, and the worker started and left running
        while not self._stopping:
            exited = await self._incarnation()
            self._emit(exited)
            if self._stopping:
                break
            abnormal = exited.reason != "exited" or exited.exit_code != 0
            policy = self.spec.restart
            if policy == "temporary" or (policy == "transient" and not abnormal):
                break
            now = trio.current_time()
            while recent and now - recent[0] > self.spec.restart_period:
                recent.popleft()
            if len(recent) >= self.spec.max_restarts:
                self._emit(WorkerGaveUp(self.name, self._restarts, self.spec.restart_period))
                self._set_state("gave_up")
                return
            delay = (
                0.0
                if not recent
                else min(self.spec.backoff_initial * 2 ** (len(recent) - 1), self.spec.backoff_max)
            )
            recent.append(now)
            self._restarts += 1
            self._set_state("restarting")
            with trio.move_on_after(delay):
                # a stop() during the backoff ends it early (the incarnation's _down was set
                # as it ended, so waiting on it skipped every backoff)
                await self._stop_asked.wait()
        self._set_state("stopped")

    async def _spawn(self) -> Spawned:
        """A new process: forked by the fork server when it can, else started afresh."""
        tag = self._new_tag()
        if self.spec.fork and self._forks is not None:
            spawned = await self._forks.spawn(self.spec, tag)
            if spawned is not None:
                return spawned
        return await spawn_worker(self.spec, tag)

    def _new_tag(self) -> str:
        return f"{self.name}-{os.getpid()}-{next(_serial)}-{secrets.token_hex(4)}"

    async def _incarnation(self) -> WorkerExited:
        self._down = trio.Event()
        self._kill_reason = None
        self._last_pong = 0
        self._rss = 0
        self._tail = OutputTail()
        try:
            spawned = await self._spawn()
        except OSError as exc:
            self._tail.feed(f"could not start {self.spec.module}: {exc}\n".encode())
            return WorkerExited(
                self.name, 0, None, "spawn", f"could not start: {exc}", self._tail.text()
            )
        self._spawned = spawned
        chan = Channel(
            spawned.sock,
            name=self.name,
            router=self._router,
            max_frame=self.spec.max_frame,
            cancel_grace=self.spec.request_grace,
            on_cancel_ignored=lambda _request: self.kill("deadline"),
            on_control=self._on_control,
        )
        self._chan = chan
        pid = spawned.process.pid
        exit_code: int | None = None
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._tail.drain, spawned.output)
            nursery.start_soon(self._watch_channel, chan)
            nursery.start_soon(self._watch_exit, spawned.process)
            nursery.start_soon(self._watch_start)
            try:
                await self._down.wait()
            finally:
                # also when the run itself is cancelled (its supervisor's scope ended): the
                # process must not outlive the run, nor be restarted
                cancelled = not self._down.is_set()
                if cancelled:
                    self._kill_reason = "cancelled"
                    self._stopping = True
                reason = self._kill_reason or ("stopped" if self._stopping else "exited")
                with trio.CancelScope(shield=True):
                    exit_code = await self._end_process(spawned, chan, reason)
                    with trio.move_on_after(1.0):
                        await chan.aclose()
                        await spawned.output.aclose()
                nursery.cancel_scope.cancel()
                if cancelled:
                    self._emit(self._exited(pid, exit_code, reason))
        return self._exited(pid, exit_code, reason)

    def _exited(self, pid: int, exit_code: int | None, reason: str) -> WorkerExited:
        description = describe_exit(exit_code)
        return WorkerExited(self.name, pid, exit_code, reason, description, self._tail.text())

    async def _end_process(self, spawned: Spawned, chan: Channel, reason: str) -> int | None:
        """Make sure the process and its whole tree are gone; fail in-flight calls."""
        from harness.supervisor import _kill

        process = spawned.process
        pid = process.pid
        tree: list[psutil.Process] = []
        if not process.exited:
            tree = await trio.to_thread.run_sync(_kill.snapshot_tree, pid)
        if reason == "stopped" and not process.exited:
            self._set_state("stopping")
            await chan.send_control(Shutdown())
            with trio.move_on_after(self.spec.shutdown_grace):
                await process.wait()
            if not process.exited:
                _kill.signal_group(pid, signal.SIGTERM)
                with trio.move_on_after(self.spec.shutdown_grace):
                    await process.wait()
        elif reason == "exited" and not process.exited:
            # The channel closed first; the exit is normally a moment behind.
            with trio.move_on_after(0.5):
                await process.wait()
        if not process.exited:
            _kill.signal_group(pid, signal.SIGKILL)
            with trio.move_on_after(5.0):
                await process.wait()
        exit_code = process.returncode
        chan.abort(
            WorkerDied(
                worker=self.name,
                pid=pid,
                exit_code=exit_code,
                reason=reason,
                stderr_tail=self._tail.text(),
            )
        )
        if self._state != "stopping":
            self._set_state("restarting")
        # Anything left in the group, then whatever escaped it (setsid), found by
        # snapshot and by tag. This runs beside the restart, not in front of it.
        _kill.signal_group(pid, signal.SIGKILL)
        if self._background is not None:
            self._background.start_soon(self._sweep, tree, spawned.tag)
        else:
            await self._sweep(tree, spawned.tag)
        return exit_code

    async def _sweep(self, tree: list[psutil.Process], tag: str) -> None:
        from harness.supervisor import _kill

        with trio.CancelScope(shield=True):
            tagged = await trio.to_thread.run_sync(_kill.find_tagged, tag)
            await trio.to_thread.run_sync(_kill.kill_processes, [*tree, *tagged])

    async def _watch_channel(self, chan: Channel) -> None:
        error = await chan.run()
        if isinstance(error, ProtocolError):
            self._tail.feed(f"[supervisor] protocol error: {error}\n".encode())
            self.kill("protocol")
        self._down.set()

    async def _watch_exit(self, process: WorkerProcess) -> None:
        await process.wait()
        self._down.set()

    async def _watch_start(self) -> None:
        with trio.move_on_after(START_TIMEOUT):
            while self._state != "running":
                await self._changed.wait()
            return
        self.kill("start timeout")

    async def _on_control(self, env: Control) -> None:
        if isinstance(env, Hello):
            self._started_at = trio.current_time()
            first = self._restarts == 0
            self._set_state("running")
            if first:
                self._emit(WorkerStarted(self.name, env.pid))
            else:
                self._emit(WorkerRestarted(self.name, env.pid, self._restarts))
            if self.spec.heartbeat_interval is not None and self._nursery is not None:
                assert self._chan is not None
                self._nursery.start_soon(self._heartbeat, self._chan)
        elif isinstance(env, Pong):
            self._last_pong = max(self._last_pong, env.seq)
            self._rss = env.rss
            if self.spec.rss_limit is not None and env.rss > self.spec.rss_limit:
                self._tail.feed(
                    f"[supervisor] RSS {env.rss} bytes over the limit of "
                    f"{self.spec.rss_limit}\n".encode()
                )
                self.kill("memory")

    async def _heartbeat(self, chan: Channel) -> None:
        interval = self.spec.heartbeat_interval
        assert interval is not None
        seq = 0
        while True:
            await trio.sleep(interval)
            if seq - self._last_pong >= self.spec.heartbeat_misses:
                self._tail.feed(
                    f"[supervisor] no heartbeat for {seq - self._last_pong} intervals\n".encode()
                )
                self.kill("heartbeat")
                return
            seq += 1
            await chan.send_control(Ping(seq))
