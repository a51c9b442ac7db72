"""The words every layer shares: the provider names, what kind each is, and the
permission modes.

A leaf: it imports nothing of harness and nothing heavy, so the command line offers
them as choices without loading the message vocabulary. :mod:`harness.messages`
re-exports them; this module is their one owner.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "HOSTED_PROVIDERS",
    "PERMISSION_MODES",
    "PROVIDERS",
    "PROVIDER_KINDS",
    "PermissionMode",
    "ProviderKind",
]

PROVIDERS = ("ollama", "openai", "anthropic", "gemini", "local")
"""Every provider name a request may carry: the one list the model worker, the
conversation and the command line read."""

ProviderKind = Literal["server", "embedded", "hosted"]
PROVIDER_KINDS: dict[str, ProviderKind] = {
    "ollama": "server",
    "openai": "hosted",
    "anthropic": "hosted",
    "gemini": "hosted",
    "local": "embedded",
}
"""What each provider is: a ``server`` on this machine (its address and model come from
``OLLAMA_*``), the ``embedded`` model harness runs itself, or ``hosted`` elsewhere (it
needs an API key and bills by the token). Code that must treat them differently asks
the kind, never the name."""

HOSTED_PROVIDERS: tuple[str, ...] = tuple(p for p in PROVIDERS if PROVIDER_KINDS[p] == "hosted")
"""The providers that need an API key."""

PermissionMode = Literal["ask", "auto", "plan", "deny"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("ask", "auto", "plan", "deny")
"""How calls that change something are decided: ``ask`` the user, ``auto`` run what no
rule denies, ``plan`` switch the changing tools off, ``deny`` refuse what would ask."""
