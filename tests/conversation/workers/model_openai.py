"""A test-only model worker: streams ChatRequests from an OpenAI-compatible server.

Kept for other suites that still name it (the shell tests); it speaks just enough of the wire
format for the scripted model (tests/scripted).
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from harness.ipc import Emit
from harness.messages.model import (
    ChatRequest,
    ModelDone,
    ModelError,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    Usage,
)
from harness.worker import Worker

worker = Worker("model")


def _messages(req: ChatRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if req.system:
        out.append({"role": "system", "content": req.system})
    for m in req.messages:
        d: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.tool_calls:
            d["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in m.tool_calls
            ]
        if m.role == "tool":
            d["tool_call_id"] = m.tool_call_id
        out.append(d)
    return out


@worker.stream(ChatRequest)
async def chat(req: ChatRequest, emit: Emit) -> None:
    body: dict[str, Any] = {
        "model": req.models[0] if req.models else "scripted",
        "stream": True,
        "messages": _messages(req),
    }
    if req.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in req.tools
        ]
    calls: dict[int, dict[str, Any]] = {}
    finish = "stop"
    async with (
        httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client,
        client.stream("POST", f"{req.base_url}/chat/completions", json=body) as resp,
    ):
        if resp.status_code != 200:
            text = (await resp.aread()).decode()
            kind = {401: "auth", 404: "not_found", 429: "rate_limit"}.get(
                resp.status_code, "server"
            )
            await emit(ModelError(kind=kind, message=text, status=resp.status_code))
            return
        async for line in resp.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if chunk.get("usage"):
                u = chunk["usage"]
                await emit(Usage(u.get("prompt_tokens"), u.get("completion_tokens")))
            for choice in chunk.get("choices", []):
                delta = choice.get("delta", {})
                if delta.get("content"):
                    await emit(TextDelta(delta["content"]))
                if delta.get("reasoning_content"):
                    await emit(ThinkingDelta(delta["reasoning_content"]))
                for tc in delta.get("tool_calls", []):
                    slot = calls.setdefault(tc["index"], {"id": "", "name": "", "args": ""})
                    slot["id"] = tc.get("id") or slot["id"]
                    fn = tc.get("function", {})
                    slot["name"] = fn.get("name") or slot["name"]
                    slot["args"] += fn.get("arguments") or ""
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
    for i in sorted(calls):
        c = calls[i]
        try:
            args = json.loads(c["args"] or "{}")
            await emit(ToolCallEvent(id=c["id"], name=c["name"], arguments=args))
        except ValueError as exc:
            await emit(ToolCallEvent(id=c["id"], name=c["name"], parse_error=str(exc)))
    await emit(ModelDone(finish_reason=finish, model=body["model"]))


if __name__ == "__main__":
    worker.run()
