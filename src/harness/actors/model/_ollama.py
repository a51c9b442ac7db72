"""Ollama: ``POST /api/chat`` streamed as NDJSON; ``/api/tags`` lists the models,
``/api/embed`` embeds texts, and ``/api/show`` says (asked once per model and address,
cached) whether its template takes tools and what its window is.

``num_ctx`` and ``num_predict`` are sent explicitly from our context settings, because
Ollama's defaults silently truncate long histories; thinking comes in its own field.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from harness.actors.model._http import classify, get_json
from harness.actors.model._httpbase import (
    DecoderBase,
    HttpProvider,
    embedding_vectors,
    require_finish,
    tool_call_event,
)
from harness.actors.model._provider import Finish, ProviderCall, ProviderError, ProviderEvent
from harness.actors.model._request import HttpRequest
from harness.actors.model._wire import BadLine, NdjsonParser
from harness.messages.model import ChatMessage, TextDelta, ThinkingDelta, Usage

__all__ = ["DEFAULT_BASE", "OllamaDecoder", "OllamaProvider", "model_window", "ollama_messages"]

DEFAULT_BASE = "http://localhost:11434"
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def model_window(show: Any) -> tuple[int | None, int | None]:
    """``(num_ctx, context_length)`` from an ``/api/show`` answer: the window the
    Modelfile sets (its ``parameters`` text), and the model's own limit
    (``model_info["<architecture>.context_length"]``)."""
    if not isinstance(show, dict):
        return None, None
    num_ctx: int | None = None
    params = show.get("parameters")
    if isinstance(params, str):
        m = _NUM_CTX.search(params)
        num_ctx = int(m.group(1)) if m and int(m.group(1)) > 0 else None
    length: int | None = None
    info = show.get("model_info")
    if isinstance(info, dict):
        arch = info.get("general.architecture")
        value = info.get(f"{arch}.context_length") if isinstance(arch, str) else None
        if value is None:
            # no architecture named: the one key of that kind
            value = next((v for k, v in info.items() if k.endswith(".context_length")), None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            length = value
    return num_ctx, length


def ollama_messages(system: str, messages: tuple[ChatMessage, ...]) -> list[dict[str, Any]]:
    """The history in Ollama's shape (arguments as objects, tool results by name)."""
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    for m in messages:
        msg: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.role == "assistant" and m.tool_calls:
            msg["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments}} for c in m.tool_calls
            ]
        if m.role == "tool" and m.name:
            msg["tool_name"] = m.name
        if m.images:  # a vision model reads a message's images from this list
            msg["images"] = [i.data for i in m.images]
        out.append(msg)
    return out


class OllamaDecoder(DecoderBase):
    """NDJSON chat chunks in, provider events out."""

    def __init__(self) -> None:
        self._lines = NdjsonParser()
        self._finished = False

    def decode(self, data: bytes, out: list[ProviderEvent]) -> None:
        for obj in self._lines.feed(data):
            self._chunk(obj, out)

    def close(self) -> list[ProviderEvent]:
        out: list[ProviderEvent] = []
        for obj in self._lines.close():
            self._chunk(obj, out)
        require_finish(self._finished, 'no "done": true')
        return out

    def _chunk(self, obj: Any, out: list[ProviderEvent]) -> None:
        if isinstance(obj, BadLine):
            raise ProviderError("bad_response", f"a stream line is not JSON: {obj.line[:80]!r}")
        if not isinstance(obj, dict) or self._finished:
            return
        if "error" in obj:
            message = str(obj["error"])
            kind, overloaded = classify(None, message)
            raise ProviderError(kind, message, overloaded=overloaded)
        msg = obj.get("message") or {}
        if isinstance(msg, dict):
            if isinstance(msg.get("thinking"), str) and msg["thinking"]:
                out.append(ThinkingDelta(msg["thinking"]))
            if isinstance(msg.get("content"), str) and msg["content"]:
                out.append(TextDelta(msg["content"]))
            for tc in msg.get("tool_calls") or ():
                fn = tc.get("function", {}) if isinstance(tc, dict) else {}
                out.append(
                    tool_call_event(tc.get("id"), str(fn.get("name", "")), fn.get("arguments"))
                )
        if obj.get("done"):
            self._finished = True
            if "prompt_eval_count" in obj or "eval_count" in obj:
                out.append(Usage(obj.get("prompt_eval_count"), obj.get("eval_count")))
            reason = str(obj.get("done_reason") or "stop")
            out.append(Finish("length" if reason == "length" else reason))


