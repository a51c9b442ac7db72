"""What each provider still needs before it can answer (``/connect``, ``/connect status``).

Hosted providers need a key (from the environment at start-up or the keys store);
Ollama needs a server that answers at its address, with a model pulled; the embedded
model needs its build and weights installed. Nothing here sends a request to a hosted
provider: a key is known or it is not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs
import trio

from harness.keys import ENV_KEYS, provider_key
from harness.words import PROVIDER_KINDS

__all__ = ["Readiness", "installed_models", "readiness"]

_OLLAMA_URL = "http://127.0.0.1:11434"


@attrs.frozen
class Readiness:
    """Whether *provider* can answer now, and in words what it has or still needs."""

    provider: str
    ready: bool
    text: str


def _key_known(environ: Mapping[str, str], provider: str) -> bool:
    from harness.actors.model import resolve_credentials
    from harness.errors import ProviderError

    if provider_key(provider):
        return True
    try:
        return resolve_credentials(provider, env=environ)[0] is not None
    except ProviderError:
        return False


async def _ollama(environ: Mapping[str, str]) -> Readiness:
    try:
        from harness.actors.model.local import probe_ollama
    except ImportError:  # the local package is optional; its probe is not
        return Readiness("ollama", False, "cannot be checked in this build")
    url = environ.get("OLLAMA_BASE_URL") or _OLLAMA_URL
    models = await trio.to_thread.run_sync(lambda: probe_ollama(url, 1.0))
    if models is None:
        return Readiness(
            "ollama", False, f"needs a running Ollama: none answers at {url} (`ollama serve`)"
        )
    if not models:
        return Readiness("ollama", False, f"running at {url} but needs a model: `ollama pull`")
    return Readiness("ollama", True, f"ready at {url}: {len(models)} models")


def _local(environ: Mapping[str, str]) -> Readiness:
    try:
        from harness.actors.model.local import DEFAULT_MODEL, embedded_installed, lookup
    except ImportError:
        return Readiness("local", False, "not part of this build (needs `make install`)")
    if environ.get("HARNESS_EMBEDDED", "").strip().lower() in ("0", "off", "no", "false"):
        return Readiness("local", False, "switched off (HARNESS_EMBEDDED)")
    entry = lookup(DEFAULT_MODEL)
    if entry is None or not embedded_installed(entry):
        return Readiness(
            "local", False, "needs the embedded model installed (`make install` in harness)"
        )
    return Readiness("local", True, f"ready: {entry.name}, offline")


async def readiness(environ: Mapping[str, str], provider: str) -> Readiness:
    """What *provider* has, or still needs, to answer."""
    kind = PROVIDER_KINDS[provider]
    if kind == "server":
        return await _ollama(environ)
    if kind == "embedded":
        return _local(environ)
    if _key_known(environ, provider):
        return Readiness(provider, True, "ready: key set")
    names = " or ".join(ENV_KEYS.get(provider, ()))
    return Readiness(provider, False, f"needs an API key ({names}, or typed at /connect)")


def installed_models(provider: str, names: Sequence[str], home: Path) -> dict[str, bool]:
    """Whether each model *provider* listed can run: an embedded model must be installed
    (its weights and llama.cpp); a server's or a hosted provider's list is what it runs."""
    if PROVIDER_KINDS[provider] != "embedded":
        return dict.fromkeys(names, True)
    try:
        from harness.actors.model.local import embedded_installed, lookup
    except ImportError:
        return dict.fromkeys(names, False)
    found = {}
    for name in names:
        entry = lookup(name, home)
        found[name] = entry is not None and embedded_installed(entry)
    return found
