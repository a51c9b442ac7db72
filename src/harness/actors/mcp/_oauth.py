"""Signing in to MCP servers with OAuth, through the SDK's client (``mcp.client.auth``).

The SDK's :class:`~mcp.client.auth.OAuthClientProvider` (an ``httpx2.Auth``) does the
protocol: protected resource metadata (RFC 9728), authorization server metadata (RFC 8414),
dynamic client registration (RFC 7591), the authorization code with PKCE (S256), resource
indicators (RFC 8707) and refreshing an expired token. Around it, this module gives:

- :class:`Provider`: the SDK's provider on the stored record (``_login`` signs in with it).
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
import time
from collections.abc import AsyncGenerator, Generator
from typing import Any

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._signin import sign_in_line, uses_own_authorization
from harness.actors.mcp._tokens import TokenStore
from harness.errors import HarnessError

__all__ = [
    "Provider",
    "SignInNeeded",
    "auth_for",
    "client_metadata",
    "first_sign_in_error",
]


class SignInNeeded(HarnessError):
    """The server wants a sign-in that cannot be done here; the message says what to run."""


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


class Provider(OAuthClientProvider):
    """The SDK's provider on a :class:`TokenStore` record, with what the SDK keeps only in
    memory (the token's expiry, the authorization server's metadata) restored from it."""

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


def client_metadata(redirects: list[str]) -> OAuthClientMetadata:
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

    return Provider(
        store,
        config.url,
        client_metadata=client_metadata(redirects),
        redirect_handler=no_browser,
        callback_handler=no_callback,
    )


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
