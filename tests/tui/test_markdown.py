import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console, RenderableType

from harness.cli.tui._markdown import MarkdownStream

DOC = """# Title

Some *text* with `code`
and a second line.

```python
def f(x):
    return x + 1
```

| col | val |
|-----|-----|
| a   | 1   |

1. one
2. two

> quoted

Done."""


def render(chunks: list[str], width: int = 60, **kw: int) -> tuple[str, int]:
    console = Console(file=io.StringIO(), width=width, color_system=None, _environ={})
    emitted: list[RenderableType] = []

    def emit(r: RenderableType) -> None:
        emitted.append(r)
        console.print(r)

    stream = MarkdownStream(emit, **kw)
    for c in chunks:
        stream.feed(c)
    stream.finish()
    return console.file.getvalue(), len(emitted)


def test_whole_document_renders_every_part() -> None:
    out, _ = render([DOC])
    for piece in (
        "Title",
        "Some text with code and a second line.",
        "def f(x):",
        "return x + 1",
        "col",
        "1 one",
        "2 two",
        "quoted",
        "Done.",
    ):
        assert piece in out, piece
    assert "```" not in out
    assert "**" not in out
    assert "| a" not in out


def test_token_by_token_equals_all_at_once() -> None:
    whole, _ = render([DOC])
    by_char, _ = render(list(DOC))
    assert by_char == whole


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(DOC)), max_size=12))
def test_any_split_gives_the_same_output(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [DOC[a:b] for a, b in zip([0, *points], [*points, len(DOC)], strict=True)]
    assert render(chunks)[0] == render([DOC])[0]


def test_settled_blocks_are_emitted_once_and_tail_stays_bounded() -> None:
    emitted: list[RenderableType] = []
    stream = MarkdownStream(emitted.append, max_block_lines=10, code_chunk_lines=8)
    longest_tail = 0
    for i in range(500):
        stream.feed(f"line {i} of a paragraph that never ends\n")
        longest_tail = max(longest_tail, len(str(getattr(stream.tail(), "markup", ""))))
    assert longest_tail < 10 * 45
    assert stream.blocks_emitted >= 49
    stream.feed("```\n")
    for i in range(100):
        stream.feed(f"x = {i}\n")
    assert stream.blocks_emitted >= 49 + 12


def test_open_code_fence_tail_is_code_and_closed_at_finish() -> None:
    out, n = render(["Intro\n\n```python\nprint('hi')\n"])
    assert "print('hi')" in out
    assert n >= 2


def test_escape_sequences_in_model_text_are_stripped() -> None:
    out, _ = render(["hello \x1b[2J\x1b]0;title\x07world\n\nnext"])
    assert "\x1b" not in out
    assert "hello world" in out


def test_one_huge_line_is_settled_in_pieces() -> None:
    emitted: list[RenderableType] = []
    stream = MarkdownStream(emitted.append, max_line_chars=100)
    stream.feed("word " * 1000)
    assert len(emitted) >= 20
    assert len(str(getattr(stream.tail(), "markup", ""))) <= 100
