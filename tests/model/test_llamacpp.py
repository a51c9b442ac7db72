"""The OpenAI provider and a llama.cpp server under the text protocol: the server's own
endpoints (``/props``, ``/apply-template``, ``/completion``), played on loopback in the
server's wire format, take the embedded model's call grammar and nudges."""

from __future__ import annotations

import json
import subprocess
import sys

import trio

from harness.actors.model._chat import ModelEngine
from harness.actors.model.local._grammar import TRIGGERS
from harness.messages.model import (
    ChatMessage,
    ChatOptions,
    ModelDone,
    ModelError,
    TextDelta,
    ToolCallEvent,
    ToolSchema,
    Usage,
)

from ._server import LoopbackServer, Recorded, Reply, pieces, sse
from .conftest import collect, request

READ = ToolSchema(
    "read_file",
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
PROPS = {"build_info": "b1-test", "default_generation_settings": {"n_ctx": 8192}}


def render(req: Recorded) -> Reply:
    """``/apply-template``, as a ChatML template renders."""
    text = "".join(
        f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in req.json()["messages"]
    )
    return Reply(chunks=[json.dumps({"prompt": text + "<|im_start|>assistant\n"}).encode()])


def completion(
    text: str,
    stop_type: str = "eos",
    evaluated: int = 40,
    stopping_word: str = "",
    cached: int | None = None,
) -> Reply:
    """``/completion``'s stream: a piece an event, then the event with ``stop`` (and, with
    *cached*, the timings that say how much of the prompt the server's cache held)."""
    events = [{"content": p.decode(), "stop": False} for p in pieces(text, 5)]
    last = {"content": "", "stop": True, "stop_type": stop_type, "stopping_word": stopping_word}
    last |= {"tokens_evaluated": evaluated, "tokens_predicted": len(events)}
    if cached is not None:
        last["timings"] = {"cache_n": cached, "prompt_n": evaluated - cached}
    return Reply(chunks=pieces(sse(*events, last), 11))


def llamacpp(server: LoopbackServer) -> None:
    server.always("/props", Reply(chunks=[json.dumps(PROPS).encode()]))
    server.answer("/apply-template", render)


def sent(server: LoopbackServer, path: str) -> list[dict]:
    return [r.json() for r in server.requests if r.path == path]


async def ask(engine: ModelEngine) -> list:
    """The events of a text-protocol request offering read_file."""
    return await collect(engine, request("openai", tools=(READ,), tool_protocol="text"))


def the_error(events: list) -> ModelError:
    (failed,) = [e for e in events if isinstance(e, ModelError)]
    return failed


def text_of(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def test_a_call_is_completed_under_the_lazy_call_grammar(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    llamacpp(server)
    call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>'
    server.queue("/completion", completion("Reading.\n" + call, evaluated=57, cached=50))
    events = await collect(
        engine, request("openai", tools=(READ,), tool_protocol="text", system="Be good.")
    )
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "a.txt"})]
    assert Usage(57, 18, 50) in events
    assert events[-1] == ModelDone("tool_calls", "m1", "text")
    assert not sent(server, "/v1/chat/completions")
    (template,) = sent(server, "/apply-template")
    assert [m["role"] for m in template["messages"]] == ["system", "user"]
    assert template["messages"][0]["content"].startswith("Be good.\n\n# Tools")
    (body,) = sent(server, "/completion")
    assert body["prompt"].startswith("<|im_start|>system\nBe good.")
    assert body["prompt"].endswith("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")
    assert body["grammar_lazy"] is True
    assert '"\\"read_file\\""' in body["grammar"]
    assert body["grammar_triggers"] == [{"type": 2, "value": t} for t in TRIGGERS]
    assert body["stop"] == ["</tool_call>", "<tool_response>"]
    # the call set none: greedy, as the embedded model (not the server's own 0.8)
    assert body["temperature"] == 0.0
    assert body["stream"] is True
    assert body["cache_prompt"] is True
    auth = [r.headers.get("authorization") for r in server.requests]
    assert auth
    assert set(auth) == {"Bearer sk-test-SECRET-openai"}


