"""How long a bridge waits between tries, and the factor tests put on those waits.

Imports nothing of the SDK: the worker's ``__main__`` reads it before the SDK is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["DOWN_FIRST", "DOWN_MAX", "TIME_SCALE_ENV", "time_scale"]

TIME_SCALE_ENV = "HARNESS_MCP_TIME_SCALE"
DOWN_FIRST, DOWN_MAX = 1.0, 30.0
"""The wait before the second try of a server that never came up, and the most it grows to."""


def time_scale(environ: Mapping[str, str]) -> float:
    """The factor ``HARNESS_MCP_TIME_SCALE`` puts on the bridge's own waits: a number
    above 0 and at most 1; anything else (unset, not a number, out of range) is 1."""
    try:
        value = float(environ.get(TIME_SCALE_ENV, "1"))
    except ValueError:
        return 1.0
    return value if 0 < value <= 1 else 1.0
