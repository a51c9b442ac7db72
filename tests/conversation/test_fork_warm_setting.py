"""``HARNESS_FORK_WARM=0`` leaves a session's fork server warm out; anything else keeps it."""

from __future__ import annotations

from harness._forkstart import WORKER_PRELOAD
from harness.conversation.workers import FORK_WARM_ENV, session_warm


def test_the_warm_is_left_out_only_when_the_setting_says_0() -> None:
    assert session_warm({}) == WORKER_PRELOAD
    assert session_warm({FORK_WARM_ENV: "1"}) == WORKER_PRELOAD
    assert session_warm({FORK_WARM_ENV: ""}) == WORKER_PRELOAD
    assert session_warm({FORK_WARM_ENV: "0"}) == ()


def test_the_suite_runs_its_sessions_without_the_warm() -> None:
    # tests/conftest.py sets it for the whole run; this process's environment is the default
    assert session_warm() == ()
