"""The environment a command runs with: the worker's own, less anything secret.

Provider keys are dropped by name, and so is every variable whose name looks like it
holds a secret (``*_KEY``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*`` ...). A few
variables that only point at a secret (the ssh agent socket) and the supervisor's
worker tag stay: the tag is how the supervisor finds a dead worker's commands.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["PROVIDER_KEYS", "command_env", "is_secret_name"]

PROVIDER_KEYS = frozenset(
    {
        "OPENAI_API_KEY",
        "OPENAI_ORG_ID",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "OLLAMA_API_KEY",
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
_KEEP = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "HARNESS_WORKER_TAG", "KEYTIMEOUT"})
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


def is_secret_name(name: str) -> bool:
    """Whether a variable called *name* is kept from commands."""
    if name in _KEEP:
        return False
    return name in PROVIDER_KEYS or _SECRET_NAME.search(name) is not None


def command_env(environ: Mapping[str, str], extra: Mapping[str, str] = {}) -> dict[str, str]:
    """*environ* without secrets and worker settings, plus terminal defaults and *extra*."""
    env = {
        k: v
        for k, v in environ.items()
        if not is_secret_name(k) and not k.startswith(_INTERNAL_PREFIXES)
    }
    env.update(_COMMAND_DEFAULTS)
    env.update(extra)
    return env
