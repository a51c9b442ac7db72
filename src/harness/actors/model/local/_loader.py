"""Resolving a model name, assembling it and loading it once, in a background thread.

The provider keeps one :class:`Loader` per model. Loading starts as early as possible (at
worker start when ``HARNESS_LOCAL_MODEL`` names the model, else at the first request) and
runs in a plain thread, so the worker's trio loop keeps answering while the file is
assembled, verified and mapped. :meth:`Loader.progress` says where it is.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import attrs

from harness.actors.model.local._assemble import assemble
from harness.actors.model.local._catalogue import CatalogueEntry, catalogue, lookup
from harness.actors.model.local._engine import LoadedModel
from harness.actors.model.local._errors import CatalogueError, LocalModelError, ModelLoadError
from harness.actors.model.local._load import load_model
from harness.actors.model.local._runtime import check_once
from harness.actors.model.local._sizing import DEFAULT_BATCH

__all__ = ["LoadProgress", "Loader", "model_cache_dir", "resolve"]

DEFAULT_CONTEXT = 8192


def model_cache_dir(env: dict[str, str] | None = None) -> Path:
    """Where assembled model files live: ``$HARNESS_MODEL_CACHE``, else
    ``$XDG_CACHE_HOME/harness/models`` (``~/.cache/harness/models``). A cache, shared by
    every ``HARNESS_HOME`` (tests use a fresh one each), and never inside the workspace."""
    env = dict(os.environ) if env is None else env
    raw = env.get("HARNESS_MODEL_CACHE")
    if raw:
        return Path(raw).expanduser()
    xdg = env.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "harness" / "models"


def resolve(spec: str, home: Path | None = None) -> CatalogueEntry | Path:
    """A catalogue entry for a model name, or the path of a ``.gguf`` file.

    Raises:
        CatalogueError: neither a known name nor an existing ``.gguf`` file.
    """
    entry = lookup(spec, home)
    if entry is not None:
        return entry
    if spec.endswith(".gguf") or os.sep in spec:
        path = Path(spec).expanduser()
        if not path.is_file():
            raise CatalogueError(f"model file {spec} does not exist")
        return path.resolve()
    known = ", ".join(e.name for e in catalogue(home))
    raise CatalogueError(
        f"unknown embedded model {spec!r}; known: {known}, or give a path to a .gguf file"
    )


@attrs.frozen
class LoadProgress:
    """Where a load is.

    ``stage`` is ``waiting``, ``assembling``, ``verifying``, ``testing`` (the runtime's
    first run on this machine, in a child process), ``loading``, ``ready`` or ``failed``;
    ``done``/``total`` count bytes for assembling and verifying, and thousandths of
    llama.cpp's own progress through the tensors for loading.
    """

    model: str
    stage: str
    done: int = 0
    total: int = 0
    error: str = ""

    def describe(self) -> str:
        """One line for a status bar."""
        if self.stage in ("assembling", "verifying") and self.total:
            pct = 100 * self.done // self.total
            return f"{self.stage} model {self.model}: {pct}%"
        if self.stage == "loading" and self.total:
            return f"loading model {100 * self.done // self.total}%"
        if self.stage == "failed":
            return self.error
        return f"{self.stage} model {self.model}"


class Loader:
    """Assembles, verifies and loads one model in a background thread, once.

    Args:
        spec: a catalogue name or a path to a ``.gguf`` file.
        home: ``$HARNESS_HOME`` (for the user catalogue).
        cache_dir: where assembled files go.
        n_ctx: the context to allocate, in tokens (capped at the model's own).
        threads: llama.cpp threads.
        batch: prompt tokens read at a time.
    """

    def __init__(
        self,
        spec: str,
        *,
        home: Path,
        cache_dir: Path,
        n_ctx: int,
        threads: int,
        batch: int = DEFAULT_BATCH,
    ) -> None:
        self.spec = spec
        self._batch = batch
        self._home = home
        self._cache_dir = cache_dir
        self.n_ctx = n_ctx
        self._threads = threads
        self._done = threading.Event()
        self._stop = threading.Event()  # set by close: a load in flight ends early
        self._lock = threading.Lock()
        self._progress = LoadProgress(spec, "waiting")
        self._model: LoadedModel | None = None
        self._error: LocalModelError | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start loading (idempotent)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"load-{self.spec}", daemon=True
                )
                self._thread.start()

    def progress(self) -> LoadProgress:
        """A snapshot of the load's progress."""
        return self._progress

    @property
    def done(self) -> threading.Event:
        """Set when the load has succeeded or failed."""
        return self._done

    def wait(self) -> LoadedModel:
        """Block until the load ends; the loaded model (see :meth:`result`)."""
        self.start()
        self._done.wait()
        return self.result()

    def result(self) -> LoadedModel:
        """The loaded model; call after :attr:`done` is set.

        Raises:
            LocalModelError: why loading failed (each later call raises it again).
        """
        if self._error is not None:
            raise self._error
        assert self._model is not None
        return self._model

    def _report(self, stage: str, done: int = 0, total: int = 0) -> None:
        self._progress = LoadProgress(self.spec, stage, done, total)

    def _run(self) -> None:
        try:
            target = resolve(self.spec, self._home)
            if isinstance(target, CatalogueEntry):
                path = assemble(target, self._cache_dir, self._report)
                n_ctx = min(self.n_ctx, target.context_length)
                name, key = target.name, target.sha256[:16]
            else:
                path, n_ctx, name = target, self.n_ctx, target.name
                st = path.stat()
                key = f"file-{st.st_size}-{st.st_mtime_ns}"
            self._stopped()
            self._report("testing")
            proof = check_once(path, self._cache_dir)
            if proof.signal:  # other failures are the file's: load_model says which
                raise ModelLoadError(
                    f"{proof.describe()}, so the embedded model was not loaded: run "
                    "`make install` in the harness checkout to rebuild llama.cpp for this "
                    "machine, or pick another provider with /connect or --provider"
                )
            self._stopped()
            self._report("loading")
            self._model = load_model(
                path,
                name,
                n_ctx=n_ctx,
                threads=self._threads,
                batch=self._batch,
                state_dir=self._cache_dir / "state",
                model_key=key,
                on_progress=lambda part: self._report("loading", int(part * 1000), 1000),
                stop=self._stop,
            )
            self._report("ready")
        except LocalModelError as exc:
            self._error = exc
            self._progress = LoadProgress(self.spec, "failed", error=str(exc))
        except Exception as exc:  # a bug or the OS: still one clear line, never a hang
            self._error = ModelLoadError(f"loading model {self.spec} failed: {exc!r}")
            self._progress = LoadProgress(self.spec, "failed", error=str(self._error))
        finally:
            self._done.set()

    def _stopped(self) -> None:
        if self._stop.is_set():
            raise ModelLoadError(f"loading model {self.spec} was stopped")

    def close(self) -> None:
        """Free the model. A load in flight is stopped at its next step (llama.cpp's next
        tensor, or the next stage) and waited for: a worker shutting down while its model
        loads ends within its grace, not after the whole load."""
        self._stop.set()
        self._done.wait()
        if self._model is not None:
            self._model.close()
            self._model = None
