"""One loaded GGUF model and its generation loop (blocking; runs in a thread).

The model comes from :func:`~harness.actors.model.local._load.load_model`, which alone
imports llama-cpp-python and hands the module over. Everything here is synchronous:
the provider runs :meth:`LoadedModel.generate` in a worker thread and passes in a
``threading.Event`` that it sets to cancel. The event is checked after every token, and
while the prompt is being evaluated llama.cpp's abort callback checks it between graph
nodes, so a cancel stops generation within one token even in the middle of a long prompt.
"""

from __future__ import annotations

import codecs
import ctypes
import hashlib
import importlib
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from harness.actors.model._lenient import closed_fenced_call
from harness.actors.model.local._errors import ModelLoadError
from harness.actors.model.local._looping import LoopWatch
from harness.actors.model.local._sizing import (
    DEFAULT_BATCH,
    others_running,
    threads_now,
    usable_cores,
)
from harness.actors.model.local._states import SavedStates

__all__ = ["Generation", "LoadedModel"]


@attrs.frozen
class Generation:
    """How one generation ended.

    ``finish_reason`` is ``stop`` (end of turn), ``length`` (``max_tokens`` or the context
    filled up), ``looped`` (a loop stopped inside a tool call, see
    :mod:`~harness.actors.model.local._looping`) or ``cancelled``.
    """

    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    read_seconds: float = 0.0
    """Reading the prompt's new tokens (a saved state loaded included)."""
    write_seconds: float = 0.0
    """Writing the reply, first token to last."""


