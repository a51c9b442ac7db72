"""The whole exception tree of harness, in one place::

    HarnessError                  anything harness reports as a failure
    ├── IpcError                  talking to another process (harness.ipc: ProtocolError,
    │                             ChannelClosed, RemoteError, WorkerError and its kinds)
    ├── ConfigError               a setting, rule, option or file that cannot be used;
    │                             the message names it (RuleError, FrontmatterError,
    │                             SkillError, PermissionFileError, CatalogueError ...)
    ├── ToolError                 a tool call that cannot be done; the message is what the
    │                             model is told (ToolArgumentError, UnknownToolError,
    │                             GitError, MemoryStoreError)
    ├── ProviderError             a model backend failed: ``kind`` (auth, not_found,
    │                             rate_limit, context_length, network, server,
    │                             bad_response, cancelled, config), its words, the HTTP status
    │                             (LocalModelError and its kinds, ModelFailed)
    └── SessionError              a session cannot go on as asked (SessionNotFound,
                                  BudgetExceeded)

Each class lives with the code that raises it and is exported from that package's face;
this module holds only the roots, and imports nothing, so every layer (even
``harness.ipc``) can build on it. Where a caller may already catch a builtin
(``ValueError``, ``KeyError``, ``LookupError``, ``OSError``), the subclass keeps that base
too.
"""

from __future__ import annotations

__all__ = [
    "ERROR_KINDS",
    "ConfigError",
    "HarnessError",
    "ProviderError",
    "SessionError",
    "ToolError",
]


class HarnessError(Exception):
    """The root: every failure harness raises on purpose is one of these."""


class ConfigError(HarnessError):
    """A setting, rule, option or file that cannot be used; the message says which and why."""


class ToolError(HarnessError):
    """A tool refused or failed; the message is what the model is told."""


class SessionError(HarnessError):
    """A session cannot go on as asked (not found, over its context window)."""


ERROR_KINDS = frozenset(
    {
        "auth",
        "not_found",
        "rate_limit",
        "context_length",
        "network",
        "server",
        "bad_response",
        "cancelled",
        "config",
    }
)
"""Every ``kind`` a :class:`ProviderError` (and a ``ModelError`` message) may carry."""


class ProviderError(HarnessError):
    """A model backend failed.

    Attributes:
        kind: one of :data:`ERROR_KINDS` (anything else becomes ``bad_response``).
        message: the backend's own words (never a key).
        status: the HTTP status, when there was one.
        retry_after: seconds the backend asked us to wait (``Retry-After``), if any.
        overloaded: the backend said it is overloaded (a reason to fail over).
    """

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        overloaded: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind = kind if kind in ERROR_KINDS else "bad_response"
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.overloaded = overloaded

    def __repr__(self) -> str:
        return f"ProviderError({self.kind!r}, {self.message!r}, status={self.status!r})"
