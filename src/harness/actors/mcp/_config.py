"""``.mcp.json``: the MCP servers a session starts, in the format other agents use.

::

    {"mcpServers": {
        "files":  {"command": "npx", "args": ["-y", "some-server"], "env": {"TOKEN": "${TOKEN}"},
                   "cwd": ".", "startupTimeout": 60},
        "remote": {"type": "http", "url": "https://example.com/mcp",
                   "headers": {"Authorization": "Bearer ${env:API_TOKEN}"}},
        "old":    {"type": "sse", "url": "http://127.0.0.1:8080/sse", "disabled": true}}}

Per server, beside the transport: ``disabled``, ``timeout`` (seconds a call may take,
default 60), ``startupTimeout`` (seconds to start and initialise, default 30),
``autoApprove`` (tool names that run without asking), ``trust`` (every tool runs
without asking) and ``readOnly`` (the user's word that the server changes nothing: its
tools then run in plan mode and deepthink's reading stages; a server's own
``readOnlyHint`` never counts for that). ``${VAR}`` and ``${env:VAR}`` in any string
of an entry are replaced from the environment; a variable that is not set is an error
naming it.

Sources, later ones winning on the same server name: ``$HARNESS_HOME/mcp.json`` (yours),
``.mcp.json`` in the workspace (the project), files given with ``--mcp-config``, and
entries given to the Python API. The project's file counts only when the user trusted its
exact content (:mod:`harness.trust`); until then it is not even parsed, so no ``${VAR}`` of
it is replaced and no command of it can start. A file that does not parse is one
:class:`McpConfigError` naming the file, the line and the problem, and only that file's
servers are missing; an entry that does not fit costs only that server.

This module is light (the main process reads it); the SDK loads only in bridge workers.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from harness.errors import ConfigError
from harness.home import harness_home

__all__ = [
    "McpConfig",
    "McpConfigError",
    "McpServerConfig",
    "load_mcp_config",
    "parse_mcp_file",
    "parse_mcp_servers",
]

Transport = Literal["stdio", "http", "sse"]

DEFAULT_TIMEOUT = 60.0
DEFAULT_STARTUP_TIMEOUT = 30.0

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
_TRANSPORTS: dict[str, Transport] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamablehttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}
_KNOWN = frozenset(
    {
        "type",
        "transport",
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "disabled",
        "timeout",
        "startupTimeout",
        "autoApprove",
        "trust",
        "readOnly",
        # other agents' keys that mean nothing here but are not mistakes
        "description",
        "alwaysAllow",
        "disabledTools",
        "envFile",
        "oauth",
    }
)


class McpConfigError(ConfigError):
    """An MCP configuration that cannot be used: the file, the line and the problem."""

    def __init__(self, source: str, problem: str, line: int | None = None) -> None:
        where = f"{source}, line {line}" if line else source
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem


@attrs.frozen
class McpServerConfig:
    """One MCP server as configured, with ``${VAR}`` already replaced.

    Attributes:
        name: the server's name (tools are ``mcp__<name>__<tool>``).
        transport: ``stdio``, ``http`` (streamable HTTP) or ``sse``.
        command, args, env, cwd: the process of a ``stdio`` server (``env`` is added to
            the SDK's small default environment; ``cwd`` relative to the workspace).
        url, headers: the endpoint of an ``http`` or ``sse`` server.
        disabled: configured but not started.
        timeout: seconds one call may take before it is cancelled.
        startup_timeout: seconds to start and initialise.
        auto_approve: tool names (the server's own) that run without asking.
        trust: every tool of this server runs without asking.
        read_only: the user says this server changes nothing (its tools count as reading).
        source: the file (or ``<api>``) it came from.
    """

    name: str
    transport: Transport = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = attrs.field(factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = attrs.field(factory=dict)
    disabled: bool = False
    timeout: float = DEFAULT_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    auto_approve: tuple[str, ...] = ()
    trust: bool = False
    read_only: bool = False
    source: str = ""

    @property
    def where(self) -> str:
        """The command line or the URL, for ``/mcp``."""
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return self.url

    def to_json_data(self) -> dict[str, Any]:
        """The whole entry as JSON data (how a bridge worker is told its server)."""
        return attrs.asdict(self)

    @classmethod
    def from_json_data(cls, data: dict[str, Any]) -> McpServerConfig:
        """The entry :meth:`to_json_data` gave."""
        fields = dict(data)
        fields["args"] = tuple(fields.get("args", ()))
        fields["auto_approve"] = tuple(fields.get("auto_approve", ()))
        return cls(**fields)


@attrs.frozen
class McpConfig:
    """Every server from every source (enabled or not), and what could not be read."""

    servers: dict[str, McpServerConfig] = attrs.field(factory=dict)
    problems: tuple[str, ...] = ()

    @property
    def enabled(self) -> list[McpServerConfig]:
        """The servers to start."""
        return [s for s in self.servers.values() if not s.disabled]


def _line_of(text: str, name: str) -> int | None:
    if not text:
        return None
    m = re.search(r'"' + re.escape(name) + r'"\s*:', text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _expand(value: Any, environ: Mapping[str, str], missing: list[str]) -> Any:
    if isinstance(value, str):

        def sub(m: re.Match[str]) -> str:
            var = m.group(1)
            if var not in environ:
                missing.append(var)
                return ""
            return environ[var]

        return _VAR.sub(sub, value)
    if isinstance(value, list):
        return [_expand(v, environ, missing) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, environ, missing) for k, v in value.items()}
    return value


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings")
    return tuple(value)


def _string_map(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object of strings")
    out: dict[str, str] = {}
    for k, v in value.items():
        if isinstance(v, bool) or not isinstance(v, str | int | float):
            raise ValueError(f"{what}.{k} must be a string")
        out[str(k)] = str(v)
    return out


def _seconds(value: Any, what: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"{what} must be a positive number of seconds")
    return float(value)


def _flag(value: Any, what: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false")
    return value


def _server(name: str, entry: Any, source: str, environ: Mapping[str, str]) -> McpServerConfig:
    """One entry; raises ``ValueError`` with the problem."""
    if not _NAME.match(name):
        raise ValueError("a server name may hold only letters, digits, '-' and '_' (at most 40)")
    if not isinstance(entry, dict):
        raise ValueError("the entry must be an object")
    missing: list[str] = []
    entry = _expand(entry, environ, missing)
    if missing:
        names = ", ".join(dict.fromkeys(missing))
        raise ValueError(f"environment variable {names} is not set")
    unknown = sorted(set(entry) - _KNOWN)
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r}")
    kind = entry.get("type", entry.get("transport"))
    if kind is None:
        kind = "http" if "url" in entry and "command" not in entry else "stdio"
    if not isinstance(kind, str) or kind.lower() not in _TRANSPORTS:
        raise ValueError(f"type must be stdio, http or sse, not {kind!r}")
    transport = _TRANSPORTS[kind.lower()]
    fields: dict[str, Any] = {
        "name": name,
        "transport": transport,
        "disabled": _flag(entry.get("disabled"), "disabled"),
        "timeout": _seconds(entry.get("timeout"), "timeout", DEFAULT_TIMEOUT),
        "startup_timeout": _seconds(
            entry.get("startupTimeout"), "startupTimeout", DEFAULT_STARTUP_TIMEOUT
        ),
        "auto_approve": _strings(entry.get("autoApprove"), "autoApprove"),
        "trust": _flag(entry.get("trust"), "trust"),
        "read_only": _flag(entry.get("readOnly"), "readOnly"),
        "source": source,
    }
    if transport == "stdio":
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ValueError("a stdio server needs a 'command' (a string)")
        cwd = entry.get("cwd", "")
        if not isinstance(cwd, str):
            raise ValueError("cwd must be a string")
        fields.update(
            command=command,
            args=_strings(entry.get("args"), "args"),
            env=_string_map(entry.get("env"), "env"),
            cwd=cwd,
        )
    else:
        url = entry.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"an {transport} server needs a 'url' starting http:// or https://")
        fields.update(url=url, headers=_string_map(entry.get("headers"), "headers"))
    return McpServerConfig(**fields)


def parse_mcp_servers(
    data: Any,
    source: str,
    *,
    environ: Mapping[str, str] | None = None,
    text: str = "",
) -> tuple[list[McpServerConfig], list[McpConfigError]]:
    """The servers of one parsed document (``{"mcpServers": {...}}`` or the inner mapping).

    Returns the servers that fit and one error per entry that does not.
    """
    env = os.environ if environ is None else environ
    if isinstance(data, dict) and "mcpServers" in data:
        data = data["mcpServers"]
    if not isinstance(data, dict):
        return [], [McpConfigError(source, "'mcpServers' must be an object of servers", 1)]
    servers: list[McpServerConfig] = []
    errors: list[McpConfigError] = []
    for name, entry in data.items():
        try:
            servers.append(_server(str(name), entry, source, env))
        except ValueError as exc:
            line = _line_of(text, str(name))
            errors.append(McpConfigError(source, f"server {name!r}: {exc}", line))
    return servers, errors


def parse_mcp_file(
    path: str | os.PathLike[str],
    *,
    environ: Mapping[str, str] | None = None,
    trusted: Callable[[bytes], bool] | None = None,
) -> tuple[list[McpServerConfig], list[McpConfigError]]:
    """The servers of one file (none, without an error, when it does not exist).

    With *trusted*, the bytes read are given to it first and, when it says no, nothing
    of the file is parsed or expanded (no servers, no error)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [McpConfigError(str(p), f"cannot be read: {exc}")]
    if trusted is not None and not trusted(data):
        return [], []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [], [McpConfigError(str(p), f"cannot be read: {exc}")]
    if not text.strip():
        return [], []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return [], [McpConfigError(str(p), f"{exc.msg} (column {exc.colno})", exc.lineno)]
    if not isinstance(data, dict):
        return [], [McpConfigError(str(p), "the file must hold a JSON object", 1)]
    if "mcpServers" not in data:
        return [], [McpConfigError(str(p), "there is no 'mcpServers' object", 1)]
    return parse_mcp_servers(data, str(p), environ=environ, text=text)


def _never(data: bytes) -> bool:
    return False


def load_mcp_config(
    workspace: str | os.PathLike[str],
    *,
    home: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    extra_files: Iterable[str | os.PathLike[str]] = (),
    entries: Mapping[str, Any] | None = None,
    trust_project: Callable[[bytes], bool] | bool = False,
) -> McpConfig:
    """Every configured server: yours, the project's, *extra_files*, then *entries*.

    The project's ``.mcp.json`` is read only when *trust_project* is ``True`` or says yes
    to its bytes (see :class:`harness.trust.WorkspaceTrust`); otherwise it is skipped
    unparsed. A later source wins on a name. Nothing raises: problems come back as
    sentences.
    """
    env = os.environ if environ is None else environ
    home_dir = Path(home) if home is not None else harness_home(env)
    servers: dict[str, McpServerConfig] = {}
    problems: list[str] = []
    paths = [home_dir / "mcp.json", Path(workspace) / ".mcp.json", *map(Path, extra_files)]
    for i, path in enumerate(paths):
        if i >= 2 and not path.exists():
            problems.append(f"{path}: no such MCP configuration file")
            continue
        if i == 1 and trust_project is not True:
            found, errors = parse_mcp_file(path, environ=env, trusted=trust_project or _never)
        else:
            found, errors = parse_mcp_file(path, environ=env)
        servers.update((s.name, s) for s in found)
        problems.extend(str(e) for e in errors)
    if entries:
        found, errors = parse_mcp_servers(dict(entries), "<api>", environ=env)
        servers.update((s.name, s) for s in found)
        problems.extend(str(e) for e in errors)
    return McpConfig(servers=servers, problems=tuple(problems))
