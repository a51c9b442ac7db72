"""The last model rounds and tool calls, measured from a session's events, bounded."""

from __future__ import annotations

from pathlib import Path

from harness.conversation import events as ev
from harness.conversation.session._diagnostics import KEEP, Diagnostics
from tests.scripted import ScriptedModel, call, reply


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_round_is_timed_from_its_start_to_its_message_and_only_the_newest_are_kept() -> None:
    clock = Clock()
    sizes = iter(range(1000, 2000))
    d = Diagnostics(lambda: next(sizes), clock)
    for turn in range(1, KEEP + 6):
        d(ev.TurnStarted(session_id="s", turn=turn, model="m"))
        clock.now += 0.5
        d(ev.ThinkingDelta(session_id="s", text="hm"))
        clock.now += 0.25
        d(ev.TextDelta(session_id="s", text="x"))
        d(ev.UsageReported(session_id="s", prompt_tokens=turn * 10, completion_tokens=3))
        clock.now += 1.0
        d(ev.AssistantMessage(session_id="s", text="x", model="m2"))
        d(
            ev.ToolCallFinished(
                session_id="s", call_id=f"c{turn}", name="read_file", ok=True, output="ab" * turn
            )
        )
    assert len(d.rounds) == KEEP
    assert len(d.tools) == KEEP
    last = d.rounds[-1]
    assert (last.turn, last.model, last.prompt_tokens, last.completion_tokens) == (
        KEEP + 5,
        "m2",
        (KEEP + 5) * 10,
        3,
    )
    assert last.first_token == 0.5  # the thinking came first
    assert last.duration == 1.75
    assert last.request_tokens == 1000 + KEEP + 4
    assert d.rounds[0].turn == 6
    assert d.tools[-1].output_chars == 2 * (KEEP + 5)


async def test_the_session_reports_its_rounds_and_calls(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    model.add(
        reply("", call("read_file", path="a.txt"), usage=(50, 5)),
        reply("Hi.", usage=(80, 2)),
    )
    async with session_factory() as s:
        assert s.diagnostics() == ([], [])
        assert (await s.run("read it")).ok
        rounds, tools = s.diagnostics()
    assert [(r.turn, r.prompt_tokens, r.completion_tokens) for r in rounds] == [
        (1, 50, 5),
        (2, 80, 2),
    ]
    assert all(r.duration is not None and r.duration >= 0 for r in rounds)
    assert rounds[1].first_token is not None
    # the estimate learns from the counts reported, so only its presence is certain
    assert all(r.request_tokens > 0 for r in rounds)
    assert [(t.name, t.ok) for t in tools] == [("read_file", True)]
    assert tools[0].output_chars > len("hello")
