"""A session's fork server imports a sub-agent runner's modules once its first run has
ended (``warm_runners``), so a runner hired later forks with them; not before, when the
import would take the CPU the first request waits for.

What a fork server has imported, a worker forked from it starts with: a probe worker
(tests/conversation/workers/runner_probe.py), started through the session's own
supervisor, writes down what it was given.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import trio

from harness._forkstart import RUNNER_PRELOAD, WORKER_PRELOAD
from harness.conversation import Session, open_session
from harness.conversation.workers import FORK_WARM_ENV
from harness.ipc import WorkerUnavailable
from harness.supervisor import ChildSpec
from tests.conversation.conftest import PYTHONPATH, options_for
from tests.scripted import ScriptedModel, reply

# a fork server of the session's own: the suite's shared one imports these at once
pytestmark = pytest.mark.own_fork_server

_probes = itertools.count(1)


async def imported(session: Session, tmp_path: Path, names: tuple[str, ...]) -> set[str]:
    """Which of *names* a worker forked now from *session*'s fork server starts with."""
    n = next(_probes)
    out = tmp_path / f"probe-{n}.json"
    spec = ChildSpec(
        name=f"probe-{n}",
        module="tests.conversation.workers.runner_probe",
        env={"PYTHONPATH": PYTHONPATH, "PROBE_FILE": str(out), "PROBE_MODULES": " ".join(names)},
        restart="temporary",
    )
    supervisor = session.workers.supervisor
    with pytest.raises(WorkerUnavailable):  # it writes its file and ends, never answering
        await supervisor.start(spec, timeout=10)
    seen = json.loads(out.read_text())
    assert seen["ppid"] == supervisor.fork_server_pid  # forked, not a new interpreter
    return set(seen["imported"])


async def wait_imported(session: Session, tmp_path: Path, names: tuple[str, ...]) -> None:
    """Wait until the fork server has imported all of *names* (it does so while idle)."""
    with trio.fail_after(30):
        while True:
            if await imported(session, tmp_path, names) == set(names):
                return
            await trio.sleep(0.05)


async def test_a_runners_modules_are_imported_by_the_fork_server_after_the_first_run(
    workspace: Path,
    home: Path,
    model: ScriptedModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(FORK_WARM_ENV, "1")  # the suite leaves the warm out; here it is tested
    model.add(reply("done"))
    options = options_for(workspace, home, model, names=("model",))
    async with open_session(options) as session:
        # once the server has imported what the default workers need (its warm at start),
        # a worker forked still starts without the runner's modules, even a moment later
        await wait_imported(session, tmp_path, WORKER_PRELOAD)
        for _ in range(3):
            assert "harness.conversation" not in await imported(session, tmp_path, RUNNER_PRELOAD)
            await trio.sleep(0.05)
        await session.run("hi")
        # asked for as the run ends, imported while the server is idle
        await wait_imported(session, tmp_path, RUNNER_PRELOAD)
