"""Writing with the cores that are free: the part ``cores`` of ``python -m bench local``.

The model worker reads each prompt and writes each reply with every core while no other
process runs, else with the threads set (``HARNESS_LOCAL_THREADS``, cores - 1), and looks
again every 16 tokens written (:func:`harness.actors.model.local._sizing.threads_now`).
Here one loaded model writes 64 tokens of the same reply, greedy, in turn with that
choice and with the threads set alone (the engine told the machine has no more cores
than that), on the machine as it is and beside a process that keeps one core busy. The
ratio is tokens/s with the choice over tokens/s with the setting alone: above 1 where a
core was free, about 1 where none was.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from harness.actors.model.local._engine import LoadedModel
from harness.actors.model.local._load import load_model
from harness.actors.model.local._sizing import default_threads

TOKENS = 64
REPS = 3
ASK = [
    {
        "role": "user",
        "content": "Write a Python function that adds two numbers, and explain it at length.",
    }
]
# a process that keeps one core busy until it is killed
SPIN = "while True: pass"


def _rate(model: LoadedModel, cores: int) -> float:
    """Tokens/s writing :data:`TOKENS` tokens with the engine told *cores*."""
    model.cores = cores
    model.llama.reset()  # the same prompt read afresh, so each reply starts alike
    got = model.generate(ASK, lambda _: None, threading.Event(), max_tokens=TOKENS)
    return got.completion_tokens / got.write_seconds if got.write_seconds else 0.0


def cores_rows(path: Path) -> list[tuple[str, str, str]]:
    """Rows of (what, ratio, beside): the choice against the setting alone, quiet and
    beside a busy process."""
    threads = default_threads()
    model = load_model(path, "cores", n_ctx=2048, threads=threads)
    cores = model.cores
    rows = []
    try:
        for beside in ("nothing else running", "one busy process"):
            spin = None
            if beside == "one busy process":
                spin = subprocess.Popen([sys.executable, "-c", SPIN])
                time.sleep(0.5)
            chosen: list[float] = []
            alone: list[float] = []
            try:
                for _ in range(REPS):
                    chosen.append(_rate(model, cores))
                    alone.append(_rate(model, threads))
            finally:
                if spin is not None:
                    spin.kill()
                    spin.wait()
            ratio = statistics.median(chosen) / max(statistics.median(alone), 1e-9)
            rows.append(
                (
                    f"writing, every free core / {threads} thread(s) set, {beside}",
                    f"{ratio:.2f}x",
                    f"{statistics.median(chosen):.1f} against {statistics.median(alone):.1f} "
                    f"tokens/s ({TOKENS} tokens, median of {REPS}, {cores} cores)",
                )
            )
    finally:
        model.cores = cores
        model.close()
    return rows
