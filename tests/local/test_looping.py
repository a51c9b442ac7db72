"""A reply that repeats itself is stopped; replies that repeat for good reasons are not."""

from __future__ import annotations

from pathlib import Path

from harness.actors.model.local._looping import LoopWatch

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
