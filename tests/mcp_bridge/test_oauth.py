"""Signing in to an MCP server with OAuth, against a loopback authorization server and an
MCP server that needs its tokens (``tests.mcp_bridge.oauth_server``, the SDK's server side).

The browser is the test: it GETs the authorization link harness shows and follows the
redirect to harness's loopback port, as a browser would.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import trio

from harness.actors.mcp import McpServerConfig, TokenStore, login_server
from harness.cli._mcp import mcp_main
from harness.messages.tools import ToolInvoke, ToolOutcome
from tests.cli.inprocess import in_process
from tests.mcp_bridge.conftest import PYTHONPATH, ROOT, free_port
from tests.scripted import ScriptedModel, call, reply

LINK = re.compile(r"http://127\.0\.0\.1:\d+/authorize\?\S+")
WORKERS = {"model": "harness.actors.model", "tools": "harness.actors.tools"}


class Servers:
    def __init__(self, as_port: int, mcp_port: int, open_port: int) -> None:
        self.issuer = f"http://127.0.0.1:{as_port}"
        self.url = f"http://127.0.0.1:{mcp_port}/mcp"
        self.open_url = f"http://127.0.0.1:{open_port}/mcp"  # a server that needs no sign-in

    def log(self) -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = httpx2.get(f"{self.issuer}/test/log").json()
        return got

    def post(self, what: str) -> None:
        httpx2.post(f"{self.issuer}/test/{what}").raise_for_status()

    def config(self, name: str = "prot", **fields: Any) -> McpServerConfig:
        return McpServerConfig(name=name, transport="http", url=self.url, **fields)


def _wait_port(port: int, deadline: float) -> None:
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    ports = (free_port(), free_port(), free_port())
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp_bridge.oauth_server", *map(str, ports)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": PYTHONPATH},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        for port in ports:
            _wait_port(port, deadline)
        yield Servers(*ports)
    finally:
        proc.kill()
        proc.wait()


def browse(url: str) -> httpx2.Response:
    """The browser: open the link, follow the redirects back to harness's loopback port."""
    return httpx2.get(url, follow_redirects=True, timeout=30)


async def sign_in(servers: Servers, home: Path) -> str:
    store = TokenStore(environ={"HARNESS_HOME": str(home)})
    pages: list[httpx2.Response] = []

    async def open_link(url: str) -> None:
        pages.append(await trio.to_thread.run_sync(browse, url))

    async with trio.open_nursery() as nursery:

        def show(line: str) -> None:
            if found := LINK.search(line):
                nursery.start_soon(open_link, found.group(0))

        done = await login_server(
            servers.config(), store, show=show, open_browser=False, timeout=30
        )
    assert [p.status_code for p in pages] == [200]
    assert "Signed in to prot" in pages[0].text
    return done


def _record(home: Path, url: str) -> dict[str, Any]:
    record = TokenStore(environ={"HARNESS_HOME": str(home)}).read(url)
    assert record is not None
    return record


class _Browser(io.StringIO):
    """``harness mcp login``'s output; a link written to it is opened at once."""

    def __init__(self) -> None:
        super().__init__()
        self.pages: list[httpx2.Response] = []
        self.threads: list[threading.Thread] = []

    def write(self, s: str) -> int:
        if found := LINK.search(s):
            url = found.group(0)
            thread = threading.Thread(target=lambda: self.pages.append(browse(url)), daemon=True)
            thread.start()
            self.threads.append(thread)
        return super().write(s)

    def opened(self) -> list[int]:
        """The status of each page the browser opened, once it has."""
        for thread in self.threads:
            thread.join(30)
        return [p.status_code for p in self.pages]


def test_login_and_logout_from_the_command_line(
    servers: Servers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir()
    home.mkdir()
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"prot": {"url": servers.url}}}))
    monkeypatch.setenv("HARNESS_HOME", str(home))
    out, err = _Browser(), io.StringIO()
    status = mcp_main(
        ["login", "prot", "-C", str(ws), "--no-browser", "--timeout", "30"],
        stdout=out,
        stderr=err,
    )
    assert status == 0, err.getvalue()
    assert out.opened() == [200]
    assert f"signed in to prot ({servers.url}): 1 tools" in out.getvalue()
    record = _record(home, servers.url)
    token = record["tokens"]["access_token"]
    path = TokenStore().path(servers.url)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert token not in out.getvalue() + err.getvalue()
    assert record["issuer_metadata"]["issuer"].rstrip("/") == servers.issuer
    # PKCE: the code came back for a challenge, and was exchanged with its verifier
    events = [e["event"] for e in servers.log()]
    assert {"register", "authorize", "token"} <= set(events)

    out = _Browser()
    assert mcp_main(["logout", "prot", "-C", str(ws)], stdout=out) == 0
    assert out.getvalue() == f"signed out of prot ({servers.url})\n"
    assert not path.exists()
    out = _Browser()
    assert mcp_main(["logout", "prot", "-C", str(ws)], stdout=out) == 0
    assert "was not signed in" in out.getvalue()


