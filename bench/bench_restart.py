"""``kill -9`` of a real worker (tools, shell) -> it answers a call again.

The supervisor has one restart path beside a new interpreter: the replacement is
forked by the fork server, as the first process was. This measures it on the workers
a user's session runs, which import more than the runtime benchmark's echo worker:
the call is the one a session would make next (``read_file``, ``run_cmd``). The
baseline, in the same run, is the same restart started as a new interpreter
(``ChildSpec(fork=False)``). Goal: at most 300 ms.

Run: ``python -m bench restart``.
"""

from __future__ import annotations

import os
import signal
import statistics
import tempfile
import time
from pathlib import Path

import trio

from bench._timing import ms
from harness import _forkstart
from harness.errors import HarnessError
from harness.messages.tools import ToolInvoke
from harness.supervisor import ChildSpec, open_supervisor

KILLS = 10


async def kill_to_answer(module: str, call: ToolInvoke, workspace: str, *, fork: bool) -> float:
    """The median seconds from ``kill -9`` of *module*'s worker to *call* answered again."""
    times = []
    # warmed as a session's server is, so the worker's own modules are in it
    async with open_supervisor(warm=_forkstart.WORKER_PRELOAD) as sup:
        spec = ChildSpec(
            name=module.rsplit(".", 1)[1],
            module=module,
            cwd=workspace,
            env={"HARNESS_HOME": os.path.join(workspace, ".home")},
            max_restarts=KILLS + 5,
            backoff_initial=0.0,
            fork=fork,
        )
        h = await sup.start(spec)
        await h.request(call, timeout=60)
        await trio.sleep(2.0)  # the server's warm imports are done, as in a session
        for _ in range(KILLS):
            await h.request(call, timeout=60)
            pid = h.pid
            assert pid is not None
            killed = time.perf_counter()
            os.kill(pid, signal.SIGKILL)
            while True:
                try:
                    await h.request(call, timeout=60)
                    break
                except HarnessError:  # the call reached the dead process: again
                    await trio.lowlevel.checkpoint()
            times.append(time.perf_counter() - killed)
            await trio.sleep(0.2)
    return statistics.median(times)


async def _all(workspace: str) -> list[tuple[str, str, str]]:
    rows = []
    calls = {
        "harness.actors.tools": ToolInvoke("read_file", {"path": "a.txt"}, workspace=workspace),
        "harness.actors.shell": ToolInvoke("run_cmd", {"command": "true"}, workspace=workspace),
    }
    for module, call in calls.items():
        forked = await kill_to_answer(module, call, workspace, fork=True)
        fresh = await kill_to_answer(module, call, workspace, fork=False)
        rows.append(
            (
                f"kill -9 -> {module.rsplit('.', 1)[1]} worker answers {call.name}, p50",
                ms(forked),
                f"as a new interpreter {ms(fresh)}; {KILLS} kills (goal <= 300 ms; "
                f"load {os.getloadavg()[0]:.1f})",
            )
        )
    return rows


def run() -> list[tuple[str, str, str]]:
    """The rows: each real worker's restart, forked, beside a new interpreter's."""
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as workspace:
        Path(workspace, "a.txt").write_text("hello\n")
        return trio.run(_all, workspace)


if __name__ == "__main__":
    for what, figure, note in run():
        print(f"{what:<48} {figure:>10}  {note}")
