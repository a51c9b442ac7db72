"""What a tool hands back: its output for the model, and structured extras for frontends.

A module of its own, imported by every tool module and importing none of them.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["Result"]


@attrs.frozen
class Result:
    """A tool's output for the model plus structured extras for frontends."""

    output: str
    data: dict[str, Any] = attrs.field(factory=dict)
