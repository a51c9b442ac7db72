"""The embedded model loads from the moment its worker starts, and says how far it is.

Issue 36: the first answer waited 2-3 minutes behind a bare "waiting for the model",
because the model was loaded only when the first question arrived, and the load said
only "loading model". A session on the embedded model starts its model worker with
``HARNESS_LOCAL_MODEL``; the worker now starts the load at once, and the load reports
llama.cpp's own progress ("loading model 60%")."""

from __future__ import annotations

import re
from pathlib import Path

import trio

from harness.actors.model.local import DEFAULT_MODEL
from harness.messages.local import LoadLocalModel, LocalModelProgress
from harness.supervisor import ChildSpec, WorkerExited, open_supervisor


def _maps(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return ""


async def _mapped(pid: int, name: str) -> None:
    # /proc has nothing to wait on: look again until the file is mapped
    for _ in range(100_000):
        if name in _maps(pid):
            return
        await trio.sleep(0.05)


async def test_the_model_loads_at_worker_start_and_reports_its_percent(
    default_model_path: Path,
) -> None:
    env = {
        "HARNESS_MODEL_CACHE": str(default_model_path.parent),
        "HARNESS_LOCAL_MODEL": DEFAULT_MODEL,
    }
    async with open_supervisor() as sup:
        h = await sup.start(ChildSpec(name="model", module="harness.actors.model", env=env))
        pid = h.status().pid
        assert pid is not None
        # nobody has asked the worker anything: the model file is mapped all the same
        with trio.fail_after(60):
            await _mapped(pid, default_model_path.name)
        # a front end's LoadLocalModel joins the load in flight and streams its progress
        async with h.stream(LoadLocalModel(model=DEFAULT_MODEL), timeout=120) as items:
            got = [item async for item in items]
    assert all(isinstance(i, LocalModelProgress) for i in got)
    assert got[-1].stage == "ready", got[-1]
    assert "waiting" not in [i.stage for i in got]  # not a second load from the start
    if got[0].stage == "loading" and got[0].total == 0:  # caught before the tensors
        got = got[1:]
    percents = [
        int(m.group(1)) for i in got if (m := re.fullmatch(r"loading model (\d+)%", i.message))
    ]
    if len(got) > 1:  # the load had not ended before the request: its percent was seen
        assert percents, [i.message for i in got]
        assert percents == sorted(percents)


async def test_a_worker_stopped_while_its_model_loads_ends_itself_within_its_grace(
    default_model_path: Path,
) -> None:
    # The shutdown used to wait for the whole load (seconds to a minute on two cores):
    # the supervisor's grace ran out first and SIGTERM ended the worker, its shutdown
    # hooks unfinished. Now the load stops at llama.cpp's next tensor.
    env = {
        "HARNESS_MODEL_CACHE": str(default_model_path.parent),
        "HARNESS_LOCAL_MODEL": DEFAULT_MODEL,
    }
    async with open_supervisor() as sup:
        events = sup.subscribe()
        h = await sup.start(ChildSpec(name="model", module="harness.actors.model", env=env))
        pid = h.status().pid
        assert pid is not None
        with trio.fail_after(60):
            await _mapped(pid, default_model_path.name)  # the load is under way
        await sup.stop("model")
        with trio.fail_after(5):  # the exit is announced as the stop returns
            async for ended in events:
                if isinstance(ended, WorkerExited):
                    break
    assert isinstance(ended, WorkerExited)
    assert ended.reason == "stopped"
    assert ended.exit_code == 0, ended.description  # not SIGTERM after the grace


def test_a_load_reports_llama_cpp_progress_up_to_whole(tiny_model_path: Path) -> None:
    # the tiny model (``_tiny.py``): llama.cpp reports each of its 27 tensors, as it does
    # each of the default model's 339
    from harness.actors.model.local._load import load_model

    heard: list[float] = []
    model = load_model(tiny_model_path, "m", n_ctx=512, threads=1, on_progress=heard.append)
    model.close()
    assert len(heard) > 10  # one report per group of tensors, not a start and an end
    assert heard == sorted(heard)
    assert heard[-1] == 1.0
