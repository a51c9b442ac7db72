"""Signing in to MCP servers with OAuth, through the SDK's client (``mcp.client.auth``).

The SDK's :class:`~mcp.client.auth.OAuthClientProvider` (an ``httpx2.Auth``) does the
protocol: protected resource metadata (RFC 9728), authorization server metadata (RFC 8414),
dynamic client registration (RFC 7591), the authorization code with PKCE (S256), resource
indicators (RFC 8707) and refreshing an expired token. Around it, this module gives:

- :func:`login`: the interactive sign-in. A listener on a 127.0.0.1 port takes the
  browser's redirect (the loopback redirect of RFC 8252); the authorization link is shown
  (and opened when a display exists); the tokens are stored when the server has accepted
  them. ``harness mcp login`` runs it (and ``/mcp login`` runs that command).
- :func:`auth_for`: what a bridge sends with its requests. Stored tokens are used and
  refreshed; when the server wants a sign-in nobody can do here (none stored, or the
  refresh was refused), the connection fails at once with :class:`SignInNeeded`, whose
  message is the one line to show, and nothing waits for a browser.

Tokens are stored by the server's exact URL (:class:`~harness.actors.mcp._tokens.TokenStore`)
with the authorization server's metadata, so a refresh goes to the token endpoint of the
issuer that gave them. No token is ever in a message, a log line or an error.

Imports the SDK: only bridge processes and ``harness mcp login`` load it.
"""

from __future__ import annotations

import contextlib
import html
import os
import sys
import time
import webbrowser
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import mcp_types as types
import trio
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

from harness._version import __version__
from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._signin import uses_own_authorization
from harness.actors.mcp._tokens import TokenStore
from harness.errors import HarnessError

__all__ = [
    "SignInNeeded",
    "auth_for",
    "first_sign_in_error",
    "login",
    "sign_in_line",
]

LOGIN_TIMEOUT = 300.0
"""Seconds :func:`login` waits for the browser's redirect."""


class SignInNeeded(HarnessError):
    """The server wants a sign-in that cannot be done here; the message says what to run."""


def sign_in_line(name: str, *, again: bool = False) -> str:
    """The one line that tells the user to sign in to server *name* (it follows the
    server's name wherever it is shown: "MCP server NAME needs sign-in: ...")."""
    if again:
        return (
            "needs sign-in again (its sign-in expired or was revoked): "
            f"run harness mcp login {name}"
        )
    return f"needs sign-in: run harness mcp login {name}"


