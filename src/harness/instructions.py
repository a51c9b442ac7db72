"""Instruction files: ``AGENTS.md`` (or ``CLAUDE.md``) from the workspace up to the repo root.

The files are read from the workspace and each parent folder up to the root of
the git repository that holds it (the folder with ``.git``); outside a
repository only the workspace's own file counts. In each folder ``AGENTS.md``
wins; ``CLAUDE.md`` is read only where there is no ``AGENTS.md``. The outermost
file comes first, so the more specific instructions come last and read as the
refinement. The conversation puts :func:`instructions_prompt` into the system
prompt, which compaction never drops.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

__all__ = ["InstructionFile", "find_instruction_files", "instructions_prompt"]

NAMES = ("AGENTS.md", "CLAUDE.md")
#: a file larger than this is cut (with a note), so one huge file cannot fill the window.
MAX_BYTES = 64 * 1024


@attrs.frozen
class InstructionFile:
    """One instruction file and its text (already cut to :data:`MAX_BYTES`)."""

    path: Path
    text: str
    truncated: bool = False


def _repo_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def find_instruction_files(
    workspace: Path | str, problems: list[str] | None = None
) -> list[InstructionFile]:
    """The instruction files that apply to *workspace*, outermost first.

    Unreadable files are skipped: an instruction file never stops a session. So is
    one whose real path leaves the repository (the workspace outside one): a
    symlink must not put an outside file into the prompt. *problems* gets a
    sentence for each file skipped that way.
    """
    ws = Path(workspace).resolve()
    root = _repo_root(ws)
    jail = root or ws
    folders = [ws]
    if root is not None:
        folders = [ws, *[p for p in ws.parents if p.is_relative_to(root)]]
    found: list[InstructionFile] = []
    for folder in reversed(folders):
        for name in NAMES:
            path = folder / name
            if not path.is_file():
                continue
            real = Path(os.path.realpath(path))
            if real != jail and jail not in real.parents:
                if problems is not None:
                    problems.append(f"{path} skipped: it is a symlink to {real}, outside {jail}")
                continue
            try:
                raw = path.read_bytes()
            except OSError:
                continue
            truncated = len(raw) > MAX_BYTES
            text = raw[:MAX_BYTES].decode("utf-8", errors="replace")
            found.append(InstructionFile(path=path, text=text, truncated=truncated))
            break
    return found


def instructions_prompt(files: list[InstructionFile], workspace: Path | str | None = None) -> str:
    """The system-prompt section holding every instruction file (empty when none)."""
    if not files:
        return ""
    ws = Path(workspace).resolve() if workspace is not None else None
    parts = ["# Project instructions", "Follow these instructions from the project's files."]
    for f in files:
        label = os.path.relpath(f.path, ws) if ws is not None else str(f.path)
        parts.append(f"\n## {label}\n\n{f.text.strip()}")
        if f.truncated:
            parts.append(f"(cut at {MAX_BYTES // 1024} KiB)")
    return "\n".join(parts)
