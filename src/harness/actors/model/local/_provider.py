"""The ``local`` provider: the embedded llama.cpp model behind the model worker's seam.

It yields the model's raw text token by token (``<tool_call>`` tags, JSON fences and all);
the worker runs it through the same text-protocol filter and lenient parser as every other
provider. Generation runs in a thread; tokens cross into trio through the trio token, so
the worker's loop stays free, and closing the stream sets a flag the thread checks after
every token.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import Any

import attrs
import outcome
import trio

from harness.actors.model._profile import profile_for
from harness.actors.model._provider import Finish, ProviderCall, ProviderError, ProviderEvent
from harness.actors.model.local._catalogue import CATALOGUE
from harness.actors.model.local._engine import ContextTooLong, Generation, LoadedModel
from harness.actors.model.local._errors import (
    CatalogueError,
    LocalModelError,
    ModelNotInstalled,
)
from harness.actors.model.local._guide import Guide, StopReply, static_first
from harness.actors.model.local._loader import (
    DEFAULT_CONTEXT,
    Loader,
    LoadProgress,
    model_cache_dir,
)
from harness.actors.model.local._sizing import default_batch, default_threads
from harness.actors.model.local._timings import Timings
from harness.home import harness_home
from harness.ipc import Message
from harness.messages.local import LoadLocalModel, LocalModelProgress
from harness.messages.model import TextDelta, Usage

__all__ = ["LocalProvider", "make_provider", "stream_load"]

# How long closing a stream waits for the generating thread to notice the flag. One token
# takes tens of milliseconds; the bound only guards against a wedged llama.cpp.
_STOP_WAIT = 30.0
_OFF = ("0", "off", "no", "false")


@attrs.frozen
class _Done:
    result: outcome.Outcome[Any]


@attrs.frozen
class _Read:
    done: int
    total: int


# A prompt shorter than this is read in well under a second: no progress shown for it.
_SHOWN_READING = 64


def reading(model: str, done: int, total: int) -> LocalModelProgress:
    """The progress of reading a prompt's *total* new tokens, *done* of them read."""
    pct = 100 * done // total if total else 100
    return LocalModelProgress(
        model=model,
        stage="reading",
        done=done,
        total=total,
        message=f"reading {total:,} tokens {pct}%",
    )


def loading(model: str, now: LoadProgress) -> LocalModelProgress:
    """The progress of loading *model*, as the status line shows it."""
    return LocalModelProgress(
        model=model, stage=now.stage, done=now.done, total=now.total, message=now.describe()
    )


def _send(chan: trio.MemorySendChannel[Any], item: object) -> None:
    try:
        chan.send_nowait(item)
    except (trio.ClosedResourceError, trio.BrokenResourceError):
        pass  # the reader left; the thread has been told to stop


