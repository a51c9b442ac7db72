"""The seams of the loop: one ``Protocol`` per role it talks to.

The engine fills them with the supervisor's workers; tests may fill them with
real workers too (no fakes of our own code). Errors from a port are the
runtime's (:mod:`harness.ipc`): the loop turns them into tool results.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, Protocol

import attrs

from harness.ipc import Message
from harness.messages.model import ChatRequest, ToolCall, ToolSchema
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

__all__ = [
    "ApprovalRequest",
    "Approver",
    "Decision",
    "ExecutorPort",
    "FrontendPort",
    "ModelPort",
    "PermissionPolicy",
    "ToolSpecLike",
    "ToolTableLike",
]

Decision = Literal["yes", "no", "always"]


class ModelPort(Protocol):
    """Streams one model reply: ``TextDelta``/``ThinkingDelta``/``ToolCallEvent``/
    ``Usage``/``ModelDone``/``ModelError`` messages."""

    def stream(self, request: ChatRequest) -> AbstractAsyncContextManager[AsyncIterator[Message]]:
        """Open the reply stream; leaving the context cancels it."""
        ...


class ExecutorPort(Protocol):
    """Runs tool calls on the worker that executes them."""

    async def invoke(
        self, executor: str, request: ToolInvoke, timeout: float | None
    ) -> ToolOutcome:
        """Run *request* on the *executor* worker (``tools``, ``shell``, ``mcp:x``)."""
        ...

    async def preview(self, request: ToolPreview) -> ToolPreviewResult | None:
        """What a mutating call would change (``None`` when no preview is possible)."""
        ...


@attrs.frozen
class ApprovalRequest:
    """What the frontend shows before a call runs: the call, and what it will do."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    main_argument: str
    kind: str
    summary: str = ""
    diff: str = ""
    agent: str = ""


Approver = Callable[[ApprovalRequest], Awaitable[Decision]]


class FrontendPort(Protocol):
    """Tools the frontend answers (``get_user_input``, ``submit_plan``)."""

    async def frontend_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Answer tool *name*."""
        ...


class ToolSpecLike(Protocol):
    """The parts of the tools engineer's ``ToolSpec`` the loop reads."""

    name: str
    kind: str
    executor: str
    terminating: bool

    @property
    def mutating(self) -> bool: ...

    def bind(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]: ...

    def main_value(self, arguments: Mapping[str, Any]) -> str | None: ...

    def schema(self) -> ToolSchema: ...


class ToolTableLike(Protocol):
    """The parts of ``ToolTable`` the loop reads."""

    def __contains__(self, name: object) -> bool: ...

    def get(self, name: str) -> Any: ...

    def schemas(
        self, *, mode: str = "ask", names: Iterable[str] | None = None
    ) -> tuple[ToolSchema, ...]: ...

    def loggable(self, call: ToolCall) -> ToolCall:
        """*call* as events and the log may record it (credentials redacted)."""
        ...


class PermissionPolicy(Protocol):
    """Decides whether a bound call runs, is denied, or must be asked."""

    def decide(
        self, spec: Any, arguments: Mapping[str, Any], mode: str
    ) -> tuple[Literal["allow", "deny", "ask"], str]:
        """``(decision, reason)`` for a call in permission *mode*."""
        ...

    def allow_always(self, spec: Any, arguments: Mapping[str, Any]) -> None:
        """Remember an ``always`` answer as an allow rule."""
        ...
