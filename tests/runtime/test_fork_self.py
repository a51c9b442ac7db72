"""``harness`` forks its workers' fork server from itself, once it has imported what the
two share, and the server's children hold none of the keys harness took, and collect
garbage as usual (harness made those imports with the collector paused)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.runtime.conftest import ROOT

# What harness.__main__ does before it imports the frontend, then a supervisor that
# starts a worker reporting what it inherited.
_SCRIPT = """
import gc, json, os, sys
import trio
sys.harness_mark = True  # only a fork of this process carries it
from harness.keys import held_values, take_keys
take_keys()
from harness.__main__ import _start_fork_server
_start_fork_server()
from harness.supervisor import open_supervisor
from tests.runtime.conftest import echo_spec
from tests.runtime.workers.messages import Echo

async def main():
    async with open_supervisor() as sup:
        env = {"PYTHONPATH": os.environ["PYTHONPATH"], "HARNESS_TEST_PROBE": sys.argv[1]}
        handle = await sup.start(echo_spec(module="tests.runtime.workers.keys_probe", env=env))
        await handle.request(Echo("hi"), timeout=10)
        found = {"server": sup.fork_server_pid, "held": held_values(), "collects": gc.isenabled()}
        print(json.dumps(found), flush=True)

trio.run(main)
"""


def test_the_fork_server_is_a_fork_of_harness_without_its_keys(tmp_path) -> None:
    probe = tmp_path / "probe.json"
    env = {**os.environ, "HARNESS_TEST_TOKEN": "tok-4f1c9e2a7b", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(probe)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    ours = json.loads(done.stdout)
    worker = json.loads(probe.read_text(encoding="utf-8"))
    assert ours["held"] == ["tok-4f1c9e2a7b"]  # harness keeps the key it took
    assert worker["ppid"] == ours["server"]  # the worker is the server's fork
    assert worker["marked"]  # and the server a fork of harness, not a new interpreter
    assert worker["held"] == []  # which holds no key
    assert ours["collects"]  # the collector runs again once the shared imports are made
    assert worker["collects"]  # and in the server's workers
