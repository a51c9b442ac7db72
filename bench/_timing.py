"""Timing helpers the benchmarks share: medians, paired runs, milliseconds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median(fn: Callable[[], object], runs: int) -> float:
    """The median time of *runs* calls of *fn*, after one call to warm caches and imports."""
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def paired(
    base: Callable[[], object], other: Callable[[], object], runs: int
) -> tuple[float, float, float]:
    """Medians of *base* and *other* run in alternation, and the median of their ratios."""
    base()
    other()
    b, o, r = [], [], []
    for _ in range(runs):
        t = time.perf_counter()
        base()
        t1 = time.perf_counter()
        other()
        t2 = time.perf_counter()
        b.append(t1 - t)
        o.append(t2 - t1)
        r.append((t2 - t1) / (t1 - t))
    return statistics.median(b), statistics.median(o), statistics.median(r)


def ms(seconds: float, digits: int = 1) -> str:
    """*seconds* as milliseconds: ``'2.7 ms'``."""
    return f"{seconds * 1000:.{digits}f} ms"
