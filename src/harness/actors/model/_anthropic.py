"""Anthropic messages: ``POST {base}/v1/messages`` streamed as SSE.

The system prompt is its own field; tool calls are ``tool_use`` blocks, their results
``tool_result`` blocks in a user message; consecutive same-role messages are merged (the
API demands alternating roles). Thinking arrives as ``thinking`` blocks.
"""

from __future__ import annotations

from typing import Any

import orjson

from harness.actors.model._http import classify
from harness.actors.model._httpbase import (
    HttpProvider,
    SseDecoder,
    require_finish,
    tool_call_event,
)
from harness.actors.model._provider import Finish, ProviderCall, ProviderError, ProviderEvent
from harness.actors.model._request import HttpRequest
from harness.actors.model._wire import SseEvent
from harness.messages.model import CallWriting, ChatMessage, TextDelta, ThinkingDelta, Usage

__all__ = ["AnthropicDecoder", "AnthropicProvider", "anthropic_messages"]

DEFAULT_BASE = "https://api.anthropic.com"
VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192
_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
}


def anthropic_messages(
    system: str, messages: tuple[ChatMessage, ...]
) -> tuple[str, list[dict[str, Any]]]:
    """(system, messages) in the messages-API shape, same roles merged."""
    systems = [system] if system else []
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            systems.append(m.content)
            continue
        blocks: list[dict[str, Any]] = []
        if m.role == "tool":
            role = "user"
            result: str | list[dict[str, Any]] = m.content or "(no output)"
            if m.images:  # a tool result holds its images beside its text
                result = [{"type": "text", "text": result}] + [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": i.mime_type, "data": i.data},
                    }
                    for i in m.images
                ]
            blocks.append(
                {"type": "tool_result", "tool_use_id": m.tool_call_id or "", "content": result}
            )
        else:
            role = "assistant" if m.role == "assistant" else "user"
            if m.content:
                blocks.append({"type": "text", "text": m.content})
            for c in m.tool_calls:
                blocks.append(
                    {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                )
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return "\n\n".join(systems), out


class AnthropicDecoder(SseDecoder):
    """SSE message events in, provider events out."""

    def __init__(self) -> None:
        super().__init__()
        self._blocks: dict[int, list[Any]] = {}  # index -> [type, id, name, json pieces]
        self._prompt_tokens: int | None = None
        self._finish: str | None = None
        self._stopped = False

    def end(self, out: list[ProviderEvent]) -> None:
        require_finish(self._stopped, "no message_stop")
        out.append(Finish(self._finish or "stop"))

    def event(self, ev: SseEvent, out: list[ProviderEvent]) -> None:
        try:
            obj = orjson.loads(ev.data)
        except orjson.JSONDecodeError:
            raise ProviderError(
                "bad_response", f"a stream event is not JSON: {ev.data[:80]!r}"
            ) from None
        if not isinstance(obj, dict):
            return
        kind = obj.get("type", ev.event)
        if kind == "error":
            err = obj.get("error") or {}
            message = str(err.get("message", err)) if isinstance(err, dict) else str(err)
            etype = str(err.get("type", "")) if isinstance(err, dict) else ""
            status = {
                "overloaded_error": 529,
                "rate_limit_error": 429,
                "api_error": 500,
                "not_found_error": 404,
                "authentication_error": 401,
            }.get(etype)
            k, overloaded = classify(status, f"{etype} {message}")
            raise ProviderError(k, message, status=status, overloaded=overloaded)
        if kind == "message_start":
            usage = (obj.get("message") or {}).get("usage") or {}
            self._prompt_tokens = usage.get("input_tokens")
        elif kind == "content_block_start":
            block = obj.get("content_block") or {}
            entry = [block.get("type"), block.get("id"), block.get("name", ""), []]
            self._blocks[int(obj.get("index", len(self._blocks)))] = entry
            if block.get("type") == "text" and block.get("text"):
                out.append(TextDelta(block["text"]))
            elif block.get("type") == "tool_use" and block.get("name"):
                out.append(CallWriting(block["name"]))  # its input is still to come
        elif kind == "content_block_delta":
            delta = obj.get("delta") or {}
            dtype = delta.get("type")
            if dtype == "text_delta" and delta.get("text"):
                out.append(TextDelta(delta["text"]))
            elif dtype == "thinking_delta" and delta.get("thinking"):
                out.append(ThinkingDelta(delta["thinking"]))
            elif dtype == "input_json_delta":
                block_entry = self._blocks.get(int(obj.get("index", -1)))
                if block_entry is not None:
                    block_entry[3].append(delta.get("partial_json", ""))
        elif kind == "content_block_stop":
            done = self._blocks.pop(int(obj.get("index", -1)), None)
            if done is not None and done[0] == "tool_use":
                out.append(tool_call_event(done[1], done[2], "".join(done[3])))
        elif kind == "message_delta":
            reason = (obj.get("delta") or {}).get("stop_reason")
            if reason:
                self._finish = _FINISH.get(reason, reason)
            usage = obj.get("usage") or {}
            if "output_tokens" in usage or self._prompt_tokens is not None:
                prompt = usage.get("input_tokens", self._prompt_tokens)
                out.append(Usage(prompt, usage.get("output_tokens")))
        elif kind == "message_stop":
            self._stopped = True


class AnthropicProvider(HttpProvider):
    """Anthropic's messages API."""

    name = "anthropic"

    @staticmethod
    def _base(base_url: str) -> str:
        base = (base_url or DEFAULT_BASE).rstrip("/")
        return base[: -len("/v1")] if base.endswith("/v1") else base

    def _headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"content-type": "application/json", "anthropic-version": VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def build_request(self, call: ProviderCall) -> HttpRequest:
        system, messages = anthropic_messages(call.system, call.messages)
        o = call.options
        body: dict[str, Any] = {
            "model": call.model,
            "messages": messages,
            "max_tokens": o.max_tokens or DEFAULT_MAX_TOKENS,
            "stream": True,
        }
        if system:
            body["system"] = system
        if call.tools:
            body["tools"] = [
                {
                    "name": t.name,
                    "description": t.description,
                    "input_schema": t.parameters or {"type": "object", "properties": {}},
                }
                for t in call.tools
            ]
        if o.temperature is not None and not o.thinking:
            body["temperature"] = o.temperature
        if o.thinking:
            budget = max(1024, min(body["max_tokens"] // 2, 16000))
            if body["max_tokens"] <= budget:
                body["max_tokens"] = budget * 2
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        return HttpRequest(
            "POST",
            f"{self._base(call.base_url)}/v1/messages",
            content=orjson.dumps(body),
            headers=self._headers(call.api_key),
        )

    def decoder(self, call: ProviderCall) -> AnthropicDecoder:
        return AnthropicDecoder()

    def models_request(self, base_url: str, api_key: str | None) -> HttpRequest:
        return HttpRequest(
            "GET", f"{self._base(base_url)}/v1/models", headers=self._headers(api_key)
        )

    def models_from(self, data: Any) -> tuple[str, ...]:
        return tuple(sorted(str(m["id"]) for m in data["data"]))
