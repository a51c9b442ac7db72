"""Which network addresses a fetch may reach: metadata never, this machine and private
networks only with leave.

Refused outright (:func:`address_refusal`): every address where a cloud serves instance
metadata and credentials (AWS, GCP and Azure at ``169.254.169.254``, AWS's
``fd00:ec2::254`` and ECS's ``169.254.170.2``, Alibaba's ``100.100.100.200``,
Oracle's ``192.0.0.192``, Azure's WireServer ``168.63.129.16``) and link-local
addresses in general (``169.254.0.0/16``, ``fe80::/10``). Near (:func:`address_nearness`):
loopback, ``0.0.0.0``, private networks (RFC 1918, ``fc00::/7``), shared
carrier-grade NAT space (``100.64.0.0/10``) and the other reserved ranges: a fetch
reaches them only when the user said so (a rule that names the URL, or a call they
approved), because a model on the web can be talked into probing the machine's own
services. An IPv6 address that carries an IPv4 one (mapped, compatible, 6to4,
NAT64) is judged by the IPv4 address it carries.

Plain ``ipaddress`` and ``socket`` only: the permission engine in the main process
and the search worker's connection guard both read it.
"""

from __future__ import annotations

import ipaddress
import socket
import urllib.parse

__all__ = [
    "METADATA_ADDRESSES",
    "address_nearness",
    "address_refusal",
    "host_nearness",
    "url_nearness",
]

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Where clouds serve instance metadata and credentials.
METADATA_ADDRESSES: frozenset[IP] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, DigitalOcean, OpenStack
        "169.254.170.2",  # AWS ECS task credentials
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud (classic)
        "168.63.129.16",  # Azure WireServer
    )
)
_LINK_LOCAL = (ipaddress.ip_network("169.254.0.0/16"), ipaddress.ip_network("fe80::/10"))
_SHARED = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _address(text: str) -> IP | None:
    """*text* as an IP address, in any form the system's resolver reads as one
    (``127.1``, ``0x7f000001`` and ``2130706433`` are all 127.0.0.1)."""
    text = text.strip().strip("[]").split("%", 1)[0]
    try:
        ip: IP = ipaddress.ip_address(text)
    except ValueError:
        try:
            ip = ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return _carried(ip)


def _carried(ip: IP) -> IP:
    """The IPv4 address an IPv6 one carries, if it carries one."""
    if isinstance(ip, ipaddress.IPv4Address):
        return ip
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if int(ip) >> 32 == 0 and int(ip) > 1:  # IPv4-compatible (::a.b.c.d), long deprecated
        return ipaddress.IPv4Address(int(ip))
    return ip


def address_refusal(address: str) -> str | None:
    """Why *address* may never be reached, or ``None``."""
    ip = _address(address)
    if ip is None:
        return None
    if ip in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if any(ip in net for net in _LINK_LOCAL if net.version == ip.version):
        return "a link-local address (where cloud metadata services live)"
    return None


def address_nearness(address: str) -> str | None:
    """What *address* is when it is this machine or a private network (``None``: public,
    or not an address). Metadata and link-local addresses are :func:`address_refusal`'s."""
    ip = _address(address)
    if ip is None or address_refusal(str(ip)) is not None:
        return None
    if ip.is_loopback:
        return "a loopback address (this machine)"
    if ip.is_unspecified:
        return "an unspecified address (this machine)"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED:
        return "a shared network address (carrier-grade NAT)"
    if ip.is_private:
        return "a private network address"
    if ip.is_multicast or ip.is_reserved or not ip.is_global:
        return "a reserved address"
    return None


def host_nearness(host: str) -> str | None:
    """:func:`address_nearness` of a URL's host as written, before any DNS lookup: an address,
    or ``localhost`` and its subdomains (which resolve to this machine)."""
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return "this machine (localhost)"
    return address_nearness(name) or (
        "a cloud metadata or link-local address" if address_refusal(name) is not None else None
    )


def url_nearness(url: str) -> str | None:
    """:func:`host_nearness` of *url*'s host (``None`` when it has none)."""
    try:
        host = urllib.parse.urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host_nearness(host) if host else None
