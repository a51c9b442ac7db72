"""The built-in skills are named to a model that can load them, and only to one."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from harness.conversation import Session
from tests.conversation.conftest import system_prompt
from tests.scripted import ScriptedModel, reply


async def test_a_model_offered_use_skill_is_told_of_the_built_in_skills(
    session_factory: Callable[..., AbstractAsyncContextManager[Session]],
    model: ScriptedModel,
) -> None:
    model.add(reply("ok"))
    async with session_factory() as session:
        await session.run("hello")
    system = system_prompt(model)
    assert "# Skills" in system
    assert "- git-commit: " in system
    assert "- code-review: " in system


async def test_a_model_with_a_short_list_without_use_skill_is_not(
    session_factory: Callable[..., AbstractAsyncContextManager[Session]],
    model: ScriptedModel,
) -> None:
    model.add(reply("ok"))
    kw: dict[str, Any] = {"tools": ("read_file", "edit_file")}
    async with session_factory(**kw) as session:
        await session.run("hello")
    system = system_prompt(model)
    assert "# Skills" not in system
    assert "use_skill" not in system
