"""The public faces of the runtime packages: every exported name resolves, and the
heavy parts (trio, psutil) load only when a name that needs them is used."""

from __future__ import annotations

import subprocess
import sys

import pytest

import harness.ipc
import harness.supervisor
import harness.worker
from tests.runtime.conftest import ROOT


@pytest.mark.parametrize("package", [harness.ipc, harness.supervisor, harness.worker])
def test_every_exported_name_resolves(package: object) -> None:
    names = package.__all__  # type: ignore[attr-defined]
    assert len(set(names)) == len(names)
    for name in names:
        assert getattr(package, name) is not None, name


def loaded_after(statement: str) -> set[str]:
    """Which of trio and psutil a fresh interpreter has loaded after *statement*."""
    code = f"import sys\n{statement}\nprint(*sorted({{'trio', 'psutil'}} & set(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return set(out.stdout.split())


def test_the_message_classes_load_without_the_event_loop() -> None:
    assert loaded_after("import harness.ipc, harness.supervisor") == set()


def test_the_tree_killer_loads_psutil_and_not_the_supervisor() -> None:
    assert loaded_after("from harness.supervisor import kill_tree") == {"psutil"}


def test_the_supervisor_loads_trio_on_first_use() -> None:
    assert loaded_after("from harness.supervisor import open_supervisor") == {"trio"}
