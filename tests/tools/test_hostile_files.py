"""Issue 15, files (9, 10, 11): devices, symlinked skills and instruction files, big logs.

Real files, device nodes made with ``mknod`` (the tests run as a user that may make
them; the null device stands in for ``/dev/zero`` so a regression cannot fill the
disk), and the real tools.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from harness.actors.tools._files import MAX_COPY_BYTES
from harness.actors.tools._jail import Workspace
from harness.actors.tools._search import search_text
from harness.instructions import find_instruction_files
from harness.skills import SkillError, discover_skills, find_skill, render_skill

from .conftest import Call, sh


def _device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("this user may not make device nodes")


def _special(kind: str, path: Path) -> None:
    if kind == "device":
        _device(path)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        s.close()


# --- 9. devices, FIFOs and sockets are neither copied nor moved -------------------------


@pytest.mark.parametrize("kind", ["device", "fifo", "socket"])
@pytest.mark.parametrize("tool", ["copy_file", "move_file"])
def test_special_files_are_refused(ws: Path, call: Call, kind: str, tool: str) -> None:
    _special(kind, ws / "zero")
    out = call(tool, source="zero", destination="copy")
    assert not out.ok
    assert "only regular files and folders" in out.output
    assert not os.path.lexists(ws / "copy")
    assert os.path.lexists(ws / "zero")


@pytest.mark.parametrize("tool", ["copy_file", "move_file"])
def test_a_folder_holding_a_device_is_refused(ws: Path, call: Call, tool: str) -> None:
    (ws / "tree" / "dev").mkdir(parents=True)
    (ws / "tree" / "a.txt").write_text("a\n")
    _device(ws / "tree" / "dev" / "urandom")
    out = call(tool, source="tree", destination="copy")
    assert not out.ok
    assert "tree/dev/urandom: it is a device" in out.output
    assert not os.path.lexists(ws / "copy")


def test_symlinks_are_not_copied(ws: Path, call: Call) -> None:
    (ws / "a.txt").write_text("a\n")
    (ws / "link").symlink_to("a.txt")
    (ws / "tree").mkdir()
    (ws / "tree" / "link").symlink_to("../a.txt")
    assert "it is a symlink" in call("copy_file", source="link", destination="c").output
    assert "it is a symlink" in call("copy_file", source="tree", destination="d").output
    assert not os.path.lexists(ws / "c")
    assert not os.path.lexists(ws / "d")


def test_copies_are_capped_and_plain_ones_still_work(ws: Path, call: Call) -> None:
    with open(ws / "big.bin", "wb") as f:
        f.truncate(MAX_COPY_BYTES + 1)
    out = call("copy_file", source="big.bin", destination="big2.bin")
    assert not out.ok
    assert "copy limit" in out.output
    assert not (ws / "big2.bin").exists()
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "src" / "pkg" / "a.py").write_text("print(1)\n")
    (ws / "src" / "run.sh").write_text("#!/bin/sh\n")
    (ws / "src" / "run.sh").chmod(0o755)
    assert call("copy_file", source="src", destination="dst").ok
    assert (ws / "dst" / "pkg" / "a.py").read_text() == "print(1)\n"
    assert os.access(ws / "dst" / "run.sh", os.X_OK)
    assert call("move_file", source="dst", destination="moved").ok
    assert (ws / "moved" / "pkg" / "a.py").exists()


# --- 10. skills and instruction files are read through the jail -------------------------


def _secret(tmp_path: Path) -> Path:
    key = tmp_path / "outside" / "id_rsa"
    key.parent.mkdir()
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY----- secret-key-material\n")
    return key


def test_a_skill_linked_outside_the_workspace_is_skipped(tmp_path: Path, ws: Path) -> None:
    key = _secret(tmp_path)
    (ws / "skills" / "folder").mkdir(parents=True)
    (ws / "skills" / "deploy.md").symlink_to(key)
    (ws / "skills" / "folder" / "SKILL.md").symlink_to(key)
    (ws / "skills" / "ok.md").write_text("---\nname: ok\ndescription: fine\n---\nbody\n")
    problems: list[str] = []
    skills = discover_skills(ws, tmp_path / "home", problems=problems)
    assert [s.name for s in skills if s.source != "built-in"] == ["ok"]
    assert len(problems) == 2
    assert all("outside" in p for p in problems)
    with pytest.raises(SkillError):
        find_skill(ws, "deploy", tmp_path / "home")


def test_a_skills_folder_linked_outside_is_skipped(tmp_path: Path, ws: Path) -> None:
    key = _secret(tmp_path)
    (key.parent / "deploy.md").write_text("---\nname: deploy\ndescription: d\n---\nx\n")
    (ws / "skills").symlink_to(key.parent)
    assert [s for s in discover_skills(ws, tmp_path / "home") if s.source != "built-in"] == []


def test_a_bundled_file_linked_outside_is_not_listed(tmp_path: Path, ws: Path) -> None:
    key = _secret(tmp_path)
    folder = ws / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deploy\ndescription: d\n---\nsteps\n")
    (folder / "notes.txt").write_text("n\n")
    (folder / "id_rsa").symlink_to(key)
    text = render_skill(find_skill(ws, "deploy", tmp_path / "home"))
    assert "notes.txt" in text
    assert "id_rsa" not in text


def test_the_users_skills_folder_is_its_own_jail(tmp_path: Path, ws: Path) -> None:
    home = tmp_path / "home"
    (home / "skills").mkdir(parents=True)
    (home / "skills" / "mine.md").write_text("---\nname: mine\ndescription: m\n---\nx\n")
    (home / "skills" / "deploy.md").symlink_to(_secret(tmp_path))
    assert [s.name for s in discover_skills(ws, home) if s.source != "built-in"] == ["mine"]


def test_an_instruction_file_linked_outside_is_skipped(tmp_path: Path, ws: Path) -> None:
    key = _secret(tmp_path)
    (ws / "AGENTS.md").symlink_to(key)
    problems: list[str] = []
    assert find_instruction_files(ws, problems) == []
    assert "outside" in problems[0]
    sh(ws, "git", "init", "-q")
    (ws / "AGENTS.md").unlink()
    (ws / "docs.md").write_text("be brief\n")
    (ws / "AGENTS.md").symlink_to("docs.md")
    assert [f.text for f in find_instruction_files(ws)] == ["be brief\n"]


# --- 11. the search fallback finds text in large files ----------------------------------


def test_the_python_search_reads_large_files(ws: Path) -> None:
    log = ws / "big.log"
    line = b"an ordinary log line that says nothing much at all\n"
    with open(log, "wb") as f:
        f.write(line * (12 * 1024 * 1024 // len(line)))
        f.write(b"the needle is here\n")
    total = log.read_bytes().count(b"\n")
    w = Workspace(ws)
    for path in (".", "big.log"):
        out = search_text(w, {"pattern": "needle", "path": path}, use_rg=False)
        assert out.output == f"big.log:{total}:the needle is here", path
        regex = search_text(w, {"pattern": r"needle\s+is", "regex": True}, use_rg=False)
        assert regex.output == out.output
