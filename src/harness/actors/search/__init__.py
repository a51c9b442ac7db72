"""The search actor: web search, page fetching and extraction, in their own worker.

``python -m harness.actors.search`` answers ``ToolInvoke`` for ``search_web``,
``get_url`` and ``call_api``. Everything here (httpx, the HTML parser) is imported
by the worker only, never by the conversation's process.
"""

from harness.actors.search._config import SOURCES, SearchConfig
from harness.actors.search._extract import Extracted, extract
from harness.actors.search._fetch import Fetcher, FetchError, Hop, Response
from harness.actors.search._guard import AddressRefused, GuardedBackend, Resolver, refusal
from harness.actors.search._query import Query, parse_query
from harness.actors.search._rank import Page, Passage, Ranking, count_terms, rank, split_passages
from harness.actors.search._search import SearchReport, render, search
from harness.actors.search._service import TOOLS, SearchService
from harness.actors.search._sources import Candidate, SourceError
from harness.actors.search._text import decode, is_binary, is_html, media_type

__all__ = [
    "SOURCES",
    "TOOLS",
    "AddressRefused",
    "Candidate",
    "Extracted",
    "FetchError",
    "Fetcher",
    "GuardedBackend",
    "Hop",
    "Page",
    "Passage",
    "Query",
    "Ranking",
    "Resolver",
    "Response",
    "SearchConfig",
    "SearchReport",
    "SearchService",
    "SourceError",
    "count_terms",
    "decode",
    "extract",
    "is_binary",
    "is_html",
    "media_type",
    "parse_query",
    "rank",
    "refusal",
    "render",
    "search",
    "split_passages",
]
