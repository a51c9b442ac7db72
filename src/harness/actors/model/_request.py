"""A provider's HTTP request as plain data, before any client sees it.

Providers build :class:`HttpRequest`; the plain HTTP/1.1 client writes it out as it
is, and httpx gets it as ``client.build_request(...)``. Building an
``httpx.Request`` (URL parsing, header normalising) cost ~0.1 ms a request, paid
every tool round for nothing on the plain path.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from urllib.parse import urlencode, urlsplit

import attrs

__all__ = ["HttpRequest", "Target"]


@attrs.frozen
class Target:
    """Where a URL points: ``scheme``, ``host`` (no brackets), ``port``, the
    ``Host`` header's value, and the request target (path and query)."""

    scheme: str
    host: str
    port: int
    authority: str
    path: str


@functools.lru_cache(maxsize=64)
def _split(url: str) -> Target:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    authority = parts.netloc.rpartition("@")[2]
    return Target(scheme, parts.hostname or "", port, authority, path)


@attrs.frozen
class HttpRequest:
    """One request: method, URL, headers, body, and query parameters to add.

    Attributes:
        method: ``GET``, ``POST`` ...
        url: the absolute URL (it may carry a query already).
        headers: header names and values (a key among them is never logged).
        content: the body (``b""``: none).
        params: query parameters appended to the URL.
    """

    method: str
    url: str
    headers: Mapping[str, str] = attrs.field(factory=dict, repr=False)
    content: bytes = b""
    params: Mapping[str, str | int] | None = None

    @property
    def target(self) -> Target:
        """The parsed URL, with :attr:`params` in its path."""
        target = _split(self.url)
        if self.params:
            sep = "&" if "?" in target.path else "?"
            target = attrs.evolve(target, path=target.path + sep + urlencode(self.params))
        return target

    @property
    def host(self) -> str:
        """The host, for messages."""
        return _split(self.url).host
