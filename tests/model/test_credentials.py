"""Keys: the environment first, then providers.json (0600, written atomically)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from harness.actors.model import ProviderError
from harness.actors.model._credentials import (
    forget_key,
    load_providers,
    resolve_credentials,
    save_key,
)


def test_saved_file_is_0600_and_keeps_other_providers(tmp_path: Path) -> None:
    env = {"HARNESS_HOME": str(tmp_path / "h")}
    path = save_key("openai", "sk-1", base_url="http://x/v1", env=env)
    save_key("anthropic", "sk-2", env=env)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {
        "anthropic": {"api_key": "sk-2"},
        "openai": {"api_key": "sk-1", "base_url": "http://x/v1"},
    }
    assert [p.name for p in path.parent.iterdir()] == ["providers.json"]  # no temp left


def test_environment_wins_over_the_file_and_the_request_over_both(tmp_path: Path) -> None:
    env = {"HARNESS_HOME": str(tmp_path)}
    save_key("openai", "from-file", base_url="http://file", env=env)
    assert resolve_credentials("openai", env=env) == ("from-file", "http://file")
    env["OPENAI_API_KEY"] = "from-env"
    assert resolve_credentials("openai", env=env) == ("from-env", "http://file")
    assert resolve_credentials("openai", api_key="req", base_url="http://r", env=env) == (
        "req",
        "http://r",
    )
    assert resolve_credentials("ollama", env=env) == (None, "")


def test_a_broken_file_is_a_clear_error_and_is_never_overwritten(tmp_path: Path) -> None:
    env = {"HARNESS_HOME": str(tmp_path)}
    path = tmp_path / "providers.json"
    path.write_text('{"openai": {"api_key": "sk-precious"')
    with pytest.raises(ProviderError) as info:
        save_key("openai", "sk-new", env=env)
    assert info.value.kind == "config"
    assert "providers.json is not valid JSON" in info.value.message
    assert "sk-precious" not in info.value.message
    assert path.read_text() == '{"openai": {"api_key": "sk-precious"'
    with pytest.raises(ProviderError):
        resolve_credentials("openai", env=env)
    # A key in the environment makes the broken file irrelevant.
    assert resolve_credentials("openai", env={**env, "OPENAI_API_KEY": "k"})[0] == "k"


def test_forget_and_unknown_provider(tmp_path: Path) -> None:
    env = {"HARNESS_HOME": str(tmp_path)}
    save_key("gemini", "g", env=env)
    assert forget_key("gemini", env=env)
    assert not forget_key("gemini", env=env)
    assert load_providers(tmp_path / "providers.json") == {"gemini": {}}
    with pytest.raises(ProviderError):
        save_key("nope", "k", env=env)


def test_an_existing_loose_file_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "providers.json"
    path.write_text("{}")
    os.chmod(path, 0o644)
    save_key("openai", "k", env={"HARNESS_HOME": str(tmp_path)})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_timeouts_from_the_environment() -> None:
    from harness.actors.model._chat import timeouts_from_env
    from harness.actors.model._http import Timeouts

    assert timeouts_from_env({}) == Timeouts()
    env = {
        "HARNESS_MODEL_CONNECT_TIMEOUT": "2",
        "HARNESS_MODEL_FIRST_BYTE_TIMEOUT": "x",
        "HARNESS_MODEL_IDLE_TIMEOUT": "-1",
    }
    assert timeouts_from_env(env) == Timeouts(connect=2.0)


def test_requests_never_show_their_key_in_repr() -> None:
    from harness.actors.model import ProviderCall
    from harness.messages.model import ChatRequest, ListModels

    for obj in (
        ChatRequest("openai", ("m",), (), api_key="sk-hidden"),
        ListModels("openai", api_key="sk-hidden"),
        ProviderCall("m", (), api_key="sk-hidden"),
    ):
        assert "sk-hidden" not in repr(obj)


async def test_a_hosted_provider_without_a_key_fails_at_once(tmp_path: Path) -> None:
    import trio

    from harness.actors.model._chat import ModelEngine
    from harness.messages.model import ChatMessage, ChatRequest, ModelError

    events: list[object] = []

    async def emit(ev: object) -> None:
        events.append(ev)

    engine = ModelEngine({"HARNESS_HOME": str(tmp_path)})
    with trio.fail_after(5):
        await engine.chat(ChatRequest("anthropic", ("c",), (ChatMessage("user", "hi"),)), emit)
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert ev.kind == "auth"
    assert "ANTHROPIC_API_KEY" in ev.message
    assert "/connect anthropic" in ev.message


def test_a_key_saved_or_forgotten_is_seen_by_the_next_request(tmp_path: Path) -> None:
    env = {"HARNESS_HOME": str(tmp_path)}
    assert resolve_credentials("openai", env=env) == (None, "")
    save_key("openai", "sk-first", env=env)
    assert resolve_credentials("openai", env=env)[0] == "sk-first"
    save_key("openai", "sk-again", env=env)  # same size, maybe the same mtime: a new file
    assert resolve_credentials("openai", env=env)[0] == "sk-again"
    forget_key("openai", env=env)
    assert resolve_credentials("openai", env=env)[0] is None
