"""The tools the model is offered: the table's schemas for the permission mode and the
session's chosen tools (within a run's limit, if one is set), built once per mode (the
table deep-copies every schema)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.conversation._loop_config import LoopConfig
from harness.messages import model as pm

if TYPE_CHECKING:
    from harness.actors.tools import ToolTable

__all__ = ["OfferedTools"]


class OfferedTools:
    """The schemas offered from *table*; with nobody to answer (*headless*),
    ``get_user_input`` is not offered."""

    def __init__(self, table: ToolTable, *, headless: bool) -> None:
        self._table = table
        self._headless = headless
        self._cache: dict[str, tuple[pm.ToolSchema, ...]] = {}

    def schemas(self, config: LoopConfig) -> tuple[pm.ToolSchema, ...]:
        """What a request under *config* offers."""
        mode = config.permission_mode
        cached = self._cache.get(mode)
        if cached is None:
            names = config.tools
            if config.tool_limit is not None:
                chosen = self._table.names() if names is None else names
                names = tuple(n for n in chosen if n in config.tool_limit)
            cached = self._table.schemas(mode=mode, names=names)
            if self._headless:
                # nobody could answer: headless runs and sub-agents are not offered it
                cached = tuple(s for s in cached if s.name != "get_user_input")
            self._cache[mode] = cached
        return cached

    def forget(self) -> None:
        """The settings or the table changed: build the schemas again when asked."""
        self._cache.clear()
