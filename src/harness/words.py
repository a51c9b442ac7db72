"""The words every layer shares: the provider names and the permission modes.

A leaf: it imports nothing of harness and nothing heavy, so the command line offers
them as choices without loading the message vocabulary. :mod:`harness.messages`
re-exports them; this module is their one owner.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["PERMISSION_MODES", "PROVIDERS", "PermissionMode"]

PROVIDERS = ("ollama", "openai", "anthropic", "gemini", "local")
"""Every provider name a request may carry: the one list the model worker, the
conversation and the command line read."""

PermissionMode = Literal["ask", "auto", "plan", "deny"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("ask", "auto", "plan", "deny")
"""How calls that change something are decided: ``ask`` the user, ``auto`` run what no
rule denies, ``plan`` switch the changing tools off, ``deny`` refuse what would ask."""
