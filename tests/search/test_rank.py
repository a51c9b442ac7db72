"""Passages, BM25 with the pool's own IDF, and the relevance floor, on real pages."""

from __future__ import annotations

from functools import cache

from harness.actors.search import (
    Page,
    count_terms,
    extract,
    parse_query,
    rank,
    split_passages,
)
from tests.search._web import DOCS


@cache
def _pages(*names: str) -> tuple[Page, ...]:
    out = []
    for name in names:
        got = extract((DOCS / "library" / f"{name}.html").read_text())
        out.append(Page(url=name, title=got.title, text=got.text))
    return tuple(out)


POOL = ("bisect", "heapq", "array", "collections", "functools", "operator")


def test_a_term_in_every_page_weighs_almost_nothing() -> None:
    pages = _pages(*POOL)
    every = rank(parse_query("python"), pages)
    one = rank(parse_query("insort"), pages)
    assert every.passages
    assert one.passages
    assert one.passages[0].score > 5 * every.passages[0].score


def test_the_discriminative_term_beats_the_entity_every_page_names() -> None:
    pages = _pages(*POOL)
    ranking = rank(parse_query("python list insort_left"), pages)
    assert ranking.required == ("insort_left",)
    assert ranking.passages[0].url == "bisect"
    assert all("insort_left" in p.text for p in ranking.passages)
    assert set(ranking.rejected) == set(POOL) - {"bisect"}


def test_plain_words_need_the_rarest_one() -> None:
    pages = _pages(*POOL)
    ranking = rank(parse_query("python heap priority queue"), pages)
    assert ranking.required  # the rarest of the query's words in this pool
    assert all(any(t in p.text.lower() for t in ranking.required) for p in ranking.passages)
    assert ranking.passages[0].url == "heapq"


def test_nothing_clears_the_floor_for_a_term_no_page_has() -> None:
    ranking = rank(parse_query("python bisect frobnicate"), _pages(*POOL))
    assert ranking.required == ("frobnicate",)
    assert ranking.passages == ()
    assert set(ranking.rejected) == set(POOL)


def test_a_dotted_identifier_is_also_found_by_its_last_part() -> None:
    ranking = rank(parse_query("`functools.cache` decorator"), _pages(*POOL))
    assert ranking.required == ("functools.cache", "cache")
    assert ranking.passages[0].url == "functools"


def test_at_most_two_passages_come_from_one_page() -> None:
    ranking = rank(parse_query("insort"), _pages(*POOL))
    assert [p.url for p in ranking.passages].count("bisect") == 2


def test_terms_count_only_as_whole_words() -> None:
    text = "num_ctx sets it; num_ctx_max and xnum_ctx do not; (num_ctx) does."
    assert count_terms(text, ["num_ctx", "sets", "absent"]) == {"num_ctx": 2, "sets": 1}


def test_passages_are_a_few_paragraphs_and_long_ones_are_cut() -> None:
    text = "\n\n".join(["short heading", "a" * 300, "b " * 400, "c. " * 2000, "tail"])
    passages = split_passages(text)
    assert all(len(p) <= 1700 for p in passages)
    assert passages[0].startswith("short heading\n\naaa")
    assert passages[-1].endswith("tail")
    assert "".join(passages).count("c.") == 2000


def test_identifiers_and_terms_of_a_query() -> None:
    q = parse_query("How do I set the ollama num_ctx in Python 3.11 with `Path.walk`?")
    assert q.identifiers == ("num_ctx", "path.walk")
    assert "ollama" in q.terms
    assert "the" not in q.terms
    assert q.distilled(("ollama",)) == "num_ctx path.walk ollama"
