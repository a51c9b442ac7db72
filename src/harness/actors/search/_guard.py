"""Which addresses a fetch may connect to, checked where the connection is made.

The check sits in the network backend under httpx, so it runs on the address
actually dialled, for every connection: the first request, each redirect hop, a
host whose DNS answer changed between two looks (rebinding). Refused always:
cloud metadata and link-local addresses (:func:`harness.actors.tools.address_refusal`:
169.254.0.0/16, fe80::/10, AWS's fd00:ec2::254, Alibaba's 100.100.100.200,
Oracle's 192.0.0.192, ...), also when written as an IPv6 address that carries
them; ``allow_link_local`` lifts that. Refused unless ``allow_private``: this
machine and private networks (:func:`harness.actors.tools.address_nearness`).
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore
import trio

from harness.actors.tools import address_nearness, address_refusal
from harness.errors import ToolError

__all__ = ["AddressRefused", "GuardedBackend", "Resolver", "refusal"]

#: host, port -> the addresses it resolves to (an injection point: tests give a
#: name that resolves to a metadata address without touching the system's DNS).
Resolver = Callable[[str, int], Awaitable[list[str]]]

#: Why an address may never be reached, or ``None`` (the tools package's word for it).
refusal = address_refusal


class AddressRefused(ToolError):
    """A fetch would have connected to an address it may not reach."""

    def __init__(self, host: str, address: str, why: str) -> None:
        super().__init__(f"{host} resolves to {address}, {why}; refused")
        self.host = host
        self.address = address


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses *host* resolves to, by the system's resolver."""
    infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's trio backend, dialling only addresses :func:`refusal` lets through.

    Args:
        allow_link_local: let metadata and link-local addresses through
            (``HARNESS_FETCH_ALLOW_LINK_LOCAL``).
        allow_private: let this machine and private networks through.
        resolver: host, port -> addresses (default: the system's resolver).
    """

    def __init__(
        self,
        *,
        allow_link_local: bool = False,
        allow_private: bool = True,
        resolver: Resolver | None = None,
    ) -> None:
        self._inner = httpcore.TrioBackend()
        self._allow = allow_link_local
        self._private = allow_private
        self._resolve = resolver or system_resolver

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses: list[str] = []
        with trio.move_on_after(timeout if timeout is not None else float("inf")) as scope:
            try:
                addresses = await self._resolve(host, port)
            except OSError as exc:
                raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        if scope.cancelled_caught:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out")
        # Every address is checked, not only the one dialled first: a name that
        # mixes a public address with a metadata one is refused whole.
        for address in addresses:
            why = None if self._allow else address_refusal(address)
            if why is None and not self._private:
                near = address_nearness(address)
                if near is not None:
                    why = (
                        f"{near}, reached only when a rule allows the URL or the URL "
                        "itself names it and the call was approved"
                    )
            if why is not None:
                raise AddressRefused(host, address, why)
        last: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        raise last or httpcore.ConnectError(f"{host} resolves to no address")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("fetches never use unix sockets")

    async def sleep(self, seconds: float) -> None:
        await trio.sleep(seconds)
