"""Fixtures for batch runs: a repository of small edits and a model that makes them.

Every task asks the scripted model (a real OpenAI-compatible server on loopback)
"task <id>: ..."; the model answers with one ``edit_file`` that turns the line
``<id>: todo`` of ``notes.txt`` into ``<id>: done``, then with ``done <id>``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from tests.scripted import Reply, ScriptedModel, call, reply

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
IDS = ("t1", "t2", "t3", "t4", "t5", "t6")
RESULT_KEYS = {"id", "ok", "reason", "text", "turns", "usage", "duration", "attempts", "started"}


class EditModel:
    """The answers of the scripted model for batch tasks (see the module docstring).

    Attributes:
        delay: seconds to wait before each answer (a slow model).
        hold: task ids whose first request is held until :meth:`release` (or a minute).
        first_request: wall-clock time of each task's first request.
        asked: task ids in the order their requests came.
    """

    def __init__(self, *, delay: float = 0.0, hold: tuple[str, ...] = ()) -> None:
        self.delay = delay
        self.hold = set(hold)
        self._released = threading.Event()
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self.first_request: dict[str, float] = {}
        self.asked: list[str] = []
        self.in_flight = 0
        self.most_in_flight = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        first = next(m for m in messages if m["role"] == "user")["content"]
        match = re.search(r"task (\S+):", first)
        assert match, first
        task_id = match.group(1)
        with self._cond:
            self.first_request.setdefault(task_id, time.time())
            self.asked.append(task_id)
            held = task_id in self.hold
            self.hold.discard(task_id)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self._cond.notify_all()
        try:
            if held:
                self._released.wait(60)
            if self.delay:
                time.sleep(self.delay)
        finally:
            with self._cond:
                self.in_flight -= 1
        if messages[-1]["role"] == "tool":
            return reply(f"done {task_id}")
        edit = call(
            "edit_file", path="notes.txt", old_text=f"{task_id}: todo", new_text=f"{task_id}: done"
        )
        return reply("", edit)

    def wait_asked(self, task_id: str, timeout: float = 60.0) -> None:
        """Block until *task_id* has asked at least once."""
        end = time.monotonic() + timeout
        with self._cond:
            while task_id not in self.asked:
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{task_id} never asked the model")
                self._cond.wait(left)

    def release(self) -> None:
        """Let the held requests go on."""
        self._released.set()


def serve(script: EditModel) -> ScriptedModel:
    """A scripted model answering every request with *script*."""
    return ScriptedModel([script] * 10_000)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with ``notes.txt`` holding one ``<id>: todo`` line per task."""
    path = tmp_path / "repo"
    path.mkdir()
    (path / "notes.txt").write_text("".join(f"{i}: todo\n" for i in IDS))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=path, check=True)
    subprocess.run([*git, "add", "."], cwd=path, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=path, check=True)
    return path


def write_tasks(path: Path, workspace: Path, ids: tuple[str, ...] = IDS, extra: str = "") -> Path:
    lines = [
        json.dumps({"id": i, "prompt": f"task {i}: mark {i} done", "workspace": str(workspace)})
        for i in ids
    ]
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def batch_env(home: Path) -> dict[str, str]:
    # the run's temporary folders beside its home: a run a test kills leaves them there
    tmp = home.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    return {**_run_env(home), "TMPDIR": str(tmp)}


def _run_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HARNESS_HOME=str(home),
        PYTHONPATH=PYTHONPATH,
        # the shell worker is not needed by an edit: one start-up less per task
        HARNESS_WORKERS=json.dumps(
            {"model": "harness.actors.model", "tools": "harness.actors.tools"}
        ),
    )
    return env


def batch_argv(tasks: Path, out: Path, model: ScriptedModel, *more: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "harness",
        "batch",
        str(tasks),
        "--out",
        str(out),
        "--provider",
        "openai",
        "--model",
        "scripted",
        "--base-url",
        model.base_url,
        "--allow",
        "edit_file",
        "--output-format",
        "json",
        *more,
    ]


def read_results(out: Path) -> dict[str, dict[str, Any]]:
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    return {line["id"]: line for line in lines}


