"""How much of the machine the embedded model takes: its threads and how many prompt
tokens llama.cpp reads at a time, from the environment or the cores this process may use.
"""

from __future__ import annotations

import os

__all__ = ["DEFAULT_BATCH", "default_batch", "default_threads", "usable_cores"]

DEFAULT_BATCH = 512
"""Prompt tokens read at a time, unless ``HARNESS_LOCAL_BATCH`` says otherwise."""


def default_threads(env: dict[str, str] | None = None) -> int:
    """``HARNESS_LOCAL_THREADS`` when set, else one less than the usable cores (min 1).

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
