"""A path that does not exist is answered with the file the caller most likely meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tools.conftest import Call


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace named as the small models' favourite wrong prefix."""
    root = tmp_path / "project"
    (root / "pkg" / "deep").mkdir(parents=True)
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "pkg" / "deep" / "util.py").write_text("x = 1\n")
    return root


def _refusal(call: Call, name: str, **args: object) -> str:
    out = call(name, **args)
    assert not out.ok, out.output
    return out.output


def test_a_path_written_from_the_workspace_name_is_the_file_it_means(call: Call, ws: Path) -> None:
    # measured: the 1.5B model read project/greet.py five times, each answered "does
    # not exist; did you mean greet.py?", until the repeat cap ended the run
    read = call("read_file", path="project/calc.py")
    assert read.ok
    assert read.data["path"] == "calc.py"
    assert "return a - b" in read.output
    edit = call("edit_file", path="project/calc.py", old_text="a - b", new_text="a + b")
    assert edit.ok
    assert edit.data["paths"] == ["calc.py"]
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert not (ws / "project").exists()
    assert call("list_dir", path="project/pkg").ok
    assert "deep/" in call("list_dir", path="project/pkg").output
    # a path with no file at its end is not read as another one
    said = _refusal(call, "read_file", path="project/nothing.py")
    assert said == "project/nothing.py does not exist"


def test_a_real_folder_of_the_workspace_name_is_a_folder_like_any_other(
    call: Call, ws: Path
) -> None:
    (ws / "project").mkdir()
    said = _refusal(call, "read_file", path="project/calc.py")
    assert said == "project/calc.py does not exist; did you mean calc.py?"
    said = _refusal(call, "edit_file", path="project/calc.py", old_text="-", new_text="+")
    assert said == "project/calc.py does not exist; did you mean calc.py?"
    assert (ws / "calc.py").read_text().startswith("def add(a, b):\n    return a - b")


def test_a_file_of_that_name_elsewhere_is_named(call: Call) -> None:
    said = _refusal(call, "read_file", path="util.py")
    assert said == "util.py does not exist; did you mean pkg/deep/util.py?"
    said = _refusal(call, "move_file", source="util.py", destination="u.py")
    assert "did you mean pkg/deep/util.py?" in said


def test_with_no_such_file_anywhere_it_says_so_and_what_to_do(call: Call) -> None:
    assert _refusal(call, "read_file", path="missing.txt") == "missing.txt does not exist"
    said = _refusal(call, "edit_file", path="new.py", old_text="a", new_text="b")
    assert said == "new.py does not exist; use write_file to create it"


def test_too_many_files_of_that_name_are_no_guess_only_similar(call: Call, ws: Path) -> None:
    for i in range(6):
        (ws / f"d{i}").mkdir()
        (ws / f"d{i}" / "conf.py").write_text("")
    assert _refusal(call, "read_file", path="conf.py") == (
        "conf.py does not exist; similar files: d0/conf.py, d1/conf.py, d2/conf.py, "
        "d3/conf.py, d4/conf.py"
    )


def test_with_no_file_of_that_name_similar_files_are_named(call: Call, ws: Path) -> None:
    # measured (bench local-tasks): told "The map script prints it", the 1.5B model read
    # map_script.txt, heard only that it does not exist, and gave up; it was web/map.js
    for path in ("web/map.js", "web/main.js", "web/stations.json", "daily.py", "scripts/a.sh"):
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text("x\n")
    said = _refusal(call, "read_file", path="map_script.txt")
    assert said == "map_script.txt does not exist; similar files: web/map.js"
    # a word the other begins is alike; the file of the same folder comes first
    said = _refusal(call, "read_file", path="web/station.js")
    assert said == (
        "web/station.js does not exist; similar files: web/stations.json, web/main.js, web/map.js"
    )
    # camelCase splits into words; the file's folder name counts as a word
    assert _refusal(call, "read_file", path="dailySheet.txt").endswith("similar files: daily.py")
    # a word shared with a folder's name only is not enough; plain words are not words
    assert _refusal(call, "read_file", path="script.sh") == "script.sh does not exist"
    assert _refusal(call, "read_file", path="test_data.py") == "test_data.py does not exist"
    # a protected file is never named
    (ws / "web" / ".env").write_text("KEY=secret\n")
    (ws / "env.py").write_text("x\n")
    assert _refusal(call, "read_file", path="web/env.txt").endswith(
        "similar files: env.py, web/main.js, web/map.js, web/stations.json"
    )
    # what to do instead follows the similar files
    said = _refusal(call, "edit_file", path="daily_report.py", old_text="a", new_text="b")
    assert said == (
        "daily_report.py does not exist; similar files: daily.py; use write_file to create it"
    )


