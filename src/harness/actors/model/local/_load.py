"""Load a GGUF file into a :class:`~harness.actors.model.local._engine.LoadedModel`
(blocking, seconds), hearing llama.cpp's progress through the model's tensors.

This is the only module that imports llama-cpp-python; the loaded model is handed the
module it came from.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harness.actors.model.local._engine import LoadedModel
from harness.actors.model.local._errors import ModelLoadError, ModelNotInstalled
from harness.actors.model.local._sizing import DEFAULT_BATCH, usable_cores

__all__ = ["load_model"]


def _import_llama() -> Any:
    try:
        import llama_cpp
    except ImportError:
        raise ModelNotInstalled(
            "llama-cpp-python (the embedded model runtime)", "make install"
        ) from None
    return llama_cpp


def load_model(
    path: Path,
    name: str,
    *,
    n_ctx: int,
    threads: int,
    threads_batch: int | None = None,
    batch: int = DEFAULT_BATCH,
    state_dir: Path | None = None,
    model_key: str = "",
    on_progress: Callable[[float], None] | None = None,
    stop: threading.Event | None = None,
) -> LoadedModel:
    """Load the GGUF file at *path* (blocking, seconds).

    *threads* read and write while other processes run; *threads_batch* (default: every
    usable core) while none does (:meth:`LoadedModel._run_with_free_cores`); the prompt
    is read *batch* tokens at a time. *state_dir* keeps the state after the
    system prompt between runs, named by *model_key* (the model's SHA-256), the prompt
    and llama.cpp's version. *on_progress* hears llama.cpp's own progress through the
    model's tensors, 0.0 to 1.0 (from the loading thread). *stop*, once set, ends the load
    at llama.cpp's next step through the tensors (a worker told to shut down does not
    wait seconds to a minute for a model it will not use).

    Raises:
        ModelNotInstalled: llama-cpp-python is not installed.
        ModelLoadError: the file is not a GGUF model llama.cpp can load, or *stop* was set.
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
        with _load_progress(module, on_progress, stop):
            llama = module.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads_batch or usable_cores(),
                n_batch=batch,
                verbose=False,
            )
    except (ValueError, RuntimeError, OSError) as exc:
        if stop is not None and stop.is_set():
            raise ModelLoadError(f"the load of {path.name} was stopped") from None
        raise ModelLoadError(f"llama.cpp could not load {path.name}: {exc}") from None
    return LoadedModel(llama, module, name, path, threads, state_dir=state_dir, model_key=model_key)


_PARAMS_LOCK = threading.Lock()


@contextlib.contextmanager
def _load_progress(
    module: Any, on_progress: Callable[[float], None] | None, stop: threading.Event | None
) -> Iterator[None]:
    """llama.cpp reports a load's progress through a callback in the model parameters,
    which ``Llama()`` builds itself from ``llama_model_default_params`` and offers no
    argument for: that function is wrapped while the model loads, under a lock, so the
    parameters it builds carry the callback. The callback's answer says whether to go on:
    ``False`` once *stop* is set."""
    if on_progress is None and stop is None:
        yield
        return
    low = module.llama_cpp

    def heard(progress: float, _data: Any) -> bool:
        if stop is not None and stop.is_set():
            return False  # llama.cpp ends the load there, and Llama() raises
        try:
            if on_progress is not None:
                on_progress(float(progress))
        except Exception:  # a report must never abort the load
            pass
        return True  # go on loading

    callback = low.llama_progress_callback(heard)  # kept alive until the load ends
    with _PARAMS_LOCK:
        defaults = low.llama_model_default_params

        def with_progress() -> Any:
            params = defaults()
            params.progress_callback = callback
            return params

        low.llama_model_default_params = with_progress
        try:
            yield
        finally:
            low.llama_model_default_params = defaults
