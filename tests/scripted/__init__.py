"""A scripted model for tests: a real OpenAI-compatible streaming server on loopback.

::

    from tests.scripted import ScriptedModel, call, reply

    with ScriptedModel([reply("", call("read_file", path="a.txt")), reply("done")]) as model:
        ...  # point the openai provider at model.base_url
        assert model.requests[1]["messages"][-1]["role"] == "tool"

``python -m tests.scripted script.json`` serves a JSON script from another process
and prints the base URL on its first line (for tests that drive a real terminal).
"""

from tests.scripted._server import (
    Reply,
    ScriptedCall,
    ScriptedModel,
    ScriptEntry,
    call,
    load_script,
    reply,
)

__all__ = [
    "Reply",
    "ScriptEntry",
    "ScriptedCall",
    "ScriptedModel",
    "call",
    "load_script",
    "reply",
]
