"""The interactive sign-in to an MCP server: ``harness mcp login`` runs :func:`login`.

A listener on a 127.0.0.1 port takes the browser's redirect (the loopback redirect of
RFC 8252); the authorization link is shown, and opened when a display exists; the SDK's
provider (``_oauth.Provider``) does the protocol; the new record replaces the stored one
only once the server has taken its tokens.

Imports the SDK: only ``harness mcp login`` loads it (through ``_signin``).
"""

from __future__ import annotations

import contextlib
import html
import os
import sys
import webbrowser
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import mcp_types as types
import trio
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthFlowError

from harness._version import __version__
from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._oauth import Provider, client_metadata
from harness.actors.mcp._tokens import TokenStore
from harness.actors.mcp._transports import http_transport, sse_transport

__all__ = ["LOGIN_TIMEOUT", "login"]

LOGIN_TIMEOUT = 300.0
"""Seconds :func:`login` waits for the browser's redirect."""


class _Unsaved(TokenStore):
    """A :class:`TokenStore` in memory: a sign-in's record until the sign-in has worked."""

    def __init__(self) -> None:
        super().__init__(".")
        self._records: dict[str, dict[str, Any]] = {}

    def read(self, url: str) -> dict[str, Any] | None:
        found = self._records.get(url)
        return dict(found) if found is not None else None

    def write(self, url: str, record: Mapping[str, Any]) -> None:
        self._records[url] = {**record, "url": url}

    def remove(self, url: str) -> bool:
        return self._records.pop(url, None) is not None


_PAGE = (
    "<!doctype html><meta charset=utf-8><title>harness</title>"
    "<p style='font-family:sans-serif'>{}</p>"
)


class _Callback:
    """The loopback redirect: one listener on 127.0.0.1, until the browser brings a code."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.url = ""
        self._got: AuthorizationCodeResult | None = None
        self._error = ""
        self._done = trio.Event()

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[_Callback]:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listeners[0].socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/callback"
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, self._serve, listeners)
            try:
                yield self
            finally:
                nursery.cancel_scope.cancel()

    async def wait(self) -> AuthorizationCodeResult:
        await self._done.wait()
        if self._got is None:
            raise OAuthFlowError(self._error)
        return self._got

    async def _serve(self, stream: trio.SocketStream) -> None:
        async with stream:
            with trio.move_on_after(10):
                head = b""
                while b"\r\n\r\n" not in head and len(head) < 16384:
                    chunk = await stream.receive_some(4096)
                    if not chunk:
                        return
                    head += chunk
                status, text = self._answer(head)
                body = _PAGE.format(html.escape(text)).encode()
                await stream.send_all(
                    f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                    + body
                )

    def _answer(self, head: bytes) -> tuple[str, str]:
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) < 2 or parts[0] != "GET" or urlsplit(parts[1]).path != "/callback":
            return "404 Not Found", "Not here."
        if self._done.is_set():
            return "409 Conflict", "This sign-in is already over."
        query = {k: v[0] for k, v in parse_qs(urlsplit(parts[1]).query).items()}
        if "error" in query:
            why = query.get("error_description") or query["error"]
            self._error = f"the authorization server refused the sign-in: {why}"
            self._done.set()
            return "200 OK", f"Sign-in to {self.server} failed: {why}"
        if not query.get("code"):
            return "400 Bad Request", "No authorization code came."
        self._got = AuthorizationCodeResult(
            code=query["code"], state=query.get("state"), iss=query.get("iss")
        )
        self._done.set()
        return "200 OK", f"Signed in to {self.server}. You can close this tab."


def _has_display(environ: dict[str, str]) -> bool:
    return sys.platform == "darwin" or bool(
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    )


async def login(
    config: McpServerConfig,
    store: TokenStore,
    *,
    show: Callable[[str], None],
    open_browser: bool = True,
    timeout: float = LOGIN_TIMEOUT,
    environ: dict[str, str] | None = None,
) -> str:
    """Sign in to *config*'s server and store its tokens; the line that says it worked.

    The authorization link goes to *show* (and to a browser when *open_browser* and a
    display exists); the sign-in ends when the browser comes back to the loopback
    redirect with a code, the tokens are exchanged, and the server has taken them for a
    listing of its tools. Only then is the new record stored, in place of the old one: a
    sign-in that fails leaves what was stored as it was.

    Raises:
        OAuthFlowError, httpx2.HTTPError, trio.TooSlowError: the sign-in did not work.
    """
    env = dict(os.environ if environ is None else environ)
    fresh = _Unsaved()  # a new sign-in starts from nothing: no old client, no old token
    callback = _Callback(config.name)
    async with callback.open():

        async def redirect(url: str) -> None:
            show(f"Open this link to sign in to {config.name}:\n  {url}")
            if open_browser and _has_display(env):
                with contextlib.suppress(Exception):
                    await trio.to_thread.run_sync(webbrowser.open, url)
            show(f"Waiting for the sign-in (at most {timeout:g} s; Ctrl+C stops)...")

        provider = Provider(
            fresh,
            config.url,
            client_metadata=client_metadata([callback.url]),
            redirect_handler=redirect,
            callback_handler=callback.wait,
        )
        with trio.fail_after(timeout):
            tools = await _connect(config, provider)
    record = fresh.read(config.url)
    if record is None or not isinstance(record.get("tokens"), dict):
        raise OAuthFlowError(f"{config.url} asked for no sign-in: it works without one")
    provider.remember_servers()
    store.write(config.url, fresh.read(config.url) or record)
    return f"signed in to {config.name} ({config.url}): {tools} tools"


async def _connect(config: McpServerConfig, auth: httpx2.Auth) -> int:
    """Connect with *auth*, list the tools; how many there are."""
    if config.transport == "sse":
        transport = sse_transport(config.url, dict(config.headers), auth=auth)
    else:
        transport = http_transport(config.url, dict(config.headers), auth=auth)
    async with Client(
        transport,
        cache=None,
        client_info=types.Implementation(name="harness", version=__version__),
    ) as client:
        page = await client.list_tools()
        return len(page.tools)
