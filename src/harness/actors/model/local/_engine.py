"""One loaded GGUF model and its generation loop (blocking; runs in a thread).

This is the only module that imports llama-cpp-python. Everything here is synchronous:
the provider runs :meth:`LoadedModel.generate` in a worker thread and passes in a
``threading.Event`` that it sets to cancel. The event is checked after every token, and
while the prompt is being evaluated llama.cpp's abort callback checks it between graph
nodes, so a cancel stops generation within one token even in the middle of a long prompt.
"""

from __future__ import annotations

import codecs
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from harness.actors.model.local._errors import ModelLoadError, ModelNotInstalled

__all__ = ["Generation", "LoadedModel", "default_threads", "load_model"]


def default_threads(env: dict[str, str] | None = None) -> int:
    """``HARNESS_LOCAL_THREADS`` when set, else one less than the usable cores (min 1).

    Measured: with another process busy on a core, one thread on a 2-core machine beat
    two (27 vs 12-15 tokens/s), because llama.cpp's threads wait on each other.
    """
    env = dict(os.environ) if env is None else env
    raw = env.get("HARNESS_LOCAL_THREADS", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


@attrs.frozen
class Generation:
    """How one generation ended.

    ``finish_reason`` is ``stop`` (end of turn), ``length`` (``max_tokens`` or the context
    filled up) or ``cancelled``.
    """

    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0


def _import_llama() -> Any:
    try:
        import llama_cpp
    except ImportError:
        raise ModelNotInstalled(
            "llama-cpp-python (the embedded model runtime)", "make install"
        ) from None
    return llama_cpp


class LoadedModel:
    """A GGUF model loaded once and kept: it reuses the KV cache of the shared prompt
    prefix from one turn to the next (a 1,021-token system prompt: 11.2 s the first
    time, 0.33 s after).

    Not thread-safe: one generation at a time (the provider holds a lock).
    """

    def __init__(self, llama: Any, module: Any, name: str, path: Path, threads: int) -> None:
        self.llama = llama
        self.name = name
        self.path = path
        self.threads = threads
        self._lib = module.llama_cpp
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
    ) -> Generation:
        """Generate one reply to *messages*, calling ``on_text`` with each piece of text.

        Blocking; call it from a thread. Returns when the model ends its turn, a limit is
        reached, or *cancel* is set (checked after every token).

        Raises:
            ModelLoadError: the prompt does not fit in the context (``context_length``).
        """
        tokens = self.tokenize(self.render(messages))
        n_ctx = self.n_ctx
        if len(tokens) >= n_ctx:
            raise ContextTooLong(len(tokens), n_ctx)
        room = n_ctx - len(tokens)
        limit = room if max_tokens is None else min(max_tokens, room)
        cached = _common_prefix(self.llama, tokens)
        if seed is not None:
            self.llama.set_seed(seed)
        temp = 0.2 if temperature is None else temperature
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        produced = 0
        finish = "length"
        self._set_abort(cancel)
        gen = self.llama.generate(
            tokens,
            top_k=40,
            top_p=0.95,
            min_p=0.05,
            temp=temp,
            repeat_penalty=1.0,
            reset=True,
        )
        try:
            for token in gen:
                if produced == 0:
                    # The prompt is in: per-token checks suffice from here, and the
                    # callback (called per graph node) would only cost time.
                    self._set_abort(None)
                if cancel.is_set():
                    finish = "cancelled"
                    break
                if self._lib.llama_vocab_is_eog(self._vocab, token):
                    finish = "stop"
                    break
                produced += 1
                piece = decoder.decode(self.llama.detokenize([token]))
                if piece:
                    on_text(piece)
                if produced >= limit:
                    finish = "length"
                    break
        except RuntimeError as exc:
            if cancel.is_set():
                finish = "cancelled"
            else:
                raise ModelLoadError(f"model {self.name} failed while generating: {exc}") from None
        finally:
            gen.close()
            self._set_abort(None)
        tail = decoder.decode(b"", final=True)
        if tail and finish != "cancelled":
            on_text(tail)
        return Generation(finish, len(tokens), produced, cached)

    def close(self) -> None:
        """Free the model's memory now rather than at garbage collection."""
        self.llama.close()


class ContextTooLong(ModelLoadError):
    """The rendered prompt has more tokens than the loaded context holds."""

    def __init__(self, prompt_tokens: int, n_ctx: int) -> None:
        super().__init__(
            f"the prompt is {prompt_tokens} tokens and the embedded model's context holds "
            f"{n_ctx}; shorten the conversation or raise the context window"
        )
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx


def _common_prefix(llama: Any, tokens: list[int]) -> int:
    count = 0
    for a, b in zip(llama._input_ids[: llama.n_tokens], tokens, strict=False):
        if a != b:
            break
        count += 1
    return count


def load_model(path: Path, name: str, *, n_ctx: int, threads: int) -> LoadedModel:
    """Load the GGUF file at *path* (blocking, seconds).

    Raises:
        ModelNotInstalled: llama-cpp-python is not installed.
        ModelLoadError: the file is not a GGUF model llama.cpp can load.
    """
    module = _import_llama()
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ModelLoadError(f"cannot read model file {path}: {exc.strerror}") from None
    if magic != b"GGUF":
        raise ModelLoadError(f"{path} is not a GGUF model file")
    try:
        llama = module.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            n_batch=512,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as exc:
        raise ModelLoadError(f"llama.cpp could not load {path.name}: {exc}") from None
    return LoadedModel(llama, module, name, path, threads)
