"""How much of the machine the embedded model takes: its threads and how many prompt
tokens llama.cpp reads at a time, from the environment or the cores this process may use.
"""

from __future__ import annotations

import os
import time

__all__ = [
    "DEFAULT_BATCH",
    "default_batch",
    "default_threads",
    "others_running",
    "threads_now",
    "usable_cores",
]

DEFAULT_BATCH = 512
"""Prompt tokens read at a time, unless ``HARNESS_LOCAL_BATCH`` says otherwise."""


def default_threads(env: dict[str, str] | None = None) -> int:
    """``HARNESS_LOCAL_THREADS`` when set, else one less than the usable cores (min 1):
    the threads that read and write while other processes run (while none does, every
    core: :func:`threads_now`).

    Measured: with another process busy on a core, one thread on a 2-core machine beat
    two (27 vs 12-15 tokens/s), because llama.cpp's threads wait on each other. On
    another 2-core machine, two threads with nothing else running generated 12.5 tokens/s
    against one's 6.8 (``bench local-tasks``: read-answer 9 s against 15 s, rename-param
    38 s against 64 s), and beside one busy process 3.6 against 6.9.
    """
    env = dict(os.environ) if env is None else env
    raw = env.get("HARNESS_LOCAL_THREADS", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            pass
    return max(1, usable_cores() - 1)


def default_batch(env: dict[str, str] | None = None) -> int:
    """``HARNESS_LOCAL_BATCH`` when set, else :data:`DEFAULT_BATCH`: how many prompt
    tokens llama.cpp reads at a time (``python -m bench local`` measures the sizes)."""
    env = dict(os.environ) if env is None else env
    try:
        return max(8, int(env.get("HARNESS_LOCAL_BATCH", "").strip()))
    except ValueError:
        return DEFAULT_BATCH


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def threads_now(cores: int, threads: int, others: int) -> int:
    """Threads to read a prompt and write with now: every one of *cores* when *others*
    (threads of other processes running now) is 0, else *threads* (the setting).

    Measured (a 1.5B model, 2 cores, beside other people's work at load 4 to 5): read
    with both cores, 30 new tokens took 3.6 to 6.4 s, 60 tokens 4.6 to 7.4 s and 600
    tokens 29 to 32 s; with one, 1.2 to 2.6 s, 1.7 to 4.0 s and 19 to 22 s. llama.cpp's
    threads wait for each other at every step of the graph, and one of them waits for a
    core the other process holds. Writing is alike: beside one busy process two threads
    wrote 3.6 tokens/s against one's 6.9; with nothing else running, the split's
    one-line edit wrote its 113 tokens in 16.7 s with two against 24.6 s with one.
    """
    return max(1, threads if others > 0 else max(cores, threads))


def others_running(
    path: str = "/proc/loadavg",
    looks: int = 5,
    gap: float = 0.002,
    tasks: str = "/proc/self/task",
) -> int:
    """How many threads of other processes are running or ready to run (the fourth
    field of ``/proc/loadavg``, less this process's threads doing so: those in state R
    under *tasks*): the fewest of up to *looks* looks *gap* seconds apart, 0 where it
    cannot be read.

    One look counted harness's own threads: as a prompt arrives, the conversation that
    sent it and this worker's threads that took it in are still running for a moment,
    so on a quiet machine the prompt was read with one thread instead of two, at half
    the speed (53 against 101 tokens/s for 563 tokens, on a two-core machine). Work of
    other processes is still there at the next look; a moment's is not. While the
    model writes, its own threads run: they are this process's, and not counted."""
    fewest = -1
    for look in range(looks):
        if look:
            time.sleep(gap)
        try:
            with open(path, encoding="ascii") as f:
                running = int(f.read().split()[3].split("/")[0])
        except (OSError, IndexError, ValueError):
            return 0
        others = running - _own_running(tasks)
        fewest = others if fewest < 0 else min(fewest, others)
        if fewest <= 0:
            return 0
    return fewest


def _own_running(tasks: str) -> int:
    """This process's threads running or ready to run (at least the one asking)."""
    running = 0
    try:
        names = os.listdir(tasks)
    except OSError:
        return 1
    for name in names:
        try:
            with open(os.path.join(tasks, name, "stat"), encoding="ascii", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue  # a thread that ended between the listing and the read
        # "pid (comm) S ...": the name may hold spaces and brackets; the state follows
        # the last ")"
        state = stat.rfind(")") + 2
        running += stat[state : state + 1] == "R"
    return max(1, running)
