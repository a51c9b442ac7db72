"""The scripted model speaks OpenAI's streaming wire format over real HTTP and records requests."""

import json

import httpx
import pytest

from tests.scripted import ScriptedModel, call, load_script, reply


def _sse(resp: httpx.Response) -> list[dict]:
    out = []
    for line in resp.iter_lines():
        if line.startswith("data: ") and line != "data: [DONE]":
            out.append(json.loads(line[6:]))
    return out


def test_streams_text_and_tool_calls_and_records() -> None:
    script = [reply("hello world", chunk=4), reply("", call("read_file", path="a.txt"))]
    with ScriptedModel(script) as model, httpx.Client(base_url=model.base_url) as client:
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        with client.stream("POST", "/chat/completions", json=body) as resp:
            chunks = _sse(resp)
        text = "".join(
            c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]
        )
        assert text == "hello world"
        assert chunks[-1]["usage"]["prompt_tokens"] > 0
        with client.stream("POST", "/chat/completions", json=body) as resp:
            chunks = _sse(resp)
        args = "".join(
            tc["function"]["arguments"]
            for c in chunks
            if c["choices"]
            for tc in c["choices"][0]["delta"].get("tool_calls", [])
        )
        assert json.loads(args) == {"path": "a.txt"}
        finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
        assert "tool_calls" in finishes
        assert len(model.requests) == 2
        assert model.requests[0]["messages"][0]["content"] == "hi"
        # an exhausted script is a clear error, not a hang
        resp = client.post("/chat/completions", json=body)
        assert resp.status_code == 400
        assert "no more replies" in resp.text


def test_non_streaming_callable_and_models() -> None:
    def echo(body: dict) -> object:
        return reply("you said " + body["messages"][-1]["content"])

    with ScriptedModel([echo], models=["a", "b"]) as model, httpx.Client() as client:
        r = client.post(
            model.base_url + "/chat/completions",
            json={"model": "a", "messages": [{"role": "user", "content": "x"}]},
        )
        assert r.json()["choices"][0]["message"]["content"] == "you said x"
        ids = [m["id"] for m in client.get(model.base_url + "/models").json()["data"]]
        assert ids == ["a", "b"]


@pytest.mark.parametrize("status", [401, 429, 503])
def test_error_statuses(status: int) -> None:
    with ScriptedModel([reply(status=status, error="nope")]) as model:
        r = httpx.post(model.base_url + "/chat/completions", json={"stream": True})
        assert r.status_code == status
        assert r.json()["error"]["message"] == "nope"


def test_load_script_from_json() -> None:
    [r] = load_script([{"text": "t", "tool_calls": [{"name": "x", "arguments": {"a": 1}}]}])
    assert r.text == "t"
    assert r.tool_calls[0].name == "x"
