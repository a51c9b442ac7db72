"""The tools the conversation runs itself: the memory tools and ``use_skill``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from harness.conversation._calls import LocalTool
from harness.conversation.session._memory import MEMORY_TOOLS, MemoryStore, MemoryStoreError
from harness.messages.tools import ToolOutcome

__all__ = ["memory_tools", "skill_tool"]


def memory_tools(store: MemoryStore) -> dict[str, LocalTool]:
    """One tool per memory operation, each run on a thread against *store*."""

    def make(name: str) -> LocalTool:
        async def tool(args: dict[str, Any]) -> ToolOutcome:
            try:
                text = await trio.to_thread.run_sync(store.call, name, args)
            except MemoryStoreError as exc:
                return ToolOutcome(ok=False, output=str(exc))
            return ToolOutcome(ok=True, output=text)

        return tool

    return {name: make(name) for name in MEMORY_TOOLS}


def skill_tool(workspace: Path, home: Path) -> LocalTool:
    """``use_skill``: load a skill's instructions and the files it bundles."""

    async def use_skill(args: dict[str, Any]) -> ToolOutcome:
        try:
            from harness.skills import (
                SkillError,
                find_skill,
                render_skill,
            )
        except ImportError:
            return ToolOutcome(ok=False, output="skills are not available in this build")
        try:
            skill = find_skill(workspace, args["name"], home)
            return ToolOutcome(ok=True, output=render_skill(skill))
        except SkillError as exc:
            return ToolOutcome(ok=False, output=str(exc))

    return use_skill
