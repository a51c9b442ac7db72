"""Every module of ``bench/`` imports: a bench broken by a change in the code it measures
(a name moved to another module) is found by the suite, not by the next ``make bench``."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
MODULES = sorted(p.stem for p in BENCH.glob("*.py") if p.stem != "__main__")


def test_the_bench_has_modules() -> None:
    assert "bench_local" in MODULES
    assert len(MODULES) > 20


@pytest.mark.parametrize("name", MODULES)
def test_each_bench_module_imports(name: str) -> None:
    importlib.import_module(f"bench.{name}")
