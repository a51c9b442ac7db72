"""The environment a command runs with: the worker's own, less anything secret.

What counts as secret is :mod:`harness.keys`'s word (provider keys, names such as
``*_KEY``, ``*TOKEN*``, ``DATABASE_URL``, ``*_WEBHOOK_URL``, and URLs with a password
in them); harness takes those out of its own environment at start-up, and this
drops them again for an environment given some other way (the Python API, tests).
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.keys import PROVIDER_KEYS, is_secret_name, is_secret_value

__all__ = ["PROVIDER_KEYS", "command_env", "is_secret_name", "is_secret_value"]

# The worker's own settings mean nothing to a command (and must not reach a nested harness).
_INTERNAL_PREFIXES = ("HARNESS_SHELL_", "HARNESS_IPC_", "HARNESS_MAX_FRAME", "HARNESS_WORKER_NAME")

# Set for every command: no pager waiting for a key, no colour codes to strip.
_COMMAND_DEFAULTS = {
    "TERM": "dumb",
    "NO_COLOR": "1",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "SYSTEMD_PAGER": "",
}


def command_env(environ: Mapping[str, str], extra: Mapping[str, str] = {}) -> dict[str, str]:
    """*environ* without secrets and worker settings, plus terminal defaults and *extra*."""
    env = {
        k: v
        for k, v in environ.items()
        if not is_secret_name(k) and not is_secret_value(v) and not k.startswith(_INTERNAL_PREFIXES)
    }
    env.update(_COMMAND_DEFAULTS)
    env.update(extra)
    return env
