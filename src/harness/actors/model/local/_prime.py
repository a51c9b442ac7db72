"""Reading the embedded model's shared prompt once, before the first question.

The embedded model reads a session's system prompt with the part every project shares
first (the base prompt, then the tool section: :func:`shared_prompt`), and keeps the state
after that part in the model cache: a folder never seen then reads only its own lines. On
a brand-new machine nobody has saved that state yet, so the very first question would read
all of it. :func:`prime` reads it ahead (``make install`` does, through ``harness
prime``): the same text, the same context size, the same tokens and the same file a
session reads and looks for.

A stamp beside the states, named by what decides the state (the shared text, the model,
llama.cpp's version and the context size) and naming the state's file, makes a second
prime free: :func:`primed` answers without loading the model.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.actors.model._provider import ProviderCall
from harness.actors.model._textproto import text_protocol_prompt
from harness.actors.model.local._catalogue import CatalogueEntry, lookup
from harness.actors.model.local._guide import static_first
from harness.actors.model.local._loader import DEFAULT_CONTEXT, Loader, model_cache_dir, resolve
from harness.actors.model.local._sizing import default_batch, default_threads
from harness.home import harness_home
from harness.messages.model import ChatOptions, ToolSchema

__all__ = ["cannot_prime", "prime", "primed", "shared_prompt"]

_OFF = ("0", "off", "no", "false")


def shared_prompt(system: str, tools: Sequence[ToolSchema]) -> tuple[str, str]:
    """``(system, shared)``: a session's system prompt *system* offering *tools*, as the
    embedded model reads it (the text protocol's tool section written after it, as the
    model worker does, then moved up behind the base prompt), and the part of it every
    project shares ("" when *system* is not of that shape)."""
    sent = "\n\n".join(s for s in (system, text_protocol_prompt(tools)) if s)
    call = ProviderCall(
        model="",
        messages=(),
        system=sent,
        options=ChatOptions(),
        text_protocol=True,
        text_tools=tuple(tools),
    )
    return static_first(call)


def cannot_prime(spec: str, env: Mapping[str, str] | None = None) -> str:
    """Why model *spec* cannot read a prompt here ("" when it can), loading nothing: the
    embedded model switched off, llama-cpp-python missing, the model not installed (a
    catalogue model is read only once ``make install`` assembled it)."""
    env = dict(os.environ if env is None else env)
    if env.get("HARNESS_EMBEDDED", "").strip().lower() in _OFF:
        return "the embedded model is switched off here (HARNESS_EMBEDDED=off)"
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed"
    entry = lookup(spec, harness_home(env))
    if entry is not None:
        if not (model_cache_dir(env) / entry.file_name).is_file():
            return f"the embedded model {entry.name} is not installed"
        return ""
    if not Path(spec).expanduser().is_file():
        return f"there is no embedded model {spec!r} (a catalogue name or a .gguf file)"
    return ""


def _context(env: Mapping[str, str]) -> int:
    # the provider's own reading of the variable (a session's model worker gets it set to
    # the conversation's window)
    try:
        return int(env.get("HARNESS_LOCAL_CONTEXT") or DEFAULT_CONTEXT)
    except ValueError:
        return DEFAULT_CONTEXT


def _stamp(shared: str, spec: str, env: Mapping[str, str]) -> Path:
    """The stamp of *shared* read by model *spec*: its name hashes everything the saved
    state depends on besides the tokens (which follow from the text and the model)."""
    target = resolve(spec, harness_home(env))
    if isinstance(target, CatalogueEntry):
        model = target.sha256
    else:
        st = target.stat()
        model = f"{target}-{st.st_size}-{st.st_mtime_ns}"
    try:
        runtime = importlib.metadata.version("llama_cpp_python")
    except importlib.metadata.PackageNotFoundError:
        runtime = ""
    key = "\0".join((shared, model, runtime, str(_context(env))))
    digest = hashlib.sha256(key.encode()).hexdigest()[:24]
    return model_cache_dir(dict(env)) / "state" / "primed" / digest


def primed(shared: str, spec: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether model *spec* has read *shared* ahead and its state is still in the cache
    (states are pruned, the least recently used first). Loads nothing.

    Raises:
        CatalogueError: *spec* is neither a known model nor a ``.gguf`` file.
    """
    env = dict(os.environ if env is None else env)
    stamp = _stamp(shared, spec, env)
    try:
        name = stamp.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return False
    return bool(name) and (stamp.parent.parent / name).is_file()


def prime(system: str, shared: str, spec: str, env: Mapping[str, str] | None = None) -> Path | None:
    """Load model *spec* and read the system prompt *system* (as :func:`shared_prompt`
    gives it) up to the end of *shared*, saving the state there; stamp it for
    :func:`primed`. Blocking, seconds to tens of seconds; run it in a child process,
    since llama.cpp can take the process down with it.

    Returns the state's file, or ``None`` when none could be kept (*shared* is not the
    start of *system*, or the file could not be written).

    Raises:
        LocalModelError: the model cannot be found or loaded.
    """
    env = dict(os.environ if env is None else env)
    loader = Loader(
        spec,
        home=harness_home(env),
        cache_dir=model_cache_dir(env),
        n_ctx=_context(env),
        threads=default_threads(env),
        batch=default_batch(env),
    )
    try:
        model = loader.wait()
        state = model.save_shared([{"role": "system", "content": system}], shared)
    finally:
        loader.close()
    if state is None:
        return None
    stamp = _stamp(shared, spec, env)
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(state.name, encoding="utf-8")
    except OSError:
        pass  # the state is there; the next prime only loads the model to find it
    return state
