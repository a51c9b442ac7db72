"""Signing in to an MCP server and out again, as the command line asks for it.

Light: :func:`login_server` imports the SDK (``_login``) only when it runs, so the
command line that imports this stays quick for everything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._tokens import TokenStore
from harness.errors import HarnessError

__all__ = [
    "SignInFailed",
    "login_server",
    "logout_server",
    "needs_sign_in",
    "sign_in_line",
    "sign_in_problem",
    "uses_own_authorization",
]


class SignInFailed(HarnessError):
    """A sign-in that did not work: the message names the server and why."""


def sign_in_line(name: str, *, again: bool = False) -> str:
    """The one line that tells the user to sign in to server *name* (it follows the
    server's name wherever it is shown: "MCP server NAME needs sign-in: ...")."""
    if again:
        return (
            "needs sign-in again (its sign-in expired or was revoked): "
            f"run harness mcp login {name}"
        )
    return f"needs sign-in: run harness mcp login {name}"


def needs_sign_in(config: McpServerConfig, store: TokenStore, *, timeout: float = 5.0) -> str:
    """The sign-in line when *config*'s streamable HTTP server refuses a request for want
    of one and none is stored; else ``""``. Blocking (run it in a thread).

    A bridge asks this while the SDK is still loading, so a server nobody signed in to is
    down at once. The request is a GET without a session, which an MCP server without
    sign-in refuses (400 or 405) having started nothing; one that wants a sign-in checks
    it first and answers 401.
    """
    if config.transport != "http" or uses_own_authorization(config):
        return ""
    if store.signed_in(config.url):
        return ""
    import urllib.error
    import urllib.request

    class _Stay(urllib.request.HTTPRedirectHandler):
        # the entry's headers are for its URL only: a redirect ends the question
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    headers = {**config.headers, "Accept": "text/event-stream"}
    request = urllib.request.Request(config.url, headers=headers, method="GET")
    try:
        with urllib.request.build_opener(_Stay).open(request, timeout=timeout):
            return ""
    except urllib.error.HTTPError as exc:
        return sign_in_line(config.name) if exc.code == 401 else ""
    except (OSError, ValueError):
        return ""  # the SDK's own try says what is wrong


def uses_own_authorization(config: McpServerConfig) -> bool:
    """Whether the entry sends an ``Authorization`` header of its own (then OAuth is off)."""
    return any(k.lower() == "authorization" for k in config.headers)


def sign_in_problem(config: McpServerConfig) -> str:
    """Why *config*'s server cannot be signed in to (empty when it can)."""
    if config.transport == "stdio":
        return f"{config.name} is a stdio server; sign-in is for http and sse servers"
    if uses_own_authorization(config):
        return (
            f"{config.name} sends its own Authorization header (the 'headers' of its entry); "
            "remove it to sign in instead"
        )
    return ""


async def login_server(
    config: McpServerConfig,
    store: TokenStore,
    *,
    show: Callable[[str], None],
    open_browser: bool = True,
    timeout: float = 300.0,
) -> str:
    """Sign in to *config*'s server (see ``_login.login``); the line that says it worked.

    Raises:
        SignInFailed: the server cannot be signed in to, or the sign-in did not work
            (what was stored for the URL before is kept as it was).
    """
    problem = sign_in_problem(config)
    if problem:
        raise SignInFailed(problem)
    import trio

    from harness.actors.mcp._login import login  # the SDK loads here

    try:
        return await login(config, store, show=show, open_browser=open_browser, timeout=timeout)
    except trio.TooSlowError:
        raise SignInFailed(
            f"no sign-in to {config.name} came back within {timeout:g} s; nothing changed"
        ) from None
    except Exception as exc:
        raise SignInFailed(f"signing in to {config.name} failed: {_why(exc)}") from None


def _why(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    name = type(exc).__name__
    if name in ("ConnectError", "ConnectTimeout"):
        return f"cannot reach the server ({text})"
    return text if name.startswith("OAuth") else f"{name}: {text}"


def logout_server(config: McpServerConfig, store: TokenStore) -> bool:
    """Forget the tokens stored for *config*'s URL; whether there were any."""
    return store.remove(config.url)
