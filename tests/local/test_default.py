"""Choosing the start-up model: explicit > a reachable Ollama with a model > the embedded
model when installed > a clear message. Ollama is a real HTTP server on loopback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.actors.model.local import (
    DEFAULT_MODEL,
    NoModelAvailable,
    choose_startup_model,
    embedded_installed,
    lookup,
    probe_ollama,
)


def _serve(body: bytes, content_type: str = "application/json") -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = 200 if self.path == "/api/tags" else 404
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def ollama() -> Iterator[str]:
    models = {"models": [{"name": "qwen2.5-coder:7b"}, {"name": "llama3.2:3b"}]}
    yield from _serve(json.dumps(models).encode())


@pytest.fixture
def empty_ollama() -> Iterator[str]:
    yield from _serve(b'{"models": []}')


@pytest.fixture
def not_ollama() -> Iterator[str]:
    yield from _serve(b"<html>hello</html>", "text/html")


@pytest.fixture
def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _installed() -> bool:
    entry = lookup(DEFAULT_MODEL)
    assert entry is not None
    return embedded_installed(entry)


def test_probe_reads_ollama_models(ollama: str) -> None:
    assert probe_ollama(ollama) == ["qwen2.5-coder:7b", "llama3.2:3b"]


def test_probe_of_something_else_is_none(not_ollama: str, closed_port: str) -> None:
    assert probe_ollama(not_ollama) is None
    assert probe_ollama(closed_port) is None


def test_an_explicit_setting_wins(ollama: str) -> None:
    env = {"OLLAMA_BASE_URL": ollama}
    choice = choose_startup_model("openai", "gpt-4o", env=env)
    assert (choice.provider, choice.model, choice.source) == ("openai", "gpt-4o", "explicit")
    assert choose_startup_model("local", env=env).model == DEFAULT_MODEL
    local = choose_startup_model(None, DEFAULT_MODEL, env=env)
    assert (local.provider, local.source) == ("local", "explicit")
    gguf = choose_startup_model(None, "/models/x.gguf", env=env)
    assert gguf.provider == "local"


def test_a_reachable_ollama_with_a_model_comes_next(ollama: str) -> None:
    choice = choose_startup_model(env={"OLLAMA_BASE_URL": ollama})
    assert (choice.provider, choice.model, choice.source) == (
        "ollama",
        "qwen2.5-coder:7b",
        "ollama",
    )
    assert "ollama:qwen2.5-coder:7b" in choice.header
    named = choose_startup_model(None, "llama3.2:3b", env={"OLLAMA_BASE_URL": ollama})
    assert named.model == "llama3.2:3b"


@pytest.mark.skipif(not _installed(), reason="needs the embedded model (make install)")
def test_an_ollama_without_models_falls_to_the_embedded_model(
    empty_ollama: str, closed_port: str
) -> None:
    for url in (empty_ollama, closed_port):
        choice = choose_startup_model(env={"OLLAMA_BASE_URL": url})
        assert (choice.provider, choice.model, choice.source) == (
            "local",
            DEFAULT_MODEL,
            "embedded",
        )
        assert "embedded" in choice.header
    # Switched off, it is never chosen on its own.
    off = {"OLLAMA_BASE_URL": closed_port, "HARNESS_EMBEDDED": "off"}
    with pytest.raises(NoModelAvailable) as info:
        choose_startup_model(env=off)
    # off is not "not installed": the message says which, and how to turn it on
    assert "switched off (HARNESS_EMBEDDED=off)" in str(info.value)
    assert "not installed" not in str(info.value)
    assert choose_startup_model("local", env=off).provider == "local"


def test_nothing_available_says_how_to_get_a_model(closed_port: str) -> None:
    with pytest.raises(NoModelAvailable) as info:
        choose_startup_model(env={"OLLAMA_BASE_URL": closed_port}, embedded="not-a-catalogue-model")
    text = str(info.value)
    assert closed_port in text
    assert "make install" in text
    assert "ollama pull" in text
    assert "--provider" in text


def test_an_ollama_model_asked_for_without_ollama_is_a_clear_error(closed_port: str) -> None:
    with pytest.raises(NoModelAvailable, match="no Ollama answers"):
        choose_startup_model(None, "llama3.2:3b", env={"OLLAMA_BASE_URL": closed_port})


def test_embedded_installed_sees_a_missing_part(tmp_path: Path) -> None:
    entry = lookup(DEFAULT_MODEL)
    assert entry is not None
    import attrs

    from harness.actors.model.local import PartPackage

    ghost = attrs.evolve(entry, packages=(PartPackage("harness-absent-part", "1.0"),))
    assert not embedded_installed(ghost, tmp_path)


@pytest.fixture
def chatty_ollama() -> Iterator[str]:
    """An Ollama with one model that answers every chat with one line."""

    class Handler(BaseHTTPRequestHandler):
        def _send(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._send(json.dumps({"models": [{"name": "tiny:1b"}]}).encode())

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path == "/api/show":
                self._send(json.dumps({"capabilities": ["completion"]}).encode())
                return
            lines = [
                {"message": {"role": "assistant", "content": "hello from ollama"}, "done": False},
                {
                    "message": {"role": "assistant", "content": ""},
                    "done": True,
                    "done_reason": "stop",
                    "prompt_eval_count": 3,
                    "eval_count": 3,
                },
            ]
            self._send(b"".join(json.dumps(line).encode() + b"\n" for line in lines))

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _headless(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", "-p", "hi", "--output-format", "stream-json"],
        cwd=tmp_path,
        env={**os.environ, "HARNESS_HOME": str(tmp_path / "home"), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_headless_with_nothing_named_chooses_like_the_terminal(
    tmp_path: Path, chatty_ollama: str
) -> None:
    proc = _headless(tmp_path, {"OLLAMA_BASE_URL": chatty_ollama})
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    first = events[0]
    assert first["type"] == "session_started", proc.stderr
    assert (first["provider"], first["model"]) == ("ollama", "tiny:1b")
    assert first["chosen"] == choose_startup_model(env={"OLLAMA_BASE_URL": chatty_ollama}).header
    result = events[-1]
    assert result["type"] == "result"
    assert "hello from ollama" in result["text"], proc.stderr
    assert proc.returncode == 0


def test_headless_with_nothing_to_talk_to_says_how_to_get_a_model(
    tmp_path: Path, closed_port: str
) -> None:
    proc = _headless(tmp_path, {"OLLAMA_BASE_URL": closed_port, "HARNESS_EMBEDDED": "off"})
    assert proc.returncode == 2
    assert "no model to talk to" in proc.stderr
    assert "Connection refused" not in proc.stderr
