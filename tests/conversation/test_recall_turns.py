"""The pure parts of history retrieval: complete turns (a call never leaves its result's
turn, a compaction's summary is pinned), the index file, and the notice a provider
without embeddings gets once."""

from __future__ import annotations

import json
from pathlib import Path

from harness.conversation import events as ev
from harness.conversation._history import SUMMARY_PREFIX
from harness.conversation.context._recall import Recall, split_turns, turn_text
from harness.conversation.context._recall_index import Entry, RecallIndex, Turn, unit
from harness.messages.model import ChatMessage, ToolCall

CALL = ToolCall("c1", "read_file", {"path": "a.py"})
HISTORY = [
    ChatMessage("user", SUMMARY_PREFIX + "we set things up"),
    ChatMessage("user", "read a.py"),
    ChatMessage("assistant", "", tool_calls=(CALL,)),
    ChatMessage("tool", "print(1)", tool_call_id="c1", name="read_file"),
    ChatMessage("user", "and hurry"),  # joined the running task: the same turn
    ChatMessage("assistant", "It prints 1."),
    ChatMessage("user", "thanks"),
    ChatMessage("assistant", "You are welcome."),
    ChatMessage("user", "now b.py"),  # the active turn
]


def test_turns_end_at_answers_and_keep_calls_with_their_results() -> None:
    pinned, turns = split_turns(HISTORY, 8)
    assert pinned == 1
    assert [(t.number, t.first, t.end) for t in turns] == [(1, 1, 6), (2, 6, 8)]
    assert turns[0].digest != turns[1].digest
    assert split_turns(HISTORY, 8)[1] == turns  # the same turns, the same hashes
    text = turn_text(HISTORY[1:6])
    assert text == 'read a.py\nread_file {"path":"a.py"}\nand hurry\nIt prints 1.'


def test_the_index_round_trips_and_starts_afresh_for_another_model(tmp_path: Path) -> None:
    path = tmp_path / "recall_index.json"
    index = RecallIndex(path, "ollama", "e")
    assert index.started_afresh == "missing"
    index.add([Entry(1, 1, 6, "abc", unit([3.0, 4.0]))])
    index.save()
    again = RecallIndex(path, "ollama", "e")
    assert again.started_afresh == ""
    vector = again.vector("abc")
    assert vector is not None
    assert [round(x, 3) for x in vector] == [0.6, 0.8]
    assert json.loads(path.read_text())["turns"][0]["hash"] == "abc"
    # a compaction moves a turn: its vector stays, its reference follows
    assert again.renumber([Turn(1, 1, 6, "abc")]) is False
    assert again.renumber([Turn(1, 2, 7, "abc")]) is True
    again.save()
    assert json.loads(path.read_text())["turns"][0]["first"] == 2
    assert RecallIndex(path, "ollama", "other").started_afresh == "another model"
    path.write_text("[1, 2")
    assert RecallIndex(path, "ollama", "e").started_afresh == "corrupt"


def test_a_provider_without_embeddings_is_told_once() -> None:
    seen: list[ev.ConversationEvent] = []

    async def embed(
        provider: str, base_url: str | None, texts: tuple[str, ...]
    ) -> list[list[float]]:
        raise AssertionError("never asked")

    recall = Recall(
        model="e", embed=embed, path=None, emit=seen.append, session_id="s", provider="gemini"
    )
    assert not recall.active("gemini")
    assert not recall.active("gemini")
    assert recall.active("ollama")
    (notice,) = seen
    assert isinstance(notice, ev.Notice)
    assert "gemini has no embeddings endpoint" in notice.message
