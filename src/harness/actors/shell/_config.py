"""Settings of the shell worker, and how they travel to it: ``HARNESS_SHELL_*`` variables.

The command line (``--sandbox workspace-write`` and friends) belongs to the frontend; it
hands the choices to the worker through the environment of its ChildSpec, which
:meth:`ShellConfig.from_env` reads. Every bad value is a :class:`ValueError` saying
which variable and what it accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["DETECTORS", "ENV_PREFIX", "SANDBOX_MODES", "SPAWNERS", "ShellConfig"]

ENV_PREFIX = "HARNESS_SHELL_"
DETECTORS = ("auto", "proc", "fallback")
SANDBOX_MODES = ("off", "workspace-write")
SPAWNERS = ("auto", "setsid", "pexpect")


def _positive(_inst: Any, attr: attrs.Attribute[Any], value: Any) -> None:
    if not value > 0:
        raise ValueError(f"{attr.name} must be above 0, got {value!r}")


@attrs.frozen
class ShellConfig:
    """How the shell worker runs commands.

    Attributes:
        max_sessions: live commands at once (default 4); the oldest idle one is ended
            to make room for a new one.
        default_timeout: seconds a call waits before the command's tree is killed,
            when ``run_cmd`` gives none (default 120).
        max_timeout: the largest timeout a call may ask for (default 600); the
            worker's request timeout must be above it.
        detector: ``auto`` (read /proc, fall back where it gives no answer), ``proc``
            or ``fallback`` (output silence plus idle CPU only; forces the fallback).
        fallback_grace: seconds of silence and idle CPU the fallback takes as a
            prompt (default 2).
        kill_grace: seconds between SIGTERM and SIGKILL when a tree is killed.
        head_chars: characters kept from the start of one call's output.
        tail_chars: characters kept from its end.
        fallback_encoding: codec for output that is not UTF-8 (default: the locale's).
        sandbox: ``off`` or ``workspace-write`` (bubblewrap: workspace writable, the
            rest read-only, no network unless *sandbox_network*).
        sandbox_network: let sandboxed commands use the network.
        rows: terminal rows of a command's pty.
        cols: terminal columns (wide, so lines do not wrap).
        spawner: ``auto`` (``posix_spawn`` on Linux, else ``setsid --ctty`` through
            subprocess where util-linux has it, else pexpect), ``setsid`` (util-linux's
            ``setsid --ctty`` where installed, else pexpect) or ``pexpect`` (always).
    """

    max_sessions: int = attrs.field(default=4, validator=_positive)
    default_timeout: float = attrs.field(default=120.0, validator=_positive)
    max_timeout: float = attrs.field(default=600.0, validator=_positive)
    detector: str = attrs.field(default="auto", validator=attrs.validators.in_(DETECTORS))
    fallback_grace: float = attrs.field(default=2.0, validator=_positive)
    kill_grace: float = attrs.field(default=0.5, validator=_positive)
    head_chars: int = attrs.field(default=6000, validator=_positive)
    tail_chars: int = attrs.field(default=10000, validator=_positive)
    fallback_encoding: str | None = None
    sandbox: str = attrs.field(default="off", validator=attrs.validators.in_(SANDBOX_MODES))
    sandbox_network: bool = False
    rows: int = attrs.field(default=40, validator=_positive)
    cols: int = attrs.field(default=200, validator=_positive)
    spawner: str = attrs.field(default="auto", validator=attrs.validators.in_(SPAWNERS))

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> ShellConfig:
        """Read ``HARNESS_SHELL_<FIELD>`` variables (``HARNESS_SHELL_MAX_SESSIONS=8``).

        Raises:
            ValueError: a value that does not parse or is out of range; the message
                names the variable.
        """
        values: dict[str, object] = {}
        for field in attrs.fields(cls):
            name = ENV_PREFIX + field.name.upper()
            raw = environ.get(name)
            if raw is None or raw == "":
                continue
            try:
                values[field.name] = _parse(field.type, raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r} is not a valid {_kind(field.type)}") from None
        try:
            return cls(**values)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ValueError(f"{ENV_PREFIX}* settings: {exc}") from None
        except TypeError as exc:  # attrs' in_ validator raises this on older versions
            raise ValueError(f"{ENV_PREFIX}* settings: {exc}") from None

    def to_env(self) -> dict[str, str]:
        """The variables that rebuild this config in a worker (only non-defaults)."""
        out: dict[str, str] = {}
        default = ShellConfig()
        for field in attrs.fields(ShellConfig):
            value = getattr(self, field.name)
            if value == getattr(default, field.name):
                continue
            if isinstance(value, bool):
                out[ENV_PREFIX + field.name.upper()] = "1" if value else "0"
            else:
                out[ENV_PREFIX + field.name.upper()] = str(value)
        return out


def _kind(tp: object) -> str:
    text = str(tp)
    if "bool" in text:
        return "boolean (1/0, true/false)"
    if "int" in text:
        return "whole number"
    if "float" in text:
        return "number"
    return "string"


def _parse(tp: object, raw: str) -> object:
    text = str(tp)
    if "bool" in text:
        low = raw.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(raw)
    if "int" in text and "str" not in text:
        return int(raw)
    if "float" in text:
        return float(raw)
    return raw
