"""The search worker's settings, read from its environment."""

from __future__ import annotations

import pytest

from harness.actors.search import SearchConfig


def test_defaults_are_the_keyless_public_sources() -> None:
    config = SearchConfig.from_env({})
    assert config.sources == ("duckduckgo", "wikipedia", "stackexchange", "github")
    assert config.urls["wikipedia"] == "https://en.wikipedia.org"
    assert not config.allow_link_local


def test_searxng_becomes_the_primary_source_when_set() -> None:
    config = SearchConfig.from_env({"SEARXNG_URL": "http://127.0.0.1:8888"})
    assert config.sources[0] == "searxng"
    assert config.urls["searxng"] == "http://127.0.0.1:8888"


def test_the_sources_and_their_addresses_are_settings() -> None:
    config = SearchConfig.from_env(
        {
            "HARNESS_SEARCH_SOURCES": "github, wikipedia",
            "HARNESS_SEARCH_GITHUB_URL": "http://127.0.0.1:1",
            "HARNESS_SEARCH_SOURCE_TIMEOUT": "2.5",
            "HARNESS_FETCH_MAX_BYTES": "1000",
        }
    )
    assert config.sources == ("wikipedia", "github")
    assert config.urls["github"] == "http://127.0.0.1:1"
    assert config.source_timeout == 2.5
    assert config.max_bytes == 1000


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HARNESS_SEARCH_SOURCES": "bing"}, "unknown source 'bing'"),
        ({"HARNESS_SEARCH_SOURCES": "searxng"}, "SEARXNG_URL is not set"),
        ({"HARNESS_SEARCH_SOURCE_TIMEOUT": "soon"}, "HARNESS_SEARCH_SOURCE_TIMEOUT must be"),
        ({"HARNESS_SEARCH_MAX_PAGES": "0"}, "HARNESS_SEARCH_MAX_PAGES must be above 0"),
    ],
)
def test_a_bad_setting_names_its_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchConfig.from_env(env)
