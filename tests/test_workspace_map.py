"""The workspace's map names each file and what it defines, never a value, within its
budget, and reads nothing it should not."""

from __future__ import annotations

import os
from pathlib import Path

from harness.workspace_map import outline, workspace_map


def _fill(root: Path, files: dict[str, str]) -> None:
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)


def test_each_kind_of_file_gives_its_names_and_no_value() -> None:
    py = (
        "LIMIT = 4\nlower = 1\n\n\nclass Shop:\n    def open(self):\n        pass\n\n"
        "    async def close(self):\n        pass\n\n\ndef helper():\n    def inner():\n"
        "        pass\n"
    )
    assert outline("shop.py", py) == "LIMIT, Shop (open, close), helper"
    js = "'use strict';\nconst COUPONS = {};\nfunction total(c) {\n  const x = 1;\n}\n"
    js += "export async function load() {}\nclass Cart {}\n"
    assert outline("cart.js", js) == "COUPONS, total, load, Cart"
    sh = 'KEEP=14\nlocal_var=1\nlog() {\n  echo "$*"\n}\nfunction die {\n}\nrotate () {\n}\n'
    assert outline("lib.sh", sh) == "KEEP, log, die, rotate"
    toml = '[server]\nport = 9412\n[database]\npassword = "hunter2"\n[a.b.c]\nd = 1\n'
    assert outline("settings.toml", toml) == "server (port), database (password), a (b (c))"
    json_text = '{"log": {"level": "info"}, "token": "s3cret", "list": [1, 2]}'
    assert outline("config.json", json_text) == "log (level), token, list"
    yaml_text = (
        "version: '3'\nservices:\n  api:\n    image: x:1\n    environment:\n"
        "      SECRET: abc\n  db:\n    image: pg\nvolumes:\n  - name: data\n"
    )
    assert outline("deploy.yml", yaml_text) == (
        "version, services (api (image, environment), db (image)), volumes (name)"
    )
    assert outline("orders.csv", "id,customer, amount\n1,ana,3\n") == "id, customer, amount"
    # no value of any of them
    for text in ("9412", "hunter2", "s3cret", "abc", "x:1", "ana"):
        assert text not in outline("settings.toml", toml) + outline("deploy.yml", yaml_text)


def test_a_file_that_does_not_parse_or_is_not_read_gives_no_names() -> None:
    assert outline("broken.json", '{"a": ') == ""
    assert outline("broken.toml", "a = = 1") == ""
    assert outline("broken.py", "def (:\n") == ""
    assert outline("list.json", "[1, 2]") == ""
    assert outline("notes.md", "# Title\n") == ""
    assert outline("Makefile", "test:\n\tpytest\n") == ""


def test_the_map_lists_the_shallowest_first_and_skips_what_is_generated(
    tmp_path: Path,
) -> None:
    _fill(
        tmp_path,
        {
            "b.py": "def run():\n    pass\n",
            "a.txt": "x",
            "pkg/deep.py": "X = 1\n",
            ".hidden/secret.py": "S = 1\n",
            "node_modules/lib/index.js": "function f() {}\n",
            "pkg/__pycache__/deep.cpython-311.pyc": "",
            ".gitignore": "dist/\n",
        },
    )
    got = workspace_map(tmp_path).splitlines()
    assert got[0].startswith("Files in the workspace")
    assert got[1:] == [".gitignore", "a.txt", "b.py: run", "pkg/deep.py: X"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert workspace_map(empty) == ""
    assert workspace_map(tmp_path / "nowhere") == ""


def test_no_link_pipe_or_big_file_is_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keys.json").write_text('{"stolen_key_name": 1}')
    ws = tmp_path / "ws"
    ws.mkdir()
    os.symlink(outside / "keys.json", ws / "link.json")
    os.symlink(outside, ws / "linked_dir")
    (ws / "big.json").write_text('{"big_key": "' + "x" * 70_000 + '"}')
    os.mkfifo(ws / "pipe.json")  # opened, it would wait for a writer forever
    got = workspace_map(ws)
    assert "stolen_key_name" not in got
    assert "big_key" not in got
    assert got.splitlines()[1:] == ["big.json", "link.json", "pipe.json"]


def test_over_budget_names_come_before_outlines_and_the_rest_is_counted(
    tmp_path: Path,
) -> None:
    _fill(tmp_path, {f"m{i:03}.py": f"def f{i}():\n    pass\n" for i in range(300)})
    got = workspace_map(tmp_path, budget=600).splitlines()
    assert got[1] == "m000.py"  # names alone: all of them would not fit with outlines
    assert len("\n".join(got[:-1])) <= 600
    shown = len(got) - 2
    assert got[-1] == f"… and {300 - shown} more files"
    # a small tree: every file with its names
    small = tmp_path / "small"
    _fill(small, {"a.py": "def one():\n    pass\n", "b.py": "def two():\n    pass\n"})
    assert workspace_map(small).splitlines()[1:] == ["a.py: one", "b.py: two"]


def test_outlines_give_way_to_the_names_after_them(tmp_path: Path) -> None:
    long_names = ", ".join(f"KEY_{i}" for i in range(60))
    body = "\n".join(f"KEY_{i} = {i}" for i in range(60)) + "\n"
    _fill(tmp_path, {"a.py": body, "b.txt": "x", "c.txt": "y"})
    got = workspace_map(tmp_path, budget=200).splitlines()
    # a.py's names would leave no room for b.txt and c.txt: its name alone
    assert got[1:] == ["a.py", "b.txt", "c.txt"]
    assert long_names not in "\n".join(got)
