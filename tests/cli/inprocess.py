"""``harness ARGS`` run by :func:`harness.cli.main` in the test's process: the command's own
code, without an interpreter start-up each, its sessions forking their workers from the
suite's shared fork server (tests/conftest.py). For the tests whose subject is what the
command does; a test of the process itself (its exit on a closed pipe, its environment)
starts the real program."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.cli import main
from tests.conversation.conftest import MODULES, PYTHONPATH

Harness = Callable[..., subprocess.CompletedProcess[str]]


def in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Harness:
    """``run(args, workspace=, home=, env=, shell=)``: ``harness ARGS`` in *workspace*, with
    no provider key but what *env* gives, and the shell worker only with *shell* (a test
    whose model runs a command); the result as :func:`subprocess.run` gives it."""

    def run(
        args: list[str],
        *,
        workspace: Path,
        home: Path,
        env: dict[str, str] | None = None,
        shell: bool = False,
    ) -> subprocess.CompletedProcess[str]:
        names = ("model", "tools", "shell") if shell else ("model", "tools")
        with monkeypatch.context() as m:
            for key in [k for k in os.environ if k.endswith("_API_KEY")]:
                m.delenv(key)
            m.setenv("HARNESS_HOME", str(home))
            m.setenv("PYTHONPATH", PYTHONPATH)
            m.setenv("HARNESS_WORKERS", json.dumps({k: MODULES[k] for k in names}))
            for key, value in (env or {}).items():
                m.setenv(key, value)
            m.chdir(workspace)
            capsys.readouterr()  # what the test printed before is not the command's
            try:
                status = main(args)
            except SystemExit as exc:  # argparse's usage errors
                status = int(exc.code or 0)
            out = capsys.readouterr()
        return subprocess.CompletedProcess(["harness", *args], status, out.out, out.err)

    return run
