"""The events around the turns: verify, workers, sub-agents, compaction, errors, the end.

Re-exported by :mod:`harness.conversation.events`, where the order of a run
is drawn.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from harness.conversation.events._base import ConversationEvent

__all__ = [
    "Cancelled",
    "Compacted",
    "ErrorEvent",
    "HistoryRecalled",
    "Notice",
    "Result",
    "StageFinished",
    "StageStarted",
    "SubagentFinished",
    "SubagentProgress",
    "SubagentStarted",
    "VerifyFinished",
    "VerifyStarted",
    "WorkerExited",
    "WorkerGaveUp",
    "WorkerRestarted",
]


# --- verify ---------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class VerifyStarted(ConversationEvent, tag="verify_started"):
    """The verify command runs because the model said it was done."""

    DURABLE: ClassVar[bool] = True

    command: str
    attempt: int = 1


@attrs.frozen(kw_only=True)
class VerifyFinished(ConversationEvent, tag="verify_finished"):
    """The verify command's outcome (output as sent back to the model on failure)."""

    DURABLE: ClassVar[bool] = True

    command: str
    ok: bool
    exit_code: int | None = None
    output: str = ""


# --- the workers ----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class WorkerExited(ConversationEvent, tag="worker_exited"):
    """A worker process ended. ``description`` is one readable sentence
    (``"shell worker (pid 12) killed by signal 9 (SIGKILL)"``)."""

    DURABLE: ClassVar[bool] = True

    worker: str
    pid: int | None = None
    exit_code: int | None = None
    reason: str = ""
    description: str = ""


@attrs.frozen(kw_only=True)
class WorkerRestarted(ConversationEvent, tag="worker_restarted"):
    """The supervisor started a fresh process for a worker."""

    DURABLE: ClassVar[bool] = True

    worker: str
    pid: int | None = None
    restarts: int = 0


@attrs.frozen(kw_only=True)
class WorkerGaveUp(ConversationEvent, tag="worker_gave_up"):
    """A worker restarted too often and will not be started again."""

    DURABLE: ClassVar[bool] = True

    worker: str
    reason: str = ""


# --- sub-agents -----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class SubagentStarted(ConversationEvent, tag="subagent_started"):
    """A sub-agent runner started on a task."""

    DURABLE: ClassVar[bool] = True

    name: str
    task: str = ""


@attrs.frozen(kw_only=True)
class SubagentFinished(ConversationEvent, tag="subagent_finished"):
    """A sub-agent ended; ``result`` is what its parent's tool call returns."""

    DURABLE: ClassVar[bool] = True

    name: str
    ok: bool
    result: str = ""
    reason: str = ""
    turns: int = 0
    usage: dict[str, int] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class SubagentProgress(ConversationEvent, tag="subagent_progress"):
    """A running sub-agent began a turn, started a tool or used tokens (not durable)."""

    name: str
    turn: int = 0
    tool: str = ""
    tokens: int = 0
    elapsed: float = 0.0


# --- deepthink ----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class StageStarted(ConversationEvent, tag="stage_started"):
    """A deepthink stage began: ``plan``, ``check``, ``implement``, ``review``, ``verify``."""

    DURABLE: ClassVar[bool] = True

    stage: str
    index: int = 0


@attrs.frozen(kw_only=True)
class StageFinished(ConversationEvent, tag="stage_finished"):
    """A deepthink stage ended; ``reason`` is ``done``, or why the chain ends here
    (``question``, ``nothing_changed``, or the run's own reason)."""

    DURABLE: ClassVar[bool] = True

    stage: str
    index: int = 0
    reason: str = ""


# --- context, errors, the end ---------------------------------------------------------


@attrs.frozen(kw_only=True)
class Compacted(ConversationEvent, tag="compacted"):
    """Older history was folded into ``summary``: the first ``replaced`` messages of
    the history (after the system prompt) are replaced by one summary note."""

    DURABLE: ClassVar[bool] = True

    summary: str
    replaced: int
    tokens_before: int = 0
    tokens_after: int = 0


@attrs.frozen(kw_only=True)
class HistoryRecalled(ConversationEvent, tag="history_recalled"):
    """What older history a model request carries when semantic retrieval is on.

    Attributes:
        turns: the complete turns sent besides the active one (numbered from 1 in
            the history, oldest first).
        picked: those of *turns* picked by similarity with the prompt.
        scores: the cosine similarity of each of *picked*.
        fallback: the embedding failed: *turns* are the newest that fit.
    """

    turns: tuple[int, ...] = ()
    picked: tuple[int, ...] = ()
    scores: tuple[float, ...] = ()
    fallback: bool = False


@attrs.frozen(kw_only=True)
class ToolCallProgress(ConversationEvent, tag="tool_call_progress"):
    """A running call's progress as its MCP server tells it: ``progress`` of ``total``
    (0: the server gave no total) and the server's message. Not durable."""

    call_id: str
    name: str
    progress: float
    total: float = 0.0
    message: str = ""


@attrs.frozen(kw_only=True)
class Notice(ConversationEvent, tag="notice"):
    """Something worth one quiet line that is not an error (``kind`` names it:
    ``recall`` ...)."""

    kind: str
    message: str


@attrs.frozen(kw_only=True)
class Cancelled(ConversationEvent, tag="cancelled"):
    """The run was cancelled (Ctrl+C, Esc, the API); what was in flight was stopped."""

    DURABLE: ClassVar[bool] = True

    reason: str = "cancelled"


@attrs.frozen(kw_only=True)
class ErrorEvent(ConversationEvent, tag="error"):
    """Something went wrong that the user should see in one sentence.

    ``kind`` is the model's error kind (``auth``, ``network``, ``context_length`` ...)
    or ``budget``, ``config``, ``internal``; ``fatal`` says the run ended on it.
    """

    DURABLE: ClassVar[bool] = True

    kind: str
    message: str
    fatal: bool = False


@attrs.frozen(kw_only=True)
class Result(ConversationEvent, tag="result"):
    """The last event of a run.

    Attributes:
        ok: the run completed (the model finished, or a terminating tool succeeded).
        text: the model's final answer.
        reason: ``done``, ``terminated``, ``denied``, ``max_turns``, ``cancelled``,
            ``error``, ``verify_failed``, ``unbacked_claim`` (a reply said it changed
            or ran something no call did), ``described_not_made`` (asked for a change,
            it said what the change is and no call made it), ``change_not_made``
            (asked for a change, every write or edit ran failed or changed nothing; or
            asked for a file it names, no call wrote one),
            ``still_failing`` (asked to fix a command that fails, that command failed
            again when it last ran, after the last change), ``stopped_early`` (it
            announced an action and stopped), ``unfounded_answer`` (the answer names
            as found a name a search of the run found in no file), ``no_answer`` (the
            last reply only said
            the prompt again), ``left_broken`` (a file a call of the run changed does
            not parse since, and did before), ``stopped_by_cap`` (the model worker
            stopped it before it answered: the same call past the repeat cap).
        turns: how many model requests the run made.
        usage: summed token counts (``prompt_tokens``, ``completion_tokens``).
        duration: seconds the run took.
    """

    DURABLE: ClassVar[bool] = True

    ok: bool
    text: str = ""
    reason: str = "done"
    turns: int = 0
    usage: dict[str, int] = attrs.field(factory=dict)
    duration: float = 0.0
