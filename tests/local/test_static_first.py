"""The system prompt as the embedded model reads it: the part every project shares first."""

from __future__ import annotations

import json
from pathlib import Path

from harness.actors.model import ProviderCall, text_protocol_prompt
from harness.actors.model.local._engine import Generation
from harness.actors.model.local._guide import static_first
from harness.actors.model.local._timings import Timings
from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table
from harness.messages.model import ChatOptions

BASE = "You are harness, a coding agent."


def _call(workspace: str) -> ProviderCall:
    tools = tuple(builtin_table().schemas(names=SMALL_MODEL_TOOLS))
    system = f"{BASE}\n\nWorkspace: {workspace} (Linux).\n\n# AGENTS.md\nUse tabs."
    return ProviderCall(
        model="m",
        messages=(),
        system=f"{system}\n\n{text_protocol_prompt(tools)}",
        options=ChatOptions(),
        text_protocol=True,
        text_tools=tools,
    )


def test_the_tools_come_after_the_base_prompt_and_before_the_project() -> None:
    first, static = static_first(_call("/home/a/shop"))
    section = text_protocol_prompt(_call("x").text_tools)
    assert static == f"{BASE}\n\n{section}"
    assert first == f"{static}\n\nWorkspace: /home/a/shop (Linux).\n\n# AGENTS.md\nUse tabs."
    # another project: the same static part, only the lines after it differ
    second, other = static_first(_call("/srv/other"))
    assert other == static
    assert second.startswith(static)
    assert second != first


def test_a_prompt_of_another_shape_is_left_as_it_is() -> None:
    call = _call("/x")
    plain = ProviderCall(model="m", messages=(), system="Just answer.", options=ChatOptions())
    assert static_first(plain) == ("Just answer.", "")
    no_tools = ProviderCall(
        model="m", messages=(), system=call.system, options=ChatOptions(), text_protocol=True
    )
    assert static_first(no_tools) == (call.system, "")


def test_each_generation_appends_its_timings(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    timings = Timings(str(path))
    timings.reply()
    timings.generation(Generation("stop", 900, 12, 800, 1.5, 0.75), 2.0, lazy=True)
    timings.generation(Generation("stop", 950, 20, 912, 0.25, 1.0), 0.0, lazy=False)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(x["reply"], x["step"], x["bound"]) for x in lines] == [(1, 0, False), (1, 1, True)]
    assert lines[0]["read_s"] == 1.5
    assert lines[0]["load_s"] == 2.0
    assert lines[1]["completion_tokens"] == 20
    # nothing named: nothing written, and a file that cannot be written is given up
    Timings("").generation(Generation("stop", 1, 1), 0.0, lazy=True)
    broken = Timings(str(tmp_path / "missing" / "t.jsonl"))
    broken.generation(Generation("stop", 1, 1), 0.0, lazy=True)
    assert broken.path == ""


def test_the_embedded_model_reads_the_shared_part_first_unless_switched_off(
    tmp_path: Path,
) -> None:
    from harness.actors.model.local._provider import LocalProvider

    home = {"HARNESS_HOME": str(tmp_path)}
    assert LocalProvider(env=home).guide.reorder
    for off in ("off", "0", "no"):
        assert not LocalProvider(env={**home, "HARNESS_LOCAL_STATIC_FIRST": off}).guide.reorder
