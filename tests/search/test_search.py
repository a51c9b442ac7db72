"""search_web end to end in-process: real source servers on loopback, real pages."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import trio

from harness.actors.search import SearchService
from harness.messages.tools import ToolInvoke
from tests.search import _web
from tests.search.conftest import doc_urls

# Pages that all speak of Python and of strings; only stdtypes explains removeprefix.
POOL = ("stdtypes", "string", "functions", "text", "re", "codecs", "unicodedata", "textwrap")


async def _search(service: SearchService, query: str) -> Any:
    return await service.invoke(ToolInvoke(name="search_web", arguments={"query": query}))


async def test_the_passage_with_the_discriminative_term_wins(
    docs: _web.Site, make_service: Callable[..., SearchService]
) -> None:
    with _web.Site() as ddg, _web.Site() as wiki:
        _web.duckduckgo(ddg, lambda q: doc_urls(docs, *POOL))
        _web.wikipedia(wiki, lambda q: ["Python (programming language)"])
        service = make_service(
            sources=("duckduckgo", "wikipedia"),
            urls={"duckduckgo": ddg.url, "wikipedia": wiki.url},
        )
        out = await _search(service, "python string removeprefix")
    assert out.ok, out.output
    assert out.data["found"] is True
    first = out.output.split("\n[1] ", 1)[1]
    assert first.startswith(f"{docs.url}/docs/library/stdtypes.html")
    assert "removeprefix" in first.split("\n[2] ", 1)[0]
    # every cited passage holds the rare term; the Wikipedia article only names the entity
    cited = out.output.split("\nSources:")[0].split("\n[")[1:]
    assert cited
    assert all("removeprefix" in block.lower() for block in cited)
    assert "/wiki/" not in out.output.split("Sources:")[0]
    assert out.data["sources"] == ["duckduckgo", "wikipedia"]
    # the ad in DuckDuckGo's page was not followed
    assert not any("ads.example" in u for u in out.data["urls"])


async def test_nothing_relevant_is_said_and_the_pages_named(
    docs: _web.Site, make_service: Callable[..., SearchService]
) -> None:
    with _web.Site() as ddg:
        _web.duckduckgo(ddg, lambda q: doc_urls(docs, *POOL[:4]))
        service = make_service(sources=("duckduckgo",), urls={"duckduckgo": ddg.url})
        out = await _search(service, "python frobnicate_widget settings")
    assert out.ok
    assert out.data["found"] is False
    assert out.output.startswith(
        'The search found nothing relevant to "python frobnicate_widget settings"'
    )
    assert "`frobnicate_widget`" in out.output
    for url in doc_urls(docs, *POOL[:4]):
        assert f"- {url}" in out.output
    assert "[1]" not in out.output


async def test_a_hanging_source_is_skipped_within_its_timeout(
    docs: _web.Site, make_service: Callable[..., SearchService]
) -> None:
    with _web.Site() as ddg, _web.Site() as gh:
        _web.duckduckgo(ddg, lambda q: doc_urls(docs, "stdtypes", "string"))
        gh.route("/search/issues", lambda req: _web.Hang())
        service = make_service(
            sources=("duckduckgo", "github"),
            urls={"duckduckgo": ddg.url, "github": gh.url},
            source_timeout=1.0,
        )
        started = time.monotonic()
        out = await _search(service, "str.removeprefix")
        took = time.monotonic() - started
    assert out.ok, out.output
    assert out.data["found"]
    assert out.data["skipped"] == {"github": "no answer within 1 s"}
    assert "skipped: github (no answer within 1 s)" in out.output
    assert took < 8, took  # the hang cost its timeout, not the call's


async def test_a_failing_source_is_named_and_the_others_answer(
    docs: _web.Site, make_service: Callable[..., SearchService]
) -> None:
    with _web.Site() as ddg, _web.Site() as se:
        _web.duckduckgo(ddg, lambda q: doc_urls(docs, "stdtypes"))
        se.route("/2.3/", lambda req: _web.Page(status=502, body=b"bad gateway"))
        service = make_service(
            sources=("duckduckgo", "stackexchange"),
            urls={"duckduckgo": ddg.url, "stackexchange": se.url},
        )
        out = await _search(service, "str.removeprefix")
    assert out.data["skipped"] == {"stackexchange": "answered HTTP 502 Bad Gateway"}
    assert out.data["found"]


async def test_code_sources_get_a_distilled_query_and_their_bodies_count(
    make_service: Callable[..., SearchService],
) -> None:
    se_item = {
        "link": "https://stackoverflow.com/q/1",
        "title": "How do I set num_ctx in Ollama?",
        "body": "<p>Ollama ignores my context size.</p><p>Set <code>num_ctx</code> in the "
        "options: <code>{&quot;num_ctx&quot;: 8192}</code>.</p>",
    }
    gh_item = {
        "html_url": "https://github.com/ollama/ollama/issues/2",
        "title": "Ollama is slow",
        "body": "Ollama runs slowly on my laptop. Ollama version 0.5.",
    }
    with _web.Site() as se, _web.Site() as gh:
        _web.stackexchange(se, lambda q: [se_item])
        _web.github(gh, lambda q: [gh_item])
        service = make_service(
            sources=("stackexchange", "github"),
            urls={"stackexchange": se.url, "github": gh.url},
        )
        out = await _search(service, "how do I change the ollama num_ctx default")
        asked = [s.path for s in se.seen + gh.seen]
    assert all("q=num_ctx+default" in p for p in asked), asked  # identifier and rare words
    assert out.data["found"]
    assert out.data["urls"] == ["https://stackoverflow.com/q/1"]  # the issue never says num_ctx
    assert '{"num_ctx": 8192}' in out.output


async def test_searxng_comes_first_when_configured(
    docs: _web.Site, make_service: Callable[..., SearchService]
) -> None:
    with _web.Site() as sx, _web.Site() as ddg:
        _web.searxng(sx, lambda q: doc_urls(docs, "stdtypes"))
        _web.duckduckgo(ddg, lambda q: doc_urls(docs, "string"))
        service = make_service(
            sources=("searxng", "duckduckgo"),
            urls={"searxng": sx.url, "duckduckgo": ddg.url},
        )
        out = await _search(service, "str.removeprefix")
        fetched = [s.path for s in docs.seen[-2:]]
    assert out.data["sources"] == ["searxng", "duckduckgo"]
    assert "format=json" in sx.seen[0].path
    assert sorted(fetched) == ["/docs/library/stdtypes.html", "/docs/library/string.html"]


async def test_the_sources_run_concurrently(
    docs: _web.Site, make_service: Callable[..., SearchService]
) -> None:
    with _web.Site(latency=0.5) as ddg, _web.Site(latency=0.5) as wiki:
        _web.duckduckgo(ddg, lambda q: [])
        _web.wikipedia(wiki, lambda q: [])
        service = make_service(
            sources=("duckduckgo", "wikipedia"),
            urls={"duckduckgo": ddg.url, "wikipedia": wiki.url},
        )
        started = trio.current_time()
        out = await _search(service, "anything at all")
        took = trio.current_time() - started
    assert out.output.startswith('The search found nothing for "anything at all"')
    assert took < 0.95, took  # two 0.5 s sources side by side, not one after the other
