"""The workspace's own configuration as a session reads it.

Project files that could act (the allow rules of ``.permissions.json``, the servers
of ``.mcp.json``) count only once the user trusted their exact content (see
:mod:`harness.trust`); restrictions (deny rules, protected paths) always apply.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs

from harness.actors.mcp import McpConfig, load_mcp_config
from harness.keys import held_items
from harness.trust import TrustStore, WorkspaceTrust

if TYPE_CHECKING:
    from harness.actors.tools import Permissions, ToolSpec, ToolTable
    from harness.conversation.session._options import SessionOptions

__all__ = ["PermissionsPolicy", "Project", "read_project"]


class PermissionsPolicy:
    """The tools package's permission engine, as the loop's :class:`PermissionPolicy`."""

    def __init__(self, perms: Permissions) -> None:
        self.perms = perms

    def decide(
        self, spec: ToolSpec, arguments: Mapping[str, Any], mode: str
    ) -> tuple[Literal["allow", "deny", "ask"], str]:
        """``(decision, reason)`` of the rules for a call in permission *mode*."""
        if self.perms.mode != mode:
            self.perms.set_mode(mode)
        d = self.perms.decide(spec.name, arguments)
        return ("deny" if d.action == "off" else d.action), d.reason

    def allow_always(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> None:
        """Remember an ``always`` answer as an allow rule."""
        self.perms.allow_always(spec.name, arguments)


@attrs.frozen
class Project:
    """What a session takes from the workspace's configuration.

    Attributes:
        permissions: the permission rules (the project's allow rules only if trusted).
        mcp: the MCP servers as configured now.
        reload_mcp: reads the servers again (``/mcp reload``); a project file changed
            since it was trusted is a problem that changes nothing.
        ignored: the project files not counted, untrusted.
        problems: what was wrong with the rules or the servers, one sentence each.
    """

    permissions: Permissions
    mcp: McpConfig
    reload_mcp: Callable[[], McpConfig]
    ignored: list[Any]
    problems: list[str]


def read_project(
    options: SessionOptions,
    table: ToolTable,
    *,
    workspace: Path,
    home: Path,
    environ: Mapping[str, str],
) -> Project:
    """Read *workspace*'s rules and servers for a session opened with *options*."""
    from harness.actors.tools import Permissions

    trust = WorkspaceTrust(workspace, TrustStore(home), trust_all=options.trust_project)
    perms = Permissions(
        table,
        workspace=workspace,
        home=home,
        mode=options.permission_mode,
        extra={"allow": list(options.allow), "deny": list(options.deny)},
        trust_project=trust.for_file(".permissions.json"),
    )
    # MCP entries may name secrets harness took out of its environment at start
    load_mcp = functools.partial(
        load_mcp_config,
        workspace,
        home=home,
        environ={**held_items(), **environ},
        extra_files=options.mcp_config_files,
        entries=options.mcp_servers,
        trust_project=trust.for_file(".mcp.json"),
    )

    def reload_mcp() -> McpConfig:
        # a project file changed since it was trusted is a problem, which leaves the
        # servers as they run (started from what was trusted) instead of stopping them
        config = load_mcp()
        if any(f.name == ".mcp.json" for f in trust.untrusted()):
            problem = (
                f"{workspace / '.mcp.json'}: not trusted as it is now, so nothing of it "
                "was applied; review and trust it with `harness trust`, then reload"
            )
            config = attrs.evolve(config, problems=(*config.problems, problem))
        return config

    mcp = load_mcp()
    problems = [str(p) for p in perms.problems] + list(mcp.problems)
    return Project(perms, mcp, reload_mcp, list(trust.untrusted()), problems)
