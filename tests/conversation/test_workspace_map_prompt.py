"""The workspace's map reaches the system prompt when the profile or the user asks for it,
with each file's names and none of its values."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from harness.conversation import Session
from tests.conversation.conftest import system_prompt
from tests.scripted import ScriptedModel, reply


async def test_the_map_follows_the_workspace_when_asked_for(
    session_factory: Callable[..., AbstractAsyncContextManager[Session]],
    model: ScriptedModel,
    workspace: Path,
) -> None:
    (workspace / "settings.toml").write_text('[database]\npassword = "hunter2"\npool_size = 8\n')
    (workspace / "shop.py").write_text("def checkout():\n    pass\n")
    model.add(reply("ok"))
    async with session_factory(workspace_map=True) as session:
        await session.run("hello")
    system = system_prompt(model)
    where = system.index("Workspace: ")
    at = system.index("Files in the workspace")
    assert where < at
    assert "\nsettings.toml: database (password, pool_size)\n" in system
    assert "\nshop.py: checkout" in system
    assert "hunter2" not in system


async def test_a_model_whose_profile_has_no_map_gets_none(
    session_factory: Callable[..., AbstractAsyncContextManager[Session]],
    model: ScriptedModel,
    workspace: Path,
) -> None:
    (workspace / "shop.py").write_text("def checkout():\n    pass\n")
    model.add(reply("ok"))
    async with session_factory() as session:
        await session.run("hello")
    system = system_prompt(model)
    assert "Files in the workspace" not in system
    assert "checkout" not in system
