"""A Makefile's recipe lines written with spaces get a tab, through write_file and
edit_file, and the result says so; make then runs them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.actors.tools._files import edit_file, write_file
from harness.actors.tools._jail import Workspace
from harness.actors.tools._makefile import is_makefile, tab_recipes


def test_recipe_lines_get_a_tab_and_nothing_else_changes() -> None:
    text = (
        "CC = gcc\n"
        "FLAGS := -O2\n"
        "\n"
        "all: build\n"
        "    echo building \\\n"
        "      more\n"
        "\n"
        "    echo done\n"
        "ifdef DEBUG\n"
        "  echo debug\n"
        "endif\n"
        "define BANNER\n"
        "    hello\n"
        "endef\n"
        "VAR = a\n"
        "  b = c\n"
        "test:\n"
        "\tpython3 -m unittest\n"
    )
    got, mended = tab_recipes(text)
    assert mended == 3
    assert got.splitlines() == [
        "CC = gcc",
        "FLAGS := -O2",
        "",
        "all: build",
        "\techo building \\",
        "      more",  # continues the line before: the shell's, left as it is
        "",
        "\techo done",
        "ifdef DEBUG",
        "\techo debug",
        "endif",
        "define BANNER",
        "    hello",  # a define's text is make's variable, not a recipe
        "endef",
        "VAR = a",
        "  b = c",  # no rule above it: not a recipe
        "test:",
        "\tpython3 -m unittest",
    ]
    assert tab_recipes(".RECIPEPREFIX = >\nall:\n  x\n") == (".RECIPEPREFIX = >\nall:\n  x\n", 0)
    assert is_makefile("Makefile")
    assert is_makefile("sub/rules.mk")
    assert not is_makefile("Makefile.txt")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_a_makefile_written_with_spaces_runs(tmp_path: Path) -> None:
    # measured: the 1.5B model asked for a Makefile whose test target runs the tests wrote
    # its recipe with four spaces, saw "created Makefile", and `make test` failed
    ws = Workspace(tmp_path)
    out = write_file(ws, {"path": "Makefile", "content": "test:\n    echo ran the tests\n"})
    assert out.output == (
        "created Makefile (2 lines)\n"
        "note: make needs a tab before each recipe line: line starts with one now"
    )
    assert (tmp_path / "Makefile").read_text() == "test:\n\techo ran the tests\n"
    run = subprocess.run(["make", "-s", "test"], cwd=tmp_path, capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, "ran the tests\n")
    # an edit adding a target with spaces gets the tab too, and says so
    edit = {
        "path": "Makefile",
        "old_text": "\techo ran the tests\n",
        "new_text": ("\techo ran the tests\n\nlint:\n  echo linted\n"),
    }
    result = edit_file(ws, edit)
    assert "note: make needs a tab before each recipe line" in result.output
    run = subprocess.run(["make", "-s", "lint"], cwd=tmp_path, capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, "linted\n")
    # other files keep their spaces
    write_file(ws, {"path": "notes.txt", "content": "test:\n    keep\n"})
    assert (tmp_path / "notes.txt").read_text() == "test:\n    keep\n"


def test_a_makefile_make_reads_with_spaces_already_is_left_as_it_is(tmp_path: Path) -> None:
    # a file of the user's whose blocks we would read otherwise: an edit changes its lines only
    (tmp_path / "Makefile").write_text("all:\n    odd\nx = 1\n")
    edit_file(Workspace(tmp_path), {"path": "Makefile", "old_text": "x = 1", "new_text": "x = 2"})
    assert (tmp_path / "Makefile").read_text() == "all:\n    odd\nx = 2\n"
