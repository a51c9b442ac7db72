"""Fixtures: the documentation site, source sites built on it, and a search service."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from harness.actors.search import SearchConfig, SearchService
from tests.search import _web


@pytest.fixture(scope="module")
def docs() -> Iterator[_web.Site]:
    with _web.Site() as site:
        _web.docs_site(site)
        yield site


def doc_urls(docs: _web.Site, *names: str) -> list[str]:
    return [f"{docs.url}/docs/library/{n}.html" for n in names]


@pytest.fixture
async def make_service() -> AsyncIterator[Callable[..., SearchService]]:
    made: list[SearchService] = []

    def make(**settings: Any) -> SearchService:
        # the test web's pages are on loopback, where a real search's may not be read
        settings.setdefault("private_pages", True)
        service = SearchService(SearchConfig(**settings))
        made.append(service)
        return service

    yield make
    for service in made:
        await service.aclose()