def test_login_names_what_cannot_be_signed_in_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    servers = {
        "local": {"command": "true"},
        "keyed": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer x"}},
    }
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    monkeypatch.setenv("HARNESS_HOME", str(home))
    for name, said in (
        ("local", "local is a stdio server"),
        ("keyed", "keyed sends its own Authorization header"),
        ("nobody", "no MCP server is named 'nobody'; configured: keyed, local"),
    ):
        err = io.StringIO()
        assert mcp_main(["login", name, "-C", str(tmp_path)], stderr=err) == 2
        assert said in err.getvalue()


async def test_the_authorization_server_checks_the_pkce_verifier(servers: Servers) -> None:
    # the loopback server is only a fair test if a wrong verifier fails there
    async with httpx2.AsyncClient() as http:
        reg = await http.post(
            f"{servers.issuer}/register",
            json={
                "redirect_uris": ["http://127.0.0.1:1/callback"],
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
            },
        )
        client_id = reg.json()["client_id"]
        verifier = "v" * 64
        challenge = (
            base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            .decode()
            .rstrip("=")
        )
        got = await http.get(
            f"{servers.issuer}/authorize",
            params={
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": "http://127.0.0.1:1/callback",
                "state": "s",
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            },
        )
        code = re.search(r"code=([^&]+)", got.headers["location"])
        assert code is not None
        token = await http.post(
            f"{servers.issuer}/token",
            data={
                "grant_type": "authorization_code",
                "code": code.group(1),
                "redirect_uri": "http://127.0.0.1:1/callback",
                "client_id": client_id,
                "code_verifier": "w" * 64,
            },
        )
    assert token.status_code == 400
    assert token.json()["error"] == "invalid_grant"


def _bridge_env(home: Path) -> dict[str, str]:
    return {"HARNESS_HOME": str(home)}


async def test_a_bridge_refreshes_an_expired_or_refused_token(
    servers: Servers, tmp_path: Path, start_bridge: Any
) -> None:
    home = tmp_path / "home"
    await sign_in(servers, home)
    before = _record(home, servers.url)
    # the token's time is up: the server no longer takes it, and the record says so
    servers.post("expire")
    store = TokenStore(environ={"HARNESS_HOME": str(home)})
    store.update(servers.url, expires_at=time.time() - 5)
    refreshes = sum(e["event"] == "refresh" for e in servers.log())

    handle, watcher = await start_bridge(servers.config(), env=_bridge_env(home))
    status = await watcher.wait_for(lambda s: s.state in ("ready", "down", "failed"), 30)
    assert (status.state, status.error) == ("ready", "")
    out = await handle.request(ToolInvoke(name="whoami", arguments={}), timeout=30)
    assert isinstance(out, ToolOutcome)
    assert (out.ok, out.output) == (True, "signed in")
    after = _record(home, servers.url)
    # refreshed at the issuer's token endpoint (the MCP server's origin has none)
    assert sum(e["event"] == "refresh" for e in servers.log()) == refreshes + 1
    assert after["tokens"]["access_token"] != before["tokens"]["access_token"]
    assert after["tokens"]["refresh_token"] != before["tokens"]["refresh_token"]
    assert after["expires_at"] > time.time() + 60
    assert stat.S_IMODE(store.path(servers.url).stat().st_mode) == 0o600
    assert before["tokens"]["access_token"] not in status.stderr_tail

    # a token the server turns down before its time (it restarted, it revoked it) is
    # refreshed once, mid-session, rather than asking for a sign-in nobody can do here
    servers.post("expire")
    out = await handle.request(ToolInvoke(name="whoami", arguments={}), timeout=30)
    assert isinstance(out, ToolOutcome)
    assert (out.ok, out.output) == (True, "signed in"), out.output
    assert sum(e["event"] == "refresh" for e in servers.log()) == refreshes + 2
    held = _record(home, servers.url)
    assert held["tokens"]["access_token"] != after["tokens"]["access_token"]

    # another session's bridge refreshes meanwhile, and the server rotates the refresh
    # token: this bridge takes the stored tokens rather than spend a refresh token now dead
    servers.post("expire")  # the access token this bridge holds is no good any more
    other = await trio.to_thread.run_sync(
        lambda: httpx2.post(
            f"{servers.issuer}/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": held["tokens"]["refresh_token"],
                "client_id": held["client"]["client_id"],
            },
        ).json()
    )
    store.update(servers.url, tokens=other, expires_at=time.time() + other["expires_in"])
    out = await handle.request(ToolInvoke(name="whoami", arguments={}), timeout=30)
    assert isinstance(out, ToolOutcome)
    assert (out.ok, out.output) == (True, "signed in"), out.output
    assert sum(e["event"] == "refresh" for e in servers.log()) == refreshes + 3  # the other's