async def test_an_announced_read_is_asked_for_once_bound_to_that_call(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    llamacpp(server)
    server.queue(
        "/completion",
        completion("I will read the file a.txt to find the code."),
        completion('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}'),
    )
    events = await collect(
        engine,
        request(
            "openai",
            tools=(READ,),
            tool_protocol="text",
            options=ChatOptions(temperature=0.7, max_tokens=2000),
        ),
    )
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "a.txt"})]
    assert text_of(events).startswith("I will read the file a.txt to find the code.\n\n")
    assert events[-1] == ModelDone("tool_calls", "m1", "text")
    first, again = sent(server, "/completion")
    assert first["grammar_lazy"] is True
    # the nudged generation: bound from its first token to a read_file call, and short
    assert again["grammar_lazy"] is False
    assert "grammar_triggers" not in again
    assert '"\\"read_file\\""' in again["grammar"]
    assert again["n_predict"] == 768
    # the call's own temperature, in both generations
    assert first["temperature"] == again["temperature"] == 0.7
    nudged = sent(server, "/apply-template")[1]["messages"]
    assert nudged[-2] == {
        "role": "assistant",
        "content": "I will read the file a.txt to find the code.",
    }
    assert nudged[-1]["role"] == "user"
    assert "call read_file" in nudged[-1]["content"]


