"""The example files the repository ships load without a problem."""

from __future__ import annotations

from pathlib import Path

from harness.actors.tools import load_rules

ROOT = Path(__file__).resolve().parents[1]


def test_the_permissions_example_loads_every_rule() -> None:
    rules = load_rules([ROOT / ".permissions.json.example"])
    assert rules.problems == ()
    assert len(rules.allow) >= 5
    assert len(rules.deny) >= 2
