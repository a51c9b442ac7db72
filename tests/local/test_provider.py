"""The ``local`` provider in trio: the Provider contract, streaming, cancelling
mid-generation, and every way a model can be missing or broken.

The mechanics run the tiny model (``_tiny.py``), named by its path as a user may name a
``.gguf`` file; the one test of what the model writes runs the real default model."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path

import attrs
import pytest

from harness.actors.model import (
    Finish,
    Provider,
    ProviderCall,
    ProviderError,
    parse_reply,
    text_protocol_prompt,
)
from harness.actors.model.local import DEFAULT_MODEL, make_provider, stream_load
from harness.actors.model.local._engine import Generation
from harness.actors.model.local._provider import LocalProvider
from harness.actors.tools import builtin_table
from harness.ipc import Message
from harness.messages.local import LoadLocalModel, LocalModelProgress
from harness.messages.model import ChatMessage, ChatOptions, TextDelta, Usage

pytestmark = pytest.mark.slow


def _call(text: str, max_tokens: int = 12, model: str = DEFAULT_MODEL) -> ProviderCall:
    return ProviderCall(
        model=model,
        messages=(ChatMessage(role="user", content=text),),
        options=ChatOptions(max_tokens=max_tokens, temperature=0.0),
        text_protocol=True,
    )


async def _collect(events: AsyncIterator[object]) -> list[object]:
    return [e async for e in events]


def _user_catalogue(home: Path, entry: dict[str, object]) -> None:
    (home / "models").mkdir(exist_ok=True)
    (home / "models" / "catalogue.json").write_text(json.dumps({"models": [entry]}))


def test_it_is_a_provider() -> None:
    provider = make_provider()
    assert isinstance(provider, Provider)
    assert provider.name == "local"


async def test_streams_raw_text_then_usage_then_finish(
    tiny_provider: LocalProvider, tiny_name: str
) -> None:
    events = await _collect(tiny_provider.stream(_call("Count from 1 to 20.", 12, tiny_name)))
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) >= 6  # token by token, not one block
    usage, finish = events[-2], events[-1]
    assert isinstance(usage, Usage)
    assert isinstance(finish, Finish)
    assert usage.completion_tokens == len(deltas)
    assert usage.prompt_tokens
    assert usage.prompt_tokens > 5
    assert finish.reason in ("stop", "length")
    assert await tiny_provider.supports_tools(tiny_name, "", None) is False
    # A smaller context than the loaded one reuses the loaded model.
    before = tiny_provider.preload(tiny_name)
    small = attrs.evolve(
        _call("Hi.", 1, tiny_name), options=ChatOptions(max_tokens=1, context_window=2048)
    )
    later = await _collect(tiny_provider.stream(small))
    assert tiny_provider.preload(tiny_name) is before
    # what the call before read (the template's system turn, at least) is not read again
    reused = next(e for e in later if isinstance(e, Usage))
    assert reused.cached_tokens
    assert reused.prompt_tokens
    assert 0 < reused.cached_tokens < reused.prompt_tokens
    assert DEFAULT_MODEL in await tiny_provider.list_models("", None)


def _announcing(first_words: str) -> ProviderCall:
    # read_file alone: the one call it announces. The prompt's state is saved once per
    # machine, and a change of any offered tool's text has the model read the whole prompt
    # again: all the small model's tools made that 1,400 tokens (100 s in a suite run,
    # read with one thread beside the other worker), read_file's alone 330
    tools = builtin_table().schemas(names=("read_file",))
    return ProviderCall(
        model=DEFAULT_MODEL,
        system=f"Begin every reply with the words: {first_words} Then stop.\n\n"
        + text_protocol_prompt(tools),
        # (a question naming calc.py in itself would have it read before any reply:
        # read-named)
        messages=(ChatMessage(role="user", content="Look at calc.py. What does it do?"),),
        options=ChatOptions(max_tokens=120, temperature=0.0),
        text_protocol=True,
        text_tools=tuple(tools),
    )


async def _announced_read(provider: LocalProvider, call: ProviderCall) -> tuple[Usage, Generation]:
    """Stream *call*; check the reply announced a read, stopped, and ends with the one
    read_file call; return its usage and the provider's last generation."""
    events = await _collect(provider.stream(call))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    first = text.partition("\n\n<tool_call>")[0]
    assert "I will read" in first
    assert "<tool_call>" not in first  # the model stopped without the call...
    tools = {t.name: tuple(t.parameters["properties"]) for t in call.text_tools}
    parsed = parse_reply(text, tools)
    # ...and what follows is that call, whole
    assert [c.name for c in parsed.calls] == ["read_file"]
    assert parsed.calls[0].arguments is not None
    assert parsed.calls[0].arguments["path"] in ("calc.py", "util.py")
    assert text.rstrip().endswith("</tool_call>")
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.prompt_tokens is not None
    assert usage.completion_tokens is not None
    assert provider.last is not None
    return usage, provider.last


