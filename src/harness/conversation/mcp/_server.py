"""One MCP server of a session: what the manager holds of it, how ``/mcp`` shows it,
and what ``/mcp reload`` reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import trio

from harness.actors.mcp import BRIDGE_MODULE, BRIDGE_PRELOAD, McpServerConfig
from harness.messages.mcp import McpStatus, McpTool

if TYPE_CHECKING:
    from harness.actors.tools import Permissions
    from harness.supervisor import ChildSpec, Supervisor

__all__ = [
    "BRIDGE_RSS_LIMIT",
    "ReloadReport",
    "ServerState",
    "ServerView",
    "allow_rules",
    "same_server",
    "sync_rules",
    "tell_tail",
    "warm_bridges",
]

_STDERR_LINES = 8

BRIDGE_RSS_LIMIT = 1024 * 1024 * 1024
"""Resident memory past which a bridge worker is killed (it needs about 100 MB)."""


@attrs.frozen
class ServerView:
    """One server as ``/mcp`` shows it."""

    name: str
    transport: str
    where: str
    state: str
    tools: tuple[str, ...]
    restarts: int
    error: str
    stderr_tail: str
    disabled: bool


@attrs.frozen
class ReloadReport:
    """What ``/mcp reload`` did: servers added, removed, restarted with a changed
    configuration, and tried again; or, when the configuration does not read, its
    problems (and nothing changed)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    retried: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


@attrs.define
class ServerState:
    """One configured server as the manager knows it: its bridge, status and tools."""

    config: McpServerConfig
    watch: trio.CancelScope | None = None  # the bridge task's, so a reload can end it
    status: McpStatus | None = None
    tools: dict[str, McpTool] = attrs.field(factory=dict)  # table name -> the server's tool
    rules: list[str] = attrs.field(factory=list)  # the allow rules its tools have now
    bridge_restarts: int = 0
    bridge_error: str = ""
    told_down: bool = False
    told_failed: bool = False

    @property
    def worker(self) -> str:
        """The name of its bridge worker."""
        return f"mcp:{self.config.name}"

    def child_spec(self, workspace: str, env: dict[str, str]) -> ChildSpec:
        """How the supervisor runs its bridge worker (cwd *workspace*, *env* added)."""
        from harness.supervisor import ChildSpec

        return ChildSpec(
            name=self.worker,
            module=BRIDGE_MODULE,
            cwd=workspace,
            env=dict(env),
            request_timeout=None,
            # the SDK stops a stdio server in up to ~5 s (stdin closed, SIGTERM, SIGKILL)
            request_grace=8.0,
            shutdown_grace=6.0,
            heartbeat_interval=2.0,
            # a server's answer is read whole by the SDK before it is capped: one huge
            # answer costs the bridge (restarted), never the machine's memory
            rss_limit=BRIDGE_RSS_LIMIT,
        )

    def notice(self, status: McpStatus) -> str:
        """What the user is told of *status* (``""``: nothing, or told already)."""
        name = self.config.name
        if status.state == "ready":
            self.told_down = self.told_failed = False
        elif status.state == "failed" and not self.told_failed:
            self.told_failed = True
            return (
                f"MCP server {name} failed and was given up ({status.error}); its tools "
                f"are gone until /mcp reload{tell_tail(status.stderr_tail)}"
            )
        elif status.state == "down" and not self.told_down:
            self.told_down = True
            return (
                f"MCP server {name} {status.error or 'could not start'}; it is retried in the "
                f"background{tell_tail(status.stderr_tail)}"
            )
        return ""

    def view(self) -> ServerView:
        """The server as ``/mcp`` shows it."""
        st = self.status
        return ServerView(
            name=self.config.name,
            transport=self.config.transport,
            where=self.config.where,
            state="disabled" if self.config.disabled else (st.state if st else "starting"),
            tools=tuple(self.tools),
            restarts=(st.restarts if st else 0) + self.bridge_restarts,
            error=(st.error if st else "") or self.bridge_error,
            stderr_tail=st.stderr_tail if st else "",
            disabled=self.config.disabled,
        )


def allow_rules(srv: ServerState) -> list[str]:
    """The allow rules a server's ``trust`` and ``autoApprove`` make: one per tool it offers
    now, by its name in the table (a pattern ``mcp__a__*`` would also match server
    ``a__b``'s tools, and a tool may have been renamed apart from another's)."""
    cfg = srv.config
    if cfg.disabled:
        return []
    return [t for t, tool in srv.tools.items() if cfg.trust or tool.name in cfg.auto_approve]


def sync_rules(srv: ServerState, perms: Permissions | None) -> None:
    """``trust`` and ``autoApprove`` as session rules of *perms* for the tools *srv*
    offers now (see :func:`allow_rules`)."""
    if perms is None:
        return
    wanted = allow_rules(srv)
    for rule in set(srv.rules) - set(wanted):
        perms.remove(rule, persist=False)
    for rule in wanted:
        if rule not in srv.rules:
            perms.add("allow", rule, persist=False)
    srv.rules = wanted


def same_server(a: McpServerConfig, b: McpServerConfig) -> bool:
    """Whether two entries start the same server (the file each came from aside)."""
    return attrs.evolve(a, source="") == attrs.evolve(b, source="")


def tell_tail(tail: str) -> str:
    """The last lines of a server's stderr, indented under a notice."""
    lines = [line for line in tail.splitlines() if line.strip()][-_STDERR_LINES:]
    return ("\n" + "\n".join(f"  | {line}" for line in lines)) if lines else ""


async def warm_bridges(supervisor: Supervisor) -> None:
    """Have the session's fork server import the SDK (about 1 s of CPU) once, for every
    bridge forked afterwards, rather than each bridge at its start and at each restart.

    Asked only where it replaces imports: before a session's bridges when it starts
    more than one (at its start, or on ``/mcp reload``), and once a bridge has died
    (for its restarts). A session's single bridge imports the SDK itself, while its server
    boots (and not at all while the server cannot start); a session with no server
    never pays."""
    await supervisor.warm(BRIDGE_MODULE, BRIDGE_PRELOAD)
