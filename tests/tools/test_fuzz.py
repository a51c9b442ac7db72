"""Property tests: no allow rule lets an operator through; no path leaves the jail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.actors.tools import SHELL_OPERATORS, Permissions, RuleSet, builtin_table
from harness.actors.tools._jail import ToolError, Workspace

WORDS = st.sampled_from(["git", "status", "ls", "-la", "rm", "-rf", "~", "x", "*", "npm", "run"])
OPS = st.sampled_from(list(SHELL_OPERATORS))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule=st.lists(WORDS, min_size=1, max_size=3).map(" ".join),
    before=st.lists(WORDS, min_size=0, max_size=3).map(" ".join),
    op=OPS,
    after=st.lists(WORDS, min_size=1, max_size=3).map(" ".join),
)
def test_operators_a_rule_lacks_ask(
    perms: Permissions, rule: str, before: str, op: str, after: str
) -> None:
    perms.rules = RuleSet()
    perms.add("allow", f"run_cmd({rule})", persist=False)
    command = f"{before}{op}{after}"
    decision = perms.decide("run_cmd", {"command": command})
    assert decision.action == "ask", (rule, command)


@pytest.fixture(scope="module")
def perms(tmp_path_factory: pytest.TempPathFactory) -> Permissions:
    # one for every example (hypothesis runs them all in one call of the test)
    return Permissions(builtin_table(), home=tmp_path_factory.mktemp("perms-fuzz"))


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    tmp = tmp_path_factory.mktemp("jail-fuzz")
    root = tmp / "ws"
    (root / "a" / "b").mkdir(parents=True)
    os.symlink(tmp, root / "a" / "link")
    return Workspace(root)


PARTS = st.sampled_from(["..", ".", "a", "b", "link", ".git", "/", "//", "x.txt", "~", "\\"])


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(PARTS, min_size=1, max_size=6))
def test_no_path_resolves_outside_the_workspace(ws: Workspace, parts: list[str]) -> None:
    path = "/".join(parts)
    try:
        got = ws.resolve(path, allow_root=True)
    except ToolError:
        return
    real = Path(os.path.realpath(got))
    assert real == ws.root or ws.root in real.parents, path
    assert ".git" not in Path(ws.rel(got)).parts
