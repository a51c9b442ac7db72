"""Gemini: ``POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse``.

Role ``model`` for the assistant, same roles merged, ``functionCall`` / ``functionResponse``
parts (a response names its function and must be an object). The key goes in the
``x-goog-api-key`` header, never in the address, so no URL in an error carries it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import orjson

from harness.actors.model._http import classify
from harness.actors.model._httpbase import (
    HttpProvider,
    SseDecoder,
    call_id,
    require_finish,
    tool_call_event,
)
from harness.actors.model._provider import Finish, ProviderCall, ProviderError, ProviderEvent
from harness.actors.model._request import HttpRequest
from harness.actors.model._wire import SseEvent
from harness.messages.model import ChatMessage, TextDelta, ThinkingDelta, Usage

__all__ = ["GeminiDecoder", "GeminiProvider", "gemini_contents", "gemini_schema"]

DEFAULT_BASE = "https://generativelanguage.googleapis.com"
_FINISH = {"STOP": "stop", "MAX_TOKENS": "length"}
# JSON-schema keys Gemini's OpenAPI subset refuses.
_DROP = {
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "additionalProperties",
    "$ref",
    "patternProperties",
    "unevaluatedProperties",
    "const",
    "examples",
    "default",
}


def gemini_schema(schema: Any) -> Any:
    """*schema* without the JSON-schema keys Gemini rejects."""
    if isinstance(schema, dict):
        return {k: gemini_schema(v) for k, v in schema.items() if k not in _DROP}
    if isinstance(schema, list):
        return [gemini_schema(v) for v in schema]
    return schema


def gemini_contents(
    system: str, messages: tuple[ChatMessage, ...]
) -> tuple[str, list[dict[str, Any]]]:
    """(system, contents) in Gemini's shape, same roles merged."""
    systems = [system] if system else []
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            systems.append(m.content)
            continue
        parts: list[dict[str, Any]] = []
        if m.role == "tool":
            role = "user"
            name = m.name or names.get(m.tool_call_id or "", "tool")
            parts.append({"functionResponse": {"name": name, "response": {"result": m.content}}})
            # the images of a result follow it in the same turn
            parts.extend(
                {"inlineData": {"mimeType": i.mime_type, "data": i.data}} for i in m.images
            )
        else:
            role = "model" if m.role == "assistant" else "user"
            if m.content:
                parts.append({"text": m.content})
            for c in m.tool_calls:
                names[c.id] = c.name
                parts.append({"functionCall": {"name": c.name, "args": c.arguments}})
        if not parts:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": parts})
    return "\n\n".join(systems), out


class GeminiDecoder(SseDecoder):
    """SSE ``GenerateContentResponse`` chunks in, provider events out."""

    def __init__(self) -> None:
        super().__init__()
        self._finish: str | None = None
        self._calls = False
        self._usage: Usage | None = None

    def end(self, out: list[ProviderEvent]) -> None:
        require_finish(self._finish is not None, "no finishReason")
        if self._usage is not None:
            out.append(self._usage)
        reason = self._finish or "stop"
        out.append(Finish("tool_calls" if self._calls and reason == "stop" else reason))

    def event(self, ev: SseEvent, out: list[ProviderEvent]) -> None:
        self._data(ev.data, out)

    def _data(self, data: str, out: list[ProviderEvent]) -> None:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise ProviderError(
                "bad_response", f"a stream event is not JSON: {data[:80]!r}"
            ) from None
        if isinstance(obj, list):  # some proxies send the array form
            for item in obj:
                self._data(orjson.dumps(item).decode(), out)
            return
        if not isinstance(obj, dict):
            return
        if "error" in obj:
            err = obj["error"] if isinstance(obj["error"], dict) else {"message": obj["error"]}
            code = err.get("code") if isinstance(err.get("code"), int) else None
            message = str(err.get("message", ""))
            kind, overloaded = classify(code, f"{message} {err.get('status', '')}")
            raise ProviderError(kind, message, status=code, overloaded=overloaded)
        for cand in (obj.get("candidates") or [])[:1]:
            for part in (cand.get("content") or {}).get("parts") or ():
                if "functionCall" in part:
                    fc = part["functionCall"] or {}
                    self._calls = True
                    out.append(
                        tool_call_event(
                            fc.get("id") or call_id(), str(fc.get("name", "")), fc.get("args") or {}
                        )
                    )
                elif isinstance(part.get("text"), str) and part["text"]:
                    delta = ThinkingDelta if part.get("thought") else TextDelta
                    out.append(delta(part["text"]))
            reason = cand.get("finishReason")
            if reason:
                self._finish = _FINISH.get(reason, reason.lower())
        meta = obj.get("usageMetadata")
        if isinstance(meta, dict):
            self._usage = Usage(meta.get("promptTokenCount"), meta.get("candidatesTokenCount"))
        block = (obj.get("promptFeedback") or {}).get("blockReason")
        if block:
            raise ProviderError("bad_response", f"the prompt was blocked: {block}")


class GeminiProvider(HttpProvider):
    """Google's Gemini API."""

    name = "gemini"

    @staticmethod
    def _base(base_url: str) -> str:
        base = (base_url or DEFAULT_BASE).rstrip("/")
        return base[: -len("/v1beta")] if base.endswith("/v1beta") else base

    def _headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        if api_key:
            headers["x-goog-api-key"] = api_key
        return headers

    def build_request(self, call: ProviderCall) -> HttpRequest:
        system, contents = gemini_contents(call.system, call.messages)
        o = call.options
        config: dict[str, Any] = {}
        if o.max_tokens is not None:
            config["maxOutputTokens"] = o.max_tokens
        if o.temperature is not None:
            config["temperature"] = o.temperature
        if o.seed is not None:
            config["seed"] = o.seed
        if o.thinking:
            config["thinkingConfig"] = {"includeThoughts": True}
        body: dict[str, Any] = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        if call.tools:
            body["tools"] = [
                {
                    "functionDeclarations": [
                        {
                            "name": t.name,
                            "description": t.description,
                            **({"parameters": gemini_schema(t.parameters)} if t.parameters else {}),
                        }
                        for t in call.tools
                    ]
                }
            ]
        if config:
            body["generationConfig"] = config
        model = quote(call.model.removeprefix("models/"), safe="-._")
        url = f"{self._base(call.base_url)}/v1beta/models/{model}:streamGenerateContent"
        return HttpRequest(
            "POST",
            url,
            params={"alt": "sse"},
            content=orjson.dumps(body),
            headers=self._headers(call.api_key),
        )

    def decoder(self, call: ProviderCall) -> GeminiDecoder:
        return GeminiDecoder()

    def models_request(self, base_url: str, api_key: str | None) -> HttpRequest:
        return HttpRequest(
            "GET",
            f"{self._base(base_url)}/v1beta/models",
            params={"pageSize": 1000},
            headers=self._headers(api_key),
        )

    def models_from(self, data: Any) -> tuple[str, ...]:
        return tuple(sorted(str(m["name"]).removeprefix("models/") for m in data["models"]))
