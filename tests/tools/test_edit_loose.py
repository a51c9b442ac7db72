"""edit_file past the exact match: an old text whose lines differ from the file's only in
indentation or spacing applies at its one block (re-indented, and said); a new text with
line numbers in front of its lines is refused; a new text repeating the closing line
after the edit (or the line before it) is refused when the line is a closer, said when
it is a statement that may be meant twice."""

from __future__ import annotations

from pathlib import Path

from tests.tools.conftest import Call

JS = "function total(items) {\n  let sum = 0;\n  for (const it of items) {\n    sum += it;\n  }\n  return sum;\n}\n"  # noqa: E501

CONFIG = (
    '{\n  "payment": {\n    "url": "https://pay.example/api",\n'
    '    "retries": 7\n    "backoff_ms": 250\n  }\n}\n'
)


def test_old_text_without_its_indentation_applies_at_its_one_block(ws: Path, call: Call) -> None:
    (ws / "cart.js").write_text(JS)
    out = call(
        "edit_file",
        path="cart.js",
        old_text="for (const it of items) {\nsum += it;\n}",
        new_text="for (const it of items) {\nsum += it * 2;\n}",
    )
    assert out.ok, out.output
    # each new line indented as the file's line it replaces
    assert (ws / "cart.js").read_text() == JS.replace("sum += it;", "sum += it * 2;")
    assert out.output.startswith(
        "edited cart.js (1 edit applied)\n"
        "note: the edit: old_text matched lines 3-5 ignoring indentation and spacing\n"
    )


def test_one_indentation_difference_is_given_to_every_new_line(ws: Path, call: Call) -> None:
    (ws / "config.json").write_text(CONFIG)
    out = call(
        "edit_file",
        path="config.json",
        old_text='"retries": 7\n"backoff_ms": 250\n',
        new_text='"retries": 7,\n"backoff_ms": 250,\n"jitter": true\n',
    )
    assert out.ok, out.output
    assert (ws / "config.json").read_text() == CONFIG.replace(
        '    "retries": 7\n    "backoff_ms": 250\n',
        '    "retries": 7,\n    "backoff_ms": 250,\n    "jitter": true\n',
    )
    assert "matched lines 4-5 ignoring indentation" in out.output
    # written deeper than the file, the extra indentation is taken off
    (ws / "a.py").write_text("def f():\n    if x:\n        return 1\n")
    out = call(
        "edit_file",
        path="a.py",
        old_text="        if x:\n            return 1\n",
        new_text="        if x:\n            return 2\n        return 0\n",
    )
    assert out.ok, out.output
    assert (ws / "a.py").read_text() == "def f():\n    if x:\n        return 2\n    return 0\n"


def test_indentation_changed_unevenly_is_refused(ws: Path, call: Call) -> None:
    # lines copied from a diff: a space in front of the context lines, none in front of
    # the added ones, and a new text longer than the old
    text = (
        "import unittest\nfrom pricing import apply_discount\n\n"
        "class T(unittest.TestCase):\n    def test_d(self):\n"
        "        self.assertEqual(apply_discount(80, 25), 60)\n"
    )
    (ws / "test_p.py").write_text(text)
    old = (
        "import unittest\nfrom pricing import apply_discount\n \n"
        " class T(unittest.TestCase):\n     def test_d(self):\n"
    )
    out = call("edit_file", path="test_p.py", old_text=old, new_text=old + "         pass\n")
    assert not out.ok
    assert out.output.startswith(
        "the edit: old_text was not found in the file (lines 1-5 match it with other "
        "indentation, not shifted alike on every line, so new_text's indentation is "
        "unknown); copy old_text exactly from the file, which is now"
    )
    assert (ws / "test_p.py").read_text() == text
    # the same lines all copied with the diff's space are one shift: re-indented
    spaced = "".join(" " + line + "\n" for line in text.splitlines()[3:5])
    new = spaced + "         pass\n"
    out = call("edit_file", path="test_p.py", old_text=spaced, new_text=new)
    assert out.ok, out.output
    assert (
        "    def test_d(self):\n        pass\n        self.assertEqual"
        in (ws / "test_p.py").read_text()
    )


def test_trailing_spaces_blank_ends_and_crlf(ws: Path, call: Call) -> None:
    (ws / "notes.txt").write_bytes(b"one  \r\n  two\r\nthree\r\n")
    out = call("edit_file", path="notes.txt", old_text="\none\ntwo\n\n", new_text="one\n2\n")
    assert out.ok, out.output
    assert (ws / "notes.txt").read_bytes() == b"one\r\n  2\r\nthree\r\n"
    # a deletion takes the lines' ends with it
    out = call("edit_file", path="notes.txt", old_text="2 ", new_text="")
    assert out.ok, out.output
    assert (ws / "notes.txt").read_bytes() == b"one\r\nthree\r\n"


