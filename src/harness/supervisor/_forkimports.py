"""What the fork server imports, and when: before it is ready, while idle, or before a fork.

Every module the server has imported is shared with the processes it forks, so a
worker forked afterwards skips that import. The server imports the modules it
preloads before it says it is ready; the rest (its command line's warm, and what a
:class:`~harness.supervisor._forkproto.WarmRequest` names) while no request waits, one
at a time. A worker whose warm request named modules not imported yet is forked only
once they are, so that it never imports them itself beside the server.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Sequence

from harness.supervisor._forkproto import WarmRequest

__all__ = ["Imports", "say"]


def say(text: str) -> None:
    """Write *text* on the server's output, if anyone still reads it."""
    # Whoever reads the server's output may have gone (a shared server outlives the
    # process that started it): a lost message must not end the server.
    with contextlib.suppress(OSError):
        sys.stderr.write(text)
        sys.stderr.flush()


def preload(name: str) -> None:
    """Import *name* now; a module that does not import is said on the output."""
    try:
        importlib.import_module(name)
    except Exception as exc:  # not preloaded: the worker imports it itself
        say(f"fork server: could not preload {name}: {exc!r}\n")


class Imports:
    """The imports still to come: those for idle time (*later*, in order) and those
    a worker's fork waits for (what its :class:`WarmRequest` named)."""

    def __init__(self, later: Sequence[str]) -> None:
        self.later = list(later)
        self._owed: dict[str, list[str]] = {}  # worker module -> what its fork waits for

    def next_idle(self) -> None:
        """Import the next module queued for idle time (there must be one)."""
        preload(self.later.pop(0))

    def warm(self, msg: WarmRequest) -> None:
        """Queue *msg*'s modules for idle time, and as what its workers' forks wait for."""
        names = [m for m in msg.modules if m not in sys.modules]
        self.later.extend(m for m in names if m not in self.later)
        debt = self._owed.setdefault(msg.worker, [])
        debt.extend(m for m in names if m not in debt)

    def before_fork(self, module: str) -> bool:
        """Import what a worker of *module* waits for (it is about to be forked);
        whether anything was imported."""
        paid = False
        for name in self._owed.pop(module, []):
            if name not in sys.modules:
                preload(name)
                paid = True
            if name in self.later:
                self.later.remove(name)
        return paid
