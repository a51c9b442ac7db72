"""``harness acp`` without flags chooses the model as the terminal does: the provider and
model ``/connect`` saved for the editor's folder first, then the environment."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import PROTOCOL_VERSION, text_block
from tests.acp.conftest import Recorder, agent
from tests.scripted import ScriptedModel, reply


def test_the_saved_choice_of_the_folder_then_the_environment(
    model: ScriptedModel, tmp_path: Path, home: Path
) -> None:
    saved, other = tmp_path / "saved", tmp_path / "other"
    saved.mkdir()
    other.mkdir()
    # what the terminal's /connect keeps for the folder (cli/tui's Prefs)
    choice = {"provider": "openai", "model": "saved-model", "base_url": model.base_url}
    (home / "tui.json").write_text(json.dumps({"workspaces": {str(saved.resolve()): choice}}))
    env = {
        "HARNESS_PROVIDER": "openai",
        "HARNESS_MODEL": "env-model",
        "OPENAI_BASE_URL": model.base_url,
    }
    model.add(reply("from the saved choice"), reply("from the environment"))
    rec = Recorder()

    async def main() -> None:
        async with agent(model, saved, home, rec, env=env, args=[]) as (conn, _):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            for folder in (saved, other):
                new = await conn.new_session(cwd=str(folder), mcp_servers=[])
                await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])

    asyncio.run(main())
    assert rec.bad == []
    assert [r["model"] for r in model.requests] == ["saved-model", "env-model"]
    assert rec.text() == "from the saved choicefrom the environment"
