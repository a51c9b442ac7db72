"""The context budget: estimates, calibration, trimming, summarising with the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.conversation import events as ev
from harness.conversation._budget import (
    BudgetExceeded,
    ContextBudget,
    ContextSettings,
)
from harness.messages.model import ChatMessage, ToolCall
from tests.conversation.conftest import drain
from tests.scripted import ScriptedModel, call, reply


def _history(n_rounds: int, size: int) -> list[ChatMessage]:
    out = []
    for i in range(n_rounds):
        out.append(ChatMessage(role="user", content=f"question {i}"))
        out.append(
            ChatMessage(
                role="assistant", tool_calls=(ToolCall(f"c{i}", "read_file", {"path": "a"}),)
            )
        )
        out.append(
            ChatMessage(role="tool", content="x" * size, tool_call_id=f"c{i}", name="read_file")
        )
        out.append(ChatMessage(role="assistant", content=f"answer {i}"))
    return out


def test_defaults_per_provider() -> None:
    assert ContextBudget("ollama").window == 8192
    assert ContextBudget("anthropic").window == 200_000
    b = ContextBudget("openai", ContextSettings(window=1000, reserve=100))
    assert b.limit == 900


def test_estimates_reuse_measures_yet_follow_every_change() -> None:
    from harness.messages.model import ToolSchema

    tools = (ToolSchema("read_file", "read a file", {"type": "object"}),)
    history = _history(5, 300)
    kept = ContextBudget("openai")
    for step in range(60):
        # the history grows, a message is rewritten (trimming), and long ago ones go
        history.append(ChatMessage(role="user", content=f"more {step} " * step))
        if step % 7 == 0:
            history[2] = ChatMessage(role="tool", content="y" * step, tool_call_id="c0")
        if step % 20 == 19:
            del history[:4]
        fresh = ContextBudget("openai")
        assert kept.estimate("sys", history, tools) == fresh.estimate("sys", history, tools)
        assert kept.estimate("sys", history, list(tools)) == fresh.estimate("sys", history, tools)
        assert kept.estimate("sys", history, ()) == fresh.estimate("sys", history, ())
    assert len(kept._measured) <= 2 * len(history) + 256


def test_calibration_moves_toward_reported_counts() -> None:
    b = ContextBudget("openai")
    msgs = [ChatMessage(role="user", content="y" * 4000)]
    raw = b.estimate("", msgs)
    b.note_sent("", msgs, ())
    b.calibrate(raw * 2)
    assert b.estimate("", msgs) == pytest.approx(raw * 2, rel=0.01)
    b.note_sent("", msgs, ())
    b.calibrate(None)  # a provider that reports nothing changes nothing
    assert b.estimate("", msgs) == pytest.approx(raw * 2, rel=0.01)


def test_trims_old_tool_results_first_and_never_the_current_turn() -> None:
    b = ContextBudget("openai", ContextSettings(window=3000, reserve=200))
    history = _history(3, 3000)
    current = len(history)
    history += [
        ChatMessage(role="user", content="now"),
        ChatMessage(role="assistant", tool_calls=(ToolCall("cx", "read_file", {}),)),
        ChatMessage(role="tool", content="z" * 3000, tool_call_id="cx", name="read_file"),
    ]
    plan = b.plan("system", history, (), current)
    assert plan.summarise == 0
    assert plan.trimmed >= 1
    assert plan.messages[2].content.startswith("[output trimmed")
    assert plan.messages[-1].content == "z" * 3000  # the current turn is whole
    assert all(
        m.tool_call_id == h.tool_call_id for m, h in zip(plan.messages, history, strict=True)
    )
    assert history[2].content == "x" * 3000  # the history itself is untouched


def test_asks_to_summarise_when_trimming_is_not_enough() -> None:
    b = ContextBudget("openai", ContextSettings(window=1200, reserve=200))
    history = [ChatMessage(role="user", content="words " * 800), ChatMessage(role="assistant")]
    plan = b.plan("", [*history, ChatMessage(role="user", content="now")], (), 2)
    assert plan.summarise == 2


def test_oversized_request_fails_before_sending() -> None:
    b = ContextBudget("openai", ContextSettings(window=500, reserve=100))
    with pytest.raises(BudgetExceeded, match="window allows"):
        b.plan("", [ChatMessage(role="user", content="q" * 10_000)], (), 0)


async def test_summarises_with_the_model_and_keeps_agents_md(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Always answer in French.\n")
    (workspace / "big.txt").write_text("line of text\n" * 120)

    def summary(body: dict) -> object:
        assert "compress" in body["messages"][0]["content"]
        return reply("The user read big.txt; it holds repeated lines.", usage=None)

    # no usage reports: calibration would move the estimate this test is built on
    model.add(
        reply("", call("read_file", path="big.txt"), usage=None),
        reply("It repeats.", usage=None),
        summary,
        reply("Encore.", usage=None),
    )
    async with session_factory(context=ContextSettings(threshold=1.0)) as s:
        # a window just above what the system prompt and the tool schemas need
        b = s.conversation.budget
        base = b.estimate(s.conversation.config.system, [], s.conversation.schemas())
        b.window, b.reserve = base + 1500, 200
        events = s.events()
        first = await s.run("read big.txt " + "context " * 150)
        assert first.ok, first
        second = await s.run("and again? " + "please " * 570)
        seen = drain(events)
    assert second.ok, second
    compacted = [e for e in seen if isinstance(e, ev.Compacted)]
    assert len(compacted) == 1
    assert compacted[0].replaced == 4
    last = model.requests[-1]["messages"]
    system = last[0]
    assert system["role"] == "system"
    assert "Always answer in French." in system["content"]  # AGENTS.md is never dropped
    assert "[Summary of the earlier conversation]" in last[1]["content"]
    assert last[-1]["content"].startswith("and again?")
    assert not any(m["role"] == "tool" for m in last)
    # resume rebuilds the compacted history
    loaded = s.store.load(s.id)
    assert loaded.history[0].content.startswith("[Summary")