class OllamaProvider(HttpProvider):
    """A local or remote Ollama server."""

    name = "ollama"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: dict[tuple[str, str], Any] = {}

    @staticmethod
    def _base(base_url: str) -> str:
        return (base_url or DEFAULT_BASE).rstrip("/")

    def build_request(self, call: ProviderCall) -> HttpRequest:
        options: dict[str, Any] = {}
        o = call.options
        if o.context_window is not None:
            options["num_ctx"] = o.context_window
        if o.max_tokens is not None:
            options["num_predict"] = o.max_tokens
        if o.temperature is not None:
            options["temperature"] = o.temperature
        if o.seed is not None:
            options["seed"] = o.seed
        body: dict[str, Any] = {
            "model": call.model,
            "messages": ollama_messages(call.system, call.messages),
            "stream": True,
            "options": options,
        }
        if o.thinking:
            body["think"] = True
        if call.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in call.tools
            ]
        return HttpRequest(
            "POST",
            f"{self._base(call.base_url)}/api/chat",
            content=orjson.dumps(body),
            headers={"content-type": "application/json"},
        )

    def decoder(self, call: ProviderCall) -> OllamaDecoder:
        return OllamaDecoder()

    def models_request(self, base_url: str, api_key: str | None) -> HttpRequest:
        return HttpRequest("GET", f"{self._base(base_url)}/api/tags")

    def models_from(self, data: Any) -> tuple[str, ...]:
        return tuple(sorted(str(m.get("name") or m["model"]) for m in data["models"]))

    async def _show(self, model: str, base_url: str) -> Any:
        key = (self._base(base_url), model)
        if key not in self._shown:
            request = HttpRequest(
                "POST",
                f"{key[0]}/api/show",
                content=orjson.dumps({"model": model}),
                headers={"content-type": "application/json"},
            )
            self._shown[key] = await get_json(self.http, request, self.timeouts)
        return self._shown[key]

    async def supports_tools(self, model: str, base_url: str, api_key: str | None) -> bool:
        """Ask ``/api/show`` once per model: ``tools`` in its capabilities (newer
        servers), else a template that mentions ``.Tools``."""
        data = await self._show(model, base_url)
        caps = data.get("capabilities") if isinstance(data, dict) else None
        if isinstance(caps, list):
            return "tools" in caps
        template = data.get("template", "") if isinstance(data, dict) else ""
        return ".Tools" in str(template)

    async def describe(
        self, model: str, base_url: str, api_key: str | None
    ) -> tuple[int | None, int | None]:
        """The window facts ``/api/show`` gives (see :func:`model_window`)."""
        return model_window(await self._show(model, base_url))

    async def embed(
        self, model: str, texts: tuple[str, ...], base_url: str, api_key: str | None
    ) -> list[list[float]]:
        """``POST /api/embed``: ``{"model", "input": [...]}`` -> ``{"embeddings": [[...]]}``."""
        request = HttpRequest(
            "POST",
            f"{self._base(base_url)}/api/embed",
            content=orjson.dumps({"model": model, "input": list(texts)}),
            headers={"content-type": "application/json"},
        )
        data = await get_json(self.http, request, self.timeouts)
        rows = data.get("embeddings") if isinstance(data, dict) else None
        return embedding_vectors(rows, len(texts))
