"""The search package's one public face."""

from __future__ import annotations

import harness.actors.search as search_pkg
from harness.actors.search import TOOLS
from harness.actors.tools import builtin_table


def test_public_surface_is_exactly_all() -> None:
    exported = {n for n in dir(search_pkg) if not n.startswith("_")}
    assert set(search_pkg.__all__) == exported


def test_the_worker_runs_exactly_the_tools_the_table_gives_it() -> None:
    assert {s.name for s in builtin_table().by_executor("search")} == set(TOOLS)
