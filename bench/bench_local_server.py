"""The task set through llama.cpp's own server beside the embedded model: ``python -m bench
local-server``.

The same tasks as ``local-tasks`` (:mod:`bench.bench_local_tasks`), each run on the embedded
provider and through ``llama-server`` (built from the same llama.cpp, :mod:`bench._llama_server`)
with the OpenAI provider and the text protocol, alternating, so both see the same machine.
The server has the same model file, window and threads. A table row gives each engine's
success and median time, and the server's time as a ratio of the embedded one (the goal:
within 1.5x).

The server is asked as any OpenAI-compatible address is; harness finds it is llama.cpp
(``/props``) and sends what the embedded model gets through its own endpoints: the history
rendered by ``/apply-template``, the lazy call grammar and the nudges through
``/completion`` (:mod:`harness.actors.model._llamacpp`). It is offered the embedded model's
short tool list (``--tools small``), so both read the same prompt (with the whole table the
server's prompt was 2,770 tokens), and held to the same strict writes (``--strict-writes``).

Not part of ``make bench``. ``BENCH_RUNS`` (default 3) and ``BENCH_TASKS`` as for
``local-tasks``; the first run builds ``llama-server`` (about 10 minutes on two cores).
"""

from __future__ import annotations

import os
import statistics
import sys

from bench._llama_server import running_server
from bench.bench_local_tasks import TASKS, Outcome, _run


def _cell(outcomes: list[Outcome]) -> str:
    ok = sum(o.ok for o in outcomes)
    return f"{ok}/{len(outcomes)}, {statistics.median(o.seconds for o in outcomes):.0f} s"


def run() -> list[tuple[str, str, str]]:
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    wanted = {n for n in os.environ.get("BENCH_TASKS", "").split(",") if n}
    tasks = [t for t in TASKS if not wanted or t.name in wanted]
    env = dict(os.environ)
    embedded: dict[str, list[Outcome]] = {t.name: [] for t in tasks}
    server: dict[str, list[Outcome]] = {t.name: [] for t in tasks}
    with running_server() as base_url:
        through = ["--provider", "openai", "--base-url", base_url, "--model", "qwen"]
        through += ["--tool-protocol", "text", "--tools", "small", "--strict-writes"]
        for i in range(runs):
            for task in tasks:
                # a run's events: failed-N.jsonl or ok-N.jsonl, N odd for the embedded model
                for n, (engine, extra, into) in enumerate(
                    (
                        ("embedded", ["--provider", "local"], embedded),
                        ("llama-server", through, server),
                    ),
                    start=2 * i + 1,
                ):
                    outcome = _run(task, env, extra, n)
                    into[task.name].append(outcome)
                    verdict = "ok" if outcome.ok else "FAILED"
                    print(
                        f"{task.name} ({engine}): {verdict} in {outcome.seconds:.0f} s",
                        file=sys.stderr,
                        flush=True,
                    )
    rows = []
    for task in tasks:
        mine, theirs = embedded[task.name], server[task.name]
        ratio = statistics.median(o.seconds for o in theirs) / max(
            1e-9, statistics.median(o.seconds for o in mine)
        )
        rows.append(
            (task.name, f"server {_cell(theirs)}", f"embedded {_cell(mine)}; time {ratio:.2f}x")
        )
    all_mine = [o for v in embedded.values() for o in v]
    all_theirs = [o for v in server.values() for o in v]
    total = statistics.median(o.seconds for o in all_theirs) / max(
        1e-9, statistics.median(o.seconds for o in all_mine)
    )
    rows.append(
        (
            "all tasks",
            f"server {_cell(all_theirs)}",
            f"embedded {_cell(all_mine)}; median time {total:.2f}x (goal within 1.5x)",
        )
    )
    return rows