async def test_a_server_that_is_not_llamacpp_stays_on_the_chat_endpoint_asked_once(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    # no /props here: 404, as other OpenAI-compatible servers answer
    chunk = {
        "id": "x",
        "choices": [{"index": 0, "delta": {"content": "Hi."}, "finish_reason": "stop"}],
    }
    for _ in range(2):
        server.queue("/v1/chat/completions", Reply(chunks=[sse(chunk, done=True)]))
        events = await ask(engine)
        assert text_of(events) == "Hi."
    assert [r.path for r in server.requests].count("/props") == 1
    assert len(sent(server, "/v1/chat/completions")) == 2
    assert "grammar" not in sent(server, "/v1/chat/completions")[0]


async def test_native_tools_never_ask_for_props(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    chunk = {
        "id": "x",
        "choices": [{"index": 0, "delta": {"content": "Hi."}, "finish_reason": "stop"}],
    }
    server.queue("/v1/chat/completions", Reply(chunks=[sse(chunk, done=True)]))
    await collect(engine, request("openai", tools=(READ,)))
    assert [r.path for r in server.requests] == ["/v1/chat/completions"]


async def test_the_token_limit_is_a_length_finish(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    llamacpp(server)
    server.queue("/completion", completion("The answer is", stop_type="limit"))
    events = await ask(engine)
    assert text_of(events) == "The answer is"
    assert events[-1] == ModelDone("length", "m1", "text")


async def test_a_prompt_past_the_window_is_a_context_error(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    llamacpp(server)
    message = "the request exceeds the available context size, try increasing it"
    error = {"error": {"code": 400, "message": message, "type": "exceed_context_size_error"}}
    server.queue("/completion", Reply(400, [json.dumps(error).encode()]))
    events = await ask(engine)
    failed = the_error(events)
    assert failed.kind == "context_length"
    assert "context size" in failed.message


async def test_an_error_event_inside_the_stream_keeps_what_came_before(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    llamacpp(server)
    body = sse({"content": "Partly", "stop": False}, {"error": {"code": 500, "message": "boom"}})
    server.queue("/completion", Reply(chunks=[body]))
    events = await ask(engine)
    assert text_of(events) == "Partly"
    failed = the_error(events)
    assert failed.kind == "server"
    assert "boom" in failed.message


async def test_a_stream_that_ends_without_stop_is_a_network_error(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    llamacpp(server)
    server.queue("/completion", Reply(chunks=[sse({"content": "Half", "stop": False})]))
    events = await ask(engine)
    failed = the_error(events)
    assert failed.kind == "network"


async def test_a_template_answer_without_a_prompt_is_a_bad_response(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.always("/props", Reply(chunks=[json.dumps(PROPS).encode()]))
    server.always("/apply-template", Reply(chunks=[b'{"text": "no prompt here"}']))
    events = await ask(engine)
    failed = the_error(events)
    assert failed.kind == "bad_response"
    assert "/apply-template" in failed.message


async def test_a_reply_that_repeats_itself_is_stopped_and_the_server_let_go(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    llamacpp(server)
    line = "The file holds the launch code, as I said before.\n"
    events = [{"content": line, "stop": False} for _ in range(6)]
    server.queue("/completion", Reply(chunks=[sse(e) for e in events], then="hang"))
    got = await ask(engine)
    assert text_of(got) == line * 4
    assert got[-1] == ModelDone("stop", "m1", "text")
    with trio.fail_after(5):
        await server.hung_up.wait()


async def test_a_loop_inside_a_calls_body_cuts_the_call_and_says_looped(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    write = ToolSchema(
        "write_file",
        "Write a file.",
        {"type": "object", "properties": {"path": {}, "content": {}}, "required": ["path"]},
    )
    opened = '<tool_call>\n{"name": "write_file", "arguments": {"path": "RUNNING.md"}}\n<content>\n'
    line = "- The report script is located in the src directory of the project.\n"
    events = [{"content": opened, "stop": False}] + [{"content": line, "stop": False}] * 80
    llamacpp(server)
    server.queue("/completion", Reply(chunks=[sse(e) for e in events], then="hang"))
    got = await collect(engine, request("openai", tools=(write,), tool_protocol="text"))
    # read as cut off, as at the token limit: never repaired into a call that could run
    (cut,) = [e for e in got if isinstance(e, ToolCallEvent)]
    assert cut.arguments is None
    assert cut.parse_error == "the reply was cut off inside <content>; not repaired"
    assert got[-1] == ModelDone("looped", "m1", "text")
    assert text_of(got).count(line) <= 24  # stopped at the 24th time, not the 80th
    with trio.fail_after(5):
        await server.hung_up.wait()


async def test_a_loop_inside_one_line_is_cut_and_the_announced_call_asked_for(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    # the fresh task set's missing-api-tests: one regular expression growing by one piece
    # (the embedded model went on to its output limit, 236 s, with no call). As recorded,
    # its first sentence named tests/test_api.py and is now stopped there (the guide stops
    # a reply at the look it announces); here the loop starts inside that sentence
    search = ToolSchema(
        "search_text",
        "Search files.",
        {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": []},
    )
    said = (
        "To answer this question, I'll use the `search_text` tool with the pattern `^def test_\\d+:"
    )
    piece = "\\s*assert\\s+len\\(\\d+\\) == \\d+,"
    events = [{"content": p.decode(), "stop": False} for p in pieces(said + piece * 60, 5)]
    llamacpp(server)
    server.queue(
        "/completion",
        Reply(chunks=[sse(e) for e in events], then="hang"),
        completion('<tool_call>\n{"name": "search_text", "arguments": {"pattern": "def test_"}}'),
    )
    asked = (ChatMessage("user", "How many tests are in tests/test_api.py?"),)
    got = await collect(
        engine, request("openai", tools=(search,), tool_protocol="text", messages=asked)
    )
    first = text_of(got).split("\n\n<tool_call>")[0]
    assert first.startswith(said)
    assert first.count(piece) < 10  # cut after 256 characters of it, not 60 times
    calls = [(e.name, e.arguments) for e in got if isinstance(e, ToolCallEvent)]
    assert calls == [("search_text", {"pattern": "def test_"})]
    again = sent(server, "/completion")[1]
    assert again["grammar_lazy"] is False
    assert '"\\"search_text\\""' in again["grammar"]
    with trio.fail_after(5):
        await server.hung_up.wait()


async def test_a_call_the_stop_ended_gets_its_closing_tag_back(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    llamacpp(server)
    call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n'
    server.queue("/completion", completion(call, "word", stopping_word="</tool_call>"))
    events = await ask(engine)
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    # the model wrote the tag; the stop took it out: nothing was repaired
    assert [(c.name, c.arguments, c.repaired) for c in calls] == [
        ("read_file", {"path": "a.txt"}, None)
    ]


def test_without_llama_cpp_python_a_server_gets_no_grammar_and_no_error() -> None:
    # llama-cpp-python builds the grammar; a llama.cpp server is usable without it
    code = (
        "import sys\n"
        "sys.modules['llama_cpp'] = None  # as if not installed: importing it fails\n"
        "from harness.actors.model.local._guide import Guide\n"
        "from harness.messages.model import ToolSchema\n"
        "tool = ToolSchema('read_file', 'Read.', {'type': 'object', 'properties': {}})\n"
        "print(repr(Guide().grammar((tool,))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "''"
