"""Page text from real pages, and the parsers fuzzed with hypothesis."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.actors.search import decode, extract, is_binary, parse_query, split_passages
from tests.search._web import DOCS


def test_a_documentation_page_keeps_its_content_and_drops_its_chrome() -> None:
    got = extract((DOCS / "library" / "bisect.html").read_text())
    assert got.title.startswith("bisect — Array bisection algorithm")
    assert "Locate the insertion point for x in a to maintain sorted order." in got.text
    for chrome in ("Previous topic", "Next topic", "This Page", "Report a Bug", "Show Source"):
        assert chrome not in got.text
    assert "¶" not in got.text
    # a code block keeps its lines and indentation
    assert "def index(a, x):\n    'Locate the leftmost value exactly equal to x'" in got.text


def test_every_library_page_gives_text() -> None:
    pages = sorted((DOCS / "library").glob("*.html"))
    assert len(pages) > 200
    empty = [p.name for p in pages if len(extract(p.read_text()).text) < 100]
    assert empty == []


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_decode_and_extract(raw: bytes) -> None:
    text, encoding = decode(raw, "text/html")
    assert encoding
    extract(text)
    is_binary("", raw)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["<p>", "</p>", "<div>", "<pre>", "</pre>", "<script>", "<!--", "x y", "\n"]
        ),
        max_size=60,
    )
)
def test_tag_soup_never_breaks_the_extraction(parts: list[str]) -> None:
    got = extract("".join(parts))
    assert "<" not in got.text.replace("<!--", "")


_PARAGRAPHS = st.lists(
    st.text(alphabet=st.sampled_from("ab .!?\n"), max_size=2500), max_size=12
).map("\n\n".join)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=3000), _PARAGRAPHS))
def test_passages_keep_every_character_but_blanks(text: str) -> None:
    passages = split_passages(text)
    assert "".join("".join(passages).split()) == "".join(text.split())
    assert all(p.strip() == p and p for p in passages)
    assert all(len(p) <= 1700 for p in passages)  # a few paragraphs, never a whole page


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_query_parses(text: str) -> None:
    q = parse_query(text)
    assert all(t == t.lower() for t in q.terms)
