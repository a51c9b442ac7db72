"""What hooks cost, beside the same work without them, in one run.

- A tool round (the scripted model asks for ``read_file``, the tools worker answers, the
  model is asked again) with a PreToolUse hook whose command exits at once (``exit 0``,
  a shell builtin, so ``/bin/sh`` runs), with one that runs a program (``/bin/true``,
  started without a shell), and with no hook configured. The three run in turn, PAIRS
  times; each figure is the median, and the added time's spread is the range of the
  differences within each turn. Goal: at most 15 ms added a round.
- Firing PreToolUse with one hook, beside firing it with none (what the loop pays when
  no hook is configured: nothing but a lookup).
- One hook's command run by harness's runner, beside the same command run the plain
  way, ``trio.run_process(["/bin/sh", "-c", command])`` with its output captured and a
  session of its own, as a hook needs (a worker thread starts it, the shell forks the
  program): a shell builtin, and Claude Code's documented form, a script named through
  ``$CLAUDE_PROJECT_DIR``. The two alternate; medians.

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

from bench._session import scripted_options
from harness.conversation import SessionOptions, open_session
from harness.hooks import NO_HOOKS, HookConfig, HookHandler, Hooks, run_command

ROUNDS = 20
PAIRS = 7
FIRES = 50
COMMANDS = {"shell": "exit 0", "program": "/bin/true"}


def _hook(command: str) -> dict[str, object]:
    return {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]}


def _options(ws: Path, home: Path, model: ScriptedModel) -> SessionOptions:
    return scripted_options(ws, home, model, max_turns=ROUNDS + 10)


#: per kind of round, the seconds from a call's request to its start (where the
#: PreToolUse hook runs), and each hook's own run as its hook_finished event says
_SPLIT: dict[str, list[float]] = {}


async def _rounds(ws: Path, home: Path, command: str | None) -> float:
    """Seconds a round, over ROUNDS tool rounds (after a warm-up run)."""
    from harness.conversation import events as ev

    asked: dict[str, float] = {}
    kind = command or "none"

    def split(event: ev.ConversationEvent) -> None:
        if isinstance(event, ev.ToolCallRequested):
            asked[event.call_id] = time.perf_counter()
        elif isinstance(event, ev.ToolCallStarted) and event.call_id in asked:
            _SPLIT.setdefault(kind, []).append(time.perf_counter() - asked[event.call_id])
        elif isinstance(event, ev.HookFinished):
            _SPLIT.setdefault(f"{kind} ms", []).append(event.ms / 1000)

    settings = home / "settings.json"
    settings.write_text(json.dumps({"hooks": _hook(command)}) if command else "{}")
    script = [reply("", call("read_file", path="src.py"), usage=None) for _ in range(ROUNDS)]
    with ScriptedModel([reply("warm", usage=None), *script, reply("done", usage=None)]) as model:
        async with open_session(_options(ws, home, model)) as s:
            await s.run("warm up")
            s.subscribe(split)
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


RUNS = 100
SCRIPT = '"$CLAUDE_PROJECT_DIR"/hook.sh'


async def _runs(ws: Path) -> dict[str, list[float]]:
    """Milliseconds per run of each command, harness's runner and the plain way in turn."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(ws)}
    out: dict[str, list[float]] = {}
    for _ in range(RUNS):
        for command in ("exit 0", SCRIPT):
            start = time.perf_counter()
            run = await run_command(command, b"{}", cwd=ws, timeout=10, env=env)
            out.setdefault(f"runner {command}", []).append(time.perf_counter() - start)
            assert run.exit_code == 0, run
            start = time.perf_counter()
            await trio.run_process(
                ["/bin/sh", "-c", command],
                stdin=b"{}",
                capture_stdout=True,
                capture_stderr=True,
                cwd=ws,
                env=env,
                start_new_session=True,
            )
            out.setdefault(f"plain {command}", []).append(time.perf_counter() - start)
    return out


def _one(ws: Path, command: str) -> Hooks:
    return Hooks(HookConfig((HookHandler("PreToolUse", "*", command, source="bench"),)), cwd=ws)


def run() -> list[tuple[str, str, str]]:
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp, "ws"), Path(tmp, "home")
        ws.mkdir()
        home.mkdir()
        (ws / "src.py").write_text("x = 1\n" * 50)
        (ws / "hook.sh").write_text("#!/bin/sh\nexit 0\n")
        (ws / "hook.sh").chmod(0o755)
        bare: list[float] = []
        hooked: dict[str, list[float]] = {kind: [] for kind in COMMANDS}
        for _ in range(PAIRS):
            bare.append(trio.run(_rounds, ws, home, None))
            for kind, command in COMMANDS.items():
                hooked[kind].append(trio.run(_rounds, ws, home, command))
        fire_none = trio.run(_fires, NO_HOOKS)
        fired = {kind: trio.run(_fires, _one(ws, c)) for kind, c in COMMANDS.items()}
        runs = {k: statistics.median(v) for k, v in trio.run(_runs, ws).items()}
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
                f"{(h - b) * 1000:+.1f} ms ({h / b:.2f}x; each turn {min(added):+.1f} to "
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
    gap = statistics.median(_SPLIT["none"])
    rows.append(("a call's request to its start, no hooks", f"{gap * 1000:.2f} ms", ""))
    for command in COMMANDS.values():
        hooked_gap = statistics.median(_SPLIT[command])
        own = statistics.median(_SPLIT[f"{command} ms"])
        rows.append(
            (
                f"a call's request to its start, hook `{command}`",
                f"{hooked_gap * 1000:.2f} ms",
                f"+{(hooked_gap - gap) * 1000:.2f} ms; the hook's command itself "
                f"{own * 1000:.2f} ms (its hook_finished ms)",
            )
        )
    for command in ("exit 0", SCRIPT):
        plain, ours = runs[f"plain {command}"], runs[f"runner {command}"]
        rows.append((f"`{command}` run the plain way (baseline)", f"{plain * 1000:.2f} ms", ""))
        rows.append(
            (
                f"`{command}` run by the hook runner",
                f"{ours * 1000:.2f} ms",
                f"{ours / plain:.2f}x (median of {RUNS})",
            )
        )
    return rows
