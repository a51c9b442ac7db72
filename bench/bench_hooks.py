"""What hooks cost, beside the same work without them, in one run.

- A tool round (the scripted model asks for ``read_file``, the tools worker answers, the
  model is asked again) with a PreToolUse hook whose command exits at once (``exit 0``,
  a shell builtin, so ``/bin/sh`` runs), with one that runs a program (``/bin/true``,
  started without a shell), and with no hook configured. The three run in turn, PAIRS
  times; each figure is the median, and the added time's spread is the range of the
  differences within each turn. Goal: at most 15 ms added a round.
- Firing PreToolUse with one hook, beside firing it with none (what the loop pays when
  no hook is configured: nothing but a lookup).

The machine's load average is printed with the figures: on a shared machine a hook's
process waits for a core like every other process.
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
PAIRS = 7
FIRES = 50
COMMANDS = {"shell": "exit 0", "program": "/bin/true"}


def _hook(command: str) -> dict[str, object]:
    return {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]}


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


async def _rounds(ws: Path, home: Path, command: str | None) -> float:
    """Seconds a round, over ROUNDS tool rounds (after a warm-up run)."""
    settings = home / "settings.json"
    settings.write_text(json.dumps({"hooks": _hook(command)}) if command else "{}")
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


def _one(ws: Path, command: str) -> Hooks:
    return Hooks(HookConfig((HookHandler("PreToolUse", "*", command, source="bench"),)), cwd=ws)


def run() -> list[tuple[str, str, str]]:
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp, "ws"), Path(tmp, "home")
        ws.mkdir()
        home.mkdir()
        (ws / "src.py").write_text("x = 1\n" * 50)
        bare: list[float] = []
        hooked: dict[str, list[float]] = {kind: [] for kind in COMMANDS}
        for _ in range(PAIRS):
            bare.append(trio.run(_rounds, ws, home, None))
            for kind, command in COMMANDS.items():
                hooked[kind].append(trio.run(_rounds, ws, home, command))
        fire_none = trio.run(_fires, NO_HOOKS)
        fired = {kind: trio.run(_fires, _one(ws, c)) for kind, c in COMMANDS.items()}
    load = max(load, os.getloadavg()[0])
    b = statistics.median(bare)
    rows = [
        (
            f"tool round, no hooks (baseline, median of {PAIRS})",
            f"{b * 1000:.1f} ms",
            f"load average up to {load:.1f} on {os.cpu_count()} cores",
        )
    ]
    for kind, command in COMMANDS.items():
        h = statistics.median(hooked[kind])
        added = [(x - y) * 1000 for x, y in zip(hooked[kind], bare, strict=True)]
        rows.append(
            (
                f"tool round, a PreToolUse hook `{command}` ({kind})",
                f"{h * 1000:.1f} ms",
                f"+{(h - b) * 1000:.1f} ms ({h / b:.2f}x; each turn {min(added):+.1f} to "
                f"{max(added):+.1f} ms; goal: at most +15 ms)",
            )
        )
    rows.append(("PreToolUse fired, no hook configured", f"{fire_none * 1e6:.1f} µs", ""))
    for kind, command in COMMANDS.items():
        rows.append(
            (
                f"PreToolUse fired, one hook `{command}` ({kind})",
                f"{fired[kind] * 1000:.2f} ms",
                f"{fired[kind] / fire_none:.0f}x the no-hook fire",
            )
        )
    return rows