def test_a_new_copy_under_the_workspace_name_is_refused_and_nothing_written(
    call: Call, ws: Path
) -> None:
    said = _refusal(call, "write_file", path="project/calc.py", content="invented\n")
    assert said == (
        "project/calc.py would be a new copy of calc.py, which exists: paths are relative "
        "to the workspace, so calc.py is the file; change it with edit_file"
    )
    assert not (ws / "project").exists()
    assert (ws / "calc.py").read_text().startswith("def add")
    # a real sub-folder of that name is a path like any other
    (ws / "project").mkdir()
    assert call("write_file", path="project/calc.py", content="ok\n").ok
    assert (ws / "project" / "calc.py").read_text() == "ok\n"
    # and a new file in a new folder of another name is created as asked
    assert call("write_file", path="other/calc.py", content="ok\n").ok
    assert (ws / "other" / "calc.py").exists()


def test_a_new_file_under_the_workspace_name_is_refused_until_that_folder_exists(
    call: Call, ws: Path
) -> None:
    # measured (bench local-tasks, the sixth batch): asked to add an .editorconfig, the
    # 1.5B model wrote project/.editorconfig, a folder nothing asked for
    said = _refusal(call, "write_file", path="project/.editorconfig", content="root = true\n")
    assert said == (
        "project/.editorconfig would make a folder project/ inside the workspace, which is "
        "project: paths are relative to the workspace, so write .editorconfig (a folder "
        "project/ inside it, if one is wanted, is made with mkdir first)"
    )
    assert not (ws / "project").exists()
    assert call("write_file", path=".editorconfig", content="root = true\n").ok
    # with the folder there, the path is a path like any other
    (ws / "project").mkdir()
    assert call("write_file", path="project/notes.md", content="ok\n").ok
    assert (ws / "project" / "notes.md").read_text() == "ok\n"


def test_a_pasted_absolute_path_names_the_workspace_file_it_ends_in(
    call: Call, ws: Path, tmp_path: Path
) -> None:
    # a traceback from where the program ran ("/shop/src/format.js:16") names the file by
    # that machine's path; measured (bench local-tasks, half B): told only that
    # /shop/report.py is outside the workspace, the 1.5B model read it twice more
    (ws / "src").mkdir()
    (ws / "src" / "format.js").write_text("x\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "calc.py").write_text("outside\n")
    said = _refusal(call, "read_file", path="/shop/src/format.js")
    assert said == "/shop/src/format.js is outside the workspace; did you mean src/format.js?"
    # the longest end that is a file here wins over a file of the same name elsewhere
    (ws / "format.js").write_text("y\n")
    # the whole path first, written from the workspace's root
    said = _refusal(call, "read_file", path="/src/format.js")
    assert said == "/src/format.js is outside the workspace; did you mean src/format.js?"
    assert _refusal(call, "read_file", path="/srv/app/src/format.js").endswith(
        "did you mean src/format.js?"
    )
    said = _refusal(call, "edit_file", path="/home/sam/shop/calc.py", old_text="-", new_text="+")
    assert said == "/home/sam/shop/calc.py is outside the workspace; did you mean calc.py?"
    # a file of its name deeper in the workspace is named when no end of the path is here
    assert _refusal(call, "read_file", path="/opt/lib/util.py").endswith(
        "did you mean pkg/deep/util.py?"
    )
    # only named: the file outside is never read or written in its place
    said = _refusal(call, "read_file", path=str(tmp_path / "elsewhere" / "calc.py"))
    assert said.endswith("did you mean calc.py?")
    assert "outside\n" not in said
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    # no such file here, or a protected one: the plain refusal
    (ws / ".env").write_text("KEY=secret\n")
    for path in ("/etc/passwd", "/home/sam/.env", "/"):
        assert _refusal(call, "read_file", path=path) == (
            f"{path} is outside the workspace; use a path relative to the workspace root"
        )
