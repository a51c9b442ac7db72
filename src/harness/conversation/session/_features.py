"""The context features a session joins to its loop: the working memory (its notes
go after each summary, and one bounded model request updates it after a run) and
history recall (older turns chosen by meaning, the index kept up to date after each
run). Both live beside the session log and work in the background."""

from __future__ import annotations

from harness.conversation import events as ev
from harness.conversation._loop import Conversation
from harness.conversation.context import (
    EMBED_TIMEOUT,
    INDEX_FILE,
    MEMORY_FILE,
    UPDATE_TIMEOUT,
    ContextShaper,
    Recall,
    WorkingMemoryKeeper,
    bound,
)
from harness.conversation.session._log import SessionLog
from harness.conversation.workers import Workers
from harness.keys import provider_key
from harness.messages.model import Embed, Embeddings

__all__ = ["keep_working_memory", "recall_history"]


def keep_working_memory(
    conv: Conversation,
    shaper: ContextShaper,
    workers: Workers,
    log: SessionLog | None,
    updates: bool,
) -> None:
    """Keep *conv*'s working memory beside *log*; with *updates*, ask the model to
    update it after each completed run."""
    keeper = WorkingMemoryKeeper(
        log.dir / MEMORY_FILE if log is not None else None,
        lambda system, content: conv.ask_aside(system, content, bound(UPDATE_TIMEOUT)),
    )
    conv.subscribe(keeper)
    shaper.keep_notes(keeper.memory_text)
    if updates:

        def after_run(event: ev.ConversationEvent) -> None:
            # in the background: the answer is already out, and the next run need not wait
            if isinstance(event, ev.Result) and event.ok:
                workers.start_soon(keeper.update)

        conv.subscribe(after_run)


def recall_history(
    conv: Conversation,
    shaper: ContextShaper,
    workers: Workers,
    log: SessionLog | None,
    model: str,
) -> None:
    """Choose older turns for *conv*'s requests with embedding *model*, the index
    beside *log* (rebuilt from the log's turns when it starts afresh)."""

    async def embed(
        provider: str, base_url: str | None, texts: tuple[str, ...]
    ) -> tuple[tuple[float, ...], ...]:
        # keys are held in memory, never in a worker's environment: each request carries one
        key = conv.config.api_key or provider_key(provider)
        request = Embed(provider=provider, model=model, texts=texts, base_url=base_url, api_key=key)
        return (await workers.call("model", request, Embeddings, timeout=None)).vectors

    recall = Recall(
        model=model,
        embed=embed,
        timeout=bound(EMBED_TIMEOUT),
        path=log.dir / INDEX_FILE if log is not None else None,
        emit=conv.emit,
        session_id=conv.session_id,
        provider=conv.config.provider,
    )
    shaper.use_recall(recall)

    def update() -> None:
        # the history as the run left it: the next run may add its prompt before this runs
        history = list(conv.history)

        async def embed_new_turns() -> None:
            if recall.active(conv.config.provider):
                await recall.update(history, conv.config.base_url)

        workers.start_soon(embed_new_turns)

    def after_run(event: ev.ConversationEvent) -> None:
        # in the background: the answer is already out, and the next run need not wait
        if isinstance(event, ev.Result):
            update()

    conv.subscribe(after_run)
    if recall.index.started_afresh and conv.history:
        update()  # rebuilt from the turns the log holds
