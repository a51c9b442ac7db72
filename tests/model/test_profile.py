"""Model profiles: chosen once, by one function, and read everywhere else."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness.actors.model import (
    DEFAULT_PROFILE,
    NUDGE_RULES,
    SMALL_MODEL,
    ModelProfile,
    profile_for,
)
from harness.actors.tools import SMALL_MODEL_TOOLS
from harness.conversation._loop_config import LoopConfig

SRC = Path(__file__).resolve().parents[2] / "src" / "harness"


def test_the_embedded_model_gets_the_small_model_profile_and_preloads() -> None:
    got = profile_for("local", "qwen2.5-coder-1.5b")
    assert got.tools == SMALL_MODEL_TOOLS
    assert got.strict_writes
    assert got.grammar
    assert got.temperature == 0.0
    assert got.repeat_cap == 2
    assert got.nudges == NUDGE_RULES
    assert got.preloads
    assert not got.maps_workspace  # measured: no gain for the 1.5B (docs/models.md)
    assert not got.asks_window
    assert got == profile_for("local")  # every embedded model alike, today


def test_ollama_asks_the_server_for_the_window_and_hosted_models_get_the_default() -> None:
    ollama = profile_for("ollama", "qwen2.5-coder:1.5b")
    assert ollama.asks_window
    assert (ollama.tools, ollama.strict_writes, ollama.nudges) == (None, False, ())
    assert not ollama.maps_workspace
    for provider in ("openai", "anthropic", "gemini", "no-such-provider"):
        assert profile_for(provider, "any") == DEFAULT_PROFILE


def test_overrides_win_and_none_leaves_the_profile_as_it_is() -> None:
    assert profile_for("openai", "m", {"strict_writes": True}).strict_writes
    assert not profile_for("local", "", {"strict_writes": False}).strict_writes
    assert profile_for("local", "", {"strict_writes": None}).strict_writes
    assert profile_for("local", "", {"repeat_cap": 0}).repeat_cap == 0
    with pytest.raises(ValueError, match="no such profile setting: colour"):
        profile_for("local", "", {"colour": "red"})
    with pytest.raises(ValueError, match="repeat cap"):
        ModelProfile("x", repeat_cap=-1)


def test_the_loop_reads_strict_writes_from_the_profile() -> None:
    assert LoopConfig(workspace="/w", provider="local").writes_strictly()
    assert not LoopConfig(workspace="/w", provider="openai").writes_strictly()
    assert LoopConfig(workspace="/w", provider="openai", strict_writes=True).writes_strictly()
    assert LoopConfig(workspace="/w", provider="ollama", models=("m",)).profile().asks_window


def test_the_workspace_map_is_off_unless_asked_for() -> None:
    def maps(**kw: object) -> bool:
        return LoopConfig(workspace="/w", **kw).profile().maps_workspace  # type: ignore[arg-type]

    assert not maps(provider="local")
    assert not maps(provider="openai")
    assert maps(provider="local", workspace_map=True)
    assert maps(provider="openai", workspace_map=True)
    assert not maps(provider="openai", workspace_map=False)


def _name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    return isinstance(node, ast.Tuple | ast.List | ast.Set) and any(map(_literal, node.elts))


# Questions about a provider's connection, not about how the model is treated: its key, its
# server's readiness, the environment variable that names its model.
CONNECTION = {
    ("cli/_options.py", "provider"),  # OLLAMA_MODEL names a model for Ollama only
    ("cli/tui/_providers.py", "provider"),  # what each provider needs before it can answer
    ("cli/tui/_cmd_model.py", "provider"),  # hosted providers need a key
}


def test_no_code_outside_profile_selection_asks_which_provider_or_model() -> None:
    asked: list[str] = []
    for part in ("conversation", "actors/tools", "cli"):
        for path in sorted((SRC / part).rglob("*.py")):
            where = path.relative_to(SRC).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Compare):
                    continue
                names = [_name_of(n) for n in [node.left, *node.comparators]]
                subject = next((n for n in names if n in ("provider", "model")), None)
                if subject is None or not any(map(_literal, node.comparators)):
                    continue
                if (where, subject) not in CONNECTION:
                    asked.append(f"{where}:{node.lineno}")
    assert asked == []


def test_the_small_model_profile_is_what_a_llama_cpp_server_gets() -> None:
    from harness.actors.model.local import text_guide

    assert text_guide().profile == SMALL_MODEL
