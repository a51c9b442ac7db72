"""provider="local": any raw-text provider gets the text protocol; a missing one is a
config error."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from harness.actors.model import Finish, ProviderCall, ProviderEvent
from harness.actors.model._chat import ModelEngine
from harness.messages.model import (
    ModelDone,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    ToolSchema,
)

from .conftest import collect, request

TOOL = ToolSchema(
    "write_file",
    "Write.",
    {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}},
)
REPLY = (
    '<think>write it</think>Writing.\n<tool_call>{"name": "write_file", "arguments": '
    '{"path": "a.py"}}\n<content>\nprint("hi")\n</content>\n</tool_call>'
)


class RawTokens:
    """A provider that, like the embedded model, only produces raw text tokens."""

    name = "local"

    def __init__(self) -> None:
        self.calls: list[ProviderCall] = []

    async def stream(self, call: ProviderCall) -> AsyncIterator[ProviderEvent]:
        self.calls.append(call)
        for i in range(0, len(REPLY), 3):
            yield TextDelta(REPLY[i : i + 3])
        yield Finish("stop")

    async def list_models(self, base_url: str, api_key: str | None) -> tuple[str, ...]:
        return ("tiny",)

    async def supports_tools(self, model: str, base_url: str, api_key: str | None) -> bool:
        return False

    async def aclose(self) -> None:
        return None


async def test_raw_text_provider_reuses_the_text_protocol(tmp_path: Path) -> None:
    raw = RawTokens()
    engine = ModelEngine({"HARNESS_HOME": str(tmp_path)}, providers={"local": raw})
    events = await collect(engine, request("local", "tiny", tools=(TOOL,)))
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "write it"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Writing.\n"
    (tc,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert (tc.name, tc.arguments) == ("write_file", {"path": "a.py", "content": 'print("hi")\n'})
    assert events[-1] == ModelDone("tool_calls", "tiny", "text")
    (call,) = raw.calls
    assert call.text_protocol
    assert call.tools == ()
    assert "<content>" in call.system


def test_a_missing_local_package_is_a_config_error(tmp_path: Path) -> None:
    code = f"""
import sys, trio
sys.modules["harness.actors.model.local"] = None  # as if the package were absent
from harness.actors.model._chat import ModelEngine
from harness.messages.model import ChatMessage, ChatRequest
events = []
async def emit(ev): events.append(ev)
async def main():
    await ModelEngine({{"HARNESS_HOME": {str(tmp_path)!r}}}).chat(
        ChatRequest("local", ("tiny",), (ChatMessage("user", "hi"),)), emit)
trio.run(main)
print(events[0].kind, "|", events[0].message)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    kind, message = out.stdout.strip().split(" | ")
    assert kind == "config"
    assert "embedded local model is not available" in message


async def test_unknown_provider_and_protocol_are_config_errors(tmp_path: Path) -> None:
    engine = ModelEngine({"HARNESS_HOME": str(tmp_path)}, providers={"local": RawTokens()})
    (ev,) = await collect(engine, request("acme"))
    assert ev.kind == "config"  # type: ignore[union-attr]
    (ev,) = await collect(engine, request("local", tools=(TOOL,), tool_protocol="smoke"))
    assert ev.kind == "config"  # type: ignore[union-attr]
