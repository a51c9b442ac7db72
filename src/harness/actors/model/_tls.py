"""The transport for ``https://`` addresses, made on the first request to one.

httpx builds a transport's TLS context as it makes the transport, and loading the
CA bundle into it takes 50-80 ms here, on the first request's path. A model
server on this machine or the LAN (Ollama, llama.cpp, vLLM) is reached over
plain HTTP and never needs it.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

__all__ = ["TransportOnFirstUse"]


class TransportOnFirstUse(httpx.AsyncBaseTransport):
    """A transport that makes the real one (with *make*) when the first request
    comes, and passes every request to it.

    Attributes:
        made: the real transport, once made.
    """

    def __init__(self, make: Callable[[], httpx.AsyncBaseTransport]) -> None:
        self._make = make
        self.made: httpx.AsyncBaseTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send *request* through the real transport, made now if need be."""
        if self.made is None:
            self.made = self._make()
        return await self.made.handle_async_request(request)

    async def aclose(self) -> None:
        """Close the real transport, if it was ever made."""
        if self.made is not None:
            await self.made.aclose()
