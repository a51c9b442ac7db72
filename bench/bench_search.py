"""Benchmarks of the search worker's ranking, extraction and whole searches.

- BM25 ranking of 50 pages of Python's documentation (about 2 MB of text) for a
  query (goal: under 100 ms), beside a bare ``\\w+`` tokenisation of the same text;
- the extraction library alone (selectolax) on those 50 pages;
- a whole ``search_web`` against four loopback sources and a page server, each
  answering after 50 ms (goal: under 1 s end to end), beside the extraction time
  of the pages that search read;
- fetching a 4 MB page sent gzip-encoded (decoded under the byte cap, step by step),
  beside the same page sent as it is.

Run: ``python -m bench.bench_search`` (or ``make bench``); needs python3.11-doc.
"""

from __future__ import annotations

import gzip
import re
import statistics
import time

import trio
from tests.search import _web

from bench._timing import median, ms
from harness.actors.search import (
    Fetcher,
    Page,
    SearchConfig,
    SearchService,
    extract,
    parse_query,
    rank,
)
from harness.messages.tools import ToolInvoke

PAGES = 50
TEXT = 2_000_000
QUERY = "python asyncio TaskGroup cancel"
LATENCY = 0.05


def _pool() -> tuple[list[str], list[Page]]:
    """50 pages whose text adds up to about 2 MB: a run of similar sizes, largest last."""
    texts = []
    for path in sorted((_web.DOCS / "library").glob("*.html")):
        html = path.read_text(errors="replace")
        got = extract(html)
        texts.append((len(got.text), path.name, html, Page(path.name, got.title, got.text)))
    texts.sort(key=lambda t: t[0])
    best = 0
    for start in range(len(texts) - PAGES + 1):
        if sum(t[0] for t in texts[start : start + PAGES]) <= TEXT:
            best = start
    chosen = texts[best : best + PAGES]
    return [t[2] for t in chosen], [t[3] for t in chosen]


async def _search_once(config: SearchConfig) -> float:
    service = SearchService(config)
    try:
        started = time.perf_counter()
        out = await service.invoke(ToolInvoke(name="search_web", arguments={"query": QUERY}))
        took = time.perf_counter() - started
    finally:
        await service.aclose()
    assert out.data.get("found"), out.output
    return took


def _whole_search() -> tuple[float, float, int]:
    names = ["asyncio-task", "asyncio-api-index", "asyncio", "asyncio-eventloop", "asyncio-sync"]
    names += ["threading", "concurrent.futures", "contextvars", "queue", "select"]
    with (
        _web.Site(latency=LATENCY) as docs,
        _web.Site(latency=LATENCY) as ddg,
        _web.Site(latency=LATENCY) as wiki,
        _web.Site(latency=LATENCY) as se,
        _web.Site(latency=LATENCY) as gh,
    ):
        _web.docs_site(docs)
        urls = [f"{docs.url}/docs/library/{n}.html" for n in names]
        _web.duckduckgo(ddg, lambda q: urls[:6])
        _web.wikipedia(wiki, lambda q: ["Python (programming language)"])
        _web.stackexchange(se, lambda q: [])
        _web.github(gh, lambda q: [])
        config = SearchConfig(
            sources=("duckduckgo", "wikipedia", "stackexchange", "github"),
            urls={
                "duckduckgo": ddg.url,
                "wikipedia": wiki.url,
                "stackexchange": se.url,
                "github": gh.url,
            },
            private_pages=True,  # the pages are on loopback, which a real search does not read
        )
        trio.run(_search_once, config)  # warm: imports, the TLS context, the thread pool
        took = statistics.median(trio.run(_search_once, config) for _ in range(5))
    htmls = [(_web.DOCS / "library" / f"{n}.html").read_text() for n in names[:6]]
    alone = median(lambda: [extract(h) for h in htmls], 5)
    return took, alone, len(htmls)


async def _fetch_page(url: str) -> float:
    fetcher = Fetcher()
    try:
        await fetcher.fetch(url)  # warm: the worker keeps one fetcher and its connections
        started = time.perf_counter()
        resp = await fetcher.fetch(url)
        took = time.perf_counter() - started
    finally:
        await fetcher.aclose()
    assert len(resp.body) == 4_000_000
    assert not resp.truncated
    return took


def _gzip_fetch() -> tuple[float, float]:
    body = (b"<p>" + b"filler text for a large page, " * 40 + b"</p>\n") * 3400
    body = body[:4_000_000]
    packed = gzip.compress(body, compresslevel=6)
    with _web.Site() as site:
        site.route("/plain", lambda req: _web.Page(body=body))
        site.route(
            "/gzip", lambda req: _web.Page(body=packed, headers={"Content-Encoding": "gzip"})
        )
        plain = statistics.median(trio.run(_fetch_page, f"{site.url}/plain") for _ in range(5))
        packed_took = statistics.median(trio.run(_fetch_page, f"{site.url}/gzip") for _ in range(5))
    return plain, packed_took


def run() -> list[tuple[str, str, str]]:
    htmls, pages = _pool()
    size = sum(len(p.text) for p in pages)
    query = parse_query(QUERY)
    words = re.compile(r"\w+")
    bare = median(lambda: [words.findall(p.text.lower()) for p in pages], 5)
    ranked = median(lambda: rank(query, pages), 5)
    extracting = median(lambda: [extract(h) for h in htmls], 3)
    took, alone, read = _whole_search()
    plain, packed = _gzip_fetch()
    return [
        (
            f"\\w+ tokenisation of {len(pages)} pages (baseline)",
            ms(bare),
            f"{size / 1e6:.2f} MB of text",
        ),
        ("BM25 ranking of the same pages", ms(ranked), f"{ranked / bare:.2f}x (goal < 100 ms)"),
        (
            "extraction alone (selectolax), the same pages",
            ms(extracting),
            f"{sum(len(h) for h in htmls) / 1e6:.1f} MB of HTML",
        ),
        (
            f"whole search_web, 4 sources + pages at {LATENCY * 1000:.0f} ms each",
            ms(took),
            f"goal < 1 s; extraction of its {read} pages alone: {ms(alone)}",
        ),
        ("fetch of a 4 MB page, sent as it is (baseline)", ms(plain), ""),
        ("the same page sent gzip-encoded", ms(packed), f"{packed / plain:.2f}x"),
    ]


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
