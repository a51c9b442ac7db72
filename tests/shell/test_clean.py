"""Output cleaning: escapes, redraws, decoding, head and tail."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from harness.actors.shell._clean import CappedText, StreamDecoder, TerminalCleaner


def clean(text: str) -> str:
    c = TerminalCleaner()
    return c.feed(text) + c.flush_line()


def test_colour_and_cursor_sequences_are_dropped() -> None:
    raw = "\x1b[1;31mred\x1b[0m plain \x1b[2K\x1b[10;20Hmoved\x1b]0;title\x07 \x1b(Bdone\n"
    assert clean(raw) == "red plain moved done\n"


def test_osc_with_string_terminator_and_dcs_are_dropped() -> None:
    raw = "a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b\x1bPq#0;2\x1b\\c\n"
    assert clean(raw) == "alinkbc\n"


def test_eight_bit_csi_is_dropped() -> None:
    assert clean("x\x9b31my\n") == "xy\n"


def test_carriage_return_redraws_keep_the_last_state() -> None:
    bar = "".join(f"\r{i:3d}% [{'#' * (i // 10):<10}]" for i in range(0, 101, 5))
    assert clean(bar + "\ndone\r\n") == "100% [##########]\ndone\n"


def test_crlf_is_a_plain_newline() -> None:
    assert clean("one\r\ntwo\r\n") == "one\ntwo\n"


def test_backspace_erases() -> None:
    assert clean("abc\x08\x08X\n") == "aX\n"


def test_sequence_split_across_chunks() -> None:
    raw = "start \x1b[38;5;196mred\x1b[0m\r50%\r100%\r\nend\n"
    for size in (1, 2, 3, 5):
        c = TerminalCleaner()
        out = "".join(c.feed(raw[i : i + size]) for i in range(0, len(raw), size))
        assert out + c.flush_line() == "100%\nend\n", size


def test_cr_at_the_end_of_a_chunk_waits_for_the_next() -> None:
    c = TerminalCleaner()
    assert c.feed("line\r") == ""
    assert c.feed("\n") == "line\n"


@given(st.lists(st.binary(max_size=40), max_size=30))
def test_nothing_that_drives_a_terminal_gets_through(chunks: list[bytes]) -> None:
    d = StreamDecoder("latin-1")
    c = TerminalCleaner()
    out = "".join(c.feed(d.decode(chunk)) for chunk in chunks)
    out += c.feed(d.decode(b"", final=True)) + c.flush_line()
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out)


def test_utf8_split_inside_a_character() -> None:
    d = StreamDecoder("latin-1")
    data = "héllo wörld €".encode()
    out = "".join(d.decode(data[i : i + 1]) for i in range(len(data)))
    assert out + d.decode(b"", final=True) == "héllo wörld €"
    assert not d.switched


def test_not_utf8_switches_to_the_fallback_for_the_rest() -> None:
    d = StreamDecoder("latin-1")
    first = d.decode("ok ✓ ".encode())
    second = d.decode(b"caf\xe9 ")
    third = d.decode("d\xe9j\xe0".encode("latin-1"))
    assert d.switched
    assert first + second + third == "ok ✓ café déjà"


def test_capped_text_keeps_head_and_tail_and_counts_the_cut() -> None:
    cap = CappedText(head=100, tail=100)
    lines = [f"line {i:05d}\n" for i in range(1000)]
    for line in lines:
        cap.append(line)
    text, cut_chars, cut_lines = cap.render()
    assert text.startswith("line 00000\n")
    assert text.endswith("line 00999\n")
    kept = [ln + "\n" for ln in text.splitlines() if ln.startswith("line ")]
    assert cut_lines == len(lines) - len(kept)
    assert cut_chars == sum(map(len, lines)) - sum(map(len, kept))
    assert f"[... {cut_lines} lines ({cut_chars} characters) cut ...]" in text
    assert len(text) < 300


def test_capped_text_short_output_is_untouched() -> None:
    cap = CappedText(head=100, tail=100)
    cap.append("a\nb\n")
    assert cap.render() == ("a\nb\n", 0, 0)
