"""The file tools on real files: reading, writing, editing, moving, listing."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from harness.actors.model.local._guide import untagged
from harness.actors.tools._readfile import line_hash
from tests.tools.conftest import Call


def numbered(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln[:1].isdigit() and "|" in ln]


def test_read_file_numbers_and_hashes_lines(ws: Path, call: Call) -> None:
    (ws / "a.py").write_text("first\nsecond\n\nlast")
    out = call("read_file", path="a.py")
    assert out.ok
    assert numbered(out.output) == [
        f"1:{line_hash('first')}|first",
        f"2:{line_hash('second')}|second",
        f"3:{line_hash('')}|",
        f"4:{line_hash('last')}|last",
    ]
    assert out.data["truncated"] is False
    assert out.data["next_read"] is None
    assert len(out.data["version"]) == 16
    assert f"version: {out.data['version']}" in out.output


def test_read_file_ranges(ws: Path, call: Call) -> None:
    (ws / "a.txt").write_text("".join(f"l{i}\n" for i in range(1, 11)))
    out = call("read_file", path="a.txt", start_line=3, end_line=5)
    assert [ln.split("|")[1] for ln in numbered(out.output)] == ["l3", "l4", "l5"]
    assert not call("read_file", path="a.txt", start_line=20).ok
    assert "before" in call("read_file", path="a.txt", start_line=5, end_line=2).output


def test_read_file_pages_at_400_lines_and_continues_exactly(ws: Path, call: Call) -> None:
    (ws / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 1001)))
    seen: list[str] = []
    out = call("read_file", path="big.txt")
    pages = 1
    while True:
        lines = numbered(out.output)
        assert len(lines) <= 400
        seen += [ln.split("|", 1)[1] for ln in lines]
        if not out.data["truncated"]:
            break
        assert "next_read" in out.output
        out = call("read_file", path="big.txt", next_read=out.data["next_read"])
        pages += 1
    assert pages == 3
    assert seen == [f"line {i}" for i in range(1, 1001)]


def test_read_file_splits_long_lines_and_continues_inside_them(ws: Path, call: Call) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(45_000))
    (ws / "min.js").write_text(f"{text}\ntail\n")
    got = ""
    out = call("read_file", path="min.js")
    while out.data["truncated"]:
        line = numbered(out.output)[-1]
        got += line.split("|", 1)[1].removeprefix(
            f"(continued from column {out.data.get('col', 0)}) "
        )
        assert sum(len(ln) for ln in numbered(out.output)) <= 20_100
        nxt = out.data["next_read"]
        assert nxt["line"] == 1
        out = call("read_file", path="min.js", next_read=nxt)
    lines = numbered(out.output)
    got += lines[0].split("|", 1)[1].split(") ", 1)[-1]
    assert got == text
    assert lines[1].endswith("|tail")


def test_read_file_of_a_huge_file_reads_only_its_first_page(ws: Path, call: Call) -> None:
    with open(ws / "huge.log", "w") as f:
        for i in range(300_000):
            f.write(f"{i:08d} some log text that goes on\n")
    assert (ws / "huge.log").stat().st_size > 10_000_000
    out = call("read_file", path="huge.log")
    assert out.ok
    assert len(numbered(out.output)) == 400
    assert out.data["next_read"] == {"line": 401, "column": 0}
    # The version of a big file depends on size and mtime, so a change shows.
    first = out.data["version"]
    with open(ws / "huge.log", "a") as f:
        f.write("more\n")
    assert call("read_file", path="huge.log").data["version"] != first


def test_binary_files_are_refused(ws: Path, call: Call) -> None:
    (ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(100))
    out = call("read_file", path="img.png")
    assert not out.ok
    assert "binary" in out.output
    assert not call("edit_file", path="img.png", old_text="PNG", new_text="x").ok


def test_a_fifo_is_refused_without_blocking(ws: Path, call: Call) -> None:
    os.mkfifo(ws / "pipe")
    result: list[object] = []
    t = threading.Thread(target=lambda: result.append(call("read_file", path="pipe")))
    t.start()
    t.join(timeout=10)
    assert not t.is_alive(), "read_file blocked on a FIFO"
    out = result[0]
    assert not out.ok  # type: ignore[attr-defined]
    assert "FIFO" in out.output  # type: ignore[attr-defined]
    assert not call("get_code_skeleton", path="pipe").ok
    assert not call("write_file", path="pipe", content="x").ok


def test_a_device_behind_a_symlink_is_refused(ws: Path, call: Call) -> None:
    os.symlink("/dev/zero", ws / "zero")
    assert not call("read_file", path="zero").ok


def test_non_utf8_is_read_with_replacement_and_said_so(ws: Path, call: Call) -> None:
    (ws / "latin.txt").write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    out = call("read_file", path="latin.txt")
    assert out.ok
    assert "caf\ufffd cr\ufffdme" in out.output
    assert "not valid UTF-8" in out.output
    assert out.data["utf8"] is False
    edit = call("edit_file", path="latin.txt", old_text="caf", new_text="tea")
    assert not edit.ok
    assert "not valid UTF-8" in edit.output
    assert (ws / "latin.txt").read_bytes() == "caf\xe9 cr\xe8me\n".encode("latin-1")


def test_write_file_creates_parents_and_overwrites(ws: Path, call: Call) -> None:
    out = call("write_file", path="deep/er/new.txt", content="one\n")
    assert out.ok
    assert out.data["created"] is True
    assert (ws / "deep/er/new.txt").read_text() == "one\n"
    out = call("write_file", path="deep/er/new.txt", content="two\n")
    assert out.data["created"] is False
    assert "-one" in out.data["diff"]
    assert "+two" in out.data["diff"]
    assert call("write_file", path="deep/er/new.txt", content="two\n").data["changed"] is False


def test_write_file_leaves_out_the_markdown_fence_around_a_file(ws: Path, call: Call) -> None:
    # measured: asked to write a test it had shown in a fenced block, the 1.5B model wrote
    # the block with its fences, and the file did not parse
    fenced = "```python\nimport unittest\n\nprint(1)\n```\n"
    out = call("write_file", path="test_x.py", content=fenced)
    assert (ws / "test_x.py").read_text() == "import unittest\n\nprint(1)\n"
    assert out.output.startswith("created test_x.py (3 lines)\nnote: the ``` lines around")
    assert "+```" not in out.data["diff"]
    # Markdown keeps its fences; so does a text holding fenced blocks of its own
    assert call("write_file", path="README.md", content=fenced).ok
    assert (ws / "README.md").read_text() == fenced
    two = "```\na\n```\ntext\n```\nb\n```\n"
    assert call("write_file", path="notes.txt", content=two).output == "created notes.txt (7 lines)"
    assert (ws / "notes.txt").read_text() == two


def test_write_file_keeps_the_mode(ws: Path, call: Call) -> None:
    (ws / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(ws / "run.sh", 0o755)
    assert call("write_file", path="run.sh", content="#!/bin/sh\necho hi\n").ok
    assert os.stat(ws / "run.sh").st_mode & 0o777 == 0o755


def test_write_file_with_version_refuses_a_changed_file(ws: Path, call: Call) -> None:
    (ws / "a.txt").write_text("v1\n")
    version = call("read_file", path="a.txt").data["version"]
    (ws / "a.txt").write_text("changed by the user\n")
    out = call("write_file", path="a.txt", content="ai\n", version=version)
    assert not out.ok
    assert "changed since it was read" in out.output
    assert (ws / "a.txt").read_text() == "changed by the user\n"
    fresh = call("read_file", path="a.txt").data["version"]
    assert call("write_file", path="a.txt", content="ai\n", version=fresh).ok
    (ws / "a.txt").unlink()
    assert "deleted since" in call("write_file", path="a.txt", content="x", version=fresh).output


def test_a_version_read_file_never_gives_is_refused_as_such(ws: Path, call: Call) -> None:
    # what a small model wrote: not "changed since it was read", which sent it to read again
    (ws / "util.py").write_text("def helper(x):\n    return x * 2\n")
    out = call("write_file", path="util.py", content="def compute(): pass\n", version="1.0.0")
    assert not out.ok
    assert out.output.startswith("version '1.0.0' is not one read_file gives")
    assert (ws / "util.py").read_text().startswith("def helper")


def test_write_file_refuses_huge_content(ws: Path, call: Call) -> None:
    out = call("write_file", path="big.txt", content="x" * (5 * 1024 * 1024))
    assert not out.ok
    assert "write limit" in out.output
    assert not (ws / "big.txt").exists()


def test_edit_file_replaces_exactly_once(ws: Path, call: Call) -> None:
    (ws / "a.py").write_text("def f():\n    return 1\n")
    out = call("edit_file", path="a.py", old_text="return 1", new_text="return 2")
    assert out.ok
    assert out.data["changed"] is True
    assert "+    return 2" in out.data["diff"]
    assert out.output.startswith("edited a.py (1 edit applied)\n")
    assert (ws / "a.py").read_text() == "def f():\n    return 2\n"


def test_edit_file_names_the_lines_still_using_a_name_it_renamed(ws: Path, call: Call) -> None:
    (ws / "util.py").write_text("def helper(x):\n    return x * 2\n")
    (ws / "main.py").write_text("from util import helper\n\nprint(helper(21))\nhelpers = 1\n")
    out = call("edit_file", path="util.py", old_text="def helper(x):", new_text="def compute(x):")
    assert out.ok
    # in this file and in the others, whole words only
    assert out.output.endswith(
        "\nnote: helper (this edit renamed it to compute) is still used:\n"
        "  main.py:1: from util import helper\n  main.py:3: print(helper(21))"
    )
    assert out.data["shows"] == ["main.py"]  # the files the note quotes
    out = call("edit_file", path="main.py", old_text="import helper", new_text="import compute")
    assert out.output.endswith("is still used:\n  main.py:3: print(helper(21))")
    # renamed everywhere, or an edit that is not a rename: no note
    out = call("edit_file", path="main.py", old_text="(helper(21))", new_text="(compute(21))")
    assert "note:" not in out.output
    assert out.data["shows"] == []
    out = call("edit_file", path="main.py", old_text="helpers = 1", new_text="helpers = 2")
    assert "note:" not in out.output
    # a setting's value changed is no rename, though other files hold the same word
    # (measured: told that "info" was still used elsewhere, a 1.5B model asked to set one
    # log level went on to edit the other files)
    (ws / "app.toml").write_text('log_level = "info"\n')
    (ws / "deploy.yaml").write_text("LOG_LEVEL: info\n")
    (ws / "config.json").write_text('{"level": "info"}\n')
    for path, old, new in (
        ("app.toml", '"info"', '"debug"'),
        ("deploy.yaml", "LOG_LEVEL: info", "LOG_LEVEL: debug"),
        ("config.json", '"level": "info"', '"level": "debug"'),
    ):
        out = call("edit_file", path=path, old_text=old, new_text=new)
        assert out.ok, out.output
        assert "note:" not in out.output


def test_edit_file_no_match_names_the_closest_lines(ws: Path, call: Call) -> None:
    filler = "".join(f"n{i} = {i}\n" for i in range(60))
    (ws / "a.py").write_text("def alpha(x):\n    return x + 1\n" + filler)
    out = call("edit_file", path="a.py", old_text="def alpha(y):", new_text="def beta(y):")
    assert not out.ok
    assert "not found" in out.output
    assert "line 1: def alpha(x):" in out.output
    assert "n59" not in out.output


def test_edit_file_no_match_in_a_small_file_shows_it_whole(ws: Path, call: Call) -> None:
    (ws / "util.py").write_text("def helper(x):\n    return x * 2\n")
    invented = "def helper():\n    pass\n"
    out = call("edit_file", path="util.py", old_text=invented, new_text="def compute():\n")
    assert not out.ok
    assert out.output == (
        "the edit: old_text was not found in the file; copy old_text exactly from the file, "
        "which is now (each line's N:HH| tag is not part of the text):\n"
        f"1:{line_hash('def helper(x):')}|def helper(x):\n"
        f"2:{line_hash('    return x * 2')}|    return x * 2"
    )
    # a small local model reads it without the tags, and without the note about them
    (read,) = untagged([{"role": "user", "content": f"<tool_response>\n{out.output}\n"}])
    assert read["content"].endswith("which is now:\ndef helper(x):\n    return x * 2\n")
    # copied from there with its tags, the next old_text matches
    shown = out.output.split("\n", 1)[1]
    out = call(
        "edit_file", path="util.py", old_text=shown, new_text="def compute(x):\n    return x * 2"
    )
    assert out.ok, out.output
    assert (ws / "util.py").read_text() == "def compute(x):\n    return x * 2\n"


def test_edit_file_reads_old_text_copied_with_its_line_tags(ws: Path, call: Call) -> None:
    (ws / "greet.py").write_text("def greet(nam):\n    return 'hello ' + nam\n")
    shown = call("read_file", path="greet.py").output.splitlines()
    out = call(
        "edit_file",
        path="greet.py",
        old_text="\n".join(shown[:2]),
        new_text="def greet(name):\n    return 'hello ' + name",
    )
    assert out.ok, out.output
    assert (ws / "greet.py").read_text() == "def greet(name):\n    return 'hello ' + name\n"
    # tags on the new text too are taken off with the old text's
    tagged = call("read_file", path="greet.py").output.splitlines()[0]
    out = call("edit_file", path="greet.py", old_text=tagged, new_text=tagged.replace("name", "n"))
    assert out.ok, out.output
    assert (ws / "greet.py").read_text().startswith("def greet(n):\n")
    # a text that only starts like a tag is matched as it is
    (ws / "t.txt").write_text("1:ab|x\n")
    assert call("edit_file", path="t.txt", old_text="1:ab|x", new_text="y").ok
    assert (ws / "t.txt").read_text() == "y\n"


def test_edit_file_several_matches_refused_with_lines(ws: Path, call: Call) -> None:
    (ws / "a.txt").write_text("x = 1\ny = 2\nx = 1\n")
    out = call("edit_file", path="a.txt", old_text="x = 1", new_text="x = 3")
    assert not out.ok
    assert "2 times" in out.output
    # the lines themselves, so the next call can quote the one it means
    assert "  line 1: x = 1\n  line 3: x = 1" in out.output
    assert "line 2" not in out.output
    assert (ws / "a.txt").read_text() == "x = 1\ny = 2\nx = 1\n"


def test_edit_file_all_edits_checked_before_one_write(ws: Path, call: Call) -> None:
    original = "a\nb\nc\nd\n"
    (ws / "f.txt").write_text(original)
    edits = [
        {"old_text": "a\n", "new_text": "A\n"},
        {"old_text": "c\n", "new_text": "C\n"},
        {"old_text": "zzz", "new_text": "Z"},
    ]
    out = call("edit_file", path="f.txt", edits=edits)
    assert not out.ok
    assert out.output.startswith("edit 3: old_text was not found")
    assert (ws / "f.txt").read_text() == original
    out = call("edit_file", path="f.txt", edits=edits[:2])
    assert out.ok
    assert out.output.startswith("edited f.txt (2 edits applied)\n")
    assert out.data["edits"] == 2
    assert (ws / "f.txt").read_text() == "A\nb\nC\nd\n"


def test_edit_file_matches_against_the_original_not_earlier_edits(ws: Path, call: Call) -> None:
    (ws / "f.txt").write_text("one two\n")
    edits = [{"old_text": "one", "new_text": "two"}, {"old_text": "two", "new_text": "three"}]
    assert call("edit_file", path="f.txt", edits=edits).ok
    assert (ws / "f.txt").read_text() == "two three\n"


def test_edit_file_overlap_is_refused(ws: Path, call: Call) -> None:
    (ws / "f.txt").write_text("abcdef\n")
    edits = [{"old_text": "abcd", "new_text": "X"}, {"old_text": "cdef", "new_text": "Y"}]
    out = call("edit_file", path="f.txt", edits=edits)
    assert not out.ok
    assert "edit 1 and edit 2 overlap" in out.output
    assert (ws / "f.txt").read_text() == "abcdef\n"


def test_edit_file_unchanged_and_bad_forms(ws: Path, call: Call) -> None:
    (ws / "f.txt").write_text("same\n")
    out = call("edit_file", path="f.txt", old_text="same", new_text="same")
    assert out.ok
    assert out.data["changed"] is False
    assert "empty" in call("edit_file", path="f.txt", old_text="", new_text="x").output
    both = call(
        "edit_file",
        path="f.txt",
        old_text="a",
        new_text="b",
        edits=[{"old_text": "s", "new_text": "t"}],
    )
    assert "not both" in both.output
    assert "nothing to do" in call("edit_file", path="f.txt").output
    assert "write_file" in call("edit_file", path="nope.txt", old_text="a", new_text="b").output


def test_edit_file_crlf_files_accept_lf_old_text(ws: Path, call: Call) -> None:
    (ws / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    assert call("edit_file", path="w.txt", old_text="one\ntwo", new_text="1\n2").ok
    assert (ws / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


def test_edit_file_refuses_a_huge_file(ws: Path, call: Call) -> None:
    (ws / "huge.txt").write_text("x\n" * (5 * 1024 * 1024))
    out = call("edit_file", path="huge.txt", old_text="x\nx", new_text="y")
    assert not out.ok
    assert "limit" in out.output


def test_move_copy_delete_create_list(ws: Path, call: Call) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("a\n")
    assert call("copy_file", source="src/a.py", destination="lib/b.py").ok
    assert (ws / "lib/b.py").read_text() == "a\n"
    assert "already exists" in call("copy_file", source="src/a.py", destination="lib/b.py").output
    assert call("move_file", source="lib", destination="pkg/lib").ok
    assert (ws / "pkg/lib/b.py").exists()
    assert not (ws / "lib").exists()
    assert "inside itself" in call("copy_file", source="pkg", destination="pkg/x").output
    assert call("copy_file", source="pkg", destination="pkg2").ok
    assert (ws / "pkg2/lib/b.py").read_text() == "a\n"
    assert call("create_dir", path="empty/dir").ok
    assert "already exists" in call("create_dir", path="empty/dir").output
    assert "not a folder" in call("create_dir", path="src/a.py").output
    listing = call("list_dir").output.splitlines()
    assert listing[0] == "./"
    assert listing[1:5] == ["empty/", "pkg/", "pkg2/", "src/"]
    assert call("list_dir", path="src").output.splitlines()[1].startswith("a.py  (2 B)")
    assert call("list_dir", path="empty/dir").output.endswith("(empty folder)")
    assert call("delete_path", path="pkg2").ok
    assert call("delete_path", path="src/a.py").ok
    assert not (ws / "pkg2").exists()
    assert "does not exist" in call("delete_path", path="src/a.py").output
    assert "does not exist" in call("move_file", source="nope", destination="x").output


def test_outcomes_are_json_clean(ws: Path, call: Call) -> None:
    (ws / "a.txt").write_text("x\n")
    for out in (
        call("read_file", path="a.txt"),
        call("list_dir"),
        call("search_text", pattern="x"),
    ):
        json.dumps(out.data)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"path": 5}, "path must be string"),
        ({}, "missing required argument 'path'"),
        ({"path": 5, "what": 1}, "path must be string"),
    ],
)
def test_bad_arguments_become_a_clear_result(
    call: Call, args: dict[str, object], words: str
) -> None:
    out = call("read_file", **args)
    assert not out.ok
    assert words in out.output


def test_tools_run_elsewhere_are_refused_here(call: Call) -> None:
    out = call("run_cmd", command="ls")
    assert not out.ok
    assert "shell" in out.output
    assert "unknown tool" in call("nope").output


def test_read_file_exactly_one_page_is_not_truncated(ws: Path, call: Call) -> None:
    (ws / "a.txt").write_text("".join(f"{i}\n" for i in range(400)))
    out = call("read_file", path="a.txt")
    assert len(numbered(out.output)) == 400
    assert out.data["truncated"] is False
    (ws / "b.txt").write_text("".join(f"{i}\n" for i in range(400)) + "last, no newline")
    out = call("read_file", path="b.txt")
    assert out.data["next_read"] == {"line": 401, "column": 0}
    rest = call("read_file", path="b.txt", next_read=out.data["next_read"])
    assert numbered(rest.output) == [f"401:{line_hash('last, no newline')}|last, no newline"]
    assert rest.data["truncated"] is False


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\n",
        b"one line",
        b"first\nsecond\n\nlast",
        b"ends with a newline\n\n",
        b"crlf\r\nlines\r\n",
        b"many cr\r\r\nlone\rcr inside\n",
        "unicode: \u00e9\u00e8 \u2603 \U0001f600\n".encode(),
        b"a literal \xef\xbf\xbd replacement character\n",
        "\ufeffbom first\n".encode(),
        b"not utf-8: \xff\xfe here\n",
        b"x" * 19_999,
        b"x" * 20_000,
        b"".join(b"line %d\n" % i for i in range(400)),
        b"".join(b"line %d\n" % i for i in range(401)),
        b"".join(b"%d\n" % i for i in range(500)),
    ],
)
def test_read_file_whole_file_in_one_read_matches_the_line_reader(
    ws: Path, call: Call, content: bytes
) -> None:
    # a plain read takes the one-read path when it can; start_line=1 reads line by line
    (ws / "f.txt").write_bytes(content)
    whole = call("read_file", path="f.txt")
    by_line = call("read_file", path="f.txt", start_line=1)
    assert (whole.ok, whole.output, whole.data) == (by_line.ok, by_line.output, by_line.data)
