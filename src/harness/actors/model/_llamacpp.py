"""llama.cpp's server under the text protocol, through its own endpoints.

An OpenAI-compatible chat endpoint takes stop sequences, and that is all the text protocol
can send through it. llama.cpp's chat endpoint takes a grammar too, but binds the whole
reply with it: it replaces a lazy grammar's triggers with its chat template's own. Its
native endpoints take what the embedded model gets: ``POST /apply-template`` renders a
history through the model's chat template, and ``POST /completion`` takes the lazy call
grammar with its pattern triggers. So a text-protocol call to a llama.cpp server is guided
as an embedded reply is (:class:`~harness.actors.model.local._guide.Guide`): the same
history, the same grammar, the same nudges.

Whether an address is a llama.cpp server is asked once: its ``GET /props`` answers with
``build_info`` and ``default_generation_settings``. Any other answer (other servers say
404) leaves the address on the chat endpoint.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from typing import Any

import orjson

from harness.actors.model._client import HttpClient
from harness.actors.model._http import Timeouts, get_json, open_stream
from harness.actors.model._httpbase import SseDecoder, event_object, require_finish
from harness.actors.model._provider import Finish, ProviderCall, ProviderError, ProviderEvent
from harness.actors.model._request import HttpRequest
from harness.actors.model._textproto import TEXT_PROTOCOL_STOPS
from harness.actors.model._wire import SseEvent
from harness.messages.model import TextDelta, Usage

__all__ = ["CompletionDecoder", "LlamaCppServer", "server_root"]

_CALL_CLOSE = "</tool_call>"

_PATTERN = 2
"""llama.cpp's ``COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN``: a regex searched in the text so
far, whose first group starts the grammar."""


def server_root(base_url: str) -> str:
    """The server's root: the OpenAI base address without its ``/v1``."""
    return re.sub(r"/v\d+/?$", "", base_url.rstrip("/"))


class CompletionDecoder(SseDecoder):
    """``/completion``'s SSE in, provider events out: ``content`` pieces, then the last
    event's token counts and why it stopped (``limit``: the token limit). A reply that a
    ``</tool_call>`` stop ended gets that tag back: the model wrote it (left out, the
    parser closed the call itself and told the model it had repaired it)."""

    def __init__(self) -> None:
        super().__init__()
        self._finish: str | None = None

    def end(self, out: list[ProviderEvent]) -> None:
        require_finish(self._finish is not None, "no event with stop")
        out.append(Finish(self._finish or "stop"))

    def event(self, ev: SseEvent, out: list[ProviderEvent]) -> None:
        if self._finish is not None or not ev.data.strip():
            return
        chunk = event_object(ev.data)
        content = chunk.get("content")
        if isinstance(content, str) and content:
            out.append(TextDelta(content))
        if chunk.get("stop") is True:
            if chunk.get("stop_type") == "word" and chunk.get("stopping_word") == _CALL_CLOSE:
                # the model wrote it; the stop took it out of the text
                out.append(TextDelta(_CALL_CLOSE))
            self._finish = "length" if chunk.get("stop_type") == "limit" else "stop"
            prompt, made = chunk.get("tokens_evaluated"), chunk.get("tokens_predicted")
            timings = chunk.get("timings")
            cached = timings.get("cache_n") if isinstance(timings, dict) else None
            out.append(
                Usage(
                    prompt if isinstance(prompt, int) else None,
                    made if isinstance(made, int) else None,
                    cached if isinstance(cached, int) else None,
                )
            )


class LlamaCppServer:
    """The native endpoints of llama.cpp servers, for the OpenAI provider.

    Args:
        http: the client to send through.
        timeouts: the limits of every exchange.
    """

    def __init__(self, http: HttpClient, timeouts: Timeouts) -> None:
        self.http = http
        self.timeouts = timeouts
        self._known: dict[str, bool] = {}

    @staticmethod
    def _headers(api_key: str | None) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        return headers

    async def serves(self, base_url: str, api_key: str | None) -> bool:
        """Whether *base_url* is a llama.cpp server (asked once per address; an address
        that could not be reached is asked again next time)."""
        root = server_root(base_url)
        if root not in self._known:
            request = HttpRequest("GET", f"{root}/props", headers=self._headers(api_key))
            try:
                props = await get_json(self.http, request, self.timeouts, (api_key,))
            except ProviderError as exc:
                if exc.kind == "network":
                    return False  # the chat request will say what is wrong
                props = None
            self._known[root] = isinstance(props, dict) and all(
                k in props for k in ("build_info", "default_generation_settings")
            )
        return self._known[root]

    async def generate(
        self, messages: list[dict[str, str]], call: ProviderCall, grammar: str, lazy: bool
    ) -> AsyncGenerator[ProviderEvent, None]:
        """One generation (a :data:`~harness.actors.model.local._guide.Generate`): the
        history rendered by the server's chat template, then completed under *grammar*."""
        from harness.actors.model.local import TRIGGERS, LoopWatch

        root = server_root(call.base_url)
        secrets = (call.api_key,)
        headers = self._headers(call.api_key)
        rendered = await get_json(
            self.http,
            HttpRequest(
                "POST",
                f"{root}/apply-template",
                content=orjson.dumps({"messages": messages}),
                headers=headers,
            ),
            self.timeouts,
            secrets,
        )
        prompt = rendered.get("prompt") if isinstance(rendered, dict) else None
        if not isinstance(prompt, str):
            raise ProviderError("bad_response", "/apply-template: no prompt in the answer")
        o = call.options
        body: dict[str, Any] = {
            "prompt": prompt,
            "stream": True,
            "cache_prompt": True,
            "n_predict": -1 if o.max_tokens is None else o.max_tokens,
            # the reply ends with its call; a grammar ends it there anyway
            "stop": list(TEXT_PROTOCOL_STOPS),
        }
        if o.temperature is not None:
            # always, through the guide: the embedded sampler's when the call sets none
            # (the server's own would be 0.8)
            body["temperature"] = o.temperature
        if o.seed is not None:
            body["seed"] = o.seed
        if grammar:
            body["grammar"] = grammar
            body["grammar_lazy"] = lazy
            if lazy:
                body["grammar_triggers"] = [{"type": _PATTERN, "value": t} for t in TRIGGERS]
        request = HttpRequest(
            "POST",
            f"{root}/completion",
            content=orjson.dumps(body),
            headers={**headers, "accept": "text/event-stream"},
        )
        decoder = CompletionDecoder()
        loops = LoopWatch()
        async with open_stream(self.http, request, self.timeouts, secrets) as stream:
            while (chunk := await stream.next_chunk()) is not None:
                for event in decoder.feed(chunk):
                    yield event
                    if isinstance(event, TextDelta) and loops.looping(event.text):
                        # a reply repeating itself ends there, as the embedded one does;
                        # leaving the stream closes the connection: the server stops
                        yield Finish(loops.finish)
                        return
                if decoder.failed is not None:
                    raise decoder.failed
            tail = decoder.close()
        for event in tail:
            yield event