class LoadedModel:
    """A GGUF model loaded once and kept: it reuses the KV cache of the shared prompt
    prefix from one turn to the next (a 1,021-token system prompt: 11.2 s the first
    time, 0.33 s after).

    Not thread-safe: one generation at a time (the provider holds a lock).
    """

    def __init__(
        self,
        llama: Any,
        module: Any,
        name: str,
        path: Path,
        threads: int,
        *,
        state_dir: Path | None = None,
        model_key: str = "",
    ) -> None:
        self.llama = llama
        self.name = name
        self.path = path
        self.threads = threads
        self.cores = max(1, int(getattr(llama, "n_threads_batch", 0) or usable_cores()))
        """The cores a prompt may be read and a reply written with while nothing else
        runs: the threads llama.cpp was given to read with (``load_model``'s
        *threads_batch*)."""
        self.loadavg = "/proc/loadavg"
        """Where the machine says how many threads run now (read before each prompt, and
        every :data:`_RELOOK` tokens written)."""
        self.tasks = "/proc/self/task"
        """Where this process's threads say whether they run (they are not others)."""
        self.state_dir = state_dir
        """Where the state after the system prompt is kept between runs (``None``: not)."""
        self.model_key = model_key or hashlib.sha256(str(path).encode()).hexdigest()[:16]
        self._system_tokens: dict[str, list[int]] = {}  # a system prompt's own tokens
        # One context kept in memory while another prompt runs: a title request between
        # two turns would otherwise cost the next turn its whole prompt again.
        self._parked: tuple[list[int], Any] | None = None
        self._version = str(getattr(module, "__version__", ""))
        self.batch = max(1, int(getattr(llama, "n_batch", DEFAULT_BATCH)))
        """Prompt tokens read at a time (llama.cpp's ``n_batch``)."""
        call = self.tokenize(_CALL_OPEN)
        self._call_token: int | None = call[0] if len(call) == 1 else None
        self._lib = module.llama_cpp
        self._states = SavedStates(
            state_dir, self.model_key, f"{self._version}-{self.n_ctx}", module.llama_cpp
        )
        self._abort_flag: threading.Event | None = None
        # ctypes must keep the callback object alive as long as llama.cpp may call it.
        self._abort_cb = module.llama_cpp.ggml_abort_callback(self._should_abort)
        self._vocab = llama._model.vocab
        template = llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelLoadError(f"model {name} has no chat template in its GGUF file")
        eos_id = llama.token_eos()
        bos_id = llama.token_bos()
        self._formatter = module.llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=llama._model.token_get_text(eos_id) if eos_id != -1 else "",
            bos_token=llama._model.token_get_text(bos_id) if bos_id != -1 else "",
            stop_token_ids=[eos_id],
        )

    @property
    def n_ctx(self) -> int:
        """The context size the model was loaded with, in tokens."""
        return int(self.llama.n_ctx())

    def _should_abort(self, _data: Any) -> bool:
        flag = self._abort_flag
        return flag is not None and flag.is_set()

    def _set_abort(self, flag: threading.Event | None) -> None:
        self._abort_flag = flag
        cb = self._abort_cb if flag is not None else self._lib.ggml_abort_callback()
        self._lib.llama_set_abort_callback(self.llama._ctx.ctx, cb, None)

    def render(self, messages: Sequence[dict[str, str]]) -> str:
        """The prompt text for *messages*, through the model's own chat template."""
        return str(self._formatter(messages=list(messages)).prompt)

    def tokenize(self, prompt: str) -> list[int]:
        """Tokens of a rendered prompt (special tokens as tokens, no extra BOS)."""
        return list(self.llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))

    def generate(
        self,
        messages: Sequence[dict[str, str]],
        on_text: Callable[[str], None],
        cancel: threading.Event,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
        grammar: str = "",
        lazy: bool = True,
        on_read: Callable[[int, int], None] | None = None,
        static: str = "",
    ) -> Generation:
        """Generate one reply to *messages*, calling ``on_text`` with each piece of text.

        Blocking; call it from a thread. Returns when the model ends its turn, closes a
        tool call (``</tool_call>``, or the closing fence of a fenced call), a limit is
        reached, a prose line comes for the fourth time (a loop, see
        :mod:`~harness.actors.model.local._looping`), or *cancel* is set (checked after
        every token). A model that starts to write a tool's result itself
        (``<tool_response>``, never shown) believes it made a call: with a *grammar* it is
        taken back to write that call (once), else the turn ends there. *grammar* (GBNF,
        see :func:`~harness.actors.model.local._grammar.tool_call_grammar`) constrains
        what follows ``<tool_call>``; with ``lazy=False`` it binds the reply from its
        first token (the reply is then a call, whatever the model would have written).
        *temperature* ``None`` or 0 is greedy; the guide sets the default on each call
        (the model profile's, :attr:`~harness.actors.model.ModelProfile.temperature`).
        *on_read* is called with (tokens read, tokens to read) as the prompt's new tokens
        are read, one batch at a time (first with 0). *static* is the start of the
        system prompt that every project shares: the state after it is kept on disk
        beside the state after the whole system prompt, and loaded in a new project.

        Raises:
            ModelLoadError: the prompt does not fit in the context (``context_length``).
        """
        tokens = self.tokenize(self.render(messages))
        n_ctx = self.n_ctx
        if len(tokens) >= n_ctx:
            raise ContextTooLong(len(tokens), n_ctx)
        room = n_ctx - len(tokens)
        limit = room if max_tokens is None else min(max_tokens, room)
        self._set_abort(cancel)
        started = time.perf_counter()
        try:
            cached = self._evaluate(tokens, self._marks(messages, tokens, static), on_read)
        except RuntimeError as exc:
            self._set_abort(None)
            if cancel.is_set():
                return Generation("cancelled", len(tokens), 0, 0)
            raise ModelLoadError(f"model {self.name} failed while reading: {exc}") from None
        self._set_abort(None)
        read = time.perf_counter() - started
        if cancel.is_set():
            return Generation("cancelled", len(tokens), 0, cached, read)
        started = time.perf_counter()
        sampler = self._sampler(temperature or 0.0, seed, grammar, lazy)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        produced = 0
        finish = "length"
        text = ""
        held = ""  # text that may be the start of a made-up tool result
        held_tokens: list[int] = []
        redirect = self._call_token if grammar else None
        loops = LoopWatch()
        try:
            while produced < limit:
                if cancel.is_set():
                    finish = "cancelled"
                    break
                token = sampler.sample(self.llama._ctx, -1)
                if self._lib.llama_vocab_is_eog(self._vocab, token):
                    finish = "stop"
                    break
                produced += 1
                piece = decoder.decode(self.llama.detokenize([token]))
                if piece:
                    text += piece
                    held += piece
                    held_tokens.append(token)
                    if _FAKE_RESULT in held:
                        before = held[: held.index(_FAKE_RESULT)]
                        if before:
                            on_text(before)
                        if redirect is None:
                            # the turn ends before a made-up result, and none of it shows
                            held = ""
                            finish = "stop"
                            break
                        # The model writes a result because it believes it made a call:
                        # take its result back and let it make the call, under the grammar.
                        self.llama.n_tokens -= len(held_tokens) - 1
                        self.llama._ctx.kv_cache_seq_rm(-1, self.llama.n_tokens, -1)
                        token, redirect = redirect, None
                        sampler.accept(token)
                        on_text(_CALL_OPEN)
                        text, held, held_tokens = text + _CALL_OPEN, "", []
                    else:
                        keep = _partial_suffix(held, _FAKE_RESULT)
                        if len(held) > keep:
                            on_text(held[: len(held) - keep])
                            held = held[len(held) - keep :]
                        if not keep:
                            held_tokens = []
                        elif keep <= len(piece):
                            held_tokens = [token]
                    if _call_closed(text, len(piece)):
                        finish = "stop"
                        break
                    if loops.looping(piece):
                        finish = loops.finish  # looped: a call was cut, and must not run
                        break
                if produced >= limit:
                    break
                if produced % _RELOOK == 0:
                    self._run_with_free_cores()  # work that began, or ended, meanwhile
                self.llama.eval([token])
        except RuntimeError as exc:
            if cancel.is_set():
                finish = "cancelled"
            else:
                raise ModelLoadError(f"model {self.name} failed while generating: {exc}") from None
        finally:
            sampler.close()
        tail = held + decoder.decode(b"", final=True)
        if tail and finish != "cancelled":
            on_text(tail)
        wrote = time.perf_counter() - started
        return Generation(finish, len(tokens), produced, cached, read, wrote)

    def _sampler(self, temp: float, seed: int | None, grammar: str, lazy: bool = True) -> Any:
        """The sampler chain: the tool-call grammar first (lazy: from its triggers on),
        then the usual cuts."""
        from harness.actors.model.local._grammar import TRIGGERS

        internals: Any = importlib.import_module("llama_cpp._internals")
        sampler = internals.LlamaSampler()
        if grammar:
            if lazy:
                patterns = (ctypes.c_char_p * len(TRIGGERS))(*(t.encode() for t in TRIGGERS))
                made = self._lib.llama_sampler_init_grammar_lazy_patterns(
                    self._vocab,
                    grammar.encode(),
                    b"root",
                    patterns,
                    len(TRIGGERS),
                    (self._lib.llama_token * 0)(),
                    0,
                )
            else:
                made = self._lib.llama_sampler_init_grammar(self._vocab, grammar.encode(), b"root")
            if not made:  # a grammar llama.cpp cannot parse: an error, never a NULL in the chain
                raise ModelLoadError(f"llama.cpp refused the tool-call grammar of {self.name}")
            self._lib.llama_sampler_chain_add(sampler.sampler, made)
        if temp <= 0:
            sampler.add_greedy()
        else:
            sampler.add_top_k(40)
            sampler.add_top_p(0.95, 1)
            sampler.add_min_p(0.05, 1)
            sampler.add_temp(temp)
            sampler.add_dist(self._lib.LLAMA_DEFAULT_SEED if seed is None else seed)
        return sampler

    def _marks(
        self, messages: Sequence[dict[str, str]], tokens: list[int], static: str = ""
    ) -> list[int]:
        """Where the states worth keeping on disk end: after *static* (the same in every
        project) and after the whole system prompt (the same every turn and every run in
        one project); none without a state folder."""
        if not messages or messages[0].get("role") != "system" or self.state_dir is None:
            return []
        marks = {self._mark(text, tokens) for text in (static, messages[0]["content"]) if text}
        return sorted(marks - {0})

    def _mark(self, text: str, tokens: list[int]) -> int:
        """How many of *tokens* a system prompt of *text* alone shares with them (0 when
        that is none, or all of them: no state is kept there)."""
        alone = self._system_tokens.get(text)
        if alone is None:
            alone = self.tokenize(self.render([{"role": "system", "content": text}]))
            if len(self._system_tokens) >= 4:
                self._system_tokens.clear()
            self._system_tokens[text] = alone
        n = _shared(alone, tokens)
        return n if 0 < n < len(tokens) else 0

    def save_shared(self, messages: Sequence[dict[str, str]], static: str) -> Path | None:
        """Read the prompt of *messages* up to the end of *static* (the start of its system
        prompt that every project shares) and save the state there, as :meth:`generate`
        saves it on its way through the same prompt: the same tokens, the same file.
        Nothing is read when that file is there already.

        Returns the state's file, or ``None`` when none is kept (no state folder,
        *static* not the start of the system prompt, or the file could not be written).
        """
        if not messages or messages[0].get("role") != "system" or self.state_dir is None:
            return None
        tokens = self.tokenize(self.render(messages))
        mark = self._mark(static, tokens) if static else 0
        state = self._states.file(tokens[:mark]) if mark else None
        if state is None:
            return None
        if not state.is_file():
            self._evaluate(tokens[:mark], [mark])
        return state if state.is_file() else None

    def _evaluate(
        self,
        tokens: list[int],
        marks: Sequence[int] = (),
        on_read: Callable[[int, int], None] | None = None,
    ) -> int:
        """Bring the context to *tokens*: keep what it holds already, else load the
        longest saved state ending at one of *marks*, evaluate the rest a batch at a time
        (*on_read* hears how far), saving the state at each mark passed that has none
        yet. Returns how many tokens were not evaluated again."""
        llama = self.llama
        held = llama._input_ids[: llama.n_tokens].tolist()
        keep = _shared(held, tokens)
        parked = self._parked
        if parked is not None and _shared(parked[0], tokens) > keep:
            # back to the conversation a side request (a title, a summary) pushed out
            self._park(held, keep)
            if self._unpark(parked):
                held = parked[0]
                keep = _shared(held, tokens)
        elif len(held) - keep >= _PARK_MIN:
            self._park(held, keep)
        keep = min(keep, len(tokens) - 1)  # the last token is evaluated for its logits
        self._run_with_free_cores()
        for mark in sorted(marks, reverse=True):
            if mark <= keep:
                break
            state = self._states.file(tokens[:mark])
            if state is not None and state.is_file():
                # a state that does not load leaves the context empty
                keep = mark if self._states.load(self.llama, state, tokens[:mark]) else 0
                break
        llama._ctx.kv_cache_seq_rm(-1, keep, -1)
        llama.n_tokens = keep
        cached = keep
        reading = _Reading(len(tokens) - keep, self.batch, on_read)
        for mark in sorted(marks):
            state = self._states.file(tokens[:mark])
            if mark <= keep or state is None or state.is_file():
                continue
            reading.eval(llama, tokens[keep:mark])
            keep = mark
            self._states.save(self.llama, state, tokens[:mark])
        reading.eval(llama, tokens[keep:])
        return cached

    def _run_with_free_cores(self) -> None:
        """Read and write with every core while no other process runs, else with the
        threads set (:func:`~harness.actors.model.local._sizing.threads_now`)."""
        now = self.threads
        if self.cores > self.threads:  # else there is nothing to choose, and no look
            now = threads_now(self.cores, now, others_running(self.loadavg, tasks=self.tasks))
        self._lib.llama_set_n_threads(self.llama._ctx.ctx, now, now)

    def _park(self, held: list[int], keep: int) -> None:
        """Keep the context in memory before a prompt that would throw most of it away."""
        if len(held) - keep < _PARK_MIN:
            return
        ctx = self.llama._ctx.ctx
        size = self._lib.llama_state_get_size(ctx)
        buf = (ctypes.c_uint8 * size)()
        if self._lib.llama_state_get_data(ctx, buf, size):
            self._parked = (held, buf)

    def _unpark(self, parked: tuple[list[int], Any]) -> bool:
        tokens, buf = parked
        if not self._lib.llama_state_set_data(self.llama._ctx.ctx, buf, len(buf)):
            return False
        self.llama.input_ids[: len(tokens)] = tokens
        self.llama.n_tokens = len(tokens)
        return True

    def close(self) -> None:
        """Free the model's memory now rather than at garbage collection."""
        self.llama.close()


