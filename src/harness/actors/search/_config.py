"""Settings of the search worker, read from its environment.

Every base URL is a setting so that tests (and a company mirror) can point a source
anywhere; the defaults are the public, keyless endpoints. A bad value is a
:class:`ValueError` that names the variable.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

__all__ = ["SOURCES", "SearchConfig"]

#: Every source search_web knows, in the order their candidates are interleaved.
SOURCES: tuple[str, ...] = ("searxng", "duckduckgo", "wikipedia", "stackexchange", "github")

_DEFAULT_URLS = {
    "duckduckgo": "https://html.duckduckgo.com",
    "wikipedia": "https://en.wikipedia.org",
    "stackexchange": "https://api.stackexchange.com",
    "github": "https://api.github.com",
}


@attrs.frozen
class SearchConfig:
    """How the search worker searches and fetches.

    Attributes:
        sources: the sources search_web asks (default: every keyless one, and
            ``searxng`` when *searxng_url* is set).
        urls: base URL per source.
        source_timeout: seconds each source has to answer (default 5); a slower
            one is skipped and named.
        page_timeout: seconds to fetch one page, redirects included (default 10).
        max_pages: pages search_web fetches and ranks (default 10).
        max_bytes: bytes read of one response (default 5 MB); the rest is cut.
        max_redirects: redirects followed per fetch (default 5).
        max_chars: characters of text a get_url or call_api answer keeps (default 40,000).
        results: passages a search answer gives (default 5).
        allow_link_local: let fetches reach link-local and cloud metadata addresses.
        private_pages: let search_web read result pages on this machine or a private
            network (``HARNESS_SEARCH_PRIVATE_PAGES``; default no: a result's address
            is chosen by the web). The sources themselves are the user's settings and
            may be anywhere (a SearXNG on 127.0.0.1).
        user_agent: what requests say they are.
    """

    sources: tuple[str, ...] = ("duckduckgo", "wikipedia", "stackexchange", "github")
    urls: Mapping[str, str] = attrs.field(factory=lambda: dict(_DEFAULT_URLS))
    source_timeout: float = 5.0
    page_timeout: float = 10.0
    max_pages: int = 10
    max_bytes: int = 5_000_000
    max_redirects: int = 5
    max_chars: int = 40_000
    results: int = 5
    allow_link_local: bool = False
    private_pages: bool = False
    user_agent: str = "harness (terminal coding agent)"

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> SearchConfig:
        """Read ``HARNESS_SEARCH_*``, ``HARNESS_FETCH_*`` and ``SEARXNG_URL``.

        Raises:
            ValueError: a value that does not parse; the message names the variable.
        """
        d = cls()
        urls = dict(_DEFAULT_URLS)
        for name in _DEFAULT_URLS:
            value = environ.get(f"HARNESS_SEARCH_{name.upper()}_URL", "").strip()
            if value:
                urls[name] = value
        searxng = environ.get("SEARXNG_URL", "").strip()
        if searxng:
            urls["searxng"] = searxng
        listed = environ.get("HARNESS_SEARCH_SOURCES", "").strip()
        if listed:
            sources = tuple(s.strip().lower() for s in listed.split(",") if s.strip())
            unknown = [s for s in sources if s not in SOURCES]
            if unknown:
                raise ValueError(
                    f"HARNESS_SEARCH_SOURCES: unknown source {unknown[0]!r} "
                    f"(the sources are: {', '.join(SOURCES)})"
                )
            if "searxng" in sources and not searxng:
                raise ValueError("HARNESS_SEARCH_SOURCES names searxng but SEARXNG_URL is not set")
        else:
            sources = d.sources
            if searxng:
                sources = ("searxng", *sources)
        return cls(
            sources=tuple(s for s in SOURCES if s in sources),
            urls=urls,
            source_timeout=_number(environ, "HARNESS_SEARCH_SOURCE_TIMEOUT", d.source_timeout),
            page_timeout=_number(environ, "HARNESS_SEARCH_PAGE_TIMEOUT", d.page_timeout),
            max_pages=int(_number(environ, "HARNESS_SEARCH_MAX_PAGES", d.max_pages)),
            results=int(_number(environ, "HARNESS_SEARCH_RESULTS", d.results)),
            max_bytes=int(_number(environ, "HARNESS_FETCH_MAX_BYTES", d.max_bytes)),
            max_redirects=int(_number(environ, "HARNESS_FETCH_MAX_REDIRECTS", d.max_redirects)),
            max_chars=int(_number(environ, "HARNESS_FETCH_MAX_CHARS", d.max_chars)),
            allow_link_local=_flag(environ, "HARNESS_FETCH_ALLOW_LINK_LOCAL"),
            private_pages=_flag(environ, "HARNESS_SEARCH_PRIVATE_PAGES"),
        )


def _flag(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "0").strip().lower() in ("1", "true", "yes", "on")


def _number(environ: Mapping[str, str], name: str, default: float) -> float:
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text!r}") from None
    if value <= 0 and name != "HARNESS_FETCH_MAX_REDIRECTS":
        raise ValueError(f"{name} must be above 0, got {text!r}")
    if value < 0:
        raise ValueError(f"{name} must be 0 or more, got {text!r}")
    return value