def find_session(needle: str, timeout: float = 30.0, exclude: int | None = None) -> psutil.Process:
    """The running ``harness -p`` whose ``--workspace`` contains *needle* (but pid *exclude*)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for proc in psutil.process_iter(["cmdline"]):
            cmd = proc.info["cmdline"] or []
            if proc.pid != exclude and "-p" in cmd and "--workspace" in cmd:
                ws = cmd[cmd.index("--workspace") + 1]
                if needle in ws:
                    return proc
        time.sleep(0.05)
    raise TimeoutError(f"no session with {needle!r} in its workspace")


def assert_own_diffs(out: Path, ids: tuple[str, ...]) -> None:
    for i in ids:
        patch = (out / i / "diff.patch").read_text()
        changed = [x for x in patch.splitlines() if x[:1] in "+-" and x[:3] not in ("+++", "---")]
        assert changed == [f"-{i}: todo", f"+{i}: done"], patch


def assert_untouched(repo: Path) -> None:
    assert (repo / "notes.txt").read_text() == "".join(f"{i}: todo\n" for i in IDS)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=repo, capture_output=True, text=True
    )
    assert status.stdout == ""
    log = subprocess.run(
        ["git", "log", "--all", "--oneline"], cwd=repo, capture_output=True, text=True
    )
    assert len(log.stdout.splitlines()) == 1  # no commit, no branch added
    worktrees = subprocess.run(
        ["git", "worktree", "list"], cwd=repo, capture_output=True, text=True
    )
    assert len(worktrees.stdout.splitlines()) == 1


@pytest.fixture
def edit_model() -> Iterator[tuple[EditModel, ScriptedModel]]:
    script = EditModel()
    with serve(script) as model:
        yield script, model


def assert_six_done(
    out: Path, repo: Path, attempts: dict[str, int] | None = None
) -> dict[str, dict[str, Any]]:
    """Every task of :data:`IDS` done in one attempt (or as many as *attempts* says for
    its id) of two turns, in its own copy, with its events and its own diff written, the
    original untouched; the result lines."""
    results = read_results(out)
    assert sorted(results) == sorted(IDS)
    for i, line in results.items():
        assert set(line) == RESULT_KEYS
        assert line["ok"] is True, line
        assert line["text"] == f"done {i}"
        assert line["turns"] == 2
        assert line["attempts"] == (attempts or {}).get(i, 1), line
        events = [json.loads(x) for x in (out / i / "events.jsonl").read_text().splitlines()]
        assert events[0]["type"] == "session_started"
        assert events[-1]["type"] == "result"
    assert_own_diffs(out, IDS)
    assert_untouched(repo)
    return results


def run_holding(
    script: EditModel,
    argv: list[str],
    env: dict[str, str],
    held: str,
    act: Callable[[], None],
    timeout: float = 300,
) -> tuple[str, str]:
    """Run a batch driver until task *held* has asked the model (its request held),
    then *act* (kill something), release the model and wait for the driver to end
    with status 0; its stdout and stderr."""
    driver = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        script.wait_asked(held, timeout=min(timeout, 120))
        act()
        script.release()
        stdout, stderr = driver.communicate(timeout=timeout)
    finally:
        script.release()
        driver.kill()
    assert driver.returncode == 0, stdout + stderr
    return stdout, stderr


#: Ray's settings for a driver or a head here. Ray puts the machine's address where it is
#: given 127.0.0.1, unless it believes it is on a laptop: then everything stays on
#: loopback. The drivers that join tests/batch/test_ray.py's instance are not its head's
#: children, so they would not have the token of a cluster no other machine can reach.
#: Ray's usage report goes to the internet a minute after an instance starts (the
#: shared instance of test_ray.py lives that long on a loaded machine): off.
LOOPBACK = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
}


def started_at(proc: psutil.Process) -> float:
    """When *proc* started, on the wall clock, to the kernel's tick (psutil's
    ``create_time`` counts from the boot time in whole seconds)."""
    with open(f"/proc/{proc.pid}/stat", "rb") as f:
        ticks = int(f.read().rsplit(b")", 1)[1].split()[19])
    since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    return time.time() - since_boot + ticks / os.sysconf("SC_CLK_TCK")


def ray_worker(task_id: str) -> psutil.Process:
    """The Ray worker running the batch task *task_id* (Ray titles it by the task)."""
    for proc in psutil.process_iter(["cmdline"]):
        if (proc.info["cmdline"] or [""])[0] == f"ray::harness-batch:{task_id}":
            return proc
    raise LookupError(f"no Ray worker runs {task_id}")


def ray_env(home: Path) -> dict[str, str]:
    # the machine's temp folder: Ray keeps its sockets under it, whose path must stay short
    return {**_run_env(home), **LOOPBACK}
