import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from harness.cli.tui._sanitize import clean, clean_line, markup_safe

HOSTILE = [
    "\x1b[2J\x1b[H",  # clear screen, home
    "\x1b]0;pwned\x07",  # set window title
    "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\",  # hyperlink
    "\x1bP+q544e\x1b\\",  # DCS query
    "\x1bc",  # full reset
    "\x9b2J",  # 8-bit CSI
    "\x1b[?1049h",  # alternate screen
    "\x07\x08\x7f",
]


@pytest.mark.parametrize("seq", HOSTILE)
def test_control_sequences_are_removed(seq: str) -> None:
    out = clean("before" + seq + "after")
    assert "\x1b" not in out
    assert "\x9b" not in out
    assert "\x07" not in out
    assert out.startswith("before")
    assert out.endswith("after")


def test_hyperlink_keeps_its_visible_text_only() -> None:
    assert clean("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\") == "link"


def test_newlines_tabs_kept_carriage_returns_become_newlines() -> None:
    assert clean("a\tb\r\nc\rd\n") == "a\tb\nc\nd\n"


def test_markup_is_escaped() -> None:
    console = Console(file=io.StringIO(), width=40, color_system=None)
    console.print("[dim]x[/dim] " + markup_safe("[bold red]boom[/] \x1b[31m"))
    assert console.file.getvalue() == "x [bold red]boom[/] \n"


def test_clean_line_folds_whitespace() -> None:
    assert clean_line("  a\n\tb  \x1b[1mc ") == "a b c"


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FF)))
def test_no_control_survives(text: str) -> None:
    out = clean(text)
    assert not any((ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F for c in out)
    # What survives prints as itself: rich adds nothing that could be a sequence.
    console = Console(file=io.StringIO(), width=80, color_system=None)
    console.print(Text(out), end="")
    assert "\x1b" not in console.file.getvalue()
