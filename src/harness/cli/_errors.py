"""Errors from the system said as one sentence, for every frontend."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["os_error_line"]


def os_error_line(exc: OSError, environ: Mapping[str, str] | None = None) -> str:
    """One sentence for a file or folder the system refused: why and where, and the way
    out when it is harness's own folder (``HARNESS_HOME``, read from *environ*)."""
    from harness.home import harness_home

    where = str(exc.filename) if exc.filename else ""
    what = exc.strerror or str(exc) or type(exc).__name__
    line = f"{what}: {where}" if where else what
    home = str(harness_home(environ))
    if where == home or where.startswith(home + "/"):
        line += f" (harness keeps its state in {home}: make it writable, or set HARNESS_HOME)"
    return line
