"""What hooks cost, beside the same work without them, in one run.

- A tool round (the scripted model asks for ``read_file``, the tools worker answers, the
  model is asked again) with a PreToolUse hook whose command exits at once, beside the
  same rounds with no hook configured. Runs alternate; medians. Goal: at most 15 ms added
  a round.
- Firing PreToolUse with that one hook, beside firing it with none (what the loop pays
  when no hook is configured: nothing but a lookup).
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import trio
from tests.scripted import ScriptedModel, call, reply

from harness.conversation import SessionOptions, open_session
from harness.hooks import NO_HOOKS, HookConfig, HookHandler, Hooks

ROUNDS = 20
PAIRS = 5
FIRES = 50
HOOK = {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "exit 0"}]}]}


def _options(ws: Path, home: Path, model: ScriptedModel) -> SessionOptions:
    root = os.pathsep.join(
        filter(None, [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")])
    )
    return SessionOptions(
        workspace=str(ws),
        home=str(home),
        provider="openai",
        models=("scripted",),
        base_url=model.base_url,
        permission_mode="auto",
        max_turns=ROUNDS + 10,
        workers={"model": "harness.actors.model", "tools": "harness.actors.tools"},
        worker_env={n: {"PYTHONPATH": root} for n in ("model", "tools")},
    )


async def _rounds(ws: Path, home: Path, hooked: bool) -> float:
    """Seconds a round, over ROUNDS tool rounds (after a warm-up run)."""
    settings = home / "settings.json"
    settings.write_text(json.dumps({"hooks": HOOK}) if hooked else "{}")
    script = [reply("", call("read_file", path="src.py"), usage=None) for _ in range(ROUNDS)]
    with ScriptedModel([reply("warm", usage=None), *script, reply("done", usage=None)]) as model:
        async with open_session(_options(ws, home, model)) as s:
            await s.run("warm up")
            start = time.perf_counter()
            result = await s.run("read src.py twenty times")
            took = time.perf_counter() - start
            assert result.ok, result
            assert result.turns == ROUNDS + 1, result
    return took / ROUNDS


async def _fires(hooks: Hooks) -> float:
    await hooks.fire("PreToolUse", tool="read_file", arguments={"path": "src.py"})  # warm
    start = time.perf_counter()
    for _ in range(FIRES):
        verdict = await hooks.fire("PreToolUse", tool="read_file", arguments={"path": "src.py"})
        assert not verdict.blocked
    return (time.perf_counter() - start) / FIRES


def run() -> list[tuple[str, str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp, "ws"), Path(tmp, "home")
        ws.mkdir()
        home.mkdir()
        (ws / "src.py").write_text("x = 1\n" * 50)
        bare: list[float] = []
        hooked: list[float] = []
        for _ in range(PAIRS):
            bare.append(trio.run(_rounds, ws, home, False))
            hooked.append(trio.run(_rounds, ws, home, True))
        one = Hooks(HookConfig((HookHandler("PreToolUse", "*", "exit 0", source="bench"),)), cwd=ws)
        fire_none = trio.run(_fires, NO_HOOKS)
        fire_one = trio.run(_fires, one)
    b, h = statistics.median(bare), statistics.median(hooked)
    added = (h - b) * 1000
    return [
        (f"tool round, no hooks (baseline, median of {PAIRS})", f"{b * 1000:.1f} ms", ""),
        (
            "tool round, a PreToolUse hook that exits at once",
            f"{h * 1000:.1f} ms",
            f"+{added:.1f} ms ({h / b:.2f}x; goal: at most +15 ms)",
        ),
        ("PreToolUse fired, no hook configured", f"{fire_none * 1e6:.1f} µs", ""),
        (
            "PreToolUse fired, one hook (exit 0)",
            f"{fire_one * 1000:.2f} ms",
            f"{fire_one / fire_none:.0f}x the no-hook fire",
        ),
    ]
