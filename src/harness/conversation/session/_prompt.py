"""The system prompt: who the agent is, the workspace, instruction files, skills, memory.

Instruction files (``AGENTS.md``) and skills come from :mod:`harness.instructions`
and :mod:`harness.skills`. The system prompt is never trimmed or summarised.
"""

from __future__ import annotations

import platform
from pathlib import Path

__all__ = ["BASE_PROMPT", "build_system_prompt"]

BASE_PROMPT = """\
You are harness, a coding agent working in the user's project folder. You read and edit \
files, run commands and answer questions using the tools you are given. Work step by \
step: look before you change, make the smallest change that does the job, and check \
your work (run the tests when there are some). File paths are relative to the workspace. \
When the task is done, answer with a short summary of what you did and no tool call."""


def build_system_prompt(
    workspace: str | Path,
    *,
    home: str | Path | None = None,
    extra: str = "",
    problems: list[str] | None = None,
    base: str | None = None,
    skills: bool = True,
    workspace_map: bool = False,
) -> str:
    """The system prompt for a session in *workspace*.

    *base* replaces the built-in :data:`BASE_PROMPT` (the workspace, instruction
    files and skills still follow it). *skills* false leaves the skills out (for a
    model that is not offered ``use_skill``). *workspace_map* puts the workspace's map
    after its path (:func:`harness.workspace_map.workspace_map`). *problems* collects one
    sentence per instruction file or skill that could not be read (they are skipped,
    never fatal).
    """
    ws = Path(workspace)
    parts = [base or BASE_PROMPT, f"Workspace: {ws} ({platform.system()})."]
    if workspace_map:
        from harness.workspace_map import workspace_map as map_of

        parts.append(map_of(ws))
    try:
        from harness.instructions import (
            find_instruction_files,
            instructions_prompt,
        )

        section = instructions_prompt(find_instruction_files(ws, problems), ws)
        if section:
            parts.append(section)
    except ImportError:
        pass
    except Exception as exc:  # a broken instruction file must not stop the session
        if problems is not None:
            problems.append(f"instruction files skipped: {exc}")
    try:
        from harness.skills import (
            discover_skills,
            skills_prompt,
        )

        section = skills_prompt(discover_skills(ws, home, problems=problems)) if skills else ""
        if section:
            parts.append(section)
    except ImportError:
        pass
    except Exception as exc:
        if problems is not None:
            problems.append(f"skills skipped: {exc}")
    if extra:
        parts.append(extra)
    return "\n\n".join(part for part in parts if part)
