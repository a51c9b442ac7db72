"""Working memory: file activity from the tool events, the rest from one bounded model
request after a run, kept beside the session, and carried past a compaction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.conversation.context._bounds import TIME_SCALE_ENV
from harness.conversation.context._workmem import MEMORY_FILE, VERSION
from tests.scripted import ScriptedModel, call, reply

MEMORY_ANSWER = (
    "Here is the record:\n"
    '{"goal": "rename hello to bye in a.txt", "decisions": ["keep the file name"], '
    '"constraints": ["no new files"], "done": ["edited a.txt"], "pending": ["run the tests"], '
    '"problems": []}'
)


def _by_system(entries: dict[str, list[Any]]) -> Any:
    # the memory request and the loop's rounds arrive in either order: answer each by its
    # system prompt (the memory request's starts with "You keep the working memory")
    def answer(body: dict[str, Any]) -> Any:
        system = body["messages"][0]["content"] if body["messages"] else ""
        key = "memory" if system.startswith("You keep the working memory") else "loop"
        if key == "loop" and system.startswith("You compress"):
            key = "summary"
        return entries[key].pop(0)

    return answer


async def _wait_for(path: Path, predicate: Any) -> dict[str, Any]:
    file = trio.Path(path)
    with trio.fail_after(10):
        while True:
            if await file.exists():
                doc = json.loads(await file.read_text())
                if predicate(doc):
                    return doc
            await trio.sleep(0.05)


async def test_file_activity_and_the_models_record_survive_a_compaction(
    session_factory, model: ScriptedModel, workspace: Path, home: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    (workspace / "b.txt").write_text("other\n")
    entries: dict[str, list[Any]] = {
        "loop": [
            reply("", call("read_file", path="b.txt")),
            reply("", call("edit_file", path="a.txt", old_text="hello", new_text="bye")),
            reply("Renamed."),
            reply("After the summary."),
        ],
        "memory": [reply(MEMORY_ANSWER), reply("not json at all")],
        "summary": [reply("We renamed hello to bye.")],
    }
    model.add(*[_by_system(entries)] * 7)
    async with session_factory(memory_updates=True) as s:
        assert (await s.run("rename hello to bye in a.txt")).ok
        path = s.log.dir / MEMORY_FILE
        doc = await _wait_for(path, lambda d: d["goal"])
        assert doc["version"] == VERSION
        assert doc["files_read"] == ["b.txt"]
        assert doc["files_changed"] == ["a.txt"]
        assert doc["decisions"] == ["keep the file name"]
        assert doc["pending"] == ["run the tests"]
        assert await s.compact()
        assert (await s.run("what next?")).ok
        # an answer that is no record changes nothing
        await trio.sleep(0.3)
        assert json.loads(path.read_text())["goal"] == "rename hello to bye in a.txt"
    sent = model.requests[-2]["messages"]  # the round after the compaction
    summary = next(m["content"] for m in sent if "We renamed hello to bye." in m["content"])
    assert "Working memory of this session:\nGoal: rename hello to bye in a.txt" in summary
    assert "Files changed: a.txt" in summary
    assert "Pending: run the tests" in summary


async def test_a_corrupt_record_is_started_afresh_and_a_timeout_changes_nothing(
    session_factory, model: ScriptedModel, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the update's 10 s bound becomes 0.5 s; the answer comes whole 1 s after the
    # request, which the test waits out from the request's arrival (and more): with no
    # bound, it would be the record
    monkeypatch.setenv(TIME_SCALE_ENV, "0.05")
    (workspace / "a.txt").write_text("x\n")
    model.add(reply("", call("write_file", path="n.txt", content="1")), reply("Done."))
    model.add(reply(MEMORY_ANSWER, stall=1))
    async with session_factory(memory_updates=True) as s:
        path = s.log.dir / MEMORY_FILE
        path.write_text("{ torn")
        assert (await s.run("write n")).ok
        doc = await _wait_for(path, lambda d: d["files_changed"] == ["n.txt"])
        await trio.to_thread.run_sync(model.wait_for_requests, 3)  # the update's request
        with trio.move_on_after(2):
            while not doc["goal"]:
                await trio.sleep(0.2)
                doc = json.loads(path.read_text())
        assert doc["goal"] == ""  # the slow answer was dropped
        assert doc["files_changed"] == ["n.txt"]
