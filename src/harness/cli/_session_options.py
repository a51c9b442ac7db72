"""From the parsed command line (and the environment) to :class:`SessionOptions`.

Headless mode and the terminal both open their sessions from here; the terminal
adds what it settled itself (the provider and model, a session to resume).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.conversation import ContextSettings, SessionOptions

__all__ = [
    "context_settings",
    "default_model",
    "offered_tools",
    "session_options",
    "switched_on",
    "system_prompt",
]

# flags whose value goes to the session as it is, when given
_FLAGS = (
    "api_key",
    "base_url",
    "tool_protocol",
    "permission_mode",
    "max_turns",
    "verify",
    "resume",
    "temperature",
    "seed",
    "sandbox",
    "deepthink",
    "strict_writes",
    "workspace_map",
)


def default_model(environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The provider and model the environment (or ``$HARNESS_HOME/.env``) names for
    when the command line names none: ``HARNESS_PROVIDER``, ``HARNESS_MODEL``, and
    ``OLLAMA_MODEL`` when the provider is Ollama or left open.

    Raises:
        ValueError: ``HARNESS_PROVIDER`` is not a provider.
    """
    from harness.words import PROVIDER_KINDS, PROVIDERS

    provider = environ.get("HARNESS_PROVIDER", "").strip().lower() or None
    if provider is not None and provider not in PROVIDERS:
        raise ValueError(
            f"HARNESS_PROVIDER={provider} is not a provider; use one of {', '.join(PROVIDERS)}"
        )
    model = environ.get("HARNESS_MODEL", "").strip() or None
    if model is None and (provider is None or PROVIDER_KINDS[provider] == "server"):
        model = environ.get("OLLAMA_MODEL", "").strip() or None
    return provider, model


def _per_model(environ: Mapping[str, str], name: str) -> tuple[int | None, dict[str, int]]:
    # "8192", or "qwen2.5-coder:7b=32768,llama3.1=16384,8192" (a bare number: the rest)
    raw = environ.get(name, "").strip()
    default: int | None = None
    by_model: dict[str, int] = {}
    for item in filter(None, (i.strip() for i in raw.split(","))):
        model, _, number = item.rpartition("=")
        if not number.strip().isdigit() or int(number) <= 0:
            raise ValueError(
                f"{name} must be a number of tokens, or MODEL=N pairs separated by commas"
            )
        if model.strip():
            by_model[model.strip()] = int(number)
        else:
            default = int(number)
    return default, by_model


def context_settings(environ: Mapping[str, str]) -> ContextSettings:
    """The context window and output limit the environment sets, for every model or
    per model: ``HARNESS_CONTEXT_WINDOW`` and ``HARNESS_MAX_OUTPUT``.

    Raises:
        ValueError: a value that is not a positive number of tokens.
    """
    # not *_TOKENS: a name with TOKEN in it is taken out of the environment as a secret
    window, windows = _per_model(environ, "HARNESS_CONTEXT_WINDOW")
    reserve, reserves = _per_model(environ, "HARNESS_MAX_OUTPUT")
    return ContextSettings(window=window, reserve=reserve, windows=windows, reserves=reserves)


def offered_tools(text: str) -> tuple[str, ...]:
    """The built-in tools ``--tools`` names: ``small`` (the embedded model's short list,
    also what a small model behind an OpenAI-compatible server reads best), or names
    separated by commas.

    Raises:
        ValueError: an empty list or a name that is not a built-in tool.
    """
    from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table

    if text.strip().lower() == "small":
        return SMALL_MODEL_TOOLS
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    known = [s.name for s in builtin_table().schemas()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        what = f"no built-in tool named {', '.join(unknown)}" if unknown else "no tool named"
        raise ValueError(f"--tools: {what}; give 'small' or names from: {', '.join(known)}")
    return names


def switched_on(environ: Mapping[str, str], name: str) -> bool:
    """Whether variable *name* is set to ``1``, ``on``, ``yes`` or ``true``."""
    return environ.get(name, "").strip().lower() in ("1", "on", "yes", "true")


def system_prompt(environ: Mapping[str, str]) -> str | None:
    """The text of ``HARNESS_SYSTEM_PROMPT_FILE``, which replaces the built-in system
    prompt (``None`` when it is not set).

    Raises:
        ValueError: the file cannot be read, or is empty.
    """
    name = environ.get("HARNESS_SYSTEM_PROMPT_FILE", "").strip()
    if not name:
        return None
    path = Path(name).expanduser()
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"HARNESS_SYSTEM_PROMPT_FILE {path} cannot be read: {exc}") from None
    if not text:
        raise ValueError(f"HARNESS_SYSTEM_PROMPT_FILE {path} is empty")
    return text


def session_options(
    args: argparse.Namespace, environ: Mapping[str, str], **choices: Any
) -> SessionOptions:
    """The session the command line asks for; *choices* (fields of
    :class:`SessionOptions`) override it.

    With neither ``--provider`` nor ``--model``, :func:`default_model` reads them from
    the environment. ``HARNESS_WORKERS`` (a JSON object of worker name -> module)
    replaces worker modules, for running against other worker builds.

    Raises:
        ValueError: a bad value (the message says which).
    """
    kw: dict[str, Any] = {"environ": dict(environ)}
    if getattr(args, "workspace", None):
        kw["workspace"] = args.workspace
    provider = getattr(args, "provider", None)
    model = getattr(args, "model", None)
    if not provider and not model and "provider" not in choices:
        provider, model = default_model(environ)
    if provider:
        kw["provider"] = provider
    if model:
        given = [model] if isinstance(model, str) else model
        kw["models"] = tuple(m.strip() for arg in given for m in arg.split(",") if m.strip())
    for name in _FLAGS:
        value = getattr(args, name, None)
        if value is not None:
            kw[name] = value
    if getattr(args, "tools", None):
        kw["tools"] = offered_tools(args.tools)
    kw["context"] = context_settings(environ)
    kw["system_prompt"] = system_prompt(environ)
    kw["keep_thinking"] = switched_on(environ, "HARNESS_KEEP_THINKING")
    kw["memory_updates"] = switched_on(environ, "HARNESS_WORKING_MEMORY")
    kw["history_embedding_model"] = (
        environ.get("HARNESS_HISTORY_EMBEDDING_MODEL", "").strip() or None
    )
    kw["continue_latest"] = bool(getattr(args, "continue_", False))
    kw["record"] = getattr(args, "record", True)
    kw["allow"] = tuple(getattr(args, "allow", None) or ())
    kw["deny"] = tuple(getattr(args, "deny", None) or ())
    kw["mcp_config_files"] = tuple(getattr(args, "mcp_config", None) or ())
    kw["trust_project"] = bool(getattr(args, "trust_project", False))
    workers = environ.get("HARNESS_WORKERS")
    if workers:
        try:
            table = json.loads(workers)
            kw["workers"] = {str(k): str(v) for k, v in table.items()}
        except (ValueError, AttributeError):
            raise ValueError("HARNESS_WORKERS must be a JSON object of name: module") from None
    kw.update(choices)
    return SessionOptions(**kw)
