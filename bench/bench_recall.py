"""What semantic history retrieval costs a run, beside the same run with it off.

Two sessions on the real model and tools workers talk to the scripted model (which
answers at once, and embeds with a bag of words over loopback in OpenAI's format):
each first builds a history of 30 turns, then runs 20 one-round prompts, timed. With
retrieval on, each of those prompts is embedded before its request (one loopback
request), and each finished turn in the background after it. Sessions with it on and
off alternate; the medians are reported, with the size of the requests they sent.
"""

from __future__ import annotations

import os
import re
import statistics
import tempfile
import time
import zlib
from pathlib import Path

import orjson
import psutil
import trio
from tests.scripted import ScriptedModel, reply

from bench._session import scripted_options
from harness.conversation import SessionOptions, open_session

TURNS = 30  # history before the timed runs
RUNS = 20  # timed one-round prompts
PAIRS = 3
DIMS = 768  # the width of common embedding models (nomic-embed-text)
TOPICS = ["parser", "cache", "database", "logging", "retry", "config", "tests", "release"]


def _embed(text: str) -> list[float]:
    vector = [0.0] * DIMS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[zlib.crc32(word.encode()) % DIMS] += 1.0
    vector[0] += 0.01
    return vector


def _options(ws: Path, home: Path, model: ScriptedModel, recall: bool) -> SessionOptions:
    return scripted_options(
        ws, home, model, history_embedding_model="bench-embed" if recall else None
    )


def _prompt(i: int) -> str:
    topic = TOPICS[i % len(TOPICS)]
    return f"Change the {topic} so that case {i} is handled; explain what you changed and why."


async def _session(ws: Path, home: Path, recall: bool) -> tuple[float, float, float]:
    """Wall seconds and CPU seconds (harness and its workers) a timed run, and the
    mean size in bytes of the timed requests."""
    answer = "Done: " + "the change touches three functions and adds a test. " * 8
    script = [reply(answer, usage=None) for _ in range(TURNS + RUNS)]
    with ScriptedModel(script, embedder=_embed) as model:
        async with open_session(_options(ws, home, model, recall)) as s:
            for i in range(TURNS):
                assert (await s.run(_prompt(i))).ok
            if recall and s.conversation.shaper.selects:
                index = s.conversation.shaper.recall.index
                for _ in range(1500):  # the background indexing of the last turns
                    if len(index.entries) >= TURNS:
                        break
                    await trio.sleep(0.02)
            procs = [psutil.Process(), *psutil.Process().children(recursive=True)]
            cpu0 = sum(sum(p.cpu_times()[:2]) for p in procs)
            start = time.perf_counter()
            for i in range(TURNS, TURNS + RUNS):
                assert (await s.run(_prompt(i))).ok
            took = time.perf_counter() - start
            cpu = sum(sum(p.cpu_times()[:2]) for p in procs) - cpu0
        sizes = [len(orjson.dumps(r["messages"])) for r in model.requests[TURNS:]]
    return took / RUNS, cpu / RUNS, statistics.mean(sizes)


def run() -> list[tuple[str, str, str]]:
    """Measure and return the table rows."""
    on, off = [], []
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        home = Path(tmp) / "home"
        for _ in range(PAIRS):
            off.append(trio.run(_session, ws, home, False))
            on.append(trio.run(_session, ws, home, True))
    on_s, on_cpu, on_bytes = (statistics.median(x) for x in zip(*on, strict=True))
    off_s, off_cpu, off_bytes = (statistics.median(x) for x in zip(*off, strict=True))
    load = os.getloadavg()[0]
    return [
        (
            f"recall: a one-round run after {TURNS} turns, wall",
            f"{on_s * 1000:.1f} ms/run",
            f"off {off_s * 1000:.1f} ms/run; ratio {on_s / off_s:.2f}x; medians of {PAIRS} "
            f"alternating sessions of {RUNS} runs; load avg {load:.1f}",
        ),
        (
            "recall: CPU of harness + workers per run",
            f"{on_cpu * 1000:.1f} ms/run",
            f"off {off_cpu * 1000:.1f} ms/run; ratio {on_cpu / off_cpu:.2f}x",
        ),
        (
            "recall: request size (messages, JSON)",
            f"{on_bytes / 1024:.1f} KiB",
            f"off {off_bytes / 1024:.1f} KiB (the whole history)",
        ),
    ]


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