async def test_a_reply_that_announces_a_read_of_one_file_ends_with_that_read(
    shared_provider: LocalProvider,
) -> None:
    call = _announcing("I will read the file calc.py.")
    usage, last = await _announced_read(shared_provider, call)
    # the call was written as the reply named it: one generation, its own usage
    assert (usage.prompt_tokens, usage.completion_tokens) == (
        last.prompt_tokens,
        last.completion_tokens,
    )


async def test_a_reply_that_announces_a_read_and_stops_ends_with_the_read_asked_for(
    shared_provider: LocalProvider,
) -> None:
    # two files named: which one to read first is the model's, in one more generation
    call = _announcing("I will read the files calc.py and util.py.")
    usage, nudged = await _announced_read(shared_provider, call)
    # the usage gives the size of the request asked (the budget learns the tokenizer from
    # it), not that plus the nudged generation's longer prompt; every token written counts
    assert usage.prompt_tokens is not None
    assert usage.completion_tokens is not None
    assert usage.prompt_tokens < nudged.prompt_tokens < 2 * usage.prompt_tokens
    assert usage.completion_tokens > nudged.completion_tokens


async def test_closing_the_stream_stops_generation_within_a_token(
    tiny_provider: LocalProvider, tiny_name: str
) -> None:
    seen = 0
    story = _call("Write a long story.", 300, tiny_name)
    async with aclosing(tiny_provider.stream(story)) as events:
        async for event in events:
            if isinstance(event, TextDelta):
                seen += 1
                if seen == 3:
                    break
    last = tiny_provider.last
    assert last is not None
    assert last.finish_reason == "cancelled"
    # The thread may have run a token or two ahead of the reader, never far.
    assert 3 <= last.completion_tokens <= 6
    # The model is free again at once.
    events = await _collect(tiny_provider.stream(_call("Say OK.", 3, tiny_name)))
    assert isinstance(events[-1], Finish)


async def test_load_progress_streams_to_ready(tiny_provider: LocalProvider, tiny_name: str) -> None:
    items: list[Message] = []

    async def emit(msg: Message) -> None:
        items.append(msg)

    await stream_load(tiny_provider, LoadLocalModel(model=tiny_name), emit)
    assert items
    assert all(isinstance(i, LocalModelProgress) for i in items)
    last = items[-1]
    assert isinstance(last, LocalModelProgress)
    assert last.stage == "ready"


async def test_an_unknown_model_is_not_found() -> None:
    provider = LocalProvider()
    with pytest.raises(ProviderError) as info:
        await _collect(provider.stream(_call("hi", model="no-such-model")))
    assert info.value.kind == "not_found"
    assert DEFAULT_MODEL in info.value.message


