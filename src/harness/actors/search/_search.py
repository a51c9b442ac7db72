"""search_web: ask the sources, read the best candidates, rank passages, answer.

The sources are asked concurrently, each within ``source_timeout``; one that fails
or is too slow is skipped and named in the answer. Candidates are interleaved
source by source (SearXNG first when it is configured), duplicates dropped, and
the first ``max_pages`` read: a body the source sent along is used as it is, any
other page is fetched (within ``page_timeout``) and reduced to text in a thread,
so heartbeats go on while a large page is parsed. The passages are ranked
(:mod:`~harness.actors.search._rank`), and the answer either cites the best of
them by URL or says that nothing relevant was found and names what was rejected.
"""

from __future__ import annotations

import functools
import urllib.parse

import attrs
import trio

from harness.actors.search._config import SearchConfig
from harness.actors.search._extract import extract
from harness.actors.search._fetch import Fetcher, FetchError
from harness.actors.search._query import Query, parse_query
from harness.actors.search._rank import Page, Ranking, rank
from harness.actors.search._sources import Candidate, SourceError, ask_source
from harness.actors.search._text import decode, is_binary, is_html

__all__ = ["SearchReport", "render", "search"]

_PAGE_BYTES = 2_000_000
_PARALLEL_PAGES = 8
_PASSAGE_CHARS = 1500


@attrs.frozen
class SearchReport:
    """Everything one search found out, before it is written as an answer.

    Attributes:
        query: the parsed query.
        asked: the sources that answered.
        skipped: source -> why it was skipped.
        pages: the pages read.
        unreadable: URL -> why it could not be read.
        ranking: the passages and the floor.
    """

    query: Query
    asked: tuple[str, ...]
    skipped: dict[str, str]
    pages: tuple[Page, ...]
    unreadable: dict[str, str]
    ranking: Ranking


async def search(text: str, fetcher: Fetcher, config: SearchConfig) -> SearchReport:
    """Run one search (see the module docstring)."""
    query = parse_query(text)
    found: dict[str, list[Candidate]] = {}
    skipped: dict[str, str] = {}

    async def one(name: str) -> None:
        with trio.move_on_after(config.source_timeout) as scope:
            try:
                found[name] = await ask_source(
                    name, fetcher, config.urls[name], query, config.source_timeout
                )
            except SourceError as exc:
                skipped[name] = str(exc)
            except Exception as exc:  # an answer this code did not foresee: skip the source
                skipped[name] = f"{type(exc).__name__}: {exc}"
            return
        if scope.cancelled_caught:
            skipped[name] = f"no answer within {config.source_timeout:g} s"

    async with trio.open_nursery() as nursery:
        for name in config.sources:
            nursery.start_soon(one, name)
    candidates = _interleave([found[n] for n in config.sources if n in found])
    chosen = candidates[: config.max_pages]
    pages: dict[int, Page] = {}
    unreadable: dict[str, str] = {}
    limiter = trio.CapacityLimiter(_PARALLEL_PAGES)

    async def read(index: int, cand: Candidate) -> None:
        async with limiter:
            try:
                page = await _read(cand, fetcher, config)
            except FetchError as exc:
                unreadable[cand.url] = str(exc)
                return
            except Exception as exc:  # one odd page must not cost the whole search
                unreadable[cand.url] = f"{type(exc).__name__}: {exc}"
                return
            if page is None:
                unreadable[cand.url] = "not a text page"
            else:
                pages[index] = page

    async with trio.open_nursery() as nursery:
        for index, cand in enumerate(chosen):
            nursery.start_soon(read, index, cand)
    ordered = tuple(pages[i] for i in sorted(pages))
    ranking = await trio.to_thread.run_sync(functools.partial(rank, query, ordered))
    return SearchReport(
        query=query,
        asked=tuple(n for n in config.sources if n in found),
        skipped={n: skipped[n] for n in config.sources if n in skipped},
        pages=ordered,
        unreadable=unreadable,
        ranking=ranking,
    )


def _interleave(lists: list[list[Candidate]]) -> list[Candidate]:
    out: list[Candidate] = []
    seen: set[str] = set()
    for rank_ in range(max((len(x) for x in lists), default=0)):
        for items in lists:
            if rank_ < len(items):
                cand = items[rank_]
                key = _key(cand.url)
                if key not in seen:
                    seen.add(key)
                    out.append(cand)
    return out


def _key(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.lower().removeprefix("www.")
    return f"{host}{parts.path.rstrip('/')}?{parts.query}"


async def _read(cand: Candidate, fetcher: Fetcher, config: SearchConfig) -> Page | None:
    if cand.body is not None:
        if cand.body_html:
            got = await trio.to_thread.run_sync(extract, cand.body)
            return Page(url=cand.url, title=cand.title, text=got.text)
        return Page(url=cand.url, title=cand.title, text=cand.body)
    resp = await fetcher.fetch(
        cand.url,
        timeout=config.page_timeout,
        max_bytes=_PAGE_BYTES,
        want=lambda ctype: not is_binary(ctype),
        # a result's address is the web's choice, not the user's: no page on this
        # machine or a private network is read unless the settings say so
        allow_private=config.private_pages,
    )
    if resp.skipped or resp.status >= 400 or is_binary(resp.content_type, resp.body):
        return None
    text, _ = decode(resp.body, resp.content_type)
    if is_html(resp.content_type, resp.body):
        got = await trio.to_thread.run_sync(extract, text)
        return Page(url=resp.url, title=got.title or cand.title, text=got.text)
    return Page(url=resp.url, title=cand.title, text=text)


def render(report: SearchReport, results: int) -> tuple[bool, str]:
    """``(found anything, the answer's text)`` for *report*, citing at most *results* passages."""
    q = report.query.text
    lines: list[str] = []
    passages = report.ranking.passages[:results]
    if passages:
        pages = len({p.url for p in passages})
        lines.append(
            f'search_web "{q}": {len(passages)} passage(s) from {pages} page(s), '
            f"best first, each with the page it is from."
        )
        for n, p in enumerate(passages, 1):
            title = f" ({p.title})" if p.title else ""
            text = p.text if len(p.text) <= _PASSAGE_CHARS else p.text[:_PASSAGE_CHARS] + " …"
            lines += ["", f"[{n}] {p.url}{title}", text]
    elif not report.pages:
        why = "no source returned a page" if not report.unreadable else "no page could be read"
        lines.append(f'The search found nothing for "{q}": {why}.')
    else:
        need = " or ".join(f"`{t}`" for t in report.ranking.required) or "the query's words"
        lines.append(
            f'The search found nothing relevant to "{q}": none of the {len(report.pages)} '
            f"page(s) read has a passage that mentions {need}."
        )
        lines.append("Pages read and rejected:")
        titles = {p.url: p.title for p in report.pages}
        for url in report.ranking.rejected:
            title = f" ({titles[url]})" if titles.get(url) else ""
            lines.append(f"- {url}{title}")
    if report.unreadable:
        lines += ["", "Could not be read:"]
        lines += [f"- {url}: {why}" for url, why in report.unreadable.items()]
    tail = f"Sources: {', '.join(report.asked) or 'none answered'}"
    if report.skipped:
        tail += "; skipped: " + "; ".join(f"{n} ({why})" for n, why in report.skipped.items())
    lines += ["", tail + "."]
    return bool(passages), "\n".join(lines)
