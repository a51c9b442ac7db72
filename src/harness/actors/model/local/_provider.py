"""The ``local`` provider: the embedded llama.cpp model behind the model worker's seam.

It yields the model's raw text token by token (``<tool_call>`` tags, JSON fences and all);
the worker runs it through the same text-protocol filter and lenient parser as every other
provider. Generation runs in a thread; tokens cross into trio through the trio token, so
the worker's loop stays free, and closing the stream sets a flag the thread checks after
every token.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import Any

import attrs
import outcome
import trio

from harness.actors.model._provider import Finish, ProviderCall, ProviderError, ProviderEvent
from harness.actors.model.local._catalogue import CATALOGUE
from harness.actors.model.local._engine import (
    ContextTooLong,
    Generation,
    LoadedModel,
    default_threads,
)
from harness.actors.model.local._errors import (
    CatalogueError,
    LocalModelError,
    ModelNotInstalled,
)
from harness.actors.model.local._grammar import edit_call_grammar, tool_call_grammar
from harness.actors.model.local._loader import (
    DEFAULT_CONTEXT,
    Loader,
    LoadProgress,
    model_cache_dir,
)
from harness.actors.model.local._nudge import last_read, nudge_for
from harness.actors.model.local._repeats import DEFAULT_REPEAT_CAP, check_repeats
from harness.home import harness_home
from harness.ipc import Message
from harness.messages.local import LoadLocalModel, LocalModelProgress
from harness.messages.model import ChatMessage, TextDelta, ToolSchema, Usage

__all__ = ["LocalProvider", "make_provider", "stream_load"]

# How long closing a stream waits for the generating thread to notice the flag. One token
# takes tens of milliseconds; the bound only guards against a wedged llama.cpp.
_STOP_WAIT = 30.0
NUDGED_TOKENS = 768
"""The most a nudged reply (one call) may write: measured, a bound edit of a file the model
misread wrote its body on to the output limit, 400 s under load."""
_OFF = ("0", "off", "no", "false")


@attrs.frozen
class _Done:
    result: outcome.Outcome[Any]


def _send(chan: trio.MemorySendChannel[Any], item: object) -> None:
    try:
        chan.send_nowait(item)
    except (trio.ClosedResourceError, trio.BrokenResourceError):
        pass  # the reader left; the thread has been told to stop


# read_file's version line: these models never write a version (the call grammar leaves it
# out), and measured, the 1.5B model answered what a file does with its version, "indicating
# the last commit", in place of what was asked
_VERSION = re.compile(r"^version: [0-9a-f]{16}\n?", re.M)


def _template_messages(system: str, messages: tuple[ChatMessage, ...]) -> list[dict[str, str]]:
    """The history as the chat template takes it. Under the text protocol it holds only
    user and assistant turns already; native tool turns are written as text anyway,
    since these models repeat calls whose results come back through the tool role.

    An earlier reply that made a call is given as its calls alone. Measured: the 1.5B
    model wrote a plan of 250 tokens before each call, copying the plan of its last
    reply: 37 s a turn, and a prompt 250 tokens longer each turn."""
    out: list[dict[str, str]] = []
    if system:
        out.append({"role": "system", "content": system})
    for msg in messages:
        if msg.role == "tool":
            text = _VERSION.sub("", msg.content)
            out.append({"role": "user", "content": f"<tool_response>\n{text}\n</tool_response>"})
        elif msg.role == "user" and "<tool_response>" in msg.content:
            out.append({"role": "user", "content": _VERSION.sub("", msg.content)})
        elif msg.role == "assistant" and msg.tool_calls:
            calls = "\n".join(
                "<tool_call>\n"
                + json.dumps({"name": c.name, "arguments": c.arguments})
                + "\n</tool_call>"
                for c in msg.tool_calls
            )
            out.append({"role": "assistant", "content": calls})
        elif msg.role == "assistant" and (at := msg.content.find("<tool_call>")) > 0:
            out.append({"role": "assistant", "content": msg.content[at:]})
        elif msg.role in ("system", "user", "assistant"):
            out.append({"role": msg.role, "content": msg.content})
    return out


class LocalProvider:
    """The embedded model as a :class:`~harness.actors.model.Provider`.

    Args:
        env: the environment (default ``os.environ``): ``HARNESS_HOME``,
            ``HARNESS_MODEL_CACHE``, ``HARNESS_LOCAL_THREADS``, ``HARNESS_LOCAL_CONTEXT``,
            ``HARNESS_LOCAL_GRAMMAR=off`` (tool calls unconstrained),
            ``HARNESS_LOCAL_NUDGE=off`` (no second try after an announcement) and
            ``HARNESS_LOCAL_MODEL`` (start loading that model at once).
        repeat_cap: identical tool calls in a row before the model is told to answer
            (one more and the provider refuses to generate); 0 turns the cap off.
    """

    name = "local"

    def __init__(
        self, env: Mapping[str, str] | None = None, repeat_cap: int = DEFAULT_REPEAT_CAP
    ) -> None:
        env = dict(os.environ if env is None else env)
        self.home = harness_home(env)
        self.cache_dir = model_cache_dir(env)
        self.threads = default_threads(env)
        try:
            self.n_ctx = int(env.get("HARNESS_LOCAL_CONTEXT") or DEFAULT_CONTEXT)
        except ValueError:
            self.n_ctx = DEFAULT_CONTEXT
        self.repeat_cap = repeat_cap
        self.enabled = env.get("HARNESS_EMBEDDED", "").strip().lower() not in _OFF
        self.constrain = env.get("HARNESS_LOCAL_GRAMMAR", "").strip().lower() not in _OFF
        self.nudge = env.get("HARNESS_LOCAL_NUDGE", "").strip().lower() not in _OFF
        """Ask once more when the model announces an action and stops (off: to measure)."""
        """Constrain tool calls with the grammar of the tool table (off: to measure)."""
        self._grammars: dict[str, str] = {}
        self._loader: Loader | None = None
        self.last: Generation | None = None
        """How the last generation ended (tokens, finish reason): for status and tests."""
        self._switch = threading.Lock()
        self._busy = trio.Lock()
        if env.get("HARNESS_LOCAL_MODEL"):
            self.preload(env["HARNESS_LOCAL_MODEL"])

    # -- loading -----------------------------------------------------------------------

    def preload(self, model: str, n_ctx: int | None = None) -> Loader:
        """Start loading *model* in the background (idempotent); one model per worker,
        so asking for another, or for a larger context than it was loaded with, frees the
        one loaded. Blocks while a load in flight ends before a switch: call it from a
        thread, with no generation running (the provider's own calls hold its lock)."""
        want = n_ctx or self.n_ctx
        with self._switch:
            loader = self._loader
            if loader is None or loader.spec != model or loader.n_ctx < want:
                if loader is not None:
                    loader.close()
                loader = Loader(
                    model,
                    home=self.home,
                    cache_dir=self.cache_dir,
                    n_ctx=want,
                    threads=self.threads,
                )
                self._loader = loader
            loader.start()
            return loader

    def progress(self) -> LoadProgress | None:
        """Where the current load is, or ``None`` when nothing was asked for."""
        loader = self._loader
        return loader.progress() if loader is not None else None

    async def wait_loaded(
        self,
        model: str,
        on_progress: Callable[[LoadProgress], None] | None = None,
        n_ctx: int | None = None,
    ) -> LoadedModel:
        """The loaded *model* (with at least *n_ctx* of context), loading it first when
        needed.

        Raises:
            ProviderError: ``not_found`` for an unknown model, ``config`` for a missing
                package, a failed checksum or a file llama.cpp refuses.
        """
        if not self.enabled:
            raise ProviderError(
                "config", "the embedded model is switched off here (HARNESS_EMBEDDED=off)"
            )
        loader = await trio.to_thread.run_sync(self.preload, model, n_ctx)
        last: LoadProgress | None = None
        while not loader.done.is_set():
            now = loader.progress()
            if on_progress is not None and now != last:
                on_progress(now)
                last = now
            await trio.sleep(0.1)
        try:
            return loader.result()
        except CatalogueError as exc:
            raise ProviderError("not_found", str(exc)) from None
        except (ModelNotInstalled, LocalModelError) as exc:
            raise ProviderError("config", str(exc)) from None

    # -- the Provider protocol ---------------------------------------------------------

    async def stream(self, call: ProviderCall) -> AsyncIterator[ProviderEvent]:
        """Stream one reply to *call*: raw text pieces, then usage, then :class:`Finish`.

        The context is the call's ``context_window`` (the conversation's context
        settings), else ``HARNESS_LOCAL_CONTEXT``; a larger one than loaded reloads."""
        verdict = check_repeats(call.messages, self.repeat_cap)
        if verdict.refuse:
            yield TextDelta(text=verdict.reason)
            yield Finish(reason="stop")
            return
        messages = _template_messages(call.system, verdict.messages)
        async with self._busy:
            # Loading (and a switch of model) happens under the lock, so no generation
            # ever runs on a model being freed.
            model = await self.wait_loaded(call.model, n_ctx=call.options.context_window)
            # aclosing: a reader that leaves must close the inner generator now, which
            # sets the thread's cancel flag, not whenever it is garbage collected.
            reply: list[str] = []
            ends: list[Usage | Finish] = []
            async with aclosing(self._generate(model, messages, call)) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        reply.append(event.text)
                        yield event
                    elif isinstance(event, Usage | Finish):
                        ends.append(event)
            finish = next((e for e in ends if isinstance(e, Finish)), None)
            nudge = None
            if self.nudge and finish is not None and finish.reason == "stop":
                nudge = nudge_for("".join(reply), messages, call.text_tools)
            if nudge is not None:
                # once: the model said what it would do and stopped; ask it to do it,
                # and (with the grammar) take nothing but that call
                more = [
                    *messages,
                    {"role": "assistant", "content": "".join(reply)},
                    {"role": "user", "content": nudge.text},
                ]
                yield TextDelta(text="\n\n")
                limit = min(call.options.max_tokens or NUDGED_TOKENS, NUDGED_TOKENS)
                once = attrs.evolve(call, options=attrs.evolve(call.options, max_tokens=limit))
                bound = self._bound(nudge.tool, messages, call.text_tools)
                nudged = self._generate(model, more, once, bound=bound)
                async with aclosing(nudged) as events:
                    async for event in events:
                        if isinstance(event, TextDelta):
                            yield event
                        elif isinstance(event, Usage | Finish):
                            ends.append(event)
            usages = [e for e in ends if isinstance(e, Usage)]
            if usages:
                # The prompt is the request's own: the conversation's context budget learns
                # the tokenizer from it, and the sum with a nudged generation's prompt
                # (the same again and more) made it think the window full at half.
                yield Usage(
                    prompt_tokens=usages[0].prompt_tokens,
                    completion_tokens=sum(u.completion_tokens or 0 for u in usages),
                )
            yield [e for e in ends if isinstance(e, Finish)][-1]

    async def _generate(
        self,
        model: LoadedModel,
        messages: list[dict[str, str]],
        call: ProviderCall,
        bound: str = "",
    ) -> AsyncGenerator[ProviderEvent, None]:
        """One generation; *bound*: a grammar the whole reply must follow (else the lazy
        grammar of the call's tools, with the grammar on)."""
        send, recv = trio.open_memory_channel[Any](math.inf)
        cancel = threading.Event()
        token = trio.lowlevel.current_trio_token()

        def on_text(piece: str) -> None:
            token.run_sync_soon(_send, send, piece)

        lazy = not bound
        grammar = bound or (self._grammar(call.text_tools) if self.constrain else "")

        def run() -> Any:
            return model.generate(
                messages,
                on_text,
                cancel,
                max_tokens=call.options.max_tokens,
                temperature=call.options.temperature,
                seed=call.options.seed,
                grammar=grammar,
                lazy=lazy,
            )

        def deliver(result: outcome.Outcome[Any]) -> None:
            try:
                token.run_sync_soon(_send, send, _Done(result))
            except trio.RunFinishedError:
                pass

        trio.lowlevel.start_thread_soon(run, deliver)
        done: _Done | None = None
        try:
            while done is None:
                item = await recv.receive()
                if isinstance(item, _Done):
                    done = item
                else:
                    yield TextDelta(text=item)
        finally:
            if done is None:
                cancel.set()
                with trio.CancelScope(shield=True), trio.move_on_after(_STOP_WAIT):
                    while not isinstance(item := await recv.receive(), _Done):
                        pass
                    if isinstance(item.result, outcome.Value):
                        self.last = item.result.value
            send.close()
        try:
            result = done.result.unwrap()
        except ContextTooLong as exc:
            raise ProviderError("context_length", str(exc)) from None
        except LocalModelError as exc:
            raise ProviderError("server", str(exc)) from None
        self.last = result
        yield Usage(prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens)
        yield Finish(reason=result.finish_reason)

    def _bound(
        self, tool: str, history: list[dict[str, str]], tools: tuple[ToolSchema, ...]
    ) -> str:
        """The grammar of the one call a nudge asks for ("" with the grammar off): an edit
        of the file just read is bound to that file's own lines."""
        if not self.constrain:
            return ""
        seen = last_read(history) if tool == "edit_file" else None
        if seen is not None:
            grammar = edit_call_grammar(*seen)
            if grammar:
                return grammar
        schema = [t for t in tools if t.name == tool]
        return self._grammar((schema[0],), tagged_only=True) if schema else ""

    def _grammar(self, tools: tuple[ToolSchema, ...], *, tagged_only: bool = False) -> str:
        key = json.dumps(
            [tagged_only, [[t.name, t.parameters] for t in tools]], sort_keys=True, default=str
        )
        if key not in self._grammars:
            self._grammars[key] = tool_call_grammar(tools, tagged_only=tagged_only)
        return self._grammars[key]

    async def list_models(self, base_url: str, api_key: str | None) -> tuple[str, ...]:
        """The catalogue's model names (installed or not)."""
        return tuple(e.name for e in CATALOGUE)

    async def supports_tools(self, model: str, base_url: str, api_key: str | None) -> bool:
        """Always ``False``: measured, these models call tools reliably only through the
        text protocol (through the template's tool role they repeat calls)."""
        return False

    async def aclose(self) -> None:
        """Free the loaded model."""
        loader, self._loader = self._loader, None
        if loader is not None:
            await trio.to_thread.run_sync(loader.close)


async def stream_load(
    provider: LocalProvider, req: LoadLocalModel, emit: Callable[[Message], Awaitable[None]]
) -> None:
    """Serve :class:`LoadLocalModel`: start the load and stream its progress until the
    model is ready or has failed. Register it on the model worker with
    ``worker.stream(LoadLocalModel)(functools.partial(stream_load, provider))``."""
    if not provider.enabled:
        await emit(
            LocalModelProgress(
                model=req.model,
                stage="failed",
                message="the embedded model is switched off here (HARNESS_EMBEDDED=off)",
            )
        )
        return
    async with provider._busy:
        loader = await trio.to_thread.run_sync(provider.preload, req.model)
    last: LoadProgress | None = None
    while True:
        finished = loader.done.is_set()
        now = loader.progress()
        if now != last:
            await emit(
                LocalModelProgress(
                    model=req.model,
                    stage=now.stage,
                    done=now.done,
                    total=now.total,
                    message=now.describe(),
                )
            )
            last = now
        if finished:
            return
        await trio.sleep(0.1)


def make_provider() -> LocalProvider:
    """The factory the model worker calls once: the provider, reading the environment."""
    return LocalProvider()
