"""Semantic history retrieval: what older history a model request carries.

Off unless an embedding model is named (``HARNESS_HISTORY_EMBEDDING_MODEL``) and the
session's provider has an embeddings endpoint (Ollama, OpenAI-compatible). Then each
request carries, inside the budget :class:`ContextBudget` enforces:

- the summary note of an earlier compaction, when there is one and it fits;
- the previous complete turn, when it fits;
- at most :data:`MOST` older complete turns whose vector has a cosine of at least
  :data:`THRESHOLD` with the active prompt's, the best first while they fit;
- the active turn, exact;

all in the order they happened. A complete turn is a user prompt through the answer
that ended it, with every tool call and result inside it, so a call never travels
without its result. Nothing is changed: the history and the session log stay whole;
this only chooses what a request carries.

The prompt is embedded once per run (bounded by :data:`EMBED_TIMEOUT`, together with
any older turn the index lacks). Any failure or timeout sends the newest complete
turns that fit instead, with one quiet notice. After each run the new turn is
embedded in the background, so the answer never waits for it.
"""

from __future__ import annotations

import hashlib
import math
import operator
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import attrs
import orjson
import trio

from harness.conversation import events as ev
from harness.conversation._history import SUMMARY_PREFIX
from harness.conversation.context._recall_index import Entry, RecallIndex, Turn, unit
from harness.errors import HarnessError
from harness.messages.model import ChatMessage

__all__ = [
    "EMBEDDING_PROVIDERS",
    "EMBED_TIMEOUT",
    "MOST",
    "THRESHOLD",
    "Recall",
    "Turn",
    "split_turns",
]

#: providers whose servers have an embeddings endpoint
EMBEDDING_PROVIDERS = frozenset({"ollama", "openai"})
THRESHOLD = 0.65
MOST = 3
#: seconds the prompt's embedding may take before the request goes without it
EMBED_TIMEOUT = 4.0
#: seconds a background batch may take
INDEX_TIMEOUT = 30.0
_BATCH = 32  # texts per embedding request
_TEXT_CHARS = 4000  # of a turn's text embedded (embedding models read a few thousand)

#: ``(provider, base_url, texts)`` -> one vector per text
Embed = Callable[[str, str | None, tuple[str, ...]], Awaitable[Sequence[Sequence[float]]]]
Emit = Callable[[ev.ConversationEvent], None]
Fits = Callable[[list[ChatMessage]], bool]


def _digest(messages: Sequence[ChatMessage]) -> str:
    h = hashlib.sha256()
    for m in messages:
        calls = [(c.id, c.name, c.arguments) for c in m.tool_calls]
        h.update(orjson.dumps([m.role, m.content, calls, m.tool_call_id]))
    return h.hexdigest()[:32]


def split_turns(history: Sequence[ChatMessage], upto: int) -> tuple[int, list[Turn]]:
    """``(pinned, turns)`` of ``history[:upto]``: how many leading messages are a
    compaction's summary (sent whenever they fit), and the complete turns after them.

    A turn starts at a user message that follows an answer (an assistant message with
    no tool call) or begins the history; a tool result never leaves its call's turn.
    """
    upto = min(upto, len(history))
    pinned = (
        1
        if upto and history[0].role == "user" and history[0].content.startswith(SUMMARY_PREFIX)
        else 0
    )
    turns: list[Turn] = []
    start = pinned
    for i in range(pinned + 1, upto):
        m, before = history[i], history[i - 1]
        if m.role == "user" and before.role == "assistant" and not before.tool_calls:
            turns.append(Turn(len(turns) + 1, start, i, _digest(history[start:i])))
            start = i
    if start < upto:
        turns.append(Turn(len(turns) + 1, start, upto, _digest(history[start:upto])))
    return pinned, turns


