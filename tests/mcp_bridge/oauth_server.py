"""A loopback authorization server and an MCP server that needs its tokens, built with the
SDK's server side, in one process.

``python -m tests.mcp_bridge.oauth_server AS_PORT MCP_PORT OPEN_PORT``

- The authorization server (``http://127.0.0.1:AS_PORT``): RFC 8414 metadata, dynamic client
  registration (RFC 7591), ``/authorize`` (which signs the user in at once and redirects to
  the client's loopback ``redirect_uri`` with the code, as a browser would be sent), and
  ``/token`` (authorization code with the PKCE verifier checked by the SDK, and refresh).
- The MCP server (``http://127.0.0.1:MCP_PORT/mcp``): streamable HTTP, protected resource
  metadata (RFC 9728); every MCP request needs a bearer token the authorization server
  issued for this resource and that has not expired. Tool ``whoami()`` says the token's client.
- An MCP server that asks for no sign-in (``http://127.0.0.1:OPEN_PORT/mcp``), in the same
  process: one server start less for the test that needs one.

Test controls on the authorization server: ``POST /test/expire`` makes every access token
expired now; ``POST /test/revoke`` forgets every refresh token; ``GET /test/log`` is what
happened, as JSON lines: ``{"event": "register" | "authorize" | "token" | "refresh" |
"mcp", ...}`` (``mcp`` entries carry the bearer token the MCP server was sent).
``OAUTH_TOKEN_TTL`` (seconds, default 3600) is an access token's life.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from typing import Any

import anyio
import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    TokenVerifier,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

TTL = int(os.environ.get("OAUTH_TOKEN_TTL", "3600"))
LOG: list[dict[str, Any]] = []


class Provider:
    """An in-memory authorization server that signs everyone in at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        LOG.append({"event": "register", "client_id": client_info.client_id})

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        LOG.append({"event": "authorize", "resource": params.resource})
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + TTL,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=TTL,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        LOG.append({"event": "token"})
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        LOG.append({"event": "refresh", "known": found is not None})
        return found

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError(error="invalid_grant", error_description="unknown refresh token")
        return self._issue(refresh_token.client_id, refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


PROVIDER = Provider()


class Verifier(TokenVerifier):
    async def verify_token(self, token: str) -> AccessToken | None:
        LOG.append({"event": "mcp", "token": token})
        return await PROVIDER.load_access_token(token)


async def expire(request: Request) -> PlainTextResponse:
    for token in PROVIDER.access.values():
        token.expires_at = int(time.time()) - 1
    return PlainTextResponse("ok")


async def revoke(request: Request) -> PlainTextResponse:
    PROVIDER.refresh.clear()
    return PlainTextResponse("ok")


async def log(request: Request) -> JSONResponse:
    return JSONResponse(LOG)


def main() -> None:
    as_port, mcp_port, open_port = (int(arg) for arg in sys.argv[1:4])
    issuer = f"http://127.0.0.1:{as_port}"
    resource = f"http://127.0.0.1:{mcp_port}/mcp"
    routes = create_auth_routes(
        PROVIDER,  # type: ignore[arg-type]
        issuer_url=AnyHttpUrl(issuer),
        client_registration_options=ClientRegistrationOptions(enabled=True),
    )
    routes += [
        Route("/test/expire", expire, methods=["POST"]),
        Route("/test/revoke", revoke, methods=["POST"]),
        Route("/test/log", log, methods=["GET"]),
    ]
    auth_app = Starlette(routes=routes)
    server = MCPServer(
        "protected",
        token_verifier=Verifier(),
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(issuer),
            resource_server_url=AnyHttpUrl(resource),
            validate_token_resource=True,
        ),
    )

    @server.tool()
    def whoami(ctx: Context) -> str:
        """Say who is signed in."""
        return "signed in"

    mcp_app = server.streamable_http_app(host="127.0.0.1")
    open_server = MCPServer("open")

    @open_server.tool()
    def hello() -> str:
        """Say hello, to anyone."""
        return "hello"

    open_app = open_server.streamable_http_app(host="127.0.0.1")

    async def serve() -> None:
        async with anyio.create_task_group() as tg:
            for app, port in ((auth_app, as_port), (mcp_app, mcp_port), (open_app, open_port)):
                config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
                tg.start_soon(uvicorn.Server(config).serve)
            print(json.dumps({"ready": True}), flush=True)

    anyio.run(serve)


if __name__ == "__main__":
    main()