def test_old_text_alike_at_several_blocks_names_them(ws: Path, call: Call) -> None:
    text = "def a():\n    x = 1\n\n\ndef b():\n        x = 1\n"
    (ws / "m.py").write_text(text)
    out = call("edit_file", path="m.py", old_text="  x = 1 \n", new_text="x = 2\n")
    assert not out.ok
    assert out.output == (
        "the edit: old_text was not found exactly, and ignoring indentation it matches 2 "
        "places; copy it exactly from the file, with the indentation of the one to change:\n"
        "  line 2:     x = 1\n  line 6:         x = 1"
    )
    assert (ws / "m.py").read_text() == text
    # a line that differs in more than spacing is not found, as before
    out = call("edit_file", path="m.py", old_text="x = 3\n", new_text="x = 2\n")
    assert out.output.startswith("the edit: old_text was not found in the file; copy")


def test_new_text_with_line_numbers_is_refused(ws: Path, call: Call) -> None:
    (ws / "config.json").write_text(CONFIG)
    old = '    "retries": 7\n    "backoff_ms": 250\n'
    out = call(
        "edit_file",
        path="config.json",
        old_text=old,
        new_text='  4  "retries": 7,\n  5  "backoff_ms": 250\n',
    )
    assert not out.ok
    assert out.output.startswith(
        "the edit: new_text's lines start with line numbers (4, 5) that are not in the "
        "file; write new_text as the lines should read, without numbers\n"
        "note: config.json does not parse: line 5 column 5: Expecting ',' delimiter"
    )
    assert (ws / "config.json").read_text() == CONFIG
    # numbered, the same lines as old_text: the refusal says the edit would change nothing
    out = call(
        "edit_file",
        path="config.json",
        old_text=old,
        new_text='  4  "retries": 7\n  5  "backoff_ms": 250\n',
    )
    assert "without numbers; without them it is old_text again, which changes nothing\n" in (
        out.output
    )
    # numbered as a note shows lines, with the indentation after the number
    out = call(
        "edit_file",
        path="config.json",
        old_text=old,
        new_text=old.replace("    ", "  4:     ", 1).replace('\n    "b', '\n  5:     "b'),
    )
    assert out.output.startswith("the edit: new_text's lines start with line numbers (4, 5)")
    # read_file's own tags copied into new_text alone are taken off, and said
    out = call(
        "edit_file",
        path="config.json",
        old_text=old,
        new_text='4:aa|    "retries": 7,\n5:bb|    "backoff_ms": 250\n',
    )
    assert out.ok, out.output
    assert "note: the edit: read_file's N:HH| tags taken off new_text's lines" in out.output
    assert (ws / "config.json").read_text() == CONFIG.replace("7\n", "7,\n")
    # numbers that are the text: keys of a mapping far from their line, a file numbered
    (ws / "codes.yaml").write_text("codes:\n  ok: 1\n")
    out = call(
        "edit_file", path="codes.yaml", old_text="  ok: 1\n", new_text="  200: ok\n  201: new\n"
    )
    assert out.ok, out.output
    (ws / "list.txt").write_text("1  apples\n2  pears\n")
    out = call("edit_file", path="list.txt", old_text="2  pears\n", new_text="2  plums\n3  figs\n")
    assert out.ok, out.output
    assert (ws / "list.txt").read_text() == "1  apples\n2  plums\n3  figs\n"


def test_a_closing_line_written_twice_is_refused(ws: Path, call: Call) -> None:
    (ws / "cart.js").write_text(JS)
    out = call(
        "edit_file",
        path="cart.js",
        old_text="    sum += it;\n",
        new_text="    sum += it;\n    count += 1;\n  }\n",
    )
    assert not out.ok
    assert out.output == (
        "the edit: new_text ends with '}', the line already after old_text in the file "
        "(line 5), so the file would hold it twice; leave that line out of new_text, or "
        "add it to the end of old_text too"
    )
    assert (ws / "cart.js").read_text() == JS
    # with no line end either side, and at the start
    out = call(
        "edit_file", path="cart.js", old_text="    sum += it;", new_text="    sum += 1;\n  }"
    )
    assert "new_text ends with '}'" in out.output
    (ws / "b.py").write_text("xs = [\n    1,\n]\nys = [\n    2,\n]\n")
    out = call("edit_file", path="b.py", old_text="ys = [\n", new_text="]\nys = [\n")
    assert out.output.startswith("the edit: new_text starts with ']', the line already before")
    # done as the refusal says, the edit lands
    out = call(
        "edit_file",
        path="cart.js",
        old_text="    sum += it;\n  }\n",
        new_text="    sum += it;\n    count += 1;\n  }\n",
    )
    assert out.ok, out.output
    assert "note:" not in out.output
    assert "    count += 1;\n  }\n  return sum;" in (ws / "cart.js").read_text()


