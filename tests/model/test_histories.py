"""The histories the model worker keeps for delta requests."""

from __future__ import annotations

from harness.actors.model._histories import HistoryStore
from harness.messages.model import ChatMessage, ChatRequest, HistoryRef, HistoryUnknown


def _msgs(*texts: str) -> tuple[ChatMessage, ...]:
    return tuple(ChatMessage(role="user", content=t) for t in texts)


def _req(messages: tuple[ChatMessage, ...], ref: HistoryRef | None) -> ChatRequest:
    return ChatRequest(provider="openai", models=("m",), messages=messages, history=ref)


def test_a_request_without_a_ref_passes_and_is_not_kept() -> None:
    store = HistoryStore()
    req = _req(_msgs("a"), None)
    assert store.resolve(req) is req
    assert len(store) == 0


def test_a_delta_extends_the_history_a_full_request_left() -> None:
    store = HistoryStore()
    store.resolve(_req(_msgs("a", "b"), HistoryRef("k", 1)))
    out = store.resolve(_req(_msgs("c"), HistoryRef("k", 1, base=2)))
    assert isinstance(out, ChatRequest)
    assert [m.content for m in out.messages] == ["a", "b", "c"]
    out = store.resolve(_req(_msgs("d", "e"), HistoryRef("k", 1, base=3)))
    assert isinstance(out, ChatRequest)
    assert [m.content for m in out.messages] == ["a", "b", "c", "d", "e"]


def test_a_delta_on_a_base_not_held_is_refused() -> None:
    store = HistoryStore()
    unknown = store.resolve(_req(_msgs("c"), HistoryRef("k", 1, base=2)))
    assert isinstance(unknown, HistoryUnknown)
    assert unknown.key == "k"
    store.resolve(_req(_msgs("a", "b"), HistoryRef("k", 2)))
    # another generation, or another length: refused, and forgotten
    assert isinstance(store.resolve(_req(_msgs("c"), HistoryRef("k", 1, base=2))), HistoryUnknown)
    assert isinstance(store.resolve(_req(_msgs("c"), HistoryRef("k", 2, base=2))), HistoryUnknown)
    store.resolve(_req(_msgs("a", "b"), HistoryRef("k", 3)))
    unknown = store.resolve(_req(_msgs("c"), HistoryRef("k", 3, base=3)))
    assert isinstance(unknown, HistoryUnknown)
    assert "holds 2 messages" in unknown.reason


def test_a_full_request_replaces_what_is_kept() -> None:
    store = HistoryStore()
    store.resolve(_req(_msgs("a", "b", "c"), HistoryRef("k", 1)))
    store.resolve(_req(_msgs("summary"), HistoryRef("k", 2)))
    out = store.resolve(_req(_msgs("next"), HistoryRef("k", 2, base=1)))
    assert isinstance(out, ChatRequest)
    assert [m.content for m in out.messages] == ["summary", "next"]


def test_the_least_recently_used_history_goes_first() -> None:
    store = HistoryStore(capacity=2)
    store.resolve(_req(_msgs("a"), HistoryRef("one", 1)))
    store.resolve(_req(_msgs("b"), HistoryRef("two", 1)))
    store.resolve(_req(_msgs("a2"), HistoryRef("one", 1, base=1)))  # "one" used last
    store.resolve(_req(_msgs("c"), HistoryRef("three", 1)))
    assert len(store) == 2
    evicted = store.resolve(_req(_msgs("b2"), HistoryRef("two", 1, base=1)))
    assert isinstance(evicted, HistoryUnknown)
    kept = store.resolve(_req(_msgs("a3"), HistoryRef("one", 1, base=2)))
    assert isinstance(kept, ChatRequest)


def test_a_delta_takes_the_system_prompt_and_tools_of_its_generation() -> None:
    from harness.messages.model import ToolSchema

    tools = (ToolSchema("read_file", "read a file", {"type": "object"}),)
    store = HistoryStore()
    full = ChatRequest(
        provider="openai",
        models=("m",),
        messages=_msgs("a"),
        system="be brief",
        tools=tools,
        history=HistoryRef("k", 1),
    )
    store.resolve(full)
    out = store.resolve(_req(_msgs("b"), HistoryRef("k", 1, base=1)))
    assert isinstance(out, ChatRequest)
    assert out.system == "be brief"
    assert out.tools is tools
