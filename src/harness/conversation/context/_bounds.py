"""The factor tests put on the context features' bounds, so that a test of a bound
reached waits a fraction of the real seconds, in the same steps.

The bounds are on background model requests: the working memory's update
(``UPDATE_TIMEOUT``), the prompt's embedding (``EMBED_TIMEOUT``) and the question
for a server's window (``ASK_TIMEOUT``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["TIME_SCALE_ENV", "bound", "time_scale"]

TIME_SCALE_ENV = "HARNESS_CONTEXT_TIME_SCALE"


def time_scale(environ: Mapping[str, str]) -> float:
    """The factor ``HARNESS_CONTEXT_TIME_SCALE`` puts on the bounds: a number above 0
    and at most 1; anything else (unset, not a number, out of range) is 1."""
    try:
        value = float(environ.get(TIME_SCALE_ENV, "1"))
    except ValueError:
        return 1.0
    return value if 0 < value <= 1 else 1.0


def bound(seconds: float, environ: Mapping[str, str] | None = None) -> float:
    """*seconds* times :func:`time_scale` of *environ* (default: this process's)."""
    return seconds * time_scale(os.environ if environ is None else environ)