SH = (
    "rotate() {\n"
    "  for i in 2 1; do\n"
    '    mv "$f.$i" "$f.$((i + 1))"\n'
    "  done\n"
    '  mv "$f" "$f.1"\n'
    "}\n"
    "\n"
    "other() {\n"
    "  :\n"
    "}\n"
)


def test_the_rest_of_a_block_written_again_is_kept_once(ws: Path, call: Call) -> None:
    # measured (bench local-tasks, a rename in a shell script): old_text stopped in the
    # middle of the function, new_text went on to its end, and the file held the
    # function's last lines twice; refused, the model sent the same edit until the cap
    (ws / "lib.sh").write_text(SH)
    out = call(
        "edit_file",
        path="lib.sh",
        old_text='rotate() {\n  for i in 2 1; do\n    mv "$f.$i" "$f.$((i + 1))"\n',
        new_text='rotate_files() {\n  for i in 2 1; do\n    mv "$f.$i" "$f.$((i + 1))"\n'
        '  done\n  mv "$f" "$f.1"\n}\n',
    )
    assert out.ok, out.output
    assert (ws / "lib.sh").read_text() == SH.replace("rotate() {", "rotate_files() {")
    assert (
        "note: the edit: new_text ended with lines 4-6 of the file, which already follow "
        "old_text; they are kept once"
    ) in out.output
    # without a line end at either text's end
    (ws / "lib.sh").write_text(SH)
    out = call(
        "edit_file",
        path="lib.sh",
        old_text='    mv "$f.$i" "$f.$((i + 1))"',
        new_text='    mv "$f.$i" "$f.$((i + 2))"\n  done\n  mv "$f" "$f.1"',
    )
    assert out.ok, out.output
    assert (ws / "lib.sh").read_text() == SH.replace("i + 1", "i + 2")
    # blank lines alone are no block, a block the old text ended with was there before,
    # and a new_text that is only the lines that follow replaces the old text with them
    (ws / "gaps.txt").write_text("a\n  \n  \nb\n")
    assert call("edit_file", path="gaps.txt", old_text="a\n", new_text="c\n  \n  \n").ok
    assert (ws / "gaps.txt").read_text() == "c\n  \n  \n  \n  \nb\n"
    (ws / "twice.txt").write_text("x\ny\nz\ny\nz\n")
    assert call("edit_file", path="twice.txt", old_text="x\ny\nz\n", new_text="w\ny\nz\n").ok
    assert (ws / "twice.txt").read_text() == "w\ny\nz\ny\nz\n"
    (ws / "only.txt").write_text("x\ny\nz\n")
    assert call("edit_file", path="only.txt", old_text="x\n", new_text="y\nz\n").ok
    assert (ws / "only.txt").read_text() == "y\nz\ny\nz\n"


def test_two_alike_lines_that_are_meant_go_through(ws: Path, call: Call) -> None:
    # a statement made twice: applied, and said
    (ws / "run.py").write_text("start()\nstep()\nstop()\n")
    out = call("edit_file", path="run.py", old_text="start()\n", new_text="start()\nstep()\n")
    assert out.ok, out.output
    assert (ws / "run.py").read_text() == "start()\nstep()\nstep()\nstop()\n"
    assert "note: the edit: line 2, 'step()', is now there twice in a row" in out.output
    # closers of nested blocks differ in indentation: not a repeat
    (ws / "cart.js").write_text(JS)
    out = call(
        "edit_file",
        path="cart.js",
        old_text="    sum += it;\n  }\n",
        new_text="    if (it) {\n      sum += it;\n    }\n  }\n",
    )
    assert out.ok, out.output
    # a file whose closers are not indented already has them twice in a row
    flat = "a {\nb {\nx;\n}\n}\n"
    (ws / "flat.css").write_text(flat)
    out = call("edit_file", path="flat.css", old_text="x;\n", new_text="x;\n}\nc {\ny;\n}\n")
    assert out.ok, out.output
    assert (ws / "flat.css").read_text() == "a {\nb {\nx;\n}\nc {\ny;\n}\n}\n}\n"
    # the old text ended with the line too: the repeat was there before, not made
    (ws / "twice.txt").write_text("x\n}\n}\n")
    assert call("edit_file", path="twice.txt", old_text="x\n}\n", new_text="y\n}\n").ok
