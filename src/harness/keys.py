"""Provider keys and other secrets, held in memory and out of every process's environment.

A command the model runs can read the environment of any process of the same user
(``/proc/$PPID/environ``), and anything it prints reaches the model. So at start-up
:func:`take_keys` moves the provider keys and every other secret-looking variable
(``*_KEY``, ``*TOKEN*``, ``DATABASE_URL``, a URL with a password...) out of
``os.environ`` into this module,
and wipes their bytes in the process's original environment block (which
``/proc/PID/environ`` shows, whatever ``os.environ`` says later). Workers and
commands started afterwards never have them; the conversation sends the model
worker its key in each request (:func:`provider_key`), and the secret masker is
given the values (:func:`held_values`).

This module is a leaf: it imports nothing of harness, so the command line can call
it before anything else starts.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import MutableMapping

__all__ = [
    "ENV_KEYS",
    "PROVIDER_KEYS",
    "forget_keys",
    "held_items",
    "held_values",
    "is_secret_name",
    "is_secret_value",
    "provider_key",
    "take_keys",
]

#: The variables each provider's key is read from, in order.
ENV_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "ollama": ("OLLAMA_API_KEY",),
}

#: Every variable taken out of harness's environment (hosted providers harness does
#: not speak to directly are here too: a key is a key).
PROVIDER_KEYS = frozenset(
    {
        *(name for names in ENV_KEYS.values() for name in names),
        "OPENAI_ORG_ID",
        "ANTHROPIC_AUTH_TOKEN",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "OPENROUTER_API_KEY",
        "GROQ_API_KEY",
        "MISTRAL_API_KEY",
        "DEEPSEEK_API_KEY",
        "XAI_API_KEY",
        "AZURE_OPENAI_API_KEY",
        "HF_TOKEN",
    }
)

_SECRET_NAME = re.compile(
    r"(^|_)(API_?KEY|KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PASSPHRASE|"
    r"CREDENTIAL|CREDENTIALS|AUTH|PRIVATE_KEY|ACCESS_KEY|SESSION_KEY|COOKIE)($|_)"
    r"|TOKEN|SECRET|PASSWORD|CREDENTIAL",
    re.IGNORECASE,
)
# Addresses that carry their own credentials, whatever their value looks like.
_SECRET_URL_NAME = re.compile(
    r"(^|_)(DATABASE_URL|DB_URL|DSN|WEBHOOK_URL|WEBHOOK|CONNECTION_STRING|CONN_STR)$",
    re.IGNORECASE,
)
_URL_WITH_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")
# Names that look secret but only point at one (the ssh agent's socket), or that
# harness's own machinery needs (the supervisor finds a worker's processes by its tag).
_KEEP = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "HARNESS_WORKER_TAG", "KEYTIMEOUT"})

_held: dict[str, str] = {}


def is_secret_name(name: str) -> bool:
    """Whether a variable called *name* holds a secret (so no command may see it)."""
    if name in _KEEP:
        return False
    return (
        name in PROVIDER_KEYS
        or _SECRET_NAME.search(name) is not None
        or _SECRET_URL_NAME.search(name) is not None
    )


def is_secret_value(value: str) -> bool:
    """Whether *value* carries a credential itself (a URL with a password)."""
    return _URL_WITH_PASSWORD.search(value) is not None


def take_keys(environ: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """Move provider keys and every other secret (:func:`is_secret_name`,
    :func:`is_secret_value`) out of *environ* (default ``os.environ``) into memory.

    For ``os.environ`` the values are also overwritten where the process's original
    environment block holds them. Returns what was taken; later calls add to it.
    """
    env = os.environ if environ is None else environ
    taken = {
        name: value
        for name, value in sorted(env.items())
        if value and (is_secret_name(name) or (is_secret_value(value) and not _is_proxy(name)))
    }
    for name in taken:
        if env is os.environ:
            _wipe(name)
        del env[name]
    _held.update(taken)
    return taken


def forget_keys() -> None:
    """Drop everything taken: for a fork of this process that serves others (the
    workers' fork server), whose children must not hold the keys either."""
    _held.clear()


def _is_proxy(name: str) -> bool:
    # harness's own requests go through the proxy (httpx reads it from the
    # environment), so a proxy address stays; commands still never get its password.
    return name.lower().endswith("_proxy")


def provider_key(provider: str) -> str | None:
    """The key taken at start-up for *provider*, if there was one."""
    return next((_held[n] for n in ENV_KEYS.get(provider, ()) if _held.get(n)), None)


def held_items() -> dict[str, str]:
    """The variables taken out of the environment, by name (a copy): what ``${VAR}`` in an
    MCP server's entry may still name."""
    return dict(_held)


def held_values() -> list[str]:
    """Every value taken, to mask in what the model, the screen and the log see."""
    return list(_held.values())


def _wipe(name: str) -> None:
    """Zero the value of *name* where ``getenv`` finds it (the original block for a
    variable set before start-up), so ``/proc/PID/environ`` no longer shows it."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        getenv = libc.getenv
    except (OSError, AttributeError):
        return
    getenv.restype = ctypes.c_void_p
    getenv.argtypes = [ctypes.c_char_p]
    ptr = getenv(os.fsencode(name))
    if ptr:
        ctypes.memset(ptr, 0, len(ctypes.string_at(ptr)))
