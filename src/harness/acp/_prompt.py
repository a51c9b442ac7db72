"""A ``session/prompt``'s content blocks as the one text a harness run takes.

Text is kept as it is. A resource link (an ``@file`` the editor names) becomes a
line naming the file, for the model to read with its tools; an embedded resource
(the editor sent the file's text, maybe of an unsaved buffer) is put in whole,
fenced by its path. Images and audio are not offered in ``initialize``; a client
that sends them anyway gets a line saying they were left out.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlparse

__all__ = ["prompt_text"]


def _path(uri: str, workspace: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    try:
        rel = os.path.relpath(path, workspace)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def prompt_text(blocks: Sequence[Any], workspace: str) -> str:
    """The prompt *blocks* (the SDK's content block models) as one text."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"[the user points at {_path(block.uri, workspace)}]")
        elif kind == "resource":
            res = block.resource
            where = _path(res.uri, workspace)
            text = getattr(res, "text", None)
            if isinstance(text, str):
                parts.append(f'<file path="{where}">\n{text}\n</file>')
            else:
                mime = getattr(res, "mime_type", None) or "binary"
                parts.append(f"[{where}: {mime} content left out]")
        else:
            parts.append(f"[{kind or 'unknown'} content left out: harness takes text]")
    return "\n\n".join(p for p in parts if p)
