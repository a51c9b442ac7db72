"""Fixtures for the runtime tests: the test-only echo worker under a real supervisor."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.supervisor import ChildSpec

ROOT = Path(__file__).resolve().parents[2]


def echo_spec(**overrides: Any) -> ChildSpec:
    """A spec for ``tests.runtime.workers.echo`` with fast timings for tests."""
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    fields: dict[str, Any] = {
        "name": "echo",
        "module": "tests.runtime.workers.echo",
        "env": env,
        "backoff_initial": 0.05,
        "heartbeat_interval": 0.5,
        "heartbeat_misses": 4,
        "shutdown_grace": 1.0,
        "request_grace": 2.0,
    }
    fields.update(overrides)
    return ChildSpec(**fields)


@pytest.fixture
def make_spec() -> Callable[..., ChildSpec]:
    return echo_spec
