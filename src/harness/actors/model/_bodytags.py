"""Body tags: file bodies written beside a call's JSON, verbatim.

A text-protocol call carries a file's text in ``<content>`` / ``<old_content>`` /
``<new_content>`` tags after its JSON object, because small models cannot escape a whole
file inside a JSON string. The prompt section (:mod:`._textproto`) tells the model which
parameters go in a tag; the parser reads them back into the arguments.
"""

from __future__ import annotations

import re
from collections.abc import Collection

__all__ = ["BODY_ALIASES", "BODY_RE", "BODY_TAGS", "body_param"]

BODY_TAGS = ("content", "old_content", "new_content")
"""Tags that carry file bodies outside the JSON, verbatim."""

BODY_ALIASES: dict[str, tuple[str, ...]] = {
    "content": ("content", "text", "body", "file_text"),
    "old_content": ("old_content", "old_string", "old_text", "old_str", "old"),
    "new_content": ("new_content", "new_string", "new_text", "new_str", "new"),
}
"""Which schema parameter a body tag feeds, when the tool names it differently."""

BODY_RE = re.compile(r"<(content|old_content|new_content)>\n?(.*?)(</\1>|\Z)", re.S)
"""One body tag: its name, its text, and its close tag (empty when the text runs to the
end unclosed)."""


def body_param(tag: str, params: Collection[str] | None) -> str:
    """The parameter body *tag* feeds among the tool's *params* (the tag's own name when
    none of its aliases is one)."""
    if params:
        for candidate in BODY_ALIASES.get(tag, (tag,)):
            if candidate in params:
                return candidate
    return tag
