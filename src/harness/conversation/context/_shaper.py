"""The request shaper: what of the history each model request carries.

With recall on (:mod:`._recall`), a request carries the older turns most like the
prompt, within the budget; otherwise the whole history, whose older part the loop has
summarised (:mod:`._compaction`) when the budget says so. A summary carries the working
memory's notes (:mod:`._workmem`) after it. The loop is handed one shaper and applies
what it says; nothing here changes the history.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.conversation._ports import Ask, Fits
from harness.conversation.context._compaction import SUMMARY_SYSTEM, compaction_cut, transcript
from harness.conversation.context._recall import Recall
from harness.messages.model import ChatMessage

__all__ = ["ContextShaper"]


class ContextShaper:
    """The loop's :class:`~harness.conversation._ports.RequestShaper`; recall and the
    working memory's notes join it as the session opens (:meth:`use_recall`,
    :meth:`keep_notes`)."""

    def __init__(self) -> None:
        self._recall: Recall | None = None
        self._notes: Callable[[], str] | None = None

    @property
    def recall(self) -> Recall | None:
        """The history retrieval in use (``None``: every request carries the history)."""
        return self._recall

    @property
    def selects(self) -> bool:
        """Whether requests may carry chosen turns instead of the whole history."""
        return self._recall is not None

    def use_recall(self, recall: Recall) -> None:
        """Choose older turns with *recall* from the next request on."""
        self._recall = recall

    def keep_notes(self, notes: Callable[[], str]) -> None:
        """Add *notes()* (the working memory) after each summary."""
        self._notes = notes

    async def select(
        self,
        history: list[ChatMessage],
        start: int,
        *,
        provider: str,
        base_url: str | None,
        fits: Fits,
    ) -> tuple[list[ChatMessage], int] | None:
        """Recall's messages for this request, or ``None`` when recall is off or cannot
        serve this provider."""
        recall = self._recall
        if recall is None or not recall.active(provider):
            return None
        # older turns are chosen, not summarised: nothing here rewrites the history
        return await recall.select(history, start, base_url=base_url, fits=fits)

    def cut(self, history: list[ChatMessage], n: int) -> int:
        """How many of *history*'s first messages a summary may replace: never a call
        without its result."""
        return compaction_cut(history, n)

    async def summarise(self, messages: list[ChatMessage], *, max_chars: int, ask: Ask) -> str:
        """The model's summary of *messages*, with the working memory after it."""
        summary = (await ask(SUMMARY_SYSTEM, transcript(messages, max_chars=max_chars))).strip()
        if not summary:
            return ""
        note = self._notes() if self._notes else ""
        if note:
            summary += f"\n\nWorking memory of this session:\n{note}"
        return summary