def turn_text(messages: Sequence[ChatMessage]) -> str:
    """What is embedded of a turn: the prompts, the answers and the calls made (tool
    output is left out: it is mostly file text, not what the turn was about)."""
    parts: list[str] = []
    for m in messages:
        if m.role in ("user", "assistant") and m.content.strip():
            parts.append(m.content.strip())
        for c in m.tool_calls:
            parts.append(f"{c.name} {orjson.dumps(c.arguments).decode()[:200]}")
    return "\n".join(parts)[:_TEXT_CHARS]


@attrs.frozen
class _Pick:
    """What the active run carries: the turns picked for its prompt (the very message:
    a new run has a new one) and their scores (``fallback``: the embedding failed)."""

    prompt: ChatMessage | None = attrs.field(eq=False)
    picked: tuple[tuple[Turn, float], ...] = ()
    fallback: bool = False


class Recall:
    """One session's semantic history retrieval (see the module's docstring).

    Args:
        model: the embedding model.
        embed: sends one embedding request (the model worker's ``Embed``).
        path: the index file (``None``: in memory only).
        emit: hands the conversation an event.
        session_id: the session's id, for the events.
        provider: the session's provider when it opened.
        timeout: seconds the prompt's embedding may take.
    """

    def __init__(
        self,
        *,
        model: str,
        embed: Embed,
        path: Path | None,
        emit: Emit,
        session_id: str,
        provider: str,
        timeout: float = EMBED_TIMEOUT,
    ) -> None:
        self.model = model
        self._embed = embed
        self._emit = emit
        self._sid = session_id
        self.timeout = timeout
        self.index = RecallIndex(path, provider, model)
        self._pick: _Pick | None = None
        self._said_off: set[str] = set()
        self._failing = False
        self._lock = trio.Lock()  # one embedding request at a time: none repeats another

    # --- whether it applies -----------------------------------------------------------

    def active(self, provider: str) -> bool:
        """Whether requests to *provider* use retrieval (the first time one cannot,
        the session is told so, once)."""
        if provider in EMBEDDING_PROVIDERS:
            self.index.retarget(provider, self.model)
            return True
        if provider not in self._said_off:
            self._said_off.add(provider)
            self._notice(
                f"history retrieval is off: {provider} has no embeddings endpoint; "
                "requests carry the whole history"
            )
        return False

    def _notice(self, message: str) -> None:
        self._emit(ev.Notice(session_id=self._sid, kind="recall", message=message))

    # --- one request ------------------------------------------------------------------

    async def select(
        self,
        history: Sequence[ChatMessage],
        current_start: int,
        *,
        base_url: str | None,
        fits: Fits,
    ) -> tuple[list[ChatMessage], int]:
        """The messages of the next request and where the active turn starts in them.

        *fits* says whether messages fit the budget; the active turn goes whether or
        not (the budget refuses what cannot fit at all).
        """
        pinned, turns = split_turns(history, current_start)
        prompt = history[current_start] if current_start < len(history) else None
        if self._pick is None or self._pick.prompt is not prompt:
            query = prompt.content if prompt is not None else ""
            self._pick = await self._choose(history, turns[:-1], query, prompt, base_url)
        pick = self._pick
        active = list(history[current_start:])
        chosen: list[Turn] = []

        def take(turn: Turn) -> bool:
            trial = sorted([*chosen, turn], key=operator.attrgetter("first"))
            if fits(_gather(history, trial, pinned, active)):
                chosen.append(turn)
                return True
            return False

        if pick.fallback:
            for turn in reversed(turns):  # the newest that fit
                if not take(turn):
                    break
        else:
            if turns:
                take(turns[-1])
            for turn, _ in pick.picked:
                take(turn)
        chosen.sort(key=operator.attrgetter("first"))
        if pinned and not fits(_gather(history, chosen, pinned, active)):
            pinned = 0
        messages = _gather(history, chosen, pinned, active)
        scores = dict((t.number, s) for t, s in pick.picked)
        picked = tuple(t.number for t in chosen if t.number in scores)
        self._emit(
            ev.HistoryRecalled(
                session_id=self._sid,
                turns=tuple(t.number for t in chosen),
                picked=picked,
                scores=tuple(round(scores[n], 3) for n in picked),
                fallback=pick.fallback,
            )
        )
        return messages, len(messages) - len(active)

    async def _choose(
        self,
        history: Sequence[ChatMessage],
        older: list[Turn],
        query: str,
        prompt: ChatMessage | None,
        base_url: str | None,
    ) -> _Pick:
        if not older:
            return _Pick(prompt)  # nothing to choose from: no request at all
        vectors: list[Sequence[float]] | None = None
        # after an update in flight (one bound for both): it may be embedding the
        # very turn this request would otherwise embed again
        with trio.move_on_after(self.timeout):
            async with self._lock:
                missing = [t for t in older if self.index.vector(t.digest) is None][-_BATCH:]
                texts = (
                    query[:_TEXT_CHARS],
                    *(turn_text(history[t.first : t.end]) for t in missing),
                )
                vectors = await self._vectors(texts, base_url, math.inf)
        if vectors is None:
            if not self._failing:
                self._notice(
                    "history retrieval could not embed the prompt; this request carries "
                    "the newest turns that fit"
                )
            self._failing = True
            return _Pick(prompt, fallback=True)
        self._failing = False
        self.index.add(_entries(missing, vectors[1:]))
        q = vectors[0]
        scored: list[tuple[Turn, float]] = []
        for turn in older:
            v = self.index.vector(turn.digest)
            if v is not None and len(v) == len(q):
                score = sum(map(operator.mul, q, v))
                if score >= THRESHOLD:
                    scored.append((turn, score))
        scored.sort(key=lambda ts: -ts[1])
        return _Pick(prompt, tuple(scored[:MOST]))

    async def _vectors(
        self, texts: tuple[str, ...], base_url: str | None, timeout: float
    ) -> list[Sequence[float]] | None:
        with trio.move_on_after(timeout):
            try:
                got = await self._embed(self.index.provider, base_url, texts)
            except HarnessError:
                return None
            if len(got) != len(texts):
                return None
            return [unit(v) for v in got]
        return None

    # --- the index ----------------------------------------------------------------------

    async def update(self, history: Sequence[ChatMessage], base_url: str | None) -> int:
        """Embed every complete turn of *history* the index lacks and save it (after
        a run, in the background; at open when the index was rebuilt). How many turns
        it embedded; a failure stops quietly and the next update goes on."""
        history = list(history)
        _, turns = split_turns(history, len(history))
        done = 0
        # the write too is under the lock: two updates' writes, each in a thread, could
        # land out of order and the older document replace the newer
        async with self._lock:
            missing = [t for t in turns if self.index.vector(t.digest) is None]
            for i in range(0, len(missing), _BATCH):
                batch = missing[i : i + _BATCH]
                texts = tuple(turn_text(history[t.first : t.end]) for t in batch)
                vectors = await self._vectors(texts, base_url, INDEX_TIMEOUT)
                if vectors is None:
                    break
                self.index.add(_entries(batch, vectors))
                done += len(batch)
            self.index.renumber(turns)  # a compaction moves turns, not their vectors
            # a request may have embedded a turn this update would have: written here
            if self.index.dirty or self.index.started_afresh:
                # the fsync off the event loop: the next prompt may be starting
                document = self.index.document(keep={t.digest for t in turns})
                await trio.to_thread.run_sync(self.index.write, document)
        return done


def _entries(turns: Sequence[Turn], vectors: Sequence[Sequence[float]]) -> list[Entry]:
    return [
        Entry(t.number, t.first, t.end, t.digest, unit(v))
        for t, v in zip(turns, vectors, strict=True)
    ]


def _gather(
    history: Sequence[ChatMessage], turns: Sequence[Turn], pinned: int, active: list[ChatMessage]
) -> list[ChatMessage]:
    out: list[ChatMessage] = list(history[:pinned])
    for t in turns:
        out.extend(history[t.first : t.end])
    out.extend(active)
    return out
