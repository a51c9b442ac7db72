"""Semantic history retrieval on real workers: the scripted model answers the chat and
(OpenAI's format) the embeddings; a loopback server speaks Ollama's. The embedding
model is a bag of words hashed into a fixed number of dimensions: texts that share
words point the same way, so the relevant old turn is the one a real model would pick."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.conversation import events as ev
from harness.conversation import open_session
from harness.conversation.context._bounds import TIME_SCALE_ENV
from harness.conversation.context._recall_index import INDEX_FILE
from tests.model._server import LoopbackServer, Recorded, Reply, ndjson
from tests.scripted import ScriptedModel, reply

from .conftest import options_for

STOP = {"what", "this", "that", "with", "which", "into", "from", "your", "have", "about"}
DIMS = 512


def bag_of_words(text: str) -> list[float]:
    vector = [0.0] * DIMS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if len(word) >= 4 and word not in STOP:
            vector[zlib.crc32(word.encode()) % DIMS] += 1.0
    vector[0] += 0.01  # never the zero vector
    return vector


LAUNCH = ("Remember this: the launch code for the rocket is 7419.", "Noted: launch code 7419.")
NOISE = [
    ("Suggest a good name for a cat.", "Whiskers."),
    ("Give me a pasta recipe using tomatoes.", "Spaghetti pomodoro."),
    ("How tall is Mount Everest?", "Roughly 8849 metres."),
    ("Translate hello into French.", "Bonjour."),
    ("Which planet is largest?", "Jupiter."),
]
QUESTION = "What was the launch code for the rocket?"


def user_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "user"]


async def wait_for_index(path: Path, turns: int, model: str = "bag") -> dict[str, Any]:
    # background work: generous on a loaded machine, at once on an idle one
    with trio.fail_after(30):
        while True:
            try:
                doc = json.loads(await trio.Path(path).read_text())
            except (OSError, ValueError):
                doc = {}
            if doc.get("model") == model and len(doc.get("turns", [])) >= turns:
                return doc
            await trio.sleep(0.05)


async def test_the_relevant_old_turn_is_sent_over_recent_noise_and_nothing_is_changed(
    workspace: Path, home: Path
) -> None:
    with ScriptedModel(embedder=bag_of_words) as model:
        model.add(*(reply(a) for _, a in [LAUNCH, *NOISE]), reply("It is 7419."))
        opts = options_for(workspace, home, model, history_embedding_model="bag")
        async with open_session(opts) as s:
            seen = s.events()
            for prompt, _ in [LAUNCH, *NOISE]:
                assert (await s.run(prompt)).ok
            await wait_for_index(s.log.dir / INDEX_FILE, 6)
            assert (await s.run(QUESTION)).ok
            await wait_for_index(s.log.dir / INDEX_FILE, 7)
            events = []
            while True:
                try:
                    events.append(seen.receive_nowait())
                except trio.WouldBlock:
                    break
            history = list(s.history)
            rounds, _ = s.diagnostics()
            conv = s.conversation
            used = s.context()[0]  # the last request's size, not the whole history's
            assert used == conv.last_request_tokens
            assert used < conv.budget.estimate(conv.config.system, history, conv.schemas())
            index = (s.log.dir / INDEX_FILE).read_text()
            log = (s.log.dir / "events.jsonl").read_text()
        sent = model.requests[-1]["messages"]
        embedded = [text for r in model.embed_requests for text in r["input"]]
    # turn 1 (picked), turn 6 (the previous one), the question; not the noise between
    assert user_texts(sent) == [LAUNCH[0], NOISE[-1][0], QUESTION]
    assert [m["content"] for m in sent if m["role"] == "assistant"] == [LAUNCH[1], NOISE[-1][1]]
    recalled = [e for e in events if isinstance(e, ev.HistoryRecalled)][-1]
    assert (recalled.turns, recalled.picked, recalled.fallback) == ((1, 6), (1,), False)
    assert recalled.scores[0] >= 0.65
    assert rounds[-1].recalled == "1, 6 (picked 1)"
    # the history and the log keep every turn
    assert len(history) == 14
    assert [m.content for m in history if m.role == "user"][:2] == [LAUNCH[0], NOISE[0][0]]
    assert log.count('"type":"user_message"') == 7
    # the index: vectors and references, not the text; each turn embedded once
    doc = json.loads(index)
    assert doc["version"] == 1
    assert doc["model"] == "bag"
    assert [(t["turn"], t["first"], t["end"]) for t in doc["turns"]] == [
        (n + 1, 2 * n, 2 * n + 2) for n in range(7)
    ]
    assert "launch" not in index
    assert "7419" not in index
    # each complete turn once (in the background after its run), each prompt with an
    # older turn to choose from once (runs 3 to 7); never a turn still running
    turns = [f"{p}\n{a}" for p, a in [LAUNCH, *NOISE, (QUESTION, "It is 7419.")]]
    prompts = [p for p, _ in NOISE[1:]] + [QUESTION]
    assert sorted(t for t in embedded if "\n" in t) == sorted(turns)
    assert sorted(t for t in embedded if "\n" not in t) == sorted(prompts)


async def test_an_embedding_timeout_falls_back_to_the_newest_turns_and_the_run_completes(
    workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIME_SCALE_ENV, "0.25")  # the embedding's 4 s bound is 1 s
    with ScriptedModel(embedder=bag_of_words, embed_stall=30) as model:
        model.add(reply("Noted."), reply("Whiskers."), reply("Still 7419."))
        opts = options_for(workspace, home, model, history_embedding_model="bag")
        async with open_session(opts) as s:
            seen = s.events()
            assert (await s.run(LAUNCH[0])).ok
            assert (await s.run(NOISE[0][0])).ok
            with trio.fail_after(15):
                result = await s.run(QUESTION)
            assert result.ok
            assert s.diagnostics()[0][-1].recalled == "recent: 1, 2"
            events = []
            while True:
                try:
                    events.append(seen.receive_nowait())
                except trio.WouldBlock:
                    break
            history = list(s.history)
    sent = model.requests[-1]["messages"]
    assert user_texts(sent) == [LAUNCH[0], NOISE[0][0], QUESTION]  # both fit: the newest
    notices = [e for e in events if isinstance(e, ev.Notice)]
    assert len(notices) == 1
    assert "could not embed" in notices[0].message
    recalled = [e for e in events if isinstance(e, ev.HistoryRecalled)][-1]
    assert (recalled.turns, recalled.fallback) == ((1, 2), True)
    assert len(history) == 6


async def test_a_corrupt_index_and_one_from_another_model_are_rebuilt_from_the_log(
    workspace: Path, home: Path
) -> None:
    with ScriptedModel(embedder=bag_of_words) as model:
        model.add(*(reply(a) for _, a in [LAUNCH, *NOISE[:2]]))
        opts = options_for(workspace, home, model, history_embedding_model="bag")
        async with open_session(opts) as s:
            for prompt, _ in [LAUNCH, *NOISE[:2]]:
                assert (await s.run(prompt)).ok
            path = s.log.dir / INDEX_FILE
            sid = s.id
            await wait_for_index(path, 3)
        path.write_text('{"version": 1, "turns": [{"torn')
        before = len(model.embed_requests)
        async with open_session(
            options_for(workspace, home, model, resume=sid, history_embedding_model="bag")
        ):
            doc = await wait_for_index(path, 3)
        assert [t["turn"] for t in doc["turns"]] == [1, 2, 3]
        assert len(model.embed_requests) == before + 1  # one batch: the log's three turns

        doc["model"] = "other-model"
        path.write_text(json.dumps(doc))
        model.add(reply("It is 7419."))
        async with open_session(
            options_for(workspace, home, model, resume=sid, history_embedding_model="bag")
        ) as s:
            assert (await s.run(QUESTION)).ok
            doc = await wait_for_index(path, 4)
    assert doc["model"] == "bag"
    assert user_texts(model.requests[-1]["messages"]) == [LAUNCH[0], NOISE[1][0], QUESTION]


OLLAMA_DONE = {
    "model": "m",
    "message": {"role": "assistant", "content": ""},
    "done": True,
    "done_reason": "stop",
    "prompt_eval_count": 10,
    "eval_count": 1,
}


def ollama_chat(answers: list[str]) -> Callable[[Recorded], Reply]:
    def answer(req: Recorded) -> Reply:
        msg = {
            "model": "m",
            "message": {"role": "assistant", "content": answers.pop(0)},
            "done": False,
        }
        return Reply(chunks=[ndjson(msg, OLLAMA_DONE)])

    return answer


def ollama_embed(req: Recorded) -> Reply:
    body = req.json()
    doc = {"model": body["model"], "embeddings": [bag_of_words(t) for t in body["input"]]}
    return Reply(chunks=[json.dumps(doc).encode()])


async def test_retrieval_speaks_ollamas_embed_format(
    workspace: Path, home: Path, model: ScriptedModel, nursery: trio.Nursery
) -> None:
    server = LoopbackServer()
    await nursery.start(server.run)
    answers = [LAUNCH[1], NOISE[0][1], NOISE[1][1], "It is 7419."]
    server.answer("/api/chat", ollama_chat(answers))
    server.answer("/api/embed", ollama_embed)
    server.always("/api/show", Reply(chunks=[b'{"capabilities": ["completion", "tools"]}']))
    opts = options_for(
        workspace,
        home,
        model,
        provider="ollama",
        base_url=server.url,
        models=("m",),
        history_embedding_model="nomic-embed-text",
    )
    async with open_session(opts) as s:
        for prompt, _ in [LAUNCH, *NOISE[:2]]:
            assert (await s.run(prompt)).ok
        await wait_for_index(s.log.dir / INDEX_FILE, 3, model="nomic-embed-text")
        assert (await s.run(QUESTION)).ok
    chats = [r.json() for r in server.requests if r.path == "/api/chat"]
    assert user_texts(chats[-1]["messages"]) == [LAUNCH[0], NOISE[1][0], QUESTION]
    embeds = [r.json() for r in server.requests if r.path == "/api/embed"]
    assert {e["model"] for e in embeds} == {"nomic-embed-text"}
    assert [QUESTION] in [e["input"] for e in embeds]
