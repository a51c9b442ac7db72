"""Where a task's seconds go on the embedded model: the split ``python -m bench local``
prints.

Two tasks run through the whole program (``harness -p``, auto permissions): a one-tool
question (read one file, answer) and a one-line edit. Each runs in a folder never seen
before (the saved state after the system prompt names the folder, unless the tool section
comes first) and again in the same folder. The model worker writes each generation's
timings (``HARNESS_LOCAL_TIMINGS``): the wait for the model to load, the prompt's new
tokens and the seconds reading them, the tokens written and the seconds writing them, and
which generations were nudged (a second generation in the same reply). What is left of
the wall time is the program: start-up, the tools, the conversation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import attrs

NOTES = "".join(f"{i}. the shop opens at {8 + i % 3}:00 on day {i}\n" for i in range(1, 31))
TASKS = {
    "one-tool question": (
        "What does line 7 of notes.txt say? Read it and answer.",
        {"notes.txt": NOTES},
    ),
    "one-line edit": (
        "In calc.py, make add return a + b.",
        {"calc.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"},
    ),
}


@attrs.frozen
class Split:
    wall: float
    load: float
    read_tokens: int
    read: float
    written: int
    write: float
    nudged: int
    nudged_s: float
    generations: int
    ok: bool
    why: str = ""  # the run's reason when it failed, or what the check found

    @property
    def rest(self) -> float:
        return self.wall - self.load - self.read - self.write

    def row(self, what: str) -> tuple[str, str, str]:
        nudges = f"; {self.nudged} nudged ({self.nudged_s:.1f} s)" if self.nudged else ""
        failed = "" if self.ok else f"; FAILED ({self.why})"
        return (
            what,
            f"{self.wall:.1f} s",
            f"load {self.load:.1f} s; reading {self.read_tokens:,} tokens {self.read:.1f} s; "
            f"writing {self.written} tokens {self.write:.1f} s; the rest {self.rest:.1f} s "
            f"({self.generations} generations{nudges}){failed}",
        )


def run_split(task: str, folder: Path, env: dict[str, str]) -> Split:
    """Run *task* in *folder* (filled with its files) and split its time."""
    prompt, files = TASKS[task]
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (folder / name).write_text(body)
    with tempfile.TemporaryDirectory(prefix="bench-split-") as tmp:
        timings = Path(tmp) / "timings.jsonl"
        home = Path(tmp) / "home"
        home.mkdir()
        cmd = [sys.executable, "-m", "harness", "-p", prompt, "--provider", "local"]
        cmd += ["--permission-mode", "auto", "--output-format", "json", "--max-turns", "6"]
        started = time.perf_counter()
        proc = subprocess.run(
            cmd,
            cwd=folder,
            env={**env, "HARNESS_HOME": str(home), "HARNESS_LOCAL_TIMINGS": str(timings)},
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        wall = time.perf_counter() - started
        lines = (
            [json.loads(x) for x in timings.read_text().splitlines()] if timings.exists() else []
        )
    nudged = [x for x in lines if x["step"] > 0]
    try:
        why = str(json.loads(proc.stdout).get("reason", ""))
    except ValueError:
        why = f"exit status {proc.returncode}"
    ok = proc.returncode == 0
    if task == "one-line edit" and "a + b" not in (folder / "calc.py").read_text():
        ok, why = False, f"{why}, calc.py unchanged"
    return Split(
        wall=wall,
        load=sum(x["load_s"] for x in lines),
        read_tokens=sum(x["prompt_tokens"] - x["cached_tokens"] for x in lines),
        read=sum(x["read_s"] for x in lines),
        written=sum(x["completion_tokens"] for x in lines),
        write=sum(x["write_s"] for x in lines),
        nudged=len(nudged),
        nudged_s=sum(x["read_s"] + x["write_s"] for x in nudged),
        generations=len(lines),
        ok=ok,
        why=why,
    )


def split_rows() -> list[tuple[str, str, str]]:
    """The split of both tasks: in a new folder with the tool section first (the state
    after it shared by every project), again in that folder, and in another new folder
    with the tool section after the workspace (a state per project)."""
    rows = []
    base = Path(tempfile.gettempdir()) / "harness-bench-split"
    for task in TASKS:
        for static_first, again in (("on", True), ("off", False)):
            env = {**os.environ, "HARNESS_LOCAL_STATIC_FIRST": static_first}
            folder = base / uuid.uuid4().hex[:8] / "project"  # never seen
            load = os.getloadavg()[0]
            first = run_split(task, folder, env)
            rows.append(
                first.row(f"{task}: new folder, tools first {static_first} (load {load:.1f})")
            )
            if again:
                load = os.getloadavg()[0]
                known = run_split(task, folder, env)
                rows.append(known.row(f"{task}: same folder again (load {load:.1f})"))
    return rows
