"""A reply that repeats itself is stopped; replies that repeat for good reasons are not."""

from __future__ import annotations

from pathlib import Path

from harness.actors.model.local._looping import BODY_RUN, LoopWatch

LOOP = "".join(
    f"{i}. **Answer the question**:\n\nThe bug in `calc.py` was fixed, and the test passed.\n\n"
    for i in range(1, 40)
)


def _stops_at(text: str, piece: int = 3) -> int | None:
    """Where the watch says "loop", fed *text* in pieces of *piece* characters."""
    watch = LoopWatch()
    for at in range(0, len(text), piece):
        if watch.looping(text[at : at + piece]):
            return at + piece
    return None


def test_a_numbered_list_saying_the_same_thing_is_stopped_at_its_fourth_time() -> None:
    at = _stops_at(LOOP)
    assert at is not None
    said = LOOP[:at]
    assert said.count("The bug in `calc.py` was fixed") == 4
    assert "5. **Answer" not in said


def test_code_repeats_lines_more_freely_and_calls_freely() -> None:
    line = "        self.assertEqual(result, expected)\n"
    fenced = "Here are the tests:\n\n```python\n" + line * 7 + "```\n\nDone."
    assert _stops_at(fenced) is None
    looping = "Edit:\n\n```\n" + 'obj[\'content\'] = """\n' * 40
    at = _stops_at(looping)
    assert at is not None
    assert looping[:at].count("obj['content']") == 8
    call = '<tool_call>{"name": "write_file", "arguments": {"path": "t.py"}}\n<content>\n'
    assert _stops_at(call + line * 8 + "</content></tool_call>") is None


def test_short_lines_and_a_long_varied_answer_are_not_loops() -> None:
    assert _stops_at("**Step**:\n\n" * 10) is None
    readme = Path(__file__).resolve().parents[2] / "README.md"
    assert _stops_at(readme.read_text(), piece=40) is None


def test_a_run_of_empty_lines_is_a_loop_even_inside_a_call() -> None:
    opened = '```json\n{"name": "write_file", "arguments": {"path": "u.py"}}\n<content>\nx\n'
    at = _stops_at(opened + "</content>\n<tool_call>\n```" + "\n" * 400, piece=1)
    assert at is not None
    assert at < len(opened) + 40
    # a few blank lines between paragraphs or functions are not
    assert _stops_at("a\n\n\n\nb\n" * 5 + "def f():\n" + "\n" * 6 + "    pass\n") is None


# The fresh task set's missing-api-tests, the reply as recorded (its first 680 characters of
# 3,995: the one piece went on to the output limit, 2,048 tokens and 236 s, with no call)
ONE_LINE = (
    "To answer this question, I'll use the `search_text` tool to find the line that defines "
    "the number of tests in `tests/test_api.py`. Here's the step-by-step process:\n\n"
    "1. **Search for the line that defines the number of tests**:\n"
    "   - Use the `search_text` tool with the pattern `^def test_\\d+:"
    + "\\s*assert\\s+len\\(\\d+\\) == \\d+,"
    * 14
)


def test_one_piece_repeated_inside_a_line_is_stopped_early() -> None:
    at = _stops_at(ONE_LINE, piece=2)
    assert at is not None
    said = ONE_LINE[:at]
    # stopped once 256 characters are the piece again and again: its ninth time, of the
    # recorded reply's 124
    assert said.count("assert") == 9
    assert said.startswith(ONE_LINE[:300])
    # once the line ends it is the line rule's to judge: one such line is not a loop
    assert _stops_at(ONE_LINE[:330] + "`\n\n2. Then count the matches.\n") is None


GOOD_LINES = (
    # separators, a table, a long URL, base64, a long line of code, a wide literal
    "-" * 200,
    "=" * 79 + " " + "#" * 120,
    "| name | type | default | what it does |\n|------|------|---------|--------------|\n"
    + "| `timeout` | float | 30.0 | seconds before the request gives up |\n" * 3,
    "See https://github.com/python-trio/trio/blob/main/src/trio/_core/_run.py"
    "?plain=1#L1234-L1290&utm_source=aaaaaaaaaaaa&utm_medium=bbbbbbbbbbbb&x=1234567890"
    "/abcdefghijklmnopqrstuvwxyz/abcdefghijklmnopqrstuvwxyz/ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "The icon is data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAGXRFWH"
    "RTb2Z0d2FyZQBBZG9iZSBJbWFnZVJlYWR5ccllPAAAAZJJREFUeNqkU7tKA1EQnbvZZBNjYqIIWgjaCIKFhYWd"
    "jaCF/oCdjYWFjZ2FnaWFhYWdha2FhYWtjYWlnZ2FnZ2dnZ2djY2NjY2NjY0NjY2NjY2NjY2NjY2NjY2NjY2NjA",
    "        return {key: value for key, value in sorted(self._items.items()) "
    "if value is not None and key not in self._hidden and not key.startswith('_')}  # noqa\n",
    "```python\nTABLE = [" + "0, " * 150 + "]\n```\n",
)


