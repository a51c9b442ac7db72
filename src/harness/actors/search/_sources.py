"""The search sources: one request each, in its own wire format, to candidate pages.

Each source turns a query into :class:`Candidate` pages. A candidate may carry
its text already (Stack Exchange and GitHub answer with the question or issue
body), so it need not be fetched again. Any failure (HTTP error, refused
address, an answer that is not the expected JSON or HTML) raises
:class:`SourceError` with a short reason; the search skips that source and names it.
"""

from __future__ import annotations

import html
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import orjson
from selectolax.lexbor import LexborHTMLParser

from harness.actors.search._fetch import Fetcher, FetchError
from harness.actors.search._query import Query
from harness.errors import ToolError

__all__ = ["SOURCE_FUNCTIONS", "Candidate", "SourceError", "ask_source"]

_PER_SOURCE = 8
_API_BYTES = 3_000_000


class SourceError(ToolError):
    """A source that gave nothing usable; the message says why in a few words."""


@attrs.frozen
class Candidate:
    """A page a source proposed.

    Attributes:
        url: where it is.
        title: its title as the source gave it.
        source: which source proposed it.
        body: its text when the source sent it along (``None``: fetch the page).
        body_html: *body* is HTML (Stack Exchange) rather than plain text or Markdown.
    """

    url: str
    title: str
    source: str
    body: str | None = None
    body_html: bool = False


async def _get(fetcher: Fetcher, url: str, timeout: float, **headers: str) -> tuple[bytes, str]:
    try:
        resp = await fetcher.fetch(url, headers=headers, timeout=timeout, max_bytes=_API_BYTES)
    except FetchError as exc:
        raise SourceError(str(exc)) from exc
    if resp.status != 200:
        raise SourceError(f"answered HTTP {resp.status} {resp.reason}".strip())
    return resp.body, resp.content_type


def _json(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise SourceError(f"answered with something that is not JSON ({exc})") from exc


def _url(base: str, path: str, params: dict[str, str]) -> str:
    return base.rstrip("/") + path + "?" + urllib.parse.urlencode(params)


async def duckduckgo(fetcher: Fetcher, base: str, query: Query, timeout: float) -> list[Candidate]:
    """DuckDuckGo's HTML endpoint: result links, unwrapped from its redirector."""
    body, _ = await _get(fetcher, _url(base, "/html/", {"q": query.text}), timeout)
    tree = LexborHTMLParser(body.decode("utf-8", errors="replace"))
    out: list[Candidate] = []
    for link in tree.css("a.result__a"):
        parent = link.parent
        if parent is not None and "result--ad" in (parent.attributes.get("class") or ""):
            continue
        href = link.attributes.get("href") or ""
        url = _unwrap(href)
        if url:
            out.append(Candidate(url=url, title=link.text(strip=True), source="duckduckgo"))
    return out[:_PER_SOURCE]


def _unwrap(href: str) -> str:
    if href.startswith("//"):
        href = "https:" + href
    parsed = urllib.parse.urlparse(href)
    target = urllib.parse.parse_qs(parsed.query).get("uddg")
    if target:
        return target[0]
    return href if parsed.scheme in ("http", "https") else ""


async def wikipedia(fetcher: Fetcher, base: str, query: Query, timeout: float) -> list[Candidate]:
    """Wikipedia's search API: article titles, fetched as pages afterwards."""
    params = {
        "action": "query",
        "list": "search",
        "srsearch": query.text,
        "format": "json",
        "srlimit": "5",
        "utf8": "1",
    }
    body, _ = await _get(fetcher, _url(base, "/w/api.php", params), timeout)
    data = _json(body)
    try:
        hits = data["query"]["search"]
    except (KeyError, TypeError) as exc:
        raise SourceError("answered without query.search") from exc
    root = base.rstrip("/")
    return [
        Candidate(
            url=f"{root}/wiki/{urllib.parse.quote(str(h['title']).replace(' ', '_'))}",
            title=str(h["title"]),
            source="wikipedia",
        )
        for h in hits
        if isinstance(h, dict) and h.get("title")
    ]


async def stackexchange(
    fetcher: Fetcher, base: str, query: Query, timeout: float
) -> list[Candidate]:
    """Stack Exchange's search API on Stack Overflow, question bodies included."""
    params = {
        "order": "desc",
        "sort": "relevance",
        "q": query.distilled(_rare(query)),
        "site": "stackoverflow",
        "filter": "withbody",
        "pagesize": "5",
    }
    body, _ = await _get(fetcher, _url(base, "/2.3/search/advanced", params), timeout)
    data = _json(body)
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise SourceError("answered without items")
    return [
        Candidate(
            url=str(i["link"]),
            title=html.unescape(str(i.get("title", ""))),
            source="stackexchange",
            body=str(i.get("body") or "") or None,
            body_html=True,
        )
        for i in items
        if isinstance(i, dict) and i.get("link")
    ]


async def github(fetcher: Fetcher, base: str, query: Query, timeout: float) -> list[Candidate]:
    """GitHub's issue search (keyless; code search needs a token), issue bodies included."""
    params = {"q": query.distilled(_rare(query)), "per_page": "5"}
    body, _ = await _get(
        fetcher,
        _url(base, "/search/issues", params),
        timeout,
        Accept="application/vnd.github+json",
    )
    data = _json(body)
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise SourceError("answered without items")
    return [
        Candidate(
            url=str(i["html_url"]),
            title=str(i.get("title", "")),
            source="github",
            body=str(i.get("body") or "") or None,
        )
        for i in items
        if isinstance(i, dict) and i.get("html_url")
    ]


async def searxng(fetcher: Fetcher, base: str, query: Query, timeout: float) -> list[Candidate]:
    """A SearXNG instance's JSON API (``format=json`` must be enabled on it)."""
    body, _ = await _get(
        fetcher, _url(base, "/search", {"q": query.text, "format": "json"}), timeout
    )
    data = _json(body)
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise SourceError("answered without results")
    return [
        Candidate(url=str(r["url"]), title=str(r.get("title", "")), source="searxng")
        for r in results
        if isinstance(r, dict) and r.get("url")
    ][:_PER_SOURCE]


def _rare(query: Query) -> tuple[str, ...]:
    # Without the pool's statistics yet, the longest words are the best guess at rare ones.
    words = sorted((t for t in query.terms if len(t) >= 5), key=len, reverse=True)
    return tuple(words[:2])


SourceFunction = Callable[[Fetcher, str, Query, float], Awaitable[list[Candidate]]]

#: Each source's function, by name.
SOURCE_FUNCTIONS: dict[str, SourceFunction] = {
    "searxng": searxng,
    "duckduckgo": duckduckgo,
    "wikipedia": wikipedia,
    "stackexchange": stackexchange,
    "github": github,
}


async def ask_source(
    name: str, fetcher: Fetcher, base: str, query: Query, timeout: float
) -> list[Candidate]:
    """The candidates of source *name*; raises :class:`SourceError` when it gave none usable."""
    return await SOURCE_FUNCTIONS[name](fetcher, base, query, timeout)