async def test_a_bridge_with_no_sign_in_is_down_with_one_line(
    servers: Servers, tmp_path: Path, start_bridge: Any
) -> None:
    home = tmp_path / "home"
    _, watcher = await start_bridge(servers.config(), env=_bridge_env(home))
    status = await watcher.wait_for(lambda s: s.state in ("ready", "down", "failed"), 30)
    assert (status.state, status.error) == ("down", "needs sign-in: run harness mcp login prot")


async def test_a_refused_refresh_says_to_sign_in_again(
    servers: Servers, tmp_path: Path, start_bridge: Any
) -> None:
    home = tmp_path / "home"
    await sign_in(servers, home)
    token = _record(home, servers.url)["tokens"]["access_token"]
    servers.post("expire")
    servers.post("revoke")
    TokenStore(environ={"HARNESS_HOME": str(home)}).update(servers.url, expires_at=time.time() - 5)
    _, watcher = await start_bridge(servers.config(), env=_bridge_env(home))
    status = await watcher.wait_for(lambda s: s.state in ("ready", "down", "failed"), 30)
    assert (status.state, status.error) == (
        "down",
        "needs sign-in again (its sign-in expired or was revoked): run harness mcp login prot",
    )
    assert token not in status.stderr_tail


class _Recorder:
    """An HTTP server that answers 401 to everything and keeps the requests' headers."""

    def __init__(self) -> None:
        self.headers: list[dict[str, str]] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/mcp"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                lines = data.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")[1:]
                self.headers.append(
                    {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines)}
                )
                conn.sendall(
                    b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\n"
                    b"Content-Length: 0\r\nConnection: close\r\n\r\n"
                )


