"""The MCP sign-in records: 0600 files in a 0700 folder under HARNESS_HOME, by exact URL."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from harness.actors.mcp import TokenStore
from harness.home import mcp_auth_dir


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_records_live_under_harness_home_with_private_modes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = TokenStore(environ={"HARNESS_HOME": str(home)})
    assert store.folder == mcp_auth_dir({"HARNESS_HOME": str(home)}) == home / "mcp-auth"
    old = os.umask(0)  # a permissive umask must not widen them
    try:
        store.update("https://a.example/mcp", tokens={"access_token": "secret"})
    finally:
        os.umask(old)
    path = store.path("https://a.example/mcp")
    assert _mode(store.folder) == 0o700
    assert _mode(path) == 0o600
    assert [p.name for p in store.folder.iterdir()] == [path.name]  # no temporary file left
    assert store.signed_in("https://a.example/mcp")


def test_a_record_is_found_by_its_exact_url_only(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "auth")
    store.update("https://a.example/mcp", tokens={"access_token": "a"})
    for other in ("https://a.example/mcp/", "https://a.example/other", "http://a.example/mcp"):
        assert store.read(other) is None
        assert not store.signed_in(other)
    # a record put in another URL's place (renamed, copied) is not that URL's
    store.path("https://a.example/mcp").rename(store.path("https://evil.example/mcp"))
    assert store.read("https://evil.example/mcp") is None


def test_update_keeps_the_other_fields_and_remove_forgets(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "auth")
    url = "https://a.example/mcp"
    store.update(url, client={"client_id": "c"})
    store.update(url, tokens={"access_token": "t"}, expires_at=5.0)
    assert store.read(url) == {
        "url": url,
        "client": {"client_id": "c"},
        "tokens": {"access_token": "t"},
        "expires_at": 5.0,
    }
    assert store.remove(url)
    assert store.read(url) is None
    assert not store.remove(url)


def test_a_broken_record_reads_as_none(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "auth")
    url = "https://a.example/mcp"
    store.update(url, tokens={})
    store.path(url).write_text("{not json")
    assert store.read(url) is None
