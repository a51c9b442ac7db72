"""Provider keys and addresses: the environment first, then ``$HARNESS_HOME/providers.json``.

The file maps a provider to its settings::

    {"openai": {"api_key": "sk-…", "base_url": "https://openrouter.ai/api/v1"}}

It is created 0600 and replaced atomically (a temporary file in the same folder, fsynced,
then renamed), so a crash mid-write leaves the old file whole. A key never appears in a
message this module raises.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.actors.model._provider import ProviderError
from harness.home import harness_home
from harness.keys import ENV_KEYS
from harness.messages import PROVIDERS

__all__ = [
    "ENV_BASE_URLS",
    "ENV_KEYS",
    "forget_key",
    "load_providers",
    "providers_path",
    "resolve_credentials",
    "save_key",
]


ENV_BASE_URLS: dict[str, tuple[str, ...]] = {
    "ollama": ("OLLAMA_BASE_URL",),
    "openai": ("OPENAI_BASE_URL",),
    "anthropic": ("ANTHROPIC_BASE_URL",),
    "gemini": ("GEMINI_BASE_URL",),
}


def providers_path(env: Mapping[str, str] | None = None) -> Path:
    """Where saved keys live."""
    return harness_home(env) / "providers.json"


def load_providers(path: Path) -> dict[str, dict[str, Any]]:
    """The saved settings per provider (empty when there is no file).

    Raises:
        ProviderError: ``config`` when the file cannot be read or is not the right shape.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ProviderError("config", f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProviderError(
            "config", f"{path} is not valid JSON (line {exc.lineno}); fix or remove it"
        ) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ProviderError("config", f"{path} must map each provider to an object")
    return data


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=".providers.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o600)
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def save_key(
    provider: str,
    api_key: str | None,
    *,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Path:
    """Save *provider*'s key (and address, when given) to ``providers.json``; return its path.

    Raises:
        ProviderError: ``config`` for an unknown provider, or an existing file that does
            not parse (it is left as it is, never overwritten).
    """
    if provider not in PROVIDERS:
        raise ProviderError("config", f"unknown provider {provider!r}")
    path = providers_path(env)
    data = load_providers(path)
    entry = dict(data.get(provider, {}))
    if api_key is not None:
        entry["api_key"] = api_key
    if base_url is not None:
        entry["base_url"] = base_url
    data[provider] = entry
    _write_atomic(path, data)
    return path


def forget_key(provider: str, *, env: Mapping[str, str] | None = None) -> bool:
    """Remove *provider*'s saved key; ``True`` when there was one."""
    path = providers_path(env)
    data = load_providers(path)
    entry = data.get(provider, {})
    if "api_key" not in entry:
        return False
    del entry["api_key"]
    _write_atomic(path, data)
    return True


# The model worker resolves credentials for every request: the file is read again
# only when it changed (it is replaced by rename, so a new inode says so), and a
# stat of it is all a request pays otherwise.
_PATHS: dict[str, Path] = {}
_SAVED: dict[Path, tuple[tuple[int, int, int], dict[str, dict[str, Any]]]] = {}


def _saved(home: str) -> dict[str, dict[str, Any]]:
    path = _PATHS.get(home)
    if path is None:
        path = _PATHS[home] = providers_path({"HARNESS_HOME": home} if home else {})
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return {}
    except OSError:
        return load_providers(path)  # raises the error worded for the user
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    cached = _SAVED.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    data = load_providers(path)
    _SAVED[path] = (stamp, data)
    return data


def resolve_credentials(
    provider: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[str | None, str]:
    """(api key, base address) for *provider*: what the request gives, else the
    environment, else the saved file; an empty address means the provider's default."""
    env = os.environ if env is None else env
    if api_key is None:
        api_key = next((env[k] for k in ENV_KEYS.get(provider, ()) if env.get(k)), None)
    if base_url is None:
        base_url = next((env[k] for k in ENV_BASE_URLS.get(provider, ()) if env.get(k)), None)
    if api_key is None or base_url is None:
        try:
            saved = _saved(env.get("HARNESS_HOME") or "").get(provider, {})
        except ProviderError:
            # A broken file matters only when it was the one place a key could come from.
            if api_key is None and provider in ("openai", "anthropic", "gemini"):
                raise
            saved = {}
        if api_key is None and isinstance(saved.get("api_key"), str):
            api_key = saved["api_key"]
        if base_url is None and isinstance(saved.get("base_url"), str):
            base_url = saved["base_url"]
    return api_key or None, base_url or ""
