"""Passages of fetched pages ranked by BM25, and the relevance floor.

The pages are split into passages of a few paragraphs. BM25 scores each passage
against the query's terms, with term frequency and length normalised per passage
but IDF computed over the *pages* of this search: a word every candidate page
contains (the entity all of them are about) weighs close to nothing, and the
word only one page explains weighs most.

The floor: a passage counts only if it holds the query's discriminative term:
one of its explicit identifiers (``num_ctx``; for ``asyncio.TaskGroup`` also
``TaskGroup``), or, for a query of plain words, its rarest term in the pool. When
no passage clears it, the search found nothing relevant, and says so.

Only the query's own terms are counted, by ``str.find`` with a word-boundary check
at each hit, never by tokenising every passage or scanning it with a regular
expression; and only the pages that hold a term the floor requires are split into
passages at all. Both keep 2 MB of text well under 100 ms.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import attrs

from harness.actors.search._query import Query

__all__ = ["Page", "Passage", "Ranking", "count_terms", "rank", "split_passages"]

K1 = 1.2
B = 0.75
_TARGET = 700  # characters a passage grows to before it is closed
_LIMIT = 1600  # a paragraph longer than this is cut at sentence ends
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")


@attrs.frozen
class Page:
    """A fetched page's text, paragraphs separated by blank lines."""

    url: str
    title: str
    text: str


@attrs.frozen
class Passage:
    """One scored passage of a page."""

    url: str
    title: str
    text: str
    score: float


@attrs.frozen
class Ranking:
    """The passages that cleared the floor, best first, and what the floor demanded.

    Attributes:
        passages: every passage that cleared the floor, best first.
        required: the terms one of which each passage had to hold.
        rejected: URLs of the pages none of whose passages cleared it.
    """

    passages: tuple[Passage, ...]
    required: tuple[str, ...]
    rejected: tuple[str, ...]


def split_passages(text: str) -> list[str]:
    """*text* cut into passages of a few paragraphs (about 700 characters each)."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for para in text.split("\n\n"):
        para = para.strip()
        if not para:
            continue
        pieces = [para] if len(para) <= _LIMIT else _cut(para)
        for piece in pieces:
            if size and size + len(piece) > _LIMIT:
                out.append("\n\n".join(current))
                current, size = [], 0
            current.append(piece)
            size += len(piece)
            if size >= _TARGET:
                out.append("\n\n".join(current))
                current, size = [], 0
    if current:
        out.append("\n\n".join(current))
    return out


def _cut(para: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    last = 0
    for m in _SENTENCE.finditer(para):
        if m.start() - start > _TARGET and last > start:
            pieces.append(para[start:last])
            start = last
        last = m.end()
    pieces.append(para[start:])
    out: list[str] = []
    for piece in pieces:
        while len(piece) > _LIMIT:
            # no sentence end for a long way (minified text, a table): cut at a space
            cut = piece.rfind(" ", 0, _LIMIT)
            cut = cut if cut > 0 else _LIMIT
            out.append(piece[:cut].strip())
            piece = piece[cut:]
        out.append(piece.strip())
    return [p for p in out if p]


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def count_terms(low: str, terms: Sequence[str]) -> dict[str, int]:
    """How often each of *terms* occurs in *low* as a whole word (not inside a longer one)."""
    counts: dict[str, int] = {}
    end = len(low)
    for term in terms:
        n = 0
        size = len(term)
        at = low.find(term)
        while at >= 0:
            after = at + size
            if (at == 0 or not _is_word(low[at - 1])) and (
                after == end or not _is_word(low[after])
            ):
                n += 1
            at = low.find(term, after)
        if n:
            counts[term] = n
    return counts


def _floor_forms(query: Query) -> dict[str, tuple[str, ...]]:
    """Each identifier with the forms that satisfy it (``asyncio.taskgroup``, ``taskgroup``)."""
    forms: dict[str, tuple[str, ...]] = {}
    for ident in query.identifiers:
        last = re.split(r"\.|::|/", ident)[-1]
        extra = (last,) if last != ident and len(last) >= 4 else ()
        forms[ident] = (ident, *extra)
    return forms


def rank(query: Query, pages: Sequence[Page], *, per_page: int = 2) -> Ranking:
    """Rank the passages of *pages* for *query* and apply the floor.

    At most *per_page* passages of one page are kept, so one long page cannot fill
    the answer.
    """
    forms = _floor_forms(query)
    counted = list(dict.fromkeys([*query.terms, *(f for fs in forms.values() for f in fs)]))
    if not counted:
        return Ranking(passages=(), required=(), rejected=tuple(p.url for p in pages))
    # Document frequency from whole pages; only pages holding a required term are
    # split into passages at all (most pages of a pool lack the rare term).
    page_counts = [count_terms(page.text.lower(), counted) for page in pages]
    page_df: Counter[str] = Counter()
    for counts in page_counts:
        page_df.update(counts.keys())
    n = len(pages)
    if forms:
        required = tuple(f for fs in forms.values() for f in fs)
    else:
        # the rarest term of the pool; a term no page holds is the rarest of all
        rarest = min(page_df.get(t, 0) for t in query.terms)
        required = tuple(t for t in query.terms if page_df.get(t, 0) == rarest)
    rows: list[tuple[int, str, dict[str, int], int]] = []  # page, text, counts, length
    for index, page in enumerate(pages):
        if not any(page_counts[index].get(t) for t in required):
            continue
        for text in split_passages(page.text):
            low = text.lower()
            rows.append((index, text, count_terms(low, counted), low.count(" ") + 1))
    idf = {t: math.log(1 + (n - page_df[t] + 0.5) / (page_df[t] + 0.5)) for t in counted}
    # The average passage length of the pages split: they are what the scores compare.
    avg = sum(r[3] for r in rows) / len(rows) if rows else 1.0
    scored: list[tuple[float, int, int, str]] = []
    for order, (index, text, counts, length) in enumerate(rows):
        if not any(counts.get(t) for t in required):
            continue
        norm = K1 * (1 - B + B * length / avg)
        score = sum(idf[t] * c * (K1 + 1) / (c + norm) for t, c in counts.items())
        scored.append((score, order, index, text))
    scored.sort(key=lambda s: (-s[0], s[1]))
    kept: list[Passage] = []
    per: Counter[int] = Counter()
    for score, _order, index, text in scored:
        if per[index] >= per_page:
            continue
        per[index] += 1
        page = pages[index]
        kept.append(Passage(url=page.url, title=page.title, text=text, score=score))
    cleared = set(per)
    return Ranking(
        passages=tuple(kept),
        required=required,
        rejected=tuple(p.url for i, p in enumerate(pages) if i not in cleared),
    )