def test_long_lines_that_good_replies_hold_are_not_loops() -> None:
    for text in GOOD_LINES:
        assert _stops_at(text, piece=1) is None, text[:60]


def test_inside_a_call_one_line_repeating_a_piece_is_the_users() -> None:
    body = '<tool_call>{"name": "write_file", "arguments": {"path": "z.txt", "content": "'
    assert _stops_at(body + "ab" * 600 + '"}}</tool_call>', piece=4) is None
    # the same piece written as prose is a loop
    assert _stops_at("I will write " + "ab" * 600, piece=4) is not None
    # a call written as JSON (the grammar takes it from '{"name":') is a call too
    fenced = '```json\n{"name": "write_file", "arguments": {"path": "z.txt", "content": "'
    assert _stops_at(fenced + "ab" * 600 + '"}}\n```', piece=4) is None
    pretty = '{\n  "name": "write_file",\n  "arguments": {\n    "content": "'
    assert _stops_at(pretty + "ab" * 600 + '"\n  }\n}', piece=4) is None


def test_a_piece_repeated_in_the_arguments_of_a_call_without_a_body_is_a_loop() -> None:
    # measured (the fresh set's missing-api-tests): the search_text call a nudge asked for
    # wrote its pattern to the output limit, one piece over and over
    piece = r"\s*assert\s+len\(\d+\) == \d+,"
    search = '<tool_call>{"name": "search_text", "arguments": {"pattern": "^def test_'
    assert _stops_at(search + piece * 40 + '"}}</tool_call>', piece=4) is not None
    # the same piece in a file body is the user's, in a write or an edit
    write = '<tool_call>{"name": "write_file", "arguments": {"path": "t.py", "content": "'
    assert _stops_at(write + piece * 40 + '"}}</tool_call>', piece=4) is None
    edit = '<tool_call>{"name": "edit_file", "arguments": {"path": "t.py"}}\n<new_content>\n'
    assert _stops_at(edit + piece * 40 + "\n</new_content>", piece=4) is None
    # a long search pattern that does not repeat one piece is no loop
    varied = "|".join(f"name_{i}_{i * 7}" for i in range(60))
    assert _stops_at(search + varied + '"}}</tool_call>', piece=4) is None


def test_one_line_over_and_over_in_a_files_body_is_a_loop_that_cuts_the_call() -> None:
    # measured (the fresh set's create-running-page): a page's last list item, written
    # again and again inside the write_file call to the output limit, 198 s
    call = '```json\n{"name": "write_file", "arguments": {"path": "RUNNING.md"}}\n<content>\n'
    item = "- The `stock_report.py` script is located in the `src` directory.\n"
    text = call + "# Running\n\n```sh\npython stock_report.py\n```\n\n" + item * 200
    watch = LoopWatch()
    stopped = next(at for at in range(0, len(text), 5) if watch.looping(text[at : at + 5]))
    assert text[: stopped + 5].count(item) == BODY_RUN
    assert watch.finish == "looped"
    # fewer in a row, or the same line between others, is the file's own
    assert _stops_at(call + item * (BODY_RUN - 1) + "</content>\n```") is None
    assert _stops_at(call + (item + "- and one more line that differs\n") * 60) is None


def test_a_loop_in_prose_ends_the_reply_as_a_stop() -> None:
    watch = LoopWatch()
    assert any(watch.looping(LOOP[at : at + 7]) for at in range(0, len(LOOP), 7))
    assert watch.finish == "stop"
    # a loop inside the arguments of a call without a body cuts that call
    search = '<tool_call>{"name": "search_text", "arguments": {"pattern": "^def ' + "ab" * 400
    watch = LoopWatch()
    assert any(watch.looping(search[at : at + 4]) for at in range(0, len(search), 4))
    assert watch.finish == "looped"


def test_the_projects_own_files_written_as_bodies_are_not_loops() -> None:
    root = Path(__file__).resolve().parents[2]
    call = '<tool_call>{"name": "write_file", "arguments": {"path": "f"}}\n<content>\n'
    files = [p for d in ("src", "tests", "docs", "bench") for p in (root / d).rglob("*.*")]
    texts = [p.read_text() for p in files if p.suffix in {".py", ".md", ".toml", ".json"}]
    assert len(texts) > 300
    for text in texts:
        assert _stops_at(call + text, piece=64) is None
