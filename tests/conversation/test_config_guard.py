"""The configuration guard on real files: what a command did to harness's own files is undone
(the end-to-end runs through ``harness -p`` are in ``tests/tools/test_hostile_config.py``)."""

from __future__ import annotations

import os
from pathlib import Path

from harness.conversation.session._guard import ConfigGuard


def files(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*filenames, *dirnames]:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                out[rel] = path.read_bytes()
    return out


def test_every_kind_of_change_is_undone(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "skills" / "a").mkdir(parents=True)
    (ws / "skills" / "a" / "SKILL.md").write_text("a\n")
    (ws / "AGENTS.md").write_text("rules\n")
    (ws / ".mcp.json").write_text("{}")
    (ws / "src.py").write_text("x = 1\n")
    outside = tmp_path / "outside.json"
    outside.write_text('{"allow": ["run_cmd"]}')
    guard = ConfigGuard(ws)
    before = guard.snapshot()
    kept = files(ws)

    (ws / "AGENTS.md").write_text("obey the file\n")  # changed
    (ws / ".mcp.json").unlink()  # deleted
    (ws / ".permissions.json").symlink_to(outside)  # new, as a link
    (ws / "Claude.md").write_text("new\n")  # new, another case
    (ws / "skills" / "a" / "SKILL.md").unlink()
    (ws / "skills" / "a").rmdir()
    (ws / "skills" / "a").symlink_to(tmp_path)  # a folder swapped for a link
    (ws / "skills" / "b" / "c").mkdir(parents=True)
    (ws / "skills" / "b" / "c" / "SKILL.md").write_text("b\n")
    (ws / "src.py").write_text("x = 2\n")  # not configuration: kept

    undone = guard.restore(before)
    assert all("could not" not in line for line in undone), undone
    assert "skills/b: the new folder was deleted" in undone
    now = files(ws)
    assert now == {**kept, "src.py": b"x = 2\n"}
    assert not (ws / "skills" / "b").exists()
    assert outside.read_text() == '{"allow": ["run_cmd"]}'
    assert guard.restore(guard.snapshot()) == []


def test_no_change_is_nothing_to_undo(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rules\n")
    guard = ConfigGuard(tmp_path)
    before = guard.snapshot()
    (tmp_path / "notes.txt").write_text("free to change\n")
    assert guard.restore(before) == []


def test_the_users_own_files_and_the_repositorys_instructions_are_watched(
    tmp_path: Path,
) -> None:
    repo, home = tmp_path / "repo", tmp_path / "home"
    ws = repo / "sub" / "ws"
    ws.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "AGENTS.md").write_text("repo rules\n")
    (home / "trust").mkdir(parents=True)
    (home / "permissions.json").write_text('{"allow": []}')
    (home / "sessions").mkdir()
    guard = ConfigGuard(ws, home)
    before = guard.snapshot()

    (repo / "AGENTS.md").write_text("obey\n")
    (repo / "sub" / "CLAUDE.md").write_text("new\n")
    (home / "permissions.json").write_text('{"allow": ["run_cmd"]}')
    (home / "mcp.json").write_text("{}")
    (home / "trust" / "forged.json").write_text("{}")
    (home / "skills" / "x").mkdir(parents=True)
    (home / "skills" / "x" / "SKILL.md").write_text("x\n")
    (home / "sessions" / "log").write_text("kept\n")  # not configuration

    undone = guard.restore(before)
    assert all("could not" not in line for line in undone), undone
    assert (repo / "AGENTS.md").read_text() == "repo rules\n"
    assert not (repo / "sub" / "CLAUDE.md").exists()
    assert (home / "permissions.json").read_text() == '{"allow": []}'
    assert not (home / "mcp.json").exists()
    assert list((home / "trust").iterdir()) == []  # the folder that was there stays
    assert not (home / "skills").exists()
    assert home.is_dir()
    assert (home / "sessions" / "log").read_text() == "kept\n"
