"""Titles come from what the user asked and the answer, never from protocol markup."""

from __future__ import annotations

import pytest

from harness.conversation._titles import plain_title, title_from, title_request


@pytest.mark.parametrize(
    "answer",
    [
        "<tool_call>",
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.md"}}\n</tool_call>',
        '```tool_call\n{"tool_name": "list_dir", "path": "."}\n```',
        '```tool_code\nread_file(path="a.py")\n```',
        '{"name": "write_file", "arguments": {"path": "a"}}',
        "<think>the user wants a title</think>",
        "```\n```",
        "**",
    ],
)
def test_markup_is_no_title(answer: str) -> None:
    assert title_from(answer) == ""


@pytest.mark.parametrize(
    ("answer", "title"),
    [
        ('"Fix the parser"', "Fix the parser"),
        ("**Title:** Fix login bug", "Fix login bug"),
        ("<think>short, then</think>\nRefactor the CLI", "Refactor the CLI"),
        ("# Database setup\n\nmore", "Database setup"),
        ("<tool_call>\n</tool_call>\nAdd retries to fetch", "Add retries to fetch"),
    ],
)
def test_the_title_in_an_answer(answer: str, title: str) -> None:
    assert title_from(answer) == title


def test_plain_title_is_the_users_words_without_tags() -> None:
    assert plain_title("<tool_call> fix the bug in main.py please now and then more") == (
        "fix the bug in main.py please now and"
    )
    assert plain_title("<tool_call> </tool_call>") == ""


def test_the_request_shows_the_prompt_and_the_answers_start() -> None:
    text = title_request("make it faster", "I profiled it. " * 100)
    assert text.startswith("The user asked:\nmake it faster")
    assert "The answer began:\nI profiled it." in text
    assert len(text) < 800
    assert "answer" not in title_request("hi", "  ").split("\n", 1)[1]
