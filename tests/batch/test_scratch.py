"""The sweep of the temporary folders a killed batch run left (harness.batch._scratch):
real processes hold real locks, and the sweep runs in a process of its own whose
temporary folder is the test's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.batch.conftest import PYTHONPATH

HOLD = """
import sys
from pathlib import Path
from harness.batch._scratch import held
with held(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": PYTHONPATH, "TMPDIR": str(tmp)}


def _sweep(tmp: Path) -> list[str]:
    """The names the sweep removes, run as the next batch run would in *tmp*."""
    code = "from harness.batch._scratch import sweep; print(*(p.name for p in sweep()))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=_env(tmp), capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def _age(path: Path, seconds: float = 3600.0) -> None:
    """Date *path* and everything in it *seconds* back, as a run killed that long ago."""
    when = time.time() - seconds
    for inside in sorted(path.rglob("*"), reverse=True):
        os.utime(inside, (when, when), follow_symlinks=False)
    os.utime(path, (when, when))


def _copy(path: Path) -> Path:
    """A task's copy of a workspace, as a run leaves it."""
    (path / "ws").mkdir(parents=True)
    (path / "ws" / "secret.env").write_text("TOKEN=1\n")
    return path


def _holder(tmp: Path, path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        env=_env(tmp),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_folder_a_live_run_holds_stays_and_goes_once_the_run_is_killed(
    tmp_path: Path,
) -> None:
    left = _copy(tmp_path / "harness-batch-stage-x1")
    proc = _holder(tmp_path, left)
    try:
        _age(left)
        assert _sweep(tmp_path) == []
        assert (left / "ws" / "secret.env").exists()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    # the kernel let the lock go with the process: nothing else marks the folder as used
    assert _sweep(tmp_path) == ["harness-batch-stage-x1"]
    assert not left.exists()


def test_a_task_running_in_a_run_folder_keeps_the_whole_run(tmp_path: Path) -> None:
    run_dir = tmp_path / "harness-batch-0123456789ab"
    running = _copy(run_dir / "t1")
    _copy(run_dir / "t2")
    proc = _holder(tmp_path, running)
    try:
        _age(run_dir)
        assert _sweep(tmp_path) == []
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert _sweep(tmp_path) == ["harness-batch-0123456789ab"]


def test_a_folder_touched_lately_stays_until_it_is_stale(tmp_path: Path) -> None:
    # a folder between its creation and its lock, or a Ray task's folder between its
    # worker's death and its retry, which reads the attempts the dead one counted
    run_dir = tmp_path / "harness-batch-ba9876543210"
    _copy(run_dir / "t1")
    (run_dir / "t1" / "attempts").write_text("1")
    assert _sweep(tmp_path) == []
    _age(run_dir, 60.0)
    assert _sweep(tmp_path) == []
    _age(run_dir)
    assert _sweep(tmp_path) == ["harness-batch-ba9876543210"]


def test_the_sweep_follows_no_link_and_touches_no_other_folder(tmp_path: Path) -> None:
    target = _copy(tmp_path / "projects" / "mine")
    (tmp_path / "harness-batch-link").symlink_to(target, target_is_directory=True)
    other = _copy(tmp_path / "harness-other")
    for path in (target, other, tmp_path / "harness-batch-link"):
        _age(path)
    assert _sweep(tmp_path) == []
    assert (target / "ws" / "secret.env").exists()
    assert (other / "ws" / "secret.env").exists()
