"""Signing in to an MCP server and out again, as the command line asks for it.

Light: :func:`login_server` imports the SDK (``_login``) only when it runs, so the
command line that imports this stays quick for everything else.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.actors.mcp._config import McpServerConfig
from harness.actors.mcp._tokens import TokenStore
from harness.errors import HarnessError

__all__ = [
    "SignInFailed",
    "login_server",
    "logout_server",
    "sign_in_problem",
    "uses_own_authorization",
]


class SignInFailed(HarnessError):
    """A sign-in that did not work: the message names the server and why."""


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
