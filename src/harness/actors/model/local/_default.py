"""Which provider and model harness starts on when nobody said.

Order: an explicit setting wins; else a reachable Ollama that has a model installed; else
the embedded model when it is installed; else :class:`NoModelAvailable` with a message on
how to get one. Cheap on purpose: one HTTP request with a short timeout and a few package
metadata look-ups; llama.cpp is not imported.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import attrs

from harness.actors.model.local._catalogue import DEFAULT_MODEL, CatalogueEntry, lookup
from harness.actors.model.local._errors import LocalModelError
from harness.actors.model.local._loader import model_cache_dir

__all__ = [
    "NoModelAvailable",
    "StartupChoice",
    "choose_startup_model",
    "embedded_installed",
    "probe_ollama",
]

OLLAMA_DEFAULT_URL = "http://localhost:11434"


class NoModelAvailable(LocalModelError):
    """No provider was named, no Ollama answered, and the embedded model is not installed."""


@attrs.frozen
class StartupChoice:
    """The provider and model to start on, and why.

    Attributes:
        provider: ``ollama``, ``local`` or whatever was set explicitly.
        model: the model name (``None`` when an explicit provider named none).
        source: ``explicit``, ``ollama`` or ``embedded``.
        header: one line for the header of the session, saying which and why.
    """

    provider: str
    model: str | None
    source: str
    header: str


def probe_ollama(base_url: str, timeout: float = 0.5) -> list[str] | None:
    """The models a reachable Ollama at *base_url* has installed, or ``None`` when it
    does not answer like Ollama within *timeout* seconds."""
    import httpx

    try:
        resp = httpx.get(base_url.rstrip("/") + "/api/tags", timeout=timeout)
        resp.raise_for_status()
        models = resp.json().get("models", [])
        return [str(m["name"]) for m in models if isinstance(m, dict) and "name" in m]
    except (httpx.HTTPError, ValueError, AttributeError, TypeError):
        return None


def embedded_installed(entry: CatalogueEntry, cache_dir: Path | None = None) -> bool:
    """True when llama-cpp-python and *entry*'s pinned part packages (or its already
    assembled file) are installed; nothing is imported or hashed."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False
    if cache_dir is not None and (cache_dir / entry.file_name).is_file():
        return True
    if entry.files:
        return all(Path(f).is_file() for f in entry.files)
    for part in entry.packages:
        try:
            if importlib.metadata.version(part.name) != part.version:
                return False
        except importlib.metadata.PackageNotFoundError:
            return False
    return True


def choose_startup_model(
    provider: str | None = None,
    model: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cache_dir: Path | None = None,
    probe: Callable[[str], list[str] | None] = probe_ollama,
    embedded: str = DEFAULT_MODEL,
) -> StartupChoice:
    """Pick the provider and model to start on.

    Args:
        provider: the explicit ``--provider`` (or configured one); wins when set.
        model: the explicit ``--model``; with no provider it means Ollama's model, or the
            embedded one when it names a catalogue model or a ``.gguf`` file.
        env: the environment (default ``os.environ``), for ``OLLAMA_BASE_URL``, and
            ``HARNESS_EMBEDDED=off``, which switches the embedded model off (never
            chosen here; the provider refuses it too).
        cache_dir: the model cache, where an assembled embedded model may already sit
            (default: :func:`model_cache_dir`).
        probe: asks an Ollama URL for its models (``None`` = unreachable).
        embedded: the catalogue model to fall back on.

    Raises:
        NoModelAvailable: nothing to start on; the message says how to get a model.
    """
    env = os.environ if env is None else env
    if cache_dir is None:
        cache_dir = model_cache_dir(dict(env))
    if provider:
        if provider == "local" and not model:
            model = embedded
        return StartupChoice(provider, model, "explicit", _header(provider, model, "as set"))
    if model and (model.endswith(".gguf") or lookup(model) is not None):
        return StartupChoice("local", model, "explicit", _header("local", model, "as set"))
    base_url = env.get("OLLAMA_BASE_URL") or OLLAMA_DEFAULT_URL
    models = probe(base_url)
    if models:
        chosen = model if model else models[0]
        return StartupChoice("ollama", chosen, "ollama", _header("ollama", chosen, base_url))
    if model:
        # A model was named but no Ollama answered: say so rather than guess.
        raise NoModelAvailable(
            f"model {model} was asked for, but no Ollama answers at {base_url}; start "
            "Ollama, or pass --provider"
        )
    entry = lookup(embedded)
    offered = env.get("HARNESS_EMBEDDED", "").strip().lower() not in ("0", "off", "no", "false")
    if offered and entry is not None and embedded_installed(entry, cache_dir):
        return StartupChoice(
            "local", entry.name, "embedded", _header("local", entry.name, "embedded, offline")
        )
    if not offered:  # installed or not, it is off: say that, not "not installed"
        raise NoModelAvailable(
            "no model to talk to: no Ollama answers at "
            f"{base_url} and the embedded model is switched off (HARNESS_EMBEDDED=off). "
            "Unset HARNESS_EMBEDDED, start Ollama and `ollama pull` a model, or pass "
            "--provider openai|anthropic|gemini with its API key set"
        )
    raise NoModelAvailable(
        "no model to talk to: no Ollama answers at "
        f"{base_url} and the embedded model is not installed. Run `make install` in the "
        "harness checkout for the embedded model, start Ollama and `ollama pull` a model, "
        "or pass --provider openai|anthropic|gemini with its API key set"
    )


def _header(provider: str, model: str | None, why: str) -> str:
    shown = f"{provider}:{model}" if model else provider
    return f"model {shown} ({why})"
