"""Which addresses a fetch may connect to, checked where the connection is made.

The check sits in the network backend under httpx, so it runs on the address
actually dialled, for every connection: the first request, each redirect hop, a
host whose DNS answer changed between two looks (rebinding). Refused: link-local
addresses (169.254.0.0/16, fe80::/10), where clouds serve instance metadata and
credentials, and AWS's IPv6 metadata address fd00:ec2::254, also when written as
an IPv4-mapped IPv6 address. ``allow_link_local`` lifts the refusal.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore
import trio

from harness.errors import ToolError

__all__ = ["AddressRefused", "GuardedBackend", "Resolver", "refusal"]

#: host, port -> the addresses it resolves to (an injection point: tests give a
#: name that resolves to a metadata address without touching the system's DNS).
Resolver = Callable[[str, int], Awaitable[list[str]]]

_REFUSED = (
    ipaddress.ip_network("169.254.0.0/16"),
    ipaddress.ip_network("fe80::/10"),
    ipaddress.ip_network("fd00:ec2::254/128"),
)


class AddressRefused(ToolError):
    """A fetch would have connected to an address it may not reach."""

    def __init__(self, host: str, address: str, why: str) -> None:
        super().__init__(f"{host} resolves to {address}, {why}; refused")
        self.host = host
        self.address = address


def refusal(address: str) -> str | None:
    """Why *address* may not be reached, or ``None`` when it may."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for net in _REFUSED:
        if ip in net:
            if ip == ipaddress.ip_address("169.254.169.254") or net.prefixlen == 128:
                return "a cloud metadata address"
            return "a link-local address (where cloud metadata services live)"
    return None


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses *host* resolves to, by the system's resolver."""
    infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's trio backend, dialling only addresses :func:`refusal` lets through.

    Args:
        allow_link_local: skip the check (``HARNESS_FETCH_ALLOW_LINK_LOCAL``).
        resolver: host, port -> addresses (default: the system's resolver).
    """

    def __init__(self, *, allow_link_local: bool = False, resolver: Resolver | None = None) -> None:
        self._inner = httpcore.TrioBackend()
        self._allow = allow_link_local
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
        if not self._allow:
            # Every address is checked, not only the one dialled first: a name that
            # mixes a public address with a metadata one is refused whole.
            for address in addresses:
                why = refusal(address)
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
