"""What saying what a rewind changes costs (``/rewind``'s plan, the tools worker's side).

A plan reads the undo journal's entries since the checkpoint and looks at every path of
the workspace once, for changes no file tool made (by modification time). Measured in
interleaved pairs against the least that look can cost, a bare walk that ``lstat``s
every path of the same workspace:

- 2,000 files in 40 folders, 10 AI changes since the checkpoint;
- the same with the journal full (200 entries, all since the checkpoint).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from bench._timing import ms, paired
from harness.actors.tools._dispatch import invoke, rewind
from harness.messages.tools import Rewind, RewindSpan, ToolInvoke


def _workspace(root: Path) -> Path:
    ws = root / "ws"
    for d in range(40):
        folder = ws / f"pkg{d}"
        folder.mkdir(parents=True)
        for f in range(50):
            (folder / f"m{f}.py").write_text(f"x = {d * 50 + f}\n")
    past = time.time() - 3600
    for dirpath, dirnames, filenames in os.walk(ws):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (past, past))
    return ws


def _changes(ws: Path, home: Path, count: int) -> None:
    for i in range(count):
        args = {"path": f"pkg{i % 40}/new{i}.py", "content": f"y = {i}\n"}
        invoke(
            ToolInvoke(name="write_file", arguments=args, workspace=str(ws), session_id="b"), home
        )


def _walk(ws: Path) -> None:
    for dirpath, _, filenames in os.walk(ws):
        for name in filenames:
            os.lstat(os.path.join(dirpath, name))


def run() -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    os.environ.setdefault("HARNESS_AUTOCOMMIT", "0")
    with tempfile.TemporaryDirectory(prefix="bench-rewind-") as tmp:
        root = Path(tmp)
        ws, home = _workspace(root), root / "home"
        since = time.time()
        request = Rewind(workspace=str(ws), spans=(RewindSpan("b", since),), apply=False)
        _changes(ws, home, 10)
        base, plan, ratio = paired(lambda: _walk(ws), lambda: rewind(request, home), 15)
        rows.append(("walk + lstat of 2,000 files (baseline)", ms(base, 2), ""))
        rows.append(("rewind plan, 10 changes since", ms(plan, 2), f"{ratio:.2f}x the walk"))
        _changes(ws, home, 190)
        base, plan, ratio = paired(lambda: _walk(ws), lambda: rewind(request, home), 15)
        rows.append(("rewind plan, 200 changes since", ms(plan, 2), f"{ratio:.2f}x the walk"))
    return rows
