"""What a broken or vanishing client gets from ``harness acp``: JSON-RPC errors on the
wire, never a dropped connection, and a clean exit with the session log whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from tests.acp.conftest import env_for, flags
from tests.scripted import ScriptedModel, reply


def _send(stdin: IO[str], message: Any) -> None:
    stdin.write(message if isinstance(message, str) else json.dumps(message))
    stdin.write("\n")
    stdin.flush()


def _rpc(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _answer(stdout: IO[str], want_id: Any) -> dict[str, Any]:
    # the next message with this id (updates in between are skipped)
    while True:
        line = stdout.readline()
        assert line, "harness acp closed its output"
        message = json.loads(line)
        if "method" not in message and message.get("id") == want_id:
            return message


def _start(model: ScriptedModel, workspace: Path, home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness", "acp", *flags(model)],
        cwd=workspace,
        env=env_for(home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def test_bad_lines_get_protocol_errors_then_a_client_that_vanishes_mid_prompt_leaves_a_whole_log(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    """One agent: every kind of bad line gets its JSON-RPC error and the connection goes
    on, to a session whose client then vanishes mid-prompt (one process start less)."""
    model.add(reply("a slow answer", stall=30.0, chunk=2))
    proc = _start(model, workspace, home)
    assert proc.stdin is not None
    assert proc.stdout is not None
    _send(proc.stdin, "{this is not json")
    assert _answer(proc.stdout, None)["error"]["code"] == -32700
    _send(proc.stdin, [1, 2, 3])
    assert _answer(proc.stdout, None)["error"]["code"] == -32600
    _send(proc.stdin, {"jsonrpc": "2.0", "id": 7, "method": 12})
    assert _answer(proc.stdout, 7)["error"]["code"] == -32600
    _send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "no/such_method", "params": {}})
    assert _answer(proc.stdout, 1)["error"]["code"] == -32601
    _send(proc.stdin, {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}})
    assert _answer(proc.stdout, 2)["error"]["code"] == -32602  # protocolVersion missing
    _send(
        proc.stdin,
        {"jsonrpc": "2.0", "id": 3, "method": "session/new", "params": {"cwd": "relative"}},
    )
    assert _answer(proc.stdout, 3)["error"]["code"] == -32602
    _send(proc.stdin, _rpc(4, "session/prompt", sessionId="nope", prompt=[]))
    assert _answer(proc.stdout, 4)["error"]["code"] == -32602
    _send(
        proc.stdin,
        {"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"protocolVersion": 1}},
    )
    assert _answer(proc.stdout, 5)["result"]["protocolVersion"] == 1

    # the client vanishes mid-prompt: a clean exit and a whole log
    _send(proc.stdin, _rpc(6, "session/new", cwd=str(workspace), mcpServers=[]))
    sid = _answer(proc.stdout, 6)["result"]["sessionId"]
    _send(
        proc.stdin,
        _rpc(8, "session/prompt", sessionId=sid, prompt=[{"type": "text", "text": "go"}]),
    )
    while True:  # the answer has begun
        message = json.loads(proc.stdout.readline())
        if message.get("method") == "session/update" and (
            message["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
        ):
            break
    proc.stdin.close()
    proc.stdout.close()
    assert proc.wait(timeout=20) == 0
    logs = list(home.rglob("events.jsonl"))
    assert len(logs) == 1
    events = [json.loads(line) for line in logs[0].read_text().splitlines()]
    assert all(line.endswith("}") for line in logs[0].read_text().splitlines())
    assert [e["type"] for e in events if e["type"] == "user_message"] == ["user_message"]
    assert events[-1]["type"] in ("result", "cancelled", "assistant_message", "turn_finished")


def test_sigterm_mid_prompt_closes_the_session_whole(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    model.add(reply("a slow answer", stall=30.0, chunk=2))
    proc = _start(model, workspace, home)
    assert proc.stdin is not None
    assert proc.stdout is not None
    _send(proc.stdin, _rpc(1, "initialize", protocolVersion=1))
    _answer(proc.stdout, 1)
    _send(proc.stdin, _rpc(2, "session/new", cwd=str(workspace), mcpServers=[]))
    sid = _answer(proc.stdout, 2)["result"]["sessionId"]
    prompt = [{"type": "text", "text": "go"}]
    _send(proc.stdin, _rpc(3, "session/prompt", sessionId=sid, prompt=prompt))
    while True:  # the answer has begun
        message = json.loads(proc.stdout.readline())
        if message.get("method") == "session/update" and (
            message["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
        ):
            break
    proc.send_signal(signal.SIGTERM)
    assert _answer(proc.stdout, 3)["result"]["stopReason"] == "cancelled"
    assert proc.wait(timeout=20) == 0
    proc.stdin.close()
    lines = next(home.rglob("events.jsonl")).read_text().splitlines()
    types = [json.loads(line)["type"] for line in lines]
    assert "user_message" in types
    assert types[-1] == "result"


def test_stray_prints_go_to_stderr_not_into_the_protocol(
    model: ScriptedModel, workspace: Path, home: Path, tmp_path: Path
) -> None:
    # a library that prints on stdout in the main process, every 50 ms from 0.5 s on
    noisy = tmp_path / "noisy"
    noisy.mkdir()
    (noisy / "sitecustomize.py").write_text(
        "import os, sys, threading, time\n"
        "if os.environ.get('NOISY_MAIN') == str(os.getpid()) or 'acp' in sys.argv:\n"
        "    def noise():\n"
        "        time.sleep(0.5)\n"
        "        while True:\n"
        "            print('noise on stdout', flush=True)\n"
        "            time.sleep(0.05)\n"
        "    threading.Thread(target=noise, daemon=True).start()\n"
    )
    env = env_for(home)
    env["PYTHONPATH"] = os.pathsep.join([str(noisy), env["PYTHONPATH"]])
    model.add(reply("a quiet answer"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "acp", *flags(model)],
        cwd=workspace,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    _send(proc.stdin, _rpc(1, "initialize", protocolVersion=1))
    _send(proc.stdin, _rpc(2, "session/new", cwd=str(workspace), mcpServers=[]))
    sid = _answer(proc.stdout, 2)["result"]["sessionId"]
    time.sleep(0.5)  # the noise has begun
    prompt = [{"type": "text", "text": "hi"}]
    _send(proc.stdin, _rpc(3, "session/prompt", sessionId=sid, prompt=prompt))
    _answer(proc.stdout, 3)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    for line in out.splitlines():
        json.loads(line)  # the protocol and nothing else
    assert "noise on stdout" in err
