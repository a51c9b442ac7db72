"""Stdout for the protocol alone.

An editor reads ``harness acp``'s stdout as JSON-RPC: one stray ``print`` (from harness,
a library, a child that inherited it) would break the stream. :func:`claim_stdout`
moves the protocol to a private copy of the descriptor, not inherited by children,
and points descriptor 1 at stderr, where stray output is only noise.
"""

from __future__ import annotations

import os

__all__ = ["claim_stdout", "protocol_fds"]

_claimed: list[int] = []


def claim_stdout() -> int:
    """Keep stdout for the protocol; the descriptor it now has (once per process)."""
    if not _claimed:
        fd = os.dup(1)  # not inheritable: no child gets it
        os.dup2(2, 1)
        _claimed.append(fd)
    return _claimed[0]


def protocol_fds() -> tuple[int, int]:
    """``(input, output)``: private copies of stdin and the claimed stdout."""
    return os.dup(0), os.dup(claim_stdout())