async def test_a_missing_model_package_names_the_install_command(harness_home: Path) -> None:
    _user_catalogue(
        harness_home,
        {"name": "absent", "packages": [["harness-absent-part", "1.0"]], "sha256": "0" * 64},
    )
    provider = LocalProvider()
    with pytest.raises(ProviderError) as info:
        await _collect(provider.stream(_call("hi", model="absent")))
    assert info.value.kind == "config"
    assert "harness-absent-part" in info.value.message
    assert "-m harness.actors.model.local install absent" in info.value.message


async def test_a_corrupt_model_file_fails_its_checksum(harness_home: Path, tmp_path: Path) -> None:
    part = tmp_path / "model.bin"
    part.write_bytes(b"GGUF" + b"\0" * 4096)
    _user_catalogue(
        harness_home,
        {"name": "corrupt", "files": [str(part)], "sha256": hashlib.sha256(b"x").hexdigest()},
    )
    provider = LocalProvider({**os.environ, "HARNESS_MODEL_CACHE": str(tmp_path / "cache")})
    with pytest.raises(ProviderError) as info:
        await _collect(provider.stream(_call("hi", model="corrupt")))
    assert info.value.kind == "config"
    assert "fails its checksum" in info.value.message
    assert "was not loaded" in info.value.message
    # Asked again, it says the same (no half-loaded state, no crash).
    with pytest.raises(ProviderError, match="fails its checksum"):
        await _collect(provider.stream(_call("hi", model="corrupt")))


async def test_a_verified_file_llama_cpp_refuses_is_a_clear_error(
    harness_home: Path, tmp_path: Path
) -> None:
    data = b"GGUF" + b"\0" * 4096
    part = tmp_path / "model.bin"
    part.write_bytes(data)
    _user_catalogue(
        harness_home,
        {"name": "junk", "files": [str(part)], "sha256": hashlib.sha256(data).hexdigest()},
    )
    provider = LocalProvider({**os.environ, "HARNESS_MODEL_CACHE": str(tmp_path / "cache")})
    with pytest.raises(ProviderError) as info:
        await _collect(provider.stream(_call("hi", model="junk")))
    assert info.value.kind == "config"
    assert "could not load" in info.value.message


async def test_switched_off_it_refuses_with_a_reason(tiny_name: str, tiny_cache: Path) -> None:
    # a session on the embedded model names it in HARNESS_LOCAL_MODEL, for its worker to
    # start the load as the provider is made: switched off, no load starts (the terminal
    # with HARNESS_EMBEDDED=off loaded the whole model, and its exit waited for the load)
    before = set(threading.enumerate())
    env = {"HARNESS_EMBEDDED": "off", "HARNESS_LOCAL_MODEL": tiny_name}
    provider = LocalProvider({**os.environ, "HARNESS_MODEL_CACHE": str(tiny_cache), **env})
    assert [t.name for t in threading.enumerate() if t not in before] == []
    with pytest.raises(ProviderError) as info:
        await _collect(provider.stream(_call("hi")))
    assert info.value.kind == "config"
    assert "HARNESS_EMBEDDED=off" in info.value.message
    await provider.aclose()


async def test_a_long_prompt_streams_its_reading_before_the_reply(
    tiny_provider: LocalProvider, tiny_name: str
) -> None:
    skim = _call("A note to skim. " * 200 + "Say ok.", 2, tiny_name)
    events = await _collect(tiny_provider.stream(skim))
    reading = [e for e in events if isinstance(e, LocalModelProgress)]
    first_text = next(i for i, e in enumerate(events) if isinstance(e, TextDelta))
    assert reading
    assert all(events.index(e) < first_text for e in reading)
    assert {e.stage for e in reading} == {"reading"}
    total = reading[0].total
    assert reading[0].done == 0
    assert reading[-1].done == total
    assert reading[-1].message == f"reading {total:,} tokens 100%"
    # a short prompt is read with nothing to show
    short = await _collect(tiny_provider.stream(_call("Say ok.", 1, tiny_name)))
    assert not [e for e in short if isinstance(e, LocalModelProgress)]
