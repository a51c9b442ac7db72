"""A provider's HTTP request as plain data, before any client sees it.

Providers build :class:`HttpRequest` and never touch a connection, so a decoder and
its request are tested and benchmarked without one;
:func:`~harness.actors.model._http.open_stream` hands it to the worker's client.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

__all__ = ["HttpRequest"]


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
