"""Embeddings (Ollama's ``/api/embed``, OpenAI's ``/embeddings``) and what Ollama's
``/api/show`` says of a model's window, against a loopback server speaking each format."""

from __future__ import annotations

import json

import pytest

from harness.actors.model import ProviderError
from harness.actors.model._chat import ModelEngine
from harness.messages.model import DescribeModel, Embed, Embeddings, ModelFacts

from ._server import LoopbackServer, Reply


def body(obj: object) -> Reply:
    return Reply(chunks=[json.dumps(obj).encode()], headers={"content-type": "application/json"})


async def test_ollama_embed_sends_every_text_and_reads_the_vectors(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue("/api/embed", body({"model": "e", "embeddings": [[0.1, 0.2], [0.3, 0.4]]}))
    got = await engine.embed(Embed(provider="ollama", model="nomic-embed-text", texts=("a", "b")))
    assert got == Embeddings(((0.1, 0.2), (0.3, 0.4)))
    (sent,) = server.requests
    assert (sent.method, sent.path) == ("POST", "/api/embed")
    assert sent.json() == {"model": "nomic-embed-text", "input": ["a", "b"]}


async def test_openai_embeddings_come_back_in_the_inputs_order_with_the_key(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    rows = [
        {"object": "embedding", "index": 1, "embedding": [0.0, 1.0]},
        {"object": "embedding", "index": 0, "embedding": [1.0, 0.0]},
    ]
    server.queue("/v1/embeddings", body({"object": "list", "data": rows, "model": "e"}))
    got = await engine.embed(
        Embed(provider="openai", model="text-embedding-3-small", texts=("x", "y"))
    )
    assert got.vectors == ((1.0, 0.0), (0.0, 1.0))
    (sent,) = server.requests
    assert sent.path == "/v1/embeddings"
    assert sent.json() == {"model": "text-embedding-3-small", "input": ["x", "y"]}
    assert sent.headers["authorization"] == "Bearer sk-test-SECRET-openai"


async def test_a_wrong_shape_or_count_is_a_bad_response(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue("/api/embed", body({"embeddings": [[0.1]]}), body({"embeddings": [["x"], [1]]}))
    for _ in range(2):
        with pytest.raises(ProviderError) as info:
            await engine.embed(Embed(provider="ollama", model="e", texts=("a", "b")))
        assert info.value.kind == "bad_response"


async def test_a_provider_without_embeddings_says_so(engine: ModelEngine) -> None:
    with pytest.raises(ProviderError) as info:
        await engine.embed(Embed(provider="anthropic", model="e", texts=("a",)))
    assert info.value.kind == "config"
    assert "no embeddings endpoint" in info.value.message


SHOW = {
    "modelfile": "FROM qwen\n",
    "template": "{{ .Prompt }}",
    "details": {"family": "qwen2"},
    "model_info": {
        "general.architecture": "qwen2",
        "qwen2.context_length": 32768,
        "qwen2.embedding_length": 1536,
    },
    "capabilities": ["completion", "tools"],
}


async def test_api_show_gives_the_models_length_and_a_modelfile_num_ctx(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    with_ctx = dict(SHOW, parameters='num_ctx                        16384\nstop "<|im_end|>"')
    server.queue("/api/show", body(SHOW), body(with_ctx))
    facts = await engine.describe(DescribeModel(provider="ollama", model="a"))
    assert facts == ModelFacts(num_ctx=None, context_length=32768)
    assert server.requests[0].json() == {"model": "a"}
    facts = await engine.describe(DescribeModel(provider="ollama", model="b"))
    assert facts == ModelFacts(num_ctx=16384, context_length=32768)
    # asked once per model and address: the capability probe reads the same answer
    assert await engine.provider("ollama").supports_tools("b", server.url, None)
    assert len(server.requests) == 2


async def test_api_show_failing_is_an_error_and_other_providers_say_nothing(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue("/api/show", Reply(404, [b'{"error": "model \\"z\\" not found"}']))
    with pytest.raises(ProviderError):
        await engine.describe(DescribeModel(provider="ollama", model="z"))
    assert await engine.describe(DescribeModel(provider="openai", model="gpt")) == ModelFacts()
