"""Bytes of a response to text: which media types are text, and which encoding they use.

The encoding is taken, in order, from a byte order mark, the ``Content-Type``
charset, an HTML ``<meta charset>`` / ``http-equiv`` or XML declaration in the
first few KB, then UTF-8 if the bytes are valid UTF-8, else Windows-1252 (what
browsers assume for an unlabelled Western page). Bytes that still do not decode
are replaced, never an error.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["decode", "is_binary", "is_html", "media_type"]

_META = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)|<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.\-]+)""",
    re.IGNORECASE,
)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_TEXT_TYPES = (
    "application/json",
    "application/ld+json",
    "application/xml",
    "application/xhtml+xml",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/x-sh",
    "application/sql",
    "application/graphql",
    "image/svg+xml",
)


def media_type(content_type: str) -> str:
    """``text/html; charset=utf-8`` -> ``text/html``."""
    return content_type.split(";", 1)[0].strip().lower()


def _charset(content_type: str) -> str | None:
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def is_html(content_type: str, body: bytes = b"") -> bool:
    """True for an HTML page (by its media type, or by its first bytes when unlabelled)."""
    kind = media_type(content_type)
    if kind in ("text/html", "application/xhtml+xml"):
        return True
    if kind in ("", "application/octet-stream", "text/plain"):
        head = body[:512].lstrip().lower()
        return head.startswith((b"<!doctype html", b"<html"))
    return False


def is_binary(content_type: str, body: bytes = b"") -> bool:
    """True when the response is not text: by its media type, or by NUL bytes in its start.

    A missing or generic type (``application/octet-stream``) is decided by the bytes.
    """
    kind = media_type(content_type)
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml")):
        return False
    if kind and kind != "application/octet-stream":
        return True
    head = body[:4096]
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return False
    return b"\x00" in head


def decode(body: bytes, content_type: str = "") -> tuple[str, str]:
    """``(text, encoding used)`` for *body* (see the module docstring)."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(name, errors="replace"), name
    for label in (_charset(content_type), _declared(body)):
        codec = _codec(label)
        if codec:
            return body.decode(codec, errors="replace"), codec
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(body) - 3:
            # a cut in the middle of the last character (the size cap), not another encoding
            return body.decode("utf-8", errors="replace"), "utf-8"
        return body.decode("cp1252", errors="replace"), "cp1252"


def _declared(body: bytes) -> str | None:
    m = _META.search(body[:4096])
    if not m:
        return None
    raw: bytes = m.group(1) or m.group(2)
    return raw.decode("ascii", errors="replace")


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().lower()).name
    except LookupError:
        return None
    # Per the WHATWG encoding standard, pages labelled Latin-1 are Windows-1252.
    return "cp1252" if name in ("latin-1", "iso8859-1", "ascii") else name
