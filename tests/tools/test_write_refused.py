"""A write the system refuses is one sentence naming the file the model asked for, never
the temporary file harness writes through (issue 36: a read-only workspace said
``write_file failed: write_file failed: … .tmp``)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.tools.conftest import Call


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """*folder* made a place where nothing can be created: a read-only bind mount of
    itself when the tests run as root (root ignores the mode bits), else mode 0555."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    for argv in (
        ["mount", "--bind", str(folder), str(folder)],
        ["mount", "-o", "remount,bind,ro", str(folder)],
    ):
        done = subprocess.run(argv, capture_output=True, check=False)
        if done.returncode != 0:
            subprocess.run(["umount", str(folder)], capture_output=True, check=False)
            pytest.skip(f"cannot make a read-only folder here: {done.stderr!r}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_write_into_a_read_only_folder_names_the_file(ws: Path, call: Call) -> None:
    (ws / "locked").mkdir()
    with locked(ws / "locked"):
        out = call("write_file", path="locked/notes.txt", content="hello\n")
    assert not out.ok
    assert out.output.startswith("locked/notes.txt was not written: ")
    assert ".tmp" not in out.output
    assert "failed" not in out.output  # the frontends say "write_file failed:" once
    assert not (ws / "locked" / "notes.txt").exists()


def test_an_edit_in_a_read_only_folder_names_the_file_too(ws: Path, call: Call) -> None:
    (ws / "ro").mkdir()
    (ws / "ro" / "a.py").write_text("x = 1\n")
    with locked(ws / "ro"):
        out = call("edit_file", path="ro/a.py", old_text="x = 1", new_text="x = 2")
    assert not out.ok
    assert out.output.startswith("ro/a.py was not written: ")
    assert ".tmp" not in out.output
    assert (ws / "ro" / "a.py").read_text() == "x = 1\n"


def test_a_name_near_the_length_limit_is_not_refused_for_the_temporary_one(
    ws: Path, call: Call
) -> None:
    name = "n" * 250 + ".txt"  # 254 bytes: a valid name; with the temporary's
    # prefix and suffix around it, the temporary name would be over 255
    out = call("write_file", path=name, content="x\n")
    assert out.ok, out.output
    assert (ws / name).read_text() == "x\n"
