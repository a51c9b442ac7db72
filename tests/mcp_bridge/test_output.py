"""What a server says, cleaned and capped before a model or a terminal sees it."""

from __future__ import annotations

from harness.actors.mcp._output import OUTPUT_CAP, StderrTail, cap_text, clean_text


def test_escape_sequences_and_controls_are_dropped() -> None:
    raw = (
        "\x1b[31mred\x1b[0m \x1b]0;title\x07tab\there\r\nbell\x07 \x1b]8;;http://x\x1b\\link\x9b2J"
    )
    assert clean_text(raw) == "red tab\there\nbell link"


def test_long_text_keeps_head_and_tail() -> None:
    text = "h" * OUTPUT_CAP + "m" * 10_000 + "t" * OUTPUT_CAP
    out = cap_text(text)
    assert len(out) < OUTPUT_CAP + 100
    assert out.startswith("h" * 1000)
    assert out.endswith("t" * 1000)
    cut = len(text) - OUTPUT_CAP * 2 // 3 - OUTPUT_CAP // 3
    assert f"[... {cut} characters cut ...]" in out
    assert cap_text("short") == "short"


def test_stderr_tail_keeps_the_last_lines_cleaned() -> None:
    tail = StderrTail(lines=3, chars=100)
    tail.feed(b"one\ntwo\n\x1b[1mthree\x1b[0m\nfou")
    tail.feed(b"r\nfive")
    assert tail.text() == "two\nthree\nfour\nfive"
    tail.feed("\n".join(str(i) * 50 for i in range(5)).encode() + b"\n")
    assert len(tail.text()) == 100
