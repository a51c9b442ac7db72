"""The seams of the loop: one ``Protocol`` per role it talks to.

``open_session`` (the composition root) fills them: the model and executors with the
supervisor's workers (and the MCP bridges), the permission policy with the
permission engine, the request shaper with :mod:`harness.conversation.context`;
tests may fill them with real workers too (no fakes of our own code). A feature that
joins the loop adds its role here and is handed to :class:`Conversation` by the
composition root; the loop imports no feature. The tool table is not a port: it is
data both sides read (:class:`harness.actors.tools.ToolTable`). Errors from a port are
the runtime's (:mod:`harness.ipc`): the loop turns them into tool results.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Literal, Protocol

import attrs

from harness.ipc import Message
from harness.messages.model import ChatMessage, ChatRequest
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

if TYPE_CHECKING:
    from harness.actors.tools import ToolSpec, ToolTable
    from harness.conversation import events as ev
    from harness.conversation._loop_config import LoopConfig
    from harness.conversation._secrets import SecretMasker
    from harness.hooks import Verdict

__all__ = [
    "ApprovalRequest",
    "Approver",
    "Ask",
    "Decision",
    "ExecutorPort",
    "Fits",
    "FrontendPort",
    "HooksPort",
    "ModelPort",
    "PermissionPolicy",
    "RequestShaper",
    "RunStrategy",
    "StageHost",
    "StageRun",
    "no_hooks",
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


class PermissionPolicy(Protocol):
    """Decides whether a bound call runs, is denied, or must be asked."""

    def decide(
        self, spec: ToolSpec, arguments: Mapping[str, Any], mode: str
    ) -> tuple[Literal["allow", "deny", "ask"], str]:
        """``(decision, reason)`` for a call in permission *mode*."""
        ...

    def allow_always(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> None:
        """Remember an ``always`` answer as an allow rule."""
        ...


#: one quiet model request beside the conversation: ``(system, content)`` -> the answer's
#: text (raises :class:`~harness.conversation._reply.ModelFailed`)
Ask = Callable[[str, str], Awaitable[str]]
#: whether a request carrying these messages fits the budget
Fits = Callable[[list[ChatMessage]], bool]


class RequestShaper(Protocol):
    """Chooses what of the history a model request carries: older turns chosen by
    meaning (recall), or the whole history, its older part summarised (compaction)
    when the budget says so. The loop applies a summary to its history itself."""

    @property
    def selects(self) -> bool:
        """Whether requests may carry chosen turns instead of the whole history."""
        ...

    async def select(
        self,
        history: list[ChatMessage],
        start: int,
        *,
        provider: str,
        base_url: str | None,
        fits: Fits,
    ) -> tuple[list[ChatMessage], int] | None:
        """The messages this request carries and where the current turn starts among
        them; ``None``: the whole history (summarised when the budget says)."""
        ...

    def cut(self, history: list[ChatMessage], n: int) -> int:
        """How many of *history*'s first messages a summary may replace, at most *n*."""
        ...

    async def summarise(self, messages: list[ChatMessage], *, max_chars: int, ask: Ask) -> str:
        """A summary of *messages* (``""``: none), with the notes kept beside it."""
        ...


class HooksPort(Protocol):
    """The user's hooks (:mod:`harness.hooks`, filled by ``open_session``): commands run
    around the loop's steps. Without hooks the loop holds :func:`no_hooks`."""

    def listens(self, event: str) -> bool:
        """Whether any hook is registered for *event* (so a step pays nothing without)."""
        ...

    async def fire(
        self,
        event: str,
        *,
        tool: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        result: tuple[bool, str] | None = None,
        match: str | None = None,
        call_id: str = "",
        **fields: Any,
    ) -> Verdict:
        """Run the hooks of *event* that match, in parallel; what they decided together."""
        ...


class _NoHooks:
    """No hook listens to anything: every step asks one question and goes on."""

    def listens(self, event: str) -> bool:
        return False

    async def fire(self, event: str, **fields: Any) -> Verdict:
        from harness.hooks import NOTHING  # never reached: nothing listens

        return NOTHING


def no_hooks() -> HooksPort:
    """The hooks of a loop that has none."""
    return _NoHooks()


#: the loop's run of one message under a policy, reading only or not: why it ended
StageRun = Callable[[str, PermissionPolicy, bool], Awaitable[str]]


class StageHost(Protocol):
    """What a run strategy uses of the loop (the loop is one)."""

    session_id: str
    workspace: str
    config: LoopConfig
    table: ToolTable
    executors: ExecutorPort
    masker: SecretMasker
    policy: PermissionPolicy

    @property
    def final_text(self) -> str: ...

    def emit(self, event: ev.ConversationEvent) -> None: ...
    def subscribe(self, listener: Callable[[ev.ConversationEvent], None]) -> Callable[[], None]: ...
    def configure(self, **changes: Any) -> None: ...


class RunStrategy(Protocol):
    """A way to run one prompt as several runs of one message, each under a policy of
    its own (deepthink's stages, :mod:`harness.conversation.strategies`). The loop's
    own policy is never replaced: the strategy hands each run the policy it wants."""

    async def __call__(self, conv: StageHost, prompt: str, run: StageRun) -> tuple[str, str]:
        """Run *prompt* through *run*: ``(why it ended, the run's answer)``."""
        ...