class LocalProvider:
    """The embedded model as a :class:`~harness.actors.model.Provider`.

    Args:
        env: the environment (default ``os.environ``): ``HARNESS_HOME``,
            ``HARNESS_MODEL_CACHE``, ``HARNESS_LOCAL_THREADS``, ``HARNESS_LOCAL_BATCH``,
            ``HARNESS_LOCAL_CONTEXT``,
            ``HARNESS_LOCAL_GRAMMAR=off`` (tool calls unconstrained),
            ``HARNESS_LOCAL_NUDGE=off`` (no nudge rule on),
            ``HARNESS_LOCAL_STOP=off`` (a reply is not stopped at the look it
            announces),
            ``HARNESS_LOCAL_STATIC_FIRST=off`` (the system prompt's tool section after
            the workspace, as the conversation writes it, instead of before it: then no
            two projects share the state after it),
            ``HARNESS_LOCAL_MODEL`` (start loading that model at once) and
            ``HARNESS_LOCAL_TIMINGS`` (a file to which each generation appends one JSON
            line: tokens read and written, and the seconds of each; for measuring).
        repeat_cap: identical tool calls in a row before the model is told to answer
            (one more and the provider refuses to generate); 0 turns the cap off;
            ``None``: the model profile's.
    """

    name = "local"

    def __init__(self, env: Mapping[str, str] | None = None, repeat_cap: int | None = None) -> None:
        env = dict(os.environ if env is None else env)
        self.home = harness_home(env)
        self.cache_dir = model_cache_dir(env)
        self.threads = default_threads(env)
        self.batch = default_batch(env)
        try:
            self.n_ctx = int(env.get("HARNESS_LOCAL_CONTEXT") or DEFAULT_CONTEXT)
        except ValueError:
            self.n_ctx = DEFAULT_CONTEXT
        self.enabled = env.get("HARNESS_EMBEDDED", "").strip().lower() not in _OFF
        overrides: dict[str, object] = {"repeat_cap": repeat_cap}
        if env.get("HARNESS_LOCAL_GRAMMAR", "").strip().lower() in _OFF:
            overrides["grammar"] = False
        if env.get("HARNESS_LOCAL_NUDGE", "").strip().lower() in _OFF:
            overrides["nudges"] = ()
        if env.get("HARNESS_LOCAL_STOP", "").strip().lower() in _OFF:
            overrides["stops_at_announcement"] = False
        # on: a folder never seen reads only its own lines (docs/models.md)
        reorder = env.get("HARNESS_LOCAL_STATIC_FIRST", "").strip().lower() not in _OFF
        self.guide = Guide(profile_for(self.name, "", overrides), reorder=reorder)
        """What guides each reply: the embedded model's profile (grammar and nudges each
        off to measure)."""
        self._loader: Loader | None = None
        self.last: Generation | None = None
        """How the last generation ended (tokens, finish reason): for status and tests."""
        self._switch = threading.Lock()
        self._busy = trio.Lock()
        self._timings = Timings(env.get("HARNESS_LOCAL_TIMINGS", ""))
        if self.enabled and env.get("HARNESS_LOCAL_MODEL"):
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
                    batch=self.batch,
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
        """Stream one reply to *call*: raw text pieces, then usage, then :class:`Finish`
        (guided: :class:`~harness.actors.model.local._guide.Guide`).

        The context is the call's ``context_window`` (the conversation's context
        settings), else ``HARNESS_LOCAL_CONTEXT``; a larger one than loaded reloads."""
        async with self._busy, aclosing(self.guide.stream(call, self._generate)) as events:
            # the lock: loading (and a switch of model) happens under it, so no
            # generation ever runs on a model being freed
            self._timings.reply()
            async for event in events:
                yield event

    async def _generate(
        self, messages: list[dict[str, str]], call: ProviderCall, grammar: str, lazy: bool
    ) -> AsyncGenerator[ProviderEvent, None]:
        """One generation (a :data:`~harness.actors.model.local._guide.Generate`), the
        model loaded first when needed (its progress streamed as it loads), the reading
        of a long prompt streamed as it goes."""
        loader = (
            await trio.to_thread.run_sync(self.preload, call.model, call.options.context_window)
            if self.enabled
            else None
        )
        waited = 0.0
        if loader is not None and not loader.done.is_set():
            started = trio.current_time()
            last: LoadProgress | None = None
            while not loader.done.is_set():
                now = loader.progress()
                if now != last:
                    yield loading(call.model, now)
                    last = now
                await trio.sleep(0.1)
            waited = trio.current_time() - started
        model = await self.wait_loaded(call.model, n_ctx=call.options.context_window)
        static = static_first(call)[1] if self.guide.reorder else ""
        send, recv = trio.open_memory_channel[Any](math.inf)
        cancel = threading.Event()
        token = trio.lowlevel.current_trio_token()

        def on_text(piece: str) -> None:
            token.run_sync_soon(_send, send, piece)

        def on_read(done: int, total: int) -> None:
            if total >= _SHOWN_READING:
                token.run_sync_soon(_send, send, _Read(done, total))

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
                on_read=on_read,
                static=static,
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
                elif cancel.is_set():
                    pass  # stopped by the guide: nothing more goes out but the usage
                elif isinstance(item, _Read):
                    yield reading(call.model, item.done, item.total)
                else:
                    try:
                        yield TextDelta(text=item)
                    except StopReply:
                        # the guide stops the reply here (docs/models.md): the generation
                        # ends within a token, measured, and its usage is still said
                        cancel.set()
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
        self._timings.generation(result, waited, lazy=lazy)
        yield Usage(
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            cached_tokens=result.cached_tokens,
        )
        yield Finish(reason=result.finish_reason)

    async def list_models(self, base_url: str, api_key: str | None) -> tuple[str, ...]:
        """The catalogue's model names (installed or not)."""
        return tuple(e.name for e in CATALOGUE)

    async def supports_tools(self, model: str, base_url: str, api_key: str | None) -> bool:
        """Always ``False``: these models call tools reliably only through the text
        protocol (through the template's tool role they repeat calls)."""
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
