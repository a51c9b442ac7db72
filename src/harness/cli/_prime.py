"""``harness prime [MODEL]``: the embedded model reads its shared prompt once, ahead.

::

    harness prime              the default embedded model (``make install`` runs this)
    harness prime MODEL        a catalogue name or a ``.gguf`` file

The system prompt of every session starts, as the embedded model reads it, with a part
that is the same in every project (the base prompt and the tool section). Its state is
saved in the model cache the first time it is read, and a folder never seen then reads
only its own lines; on a brand-new machine that first time would be the first question.
This reads it now, in a child process (a crash of llama.cpp there costs only this step),
with the system prompt a session would send. It never fails: a model that is not
installed, a full disk or a crash is one line, exit status 0, and the first question
reads the prompt itself. When the state is there already it returns at once, having
loaded no model.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping

from harness.home import harness_home

__all__ = ["prime_main"]

# A bound against a wedged child, far above the ~20 s of a two-core machine.
PRIME_TIMEOUT = 900.0


def _say(text: str) -> None:
    print(f"harness: {text}", file=sys.stderr, flush=True)


def session_prompt(environ: Mapping[str, str]) -> tuple[str, str]:
    """``(system, shared)``: the system prompt an embedded-model session in a folder
    holding nothing sends (its tools: the embedded profile's, in ask mode), as the model
    reads it, and the part of it every project shares.

    Raises:
        ValueError: ``HARNESS_SYSTEM_PROMPT_FILE`` names a file that cannot be read.
    """
    from harness.actors.model import profile_for
    from harness.actors.model.local import shared_prompt
    from harness.actors.tools import builtin_table
    from harness.cli._session_options import system_prompt
    from harness.conversation.session import build_system_prompt

    names = profile_for("local").tools
    tools = builtin_table().schemas(mode="ask", names=names)
    with tempfile.TemporaryDirectory(prefix="harness-prime-") as folder:
        system = build_system_prompt(
            folder,
            home=harness_home(environ),
            base=system_prompt(environ),
            skills=names is None or "use_skill" in names,
        )
    return shared_prompt(system, tools)


def prime_main(argv: list[str], environ: Mapping[str, str] | None = None) -> int:
    """Run ``harness prime`` with *argv*; the exit status: 0 (read, already read, or
    skipped with one line saying why), 2 for a usage error, 130 when interrupted."""
    parser = argparse.ArgumentParser(
        prog="harness prime",
        description="Have the embedded model read the system prompt's shared part once "
        "and keep its state in the model cache, so the first question in any folder "
        "reads only that folder's lines (make install runs it; free when done).",
    )
    parser.add_argument("model", nargs="?", help="default: the default embedded model")
    args = parser.parse_args(argv)
    env = dict(os.environ if environ is None else environ)
    from harness.actors.model.local import DEFAULT_MODEL, LocalModelError, cannot_prime, primed

    spec = args.model or DEFAULT_MODEL
    why = cannot_prime(spec, env)
    if why:
        _say(f"{why}: skipped reading its shared prompt ahead")
        return 0
    try:
        system, shared = session_prompt(env)
        if not shared:
            _say("this system prompt has no shared part: nothing to read ahead")
            return 0
        if primed(shared, spec, env):
            return 0
    except (ValueError, LocalModelError) as exc:
        _say(f"{exc}: skipped reading the embedded model's shared prompt ahead")
        return 0
    _say("reading the embedded model's shared prompt once (about 30 s on two idle cores)...")
    started = time.monotonic()
    try:
        why = _run_child(spec, system, shared, env)
    except KeyboardInterrupt:  # Ctrl+C in `make install`: one line, not a traceback
        _say("interrupted; the first question will read the shared prompt itself")
        return 130
    if why:
        _say(f"{why}; the first question will read the shared prompt itself")
    else:
        _say(f"read the shared prompt in {time.monotonic() - started:.0f} s")
    return 0


def _run_child(spec: str, system: str, shared: str, env: dict[str, str]) -> str:
    """Read the prompt in a child process; why that failed ("" when it did not)."""
    cmd = [sys.executable, "-m", "harness.actors.model.local", "prime", spec]
    try:
        proc = subprocess.run(
            cmd,
            input=json.dumps({"system": system, "shared": shared}),
            capture_output=True,
            text=True,
            env=env,
            timeout=PRIME_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"reading the shared prompt took over {PRIME_TIMEOUT:.0f} s and was stopped"
    except OSError as exc:
        return f"could not start the reading: {exc}"
    if proc.returncode == 0:
        return ""
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    last = lines[-1].removeprefix("harness: ") if lines else ""
    if proc.returncode < 0:
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = f"signal {-proc.returncode}"
        return f"reading the shared prompt died of {name}" + (f" ({last})" if last else "")
    return last or f"reading the shared prompt failed (exit status {proc.returncode})"