async def test_a_project_entry_under_a_signed_in_name_gets_no_token(
    servers: Servers, tmp_path: Path
) -> None:
    """A workspace's .mcp.json (trusted, even) that names a signed-in server's name with a
    URL of its own must not receive that server's token: tokens are kept by exact URL."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir()
    await sign_in(servers, home)
    token = _record(home, servers.url)["tokens"]["access_token"]
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"prot": {"url": servers.url}}}))
    thief = _Recorder()
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"prot": {"url": thief.url}}}))
    with ScriptedModel() as model:
        model.add(reply("done"))
        env = {
            **os.environ,
            "HARNESS_HOME": str(home),
            "PYTHONPATH": PYTHONPATH,
            "HARNESS_WORKERS": json.dumps(WORKERS),
        }
        p = await trio.run_process(
            [
                sys.executable, "-m", "harness", "-p", "hello", "--trust-project",
                "--provider", "openai", "--model", "scripted", "--base-url", model.base_url,
                "--permission-mode", "auto", "--output-format", "stream-json",
            ],
            cwd=ws,
            env=env,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )  # fmt: skip
    assert p.returncode == 0, p.stderr.decode()
    assert thief.headers, "the project's server was never asked"
    assert all("authorization" not in h for h in thief.headers)
    said = p.stdout.decode() + p.stderr.decode()
    assert "MCP server prot needs sign-in: run harness mcp login prot; it is" in said
    assert token not in said


def test_a_headless_run_calls_a_signed_in_servers_tool(
    servers: Servers,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The command line, in the test's process (tests/cli/inprocess.py), calls the tool of
    a server signed in before, and the token is in nothing it wrote or said."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir()
    trio.run(sign_in, servers, home)
    token = _record(home, servers.url)["tokens"]["access_token"]
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"prot": {"url": servers.url}}}))
    with ScriptedModel() as model:
        model.add(reply("", call("mcp__prot__whoami")), reply("done"))
        p = in_process(monkeypatch, capsys)(
            [
                "-p", "who am I",
                "--provider", "openai", "--model", "scripted", "--base-url", model.base_url,
                "--permission-mode", "auto", "--output-format", "stream-json",
            ],
            workspace=ws,
            home=home,
        )  # fmt: skip
    assert p.returncode == 0, p.stderr
    events = [json.loads(line) for line in p.stdout.splitlines()]
    finished = [e for e in events if e["type"] == "tool_call_finished"]
    assert [(e["name"], e["ok"], e["output"]) for e in finished] == [
        ("mcp__prot__whoami", True, "signed in")
    ]
    # the token is in no output and in nothing harness wrote but its own record
    assert token not in p.stdout + p.stderr
    for path in home.rglob("*"):
        if path.is_file() and path.parent.name != "mcp-auth":
            assert token.encode() not in path.read_bytes(), path


async def test_mcp_login_and_logout_in_the_terminal(servers: Servers, tmp_path: Path) -> None:
    from harness.cli.tui._cmd_mcp import run_mcp
    from harness.cli.tui._dispatch import COMMANDS
    from tests.mcp_bridge.test_command import Frontend
    from tests.mcp_bridge.test_session import mcp_session, until

    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()

    def state(live: Any) -> list[tuple[str, str]]:
        return [(v.state, v.error) for v in live.mcp.servers()]

    with ScriptedModel() as model:
        async with mcp_session((ws, home), model, {"prot": {"url": servers.url}}) as live:
            no_sign_in = ("down", "needs sign-in: run harness mcp login prot")
            await until(live, lambda: state(live) == [no_sign_in], timeout=60)
            app = Frontend(live)
            app.ctx.home, app.ctx.environ = home, dict(os.environ)
            app.console.file = browser = _Browser()  # the user opens the link shown
            with trio.fail_after(60):
                await run_mcp(app.ctx, COMMANDS.parse("/mcp login prot"))
            shown = browser.getvalue()
            assert await trio.to_thread.run_sync(browser.opened) == [200]
            assert f"signed in to prot ({servers.url}): 1 tools" in shown
            await until(live, lambda: state(live) == [("ready", "")], timeout=60)
            assert live.mcp.servers()[0].tools == ("mcp__prot__whoami",)
            record = _record(home, servers.url)
            token = record["tokens"]["access_token"]
            assert token not in shown
            # a command that prints the record shows the model no token
            (ws / "leak.txt").write_text(json.dumps(record))
            model.add(reply("", call("read_file", path="leak.txt")), reply("done"))
            await live.run("read leak.txt")
            [seen] = [m.content for m in live.history if m.role == "tool"]
            assert "[REDACTED]" in seen
            assert token not in seen
            assert record["tokens"]["refresh_token"] not in seen

            app.console.file = io.StringIO()
            await run_mcp(app.ctx, COMMANDS.parse("/mcp logout prot"))
            assert f"signed out of prot ({servers.url})" in app.printed()
            await until(live, lambda: state(live) == [no_sign_in], timeout=60)


async def test_a_refused_sign_in_keeps_what_was_stored(servers: Servers, tmp_path: Path) -> None:
    from urllib.parse import parse_qs, urlsplit

    from harness.actors.mcp import SignInFailed

    home = tmp_path / "home"
    await sign_in(servers, home)
    before = _record(home, servers.url)
    store = TokenStore(environ={"HARNESS_HOME": str(home)})

    async def refuse(url: str) -> None:
        # the user says no at the authorization server, which sends the browser back so
        back = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        page = await trio.to_thread.run_sync(
            lambda: httpx2.get(back, params={"error": "access_denied", "error_description": "no"})
        )
        assert "Sign-in to prot failed: no" in page.text

    failed: list[str] = []
    async with trio.open_nursery() as nursery:

        def show(line: str) -> None:
            if found := LINK.search(line):
                nursery.start_soon(refuse, found.group(0))

        try:
            await login_server(servers.config(), store, show=show, open_browser=False, timeout=30)
        except SignInFailed as exc:
            failed.append(str(exc))
    assert failed == ["signing in to prot failed: the authorization server refused the sign-in: no"]
    assert _record(home, servers.url) == before


def test_a_server_without_sign_in_is_neither_probed_down_nor_signed_in_to(
    servers: Servers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.actors.mcp._signin import needs_sign_in

    url = servers.open_url
    home = tmp_path / "home"
    home.mkdir()
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"open": {"url": url}}}))
    monkeypatch.setenv("HARNESS_HOME", str(home))
    config = McpServerConfig(name="open", transport="http", url=url)
    assert needs_sign_in(config, TokenStore()) == ""
    err = io.StringIO()
    status = mcp_main(
        ["login", "open", "-C", str(tmp_path), "--no-browser", "--timeout", "30"],
        stdout=io.StringIO(),
        stderr=err,
    )
    assert status == 1
    assert err.getvalue() == (
        f"harness mcp: signing in to open failed: {url} asked for no sign-in: "
        "it works without one\n"
    )
    assert not (home / "mcp-auth").exists()
