"""OpenAI-compatible chat completions: OpenAI, llama.cpp's server, vLLM, LM Studio,
OpenRouter. ``POST {base}/chat/completions`` streamed as SSE.

The servers differ in small ways this decoder absorbs: ``usage`` missing or sent in a last
chunk with no choices, ``finish_reason`` in a chunk of its own, tool-call arguments split
across chunks, later deltas without ``id``, reasoning as ``reasoning_content`` or
``reasoning``, an error sent as a ``data:`` event, no ``[DONE]`` at the end.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

import orjson

from harness.actors.model._http import get_json
from harness.actors.model._httpbase import (
    HttpProvider,
    SseDecoder,
    embedding_vectors,
    event_object,
    require_finish,
    tool_call_event,
)
from harness.actors.model._llamacpp import LlamaCppServer
from harness.actors.model._provider import Finish, ProviderCall, ProviderError, ProviderEvent
from harness.actors.model._request import HttpRequest
from harness.actors.model._textproto import TEXT_PROTOCOL_STOPS
from harness.actors.model._wire import SseEvent
from harness.messages.model import (
    CallWriting,
    ChatMessage,
    TextDelta,
    ThinkingDelta,
    ToolSchema,
    Usage,
)

if TYPE_CHECKING:
    from harness.actors.model.local import Guide

__all__ = ["OpenAIDecoder", "OpenAIProvider", "api_base", "images_message", "openai_messages"]

DEFAULT_BASE = "https://api.openai.com/v1"
_FINISH = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "eos": "stop",
    "end_turn": "stop",
}


def api_base(base_url: str) -> str:
    """The API root: ``/v1`` is added when the address does not end in a version."""
    base = (base_url or DEFAULT_BASE).rstrip("/")
    if not re.search(r"/v\d+(?:beta\d*)?$", base):
        base += "/v1"
    return base


def images_message(messages: Sequence[ChatMessage]) -> dict[str, Any] | None:
    """A user message with the images of *messages* (tool results: a tool message holds
    text only), to follow the last of them; ``None`` when they have none."""
    images = [i for m in messages for i in m.images]
    if not images:
        return None
    parts: list[dict[str, Any]] = [{"type": "text", "text": "The images the tools returned:"}]
    parts.extend(
        {"type": "image_url", "image_url": {"url": f"data:{i.mime_type};base64,{i.data}"}}
        for i in images
    )
    return {"role": "user", "content": parts}


def openai_messages(system: str, messages: tuple[ChatMessage, ...]) -> list[dict[str, Any]]:
    """The history in the chat-completions shape."""
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    for k, m in enumerate(messages):
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": m.content or None,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {
                                "name": c.name,
                                "arguments": orjson.dumps(c.arguments).decode(),
                            },
                        }
                        for c in m.tool_calls
                    ],
                }
            )
        else:
            out.append({"role": m.role, "content": m.content})
        if m.role == "tool" and (k + 1 == len(messages) or messages[k + 1].role != "tool"):
            extra = images_message(_tool_run(messages, k))
            if extra is not None:
                out.append(extra)
    return out


def _tool_run(messages: Sequence[ChatMessage], last: int) -> list[ChatMessage]:
    """The tool messages in a row that end at *last*."""
    first = last
    while first > 0 and messages[first - 1].role == "tool":
        first -= 1
    return list(messages[first : last + 1])


def _left_open(pieces: list[str]) -> bool:
    """Whether the reply in *pieces* ends inside a ``<tool_call>`` block."""
    text = "".join(pieces)
    return text.rfind("<tool_call>") > text.rfind("</tool_call>")


class OpenAIDecoder(SseDecoder):
    """SSE chat-completion chunks in, provider events out."""

    def __init__(self) -> None:
        super().__init__()
        self._calls: dict[int, list[Any]] = {}  # index -> [id, name, argument pieces]
        self._finish: str | None = None
        self._done = False

    def end(self, out: list[ProviderEvent]) -> None:
        require_finish(self._done or self._finish is not None, "no finish_reason, no [DONE]")
        out += self._flush_calls()
        out.append(Finish(self._finish or "stop"))

    def _flush_calls(self) -> list[ProviderEvent]:
        calls = [tool_call_event(c[0], c[1], "".join(c[2])) for _, c in sorted(self._calls.items())]
        self._calls = {}
        return list(calls)

    def event(self, ev: SseEvent, out: list[ProviderEvent]) -> None:
        if ev.data.strip() == "[DONE]":
            self._done = True
            return
        if self._done:
            return
        chunk = event_object(ev.data)
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or {}
            thinking = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thinking, str) and thinking:
                out.append(ThinkingDelta(thinking))
            content = delta.get("content")
            if isinstance(content, str) and content:
                out.append(TextDelta(content))
            for i, tc in enumerate(delta.get("tool_calls") or ()):
                self._call_delta(i, tc, out)
            reason = choice.get("finish_reason")
            if reason:
                self._finish = _FINISH.get(reason, reason)
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            details = usage.get("prompt_tokens_details")
            cached = details.get("cached_tokens") if isinstance(details, dict) else None
            out.append(
                Usage(
                    usage.get("prompt_tokens"),
                    usage.get("completion_tokens"),
                    cached if isinstance(cached, int) else None,
                )
            )

    def _call_delta(self, position: int, tc: Any, out: list[ProviderEvent]) -> None:
        if not isinstance(tc, dict):
            return
        index = tc.get("index")
        cid = tc.get("id")
        if not isinstance(index, int):
            # No index: match by id, else it continues the latest call.
            index = next((i for i, c in self._calls.items() if cid and c[0] == cid), None)
            if index is None:
                index = len(self._calls) if cid or not self._calls else max(self._calls)
        entry = self._calls.setdefault(index, [None, "", []])
        if cid and not entry[0]:
            entry[0] = cid
        fn = tc.get("function") or {}
        if fn.get("name") and not entry[1]:
            entry[1] = fn["name"]
            out.append(CallWriting(entry[1]))  # the arguments are still to come
        args = fn.get("arguments")
        if isinstance(args, str):
            entry[2].append(args)
        elif isinstance(args, dict):
            entry[2].append(orjson.dumps(args).decode())


class OpenAIProvider(HttpProvider):
    """Any OpenAI-compatible chat-completions server.

    Under the text protocol a llama.cpp server is asked through its own endpoints, with
    the call grammar and the nudges of the embedded model (:mod:`._llamacpp`)."""

    name = "openai"
    _tools_cache: tuple[tuple[ToolSchema, ...], list[dict[str, Any]]] | None = None
    _rendered: dict[int, tuple[ChatMessage, dict[str, Any]]] | None = None
    _llamacpp: LlamaCppServer | None = None
    _guide: Guide | None = None

    async def stream(self, call: ProviderCall) -> AsyncGenerator[ProviderEvent, None]:
        """Stream one reply (see :class:`~harness.actors.model.Provider`)."""
        if call.text_protocol and call.text_tools:
            if self._llamacpp is None:
                self._llamacpp = LlamaCppServer(self.http, self.timeouts)
            server = self._llamacpp
            if await server.serves(api_base(call.base_url), call.api_key):
                if self._guide is None:
                    from harness.actors.model.local import text_guide

                    self._guide = text_guide()
                async with aclosing(self._guide.stream(call, server.generate)) as events:
                    async for event in events:
                        yield event
                return
        said: list[str] = []
        async with aclosing(super().stream(call)) as events:
            async for event in events:
                if call.text_protocol and isinstance(event, TextDelta):
                    said.append(event.text)
                elif isinstance(event, Finish) and event.reason == "stop" and _left_open(said):
                    # the </tool_call> stop ended the reply: the model wrote the tag (left
                    # out, the parser closed the call and told the model it repaired it)
                    yield TextDelta(TEXT_PROTOCOL_STOPS[0])
                yield event

    def _headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        return headers

    def _tools_json(self, tools: tuple[ToolSchema, ...]) -> list[dict[str, Any]]:
        # A conversation's tools come as the very same tuple every round (the
        # worker keeps them with its history): render them once.
        cached = self._tools_cache
        if cached is not None and cached[0] is tools:
            return cached[1]
        rendered = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters or {"type": "object", "properties": {}},
                },
            }
            for t in tools
        ]
        self._tools_cache = (tools, rendered)
        return rendered

    def _messages_json(
        self, system: str, messages: tuple[ChatMessage, ...]
    ) -> list[dict[str, Any]]:
        # The worker keeps a conversation's messages from round to round (the same
        # objects), so each is rendered once; a message seen for the first time
        # (a new conversation, a rewritten history) is rendered as it comes.
        cache = self._rendered
        if cache is None or len(cache) > 2 * len(messages) + 256:
            keep = {id(m) for m in messages}
            cache = self._rendered = {k: v for k, v in (cache or {}).items() if k in keep}
        out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        for k, m in enumerate(messages):
            hit = cache.get(id(m))
            if hit is None or hit[0] is not m:
                hit = cache[id(m)] = (m, openai_messages("", (m,))[0])
            out.append(hit[1])
            if m.role == "tool" and (k + 1 == len(messages) or messages[k + 1].role != "tool"):
                extra = images_message(_tool_run(messages, k))
                if extra is not None:
                    out.append(extra)
        return out

    def build_request(self, call: ProviderCall) -> HttpRequest:
        body: dict[str, Any] = {
            "model": call.model,
            "messages": self._messages_json(call.system, call.messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if call.tools:
            body["tools"] = self._tools_json(call.tools)
        if call.text_protocol:
            # the reply ends with the call: the model never writes the tool's result
            # itself (the parser closes the call the stop cut off)
            body["stop"] = list(TEXT_PROTOCOL_STOPS)
        o = call.options
        if o.max_tokens is not None:
            body["max_tokens"] = o.max_tokens
        if o.temperature is not None:
            body["temperature"] = o.temperature
        if o.seed is not None:
            body["seed"] = o.seed
        return HttpRequest(
            "POST",
            f"{api_base(call.base_url)}/chat/completions",
            content=orjson.dumps(body),
            headers=self._headers(call.api_key),
        )

    def decoder(self, call: ProviderCall) -> OpenAIDecoder:
        return OpenAIDecoder()

    def models_request(self, base_url: str, api_key: str | None) -> HttpRequest:
        return HttpRequest("GET", f"{api_base(base_url)}/models", headers=self._headers(api_key))

    def models_from(self, data: Any) -> tuple[str, ...]:
        return tuple(sorted(str(m["id"]) for m in data["data"]))

    async def embed(
        self, model: str, texts: tuple[str, ...], base_url: str, api_key: str | None
    ) -> list[list[float]]:
        """``POST /embeddings``: ``{"model", "input": [...]}`` ->
        ``{"data": [{"index", "embedding"}]}`` (put back in the inputs' order)."""
        headers = self._headers(api_key)
        headers["accept"] = "application/json"
        request = HttpRequest(
            "POST",
            f"{api_base(base_url)}/embeddings",
            content=orjson.dumps({"model": model, "input": list(texts)}),
            headers=headers,
        )
        data = await get_json(self.http, request, self.timeouts, (api_key,))
        rows = data.get("data") if isinstance(data, dict) else None
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ProviderError("bad_response", "/embeddings: no data in the answer")
        try:
            ordered = sorted(rows, key=lambda r: int(r.get("index", 0)))
        except (TypeError, ValueError):
            raise ProviderError("bad_response", "/embeddings: an index is not a number") from None
        return embedding_vectors([r.get("embedding") for r in ordered], len(texts))