class _Reading:
    """The prompt's new tokens read a batch at a time, each batch told to *on_read*, so
    a long prompt shows how far it is."""

    def __init__(self, total: int, batch: int, on_read: Callable[[int, int], None] | None) -> None:
        self.total = total
        self.done = 0
        self.batch = batch
        self.on_read = on_read
        if on_read is not None:
            on_read(0, total)

    def eval(self, llama: Any, tokens: list[int]) -> None:
        for start in range(0, len(tokens), self.batch):
            chunk = tokens[start : start + self.batch]
            llama.eval(chunk)
            self.done += len(chunk)
            if self.on_read is not None:
                self.on_read(self.done, self.total)


class ContextTooLong(ModelLoadError):
    """The rendered prompt has more tokens than the loaded context holds."""

    def __init__(self, prompt_tokens: int, n_ctx: int) -> None:
        super().__init__(
            f"the prompt is {prompt_tokens} tokens and the embedded model's context holds "
            f"{n_ctx}; shorten the conversation or raise the context window"
        )
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx


_PARK_MIN = 256  # tokens a prompt must throw away before the context is parked
_RELOOK = 16  # tokens written between looks at what else runs (a look takes up to 8 ms)
_FAKE_RESULT = "<tool_response>"
_CALL_OPEN = "<tool_call>"


def _partial_suffix(text: str, word: str) -> int:
    """The length of the longest end of *text* that is a start of *word*."""
    for n in range(min(len(text), len(word) - 1), 0, -1):
        if word.startswith(text[-n:]):
            return n
    return 0


def _shared(a: Sequence[int], b: Sequence[int]) -> int:
    """The length of the common prefix of *a* and *b*."""
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def _call_closed(text: str, added: int) -> bool:
    """Whether the piece just added closed a tool call: the turn ends there, before the
    model can go on to write the call's result itself."""
    window = text[-(added + len("</tool_call>")) :]
    if "</tool_call>" in window:
        return True
    return "```" in window and "<tool_call>" not in text and closed_fenced_call(text)
