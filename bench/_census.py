"""CPU seconds by kind of process in a process tree, sampled from ``/proc``.

A thread reads ``/proc/PID/stat`` of every process every *interval* seconds and keeps
the processes descended from one root, each with the kind its lineage gives it (the
driver, Ray's services, Ray's workers, harness's task servers, the sessions they fork
and the sessions' own workers) and the last CPU time seen. A process that ends between
two sweeps loses what it spent since the last one, so each sum is a lower bound; the
thread's own CPU is measured too, since it shares the cores it measures.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time

_TICK = os.sysconf("SC_CLK_TCK")

DRIVER = "driver"
RAY_SERVICES = "Ray's services (raylet, GCS, agents)"
RAY_WORKERS = "Ray's workers"
TASK_SERVERS = "harness task servers"
SESSIONS = "task sessions"
SESSION_WORKERS = "sessions' workers and fork servers"
TASK_COMMANDS = "tasks' git commands"
KINDS = (DRIVER, RAY_SERVICES, RAY_WORKERS, TASK_SERVERS, SESSIONS, SESSION_WORKERS, TASK_COMMANDS)


def _boot_time() -> float:
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("btime "):
                return float(line.split()[1])
    return 0.0


_BOOT = _boot_time()


@dataclasses.dataclass
class Proc:
    pid: int
    ppid: int
    started: float  # wall clock
    kind: str
    cmdline: list[str]
    cpu: float = 0.0


def _stat(pid: int) -> tuple[int, int, float] | None:
    """(ppid, start ticks, CPU seconds) of *pid*, or ``None`` once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    return int(fields[1]), int(fields[19]), (int(fields[11]) + int(fields[12])) / _TICK


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [x.decode("utf-8", "replace") for x in f.read().split(b"\0") if x]
    except OSError:
        return []


def _kind(parent: str, cmdline: list[str]) -> str:
    text = " ".join(cmdline)
    if text.startswith("ray::") and not text.endswith("Agent"):
        return RAY_WORKERS
    if parent == RAY_WORKERS:
        return TASK_SERVERS if "harness.supervisor._zygote" in text else TASK_COMMANDS
    if parent == TASK_SERVERS:
        return SESSIONS
    if parent in (SESSIONS, SESSION_WORKERS):
        return SESSION_WORKERS
    if parent == DRIVER and "harness.supervisor._zygote" in text:
        return TASK_SERVERS
    return RAY_SERVICES


class Census(threading.Thread):
    """Sample the tree under *root* until :meth:`finish`."""

    def __init__(self, root: int, interval: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval = interval
        self.procs: dict[tuple[int, int], Proc] = {}
        self.own_cpu = 0.0
        self._done = threading.Event()

    def run(self) -> None:
        t0 = time.thread_time()
        while True:
            self._sweep()
            if self._done.wait(self.interval):
                break
        self.own_cpu = time.thread_time() - t0
        self._classify()

    def finish(self) -> None:
        self._done.set()
        self.join()

    def _sweep(self) -> None:
        seen: dict[int, tuple[int, int, float]] = {}
        for name in os.listdir("/proc"):
            if name.isdigit() and (st := _stat(int(name))) is not None:
                seen[int(name)] = st
        live = {key[0]: key for key in self.procs}
        # parents start before their children: find them in that order
        for pid, (ppid, start, cpu) in sorted(seen.items(), key=lambda kv: kv[1][1]):
            key = (pid, start)
            proc = self.procs.get(key)
            if proc is None:
                if pid != self.root and ppid not in live:
                    continue
                proc = self.procs[key] = Proc(pid, ppid, _BOOT + start / _TICK, "", [])
                live[pid] = key
            # a child shows its parent's command line until it runs its own program
            proc.cmdline = _cmdline(pid) or proc.cmdline
            proc.cpu = cpu

    def _classify(self) -> None:
        """Each process's kind, from its lineage and its last command line."""
        by_pid: dict[int, Proc] = {}
        for proc in sorted(self.procs.values(), key=lambda p: p.started):
            parent = by_pid.get(proc.ppid)
            if proc.pid == self.root:
                proc.kind = DRIVER
            else:  # its parent was seen first (see _sweep)
                proc.kind = _kind(parent.kind if parent is not None else "", proc.cmdline)
            by_pid[proc.pid] = proc

    def by_kind(self) -> dict[str, tuple[int, float]]:
        """Kind -> (processes, CPU seconds)."""
        out = {k: (0, 0.0) for k in KINDS}
        for p in self.procs.values():
            n, cpu = out[p.kind]
            out[p.kind] = (n + 1, cpu + p.cpu)
        return out