class _Storage:
    """The SDK's ``TokenStorage`` on a :class:`TokenStore` record, for one URL."""

    def __init__(self, store: TokenStore, url: str) -> None:
        self.store = store
        self.url = url

    async def get_tokens(self) -> OAuthToken | None:
        record = self.store.read(self.url) or {}
        tokens = record.get("tokens")
        return OAuthToken.model_validate(tokens) if isinstance(tokens, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        # the SDK keeps the expiry only in memory: the record keeps it as a time
        expires = time.time() + int(tokens.expires_in) if tokens.expires_in else None
        self.store.update(
            self.url, tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        client = (self.store.read(self.url) or {}).get("client")
        return OAuthClientInformationFull.model_validate(client) if client else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.store.update(self.url, client=client_info.model_dump(mode="json", exclude_none=True))


class _Provider(OAuthClientProvider):
    """The SDK's provider, with what it keeps only in memory restored from the record."""

    def __init__(self, store: TokenStore, url: str, **kwargs: Any) -> None:
        super().__init__(server_url=url, storage=_Storage(store, url), **kwargs)
        self._store = store
        self._url = url

    async def _initialize(self) -> None:
        await super()._initialize()
        # A provider built in a new process knows neither when its stored token expires
        # (it would send an expired one, and a 401 means a whole new sign-in, not a
        # refresh) nor which authorization server issued it (a refresh would go to a guess
        # at the resource server's origin): the record keeps both.
        record = self._store.read(self._url) or {}
        ctx = self.context
        expires = record.get("expires_at")
        ctx.token_expiry_time = float(expires) if isinstance(expires, int | float) else None
        with contextlib.suppress(ValueError):
            if record.get("issuer_metadata"):
                ctx.oauth_metadata = OAuthMetadata.model_validate(record["issuer_metadata"])
            if record.get("resource_metadata"):
                ctx.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                    record["resource_metadata"]
                )
        if isinstance(record.get("auth_server"), str):
            ctx.auth_server_url = record["auth_server"]

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        # The SDK refreshes a token only when its expiry has passed; a server that turns
        # down a token before that (it restarted, it revoked it) leads it straight to a new
        # sign-in, which cannot happen here. Try the refresh token once first.
        refreshed = False
        self._catch_up()
        while True:
            flow = super().async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            except SignInNeeded:
                if refreshed or not self.context.can_refresh_token():
                    raise
                refreshed = True
                self.context.token_expiry_time = 1.0  # long past (0 would mean "never")
            finally:
                await flow.aclose()

    def _catch_up(self) -> None:
        """Take the stored tokens when another process (another session's bridge, a new
        ``harness mcp login``) has replaced the ones held here: a refresh token that
        process used is spent, so refreshing with the old one would fail."""
        record = self._store.read(self._url) or {}
        stored = record.get("tokens")
        held = self.context.current_tokens
        if (
            self._initialized
            and isinstance(stored, dict)
            and held is not None
            and stored.get("access_token") != held.access_token
        ):
            self._initialized = False  # the SDK's flow loads the record again

    def remember_servers(self) -> None:
        """Store the metadata found during a sign-in beside its tokens."""
        ctx = self.context
        fields: dict[str, Any] = {"auth_server": ctx.auth_server_url}
        if ctx.oauth_metadata is not None:
            fields["issuer_metadata"] = ctx.oauth_metadata.model_dump(
                mode="json", exclude_none=True
            )
        if ctx.protected_resource_metadata is not None:
            fields["resource_metadata"] = ctx.protected_resource_metadata.model_dump(
                mode="json", exclude_none=True
            )
        self._store.update(self._url, **fields)


class _SignInGate(httpx2.Auth):
    """For a server with no tokens stored: a 401 fails the connection with the one line,
    at once (no discovery, no client registered on the server's word)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response]:
        response = yield request
        if response.status_code == 401:
            raise SignInNeeded(sign_in_line(self._name))


def _metadata(redirects: list[str]) -> OAuthClientMetadata:
    """harness as a public client (PKCE, no secret) redirected to the loopback."""
    return OAuthClientMetadata.model_validate(
        {
            "client_name": "harness",
            "redirect_uris": redirects,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
    )


def auth_for(config: McpServerConfig, store: TokenStore) -> httpx2.Auth | None:
    """What a bridge's HTTP client authenticates with, for an ``http`` or ``sse`` server:
    ``None`` when the entry sends its own ``Authorization`` header."""
    if config.transport == "stdio" or uses_own_authorization(config):
        return None
    record = store.read(config.url)
    if not record or not isinstance(record.get("tokens"), dict):
        return _SignInGate(config.name)
    client = record.get("client") or {}
    redirects = client.get("redirect_uris") or ["http://127.0.0.1/callback"]

    async def no_browser(url: str) -> None:
        # a refresh that was refused (or a token the server no longer takes) leads the SDK
        # to a new sign-in: nobody is there to do it
        raise SignInNeeded(sign_in_line(config.name, again=True))

    async def no_callback() -> AuthorizationCodeResult:  # pragma: no cover - never reached
        raise SignInNeeded(sign_in_line(config.name, again=True))

    return _Provider(
        store,
        config.url,
        client_metadata=_metadata(redirects),
        redirect_handler=no_browser,
        callback_handler=no_callback,
    )


# --- the interactive sign-in ------------------------------------------------------------


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

        provider = _Provider(
            fresh,
            config.url,
            client_metadata=_metadata([callback.url]),
            redirect_handler=redirect,
            callback_handler=callback.wait,
        )
        with trio.fail_after(timeout):
            tools = await _connect(config, provider)
    provider.remember_servers()
    record = fresh.read(config.url)
    assert record is not None
    store.write(config.url, record)
    return f"signed in to {config.name} ({config.url}): {tools} tools"


async def _connect(config: McpServerConfig, auth: httpx2.Auth) -> int:
    """Connect with *auth*, list the tools; how many there are."""
    from harness.actors.mcp._transports import http_transport, sse_transport

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


def first_sign_in_error(exc: BaseException) -> SignInNeeded | None:
    """The :class:`SignInNeeded` inside *exc* (an exception group's first leaf), if any."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, SignInNeeded):
            return exc
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        seen += 1
    return None
