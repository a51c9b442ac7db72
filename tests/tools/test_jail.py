"""The workspace jail: every escape and protected path is refused, by every file tool."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tools.conftest import Call

ESCAPES = [
    ("../outside.txt", "escapes the workspace"),
    ("a/../../outside.txt", "escapes the workspace"),
    ("/etc/passwd", "outside the workspace"),
    ("link_out/secret.txt", "resolves outside"),
    ("file_link", "resolves outside"),
    (".git/config", ".git/ is protected"),
    ("sub/.git/HEAD", ".git/ is protected"),
    ("node_modules/x/index.js", "node_modules/ is protected"),
    (".harness/state", ".harness/ is protected"),
    (".env", ".env is protected"),
    (".env.local", ".env.local is protected"),
    ("config/.env.production", "is protected"),
    ("", "path is empty"),
]


@pytest.fixture
def jail(ws: Path, tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (tmp_path / "outside.txt").write_text("outside\n")
    os.symlink(outside, ws / "link_out")
    os.symlink(outside / "secret.txt", ws / "file_link")
    for d in (".git", "sub/.git", "node_modules/x", ".harness", "config"):
        (ws / d).mkdir(parents=True)
    for f in (".git/config", "sub/.git/HEAD", "node_modules/x/index.js", ".harness/state"):
        (ws / f).write_text("x\n")
    for f in (".env", ".env.local", "config/.env.production", ".env.example"):
        (ws / f).write_text("KEY=1\n")
    return ws


@pytest.mark.parametrize(("path", "words"), ESCAPES)
@pytest.mark.parametrize(
    "tool",
    ["read_file", "write_file", "edit_file", "delete_path", "create_dir", "get_code_skeleton"],
)
def test_every_escape_is_refused(
    jail: Path, tmp_path: Path, call: Call, tool: str, path: str, words: str
) -> None:
    args: dict[str, object] = {"path": path}
    if tool == "write_file":
        args["content"] = "pwned\n"
    if tool == "edit_file":
        args.update(old_text="x", new_text="pwned")
    out = call(tool, **args)
    assert not out.ok
    assert words in out.output
    assert (tmp_path / "outside" / "secret.txt").read_text() == "secret\n"
    assert (tmp_path / "outside.txt").read_text() == "outside\n"
    assert (jail / ".git" / "config").read_text() == "x\n"


@pytest.mark.parametrize("path", ["../x", "/tmp/x", "link_out/new", ".git/x", ".env"])
def test_moves_and_copies_cannot_leave_or_enter_protected_paths(
    jail: Path, call: Call, path: str
) -> None:
    (jail / "a.txt").write_text("a\n")
    assert not call("move_file", source="a.txt", destination=path).ok
    assert not call("copy_file", source="a.txt", destination=path).ok
    assert not call("move_file", source=path, destination="b.txt").ok
    assert (jail / "a.txt").exists()
    assert not (jail / "b.txt").exists()


def test_allowed_env_files_and_inside_absolute_paths(jail: Path, call: Call) -> None:
    assert call("read_file", path=".env.example").ok
    assert call("write_file", path=".env.development", content="A=1\n").ok
    assert call("write_file", path=".env.dev", content="A=1\n").ok
    inside = str(jail / "inside.txt")
    assert call("write_file", path=inside, content="ok\n").ok
    assert (jail / "inside.txt").read_text() == "ok\n"


def test_a_symlink_inside_the_workspace_is_followed(jail: Path, call: Call) -> None:
    (jail / "real.txt").write_text("one\n")
    os.symlink("real.txt", jail / "alias.txt")
    out = call("read_file", path="alias.txt")
    assert out.ok
    assert "|one" in out.output
    assert call("edit_file", path="alias.txt", old_text="one", new_text="two").ok
    assert (jail / "real.txt").read_text() == "two\n"
    assert (jail / "alias.txt").is_symlink()


def test_deleting_the_root_or_a_folder_holding_protected_paths_is_refused(
    jail: Path, call: Call
) -> None:
    assert "workspace root" in call("delete_path", path=".").output
    out = call("delete_path", path="sub")
    assert not out.ok
    assert "protected" in out.output
    assert (jail / "sub" / ".git" / "HEAD").exists()


def test_listings_hide_protected_entries(jail: Path, call: Call) -> None:
    out = call("list_dir")
    assert out.ok
    names = out.output.splitlines()
    assert "config/" in names
    assert ".git/" not in names
    assert "node_modules/" not in names
    assert not any(n.startswith(".env  ") for n in names)
    assert any(n.startswith(".env.example") for n in names)
    assert "protected, not listed" in out.output
