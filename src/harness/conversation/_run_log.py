"""What a run did, kept as it goes: what its ending is read against.

A run's honest ending (:mod:`harness.conversation._endings`) reads its replies against
its calls: which succeeded, which only ran, which command ran last and how it exited.
The run keeps that here, call by call and reply by reply, and the task bench replays
recorded runs through the same record (``python -m bench endings``), so a rule is
measured on the runs as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from harness.conversation._endings import Ending

__all__ = ["RunLog"]


@attrs.define
class RunLog:
    """The calls and replies of one run, as its ending reads them (tool names; the
    ending reads their kinds)."""

    succeeded: list[str] = attrs.Factory(list)
    """The tools whose calls succeeded, but for an edit that said it changed nothing and a
    command that exited non-zero: what a claimed change is checked against."""
    failed_runs: list[str] = attrs.Factory(list)
    """The tools whose commands ran and exited non-zero: a run, never a change."""
    tried: list[str] = attrs.Factory(list)
    """Every tool whose call ran, whatever it did: an edit tried and failed."""
    last_run: tuple[str, int | None] | None = None
    """The last command run since the last change (its words joined by single spaces), and
    its exit status: whether the command the prompt says fails still does."""
    said: list[str] = attrs.Factory(list)
    """The text of the run's replies so far: a claim in any of them counts at the end."""

    def call_finished(self, name: str, ok: bool, data: Mapping[str, Any]) -> None:
        """Note how a call of *name* ended (*data*: its result's data)."""
        self.tried.append(name)
        code = data.get("exit_code")
        if ok and isinstance(code, int) and code != 0:
            self.failed_runs.append(name)
        elif ok and data.get("changed", True) is not False:
            self.succeeded.append(name)
            if data.get("changed"):  # a file changed: an earlier run says nothing of it
                self.last_run = None
        command = data.get("command")
        if isinstance(command, str) and "exit_code" in data:
            # any command may change files too: only the last one says how things stand
            self.last_run = (" ".join(command.split()), code)

    def ending(
        self,
        kind: Callable[[str], str],
        *,
        prompt: str,
        finish: str = "stop",
        plan: bool = False,
    ) -> Ending | None:
        """Why the run, whose last reply (the last of :attr:`said`) made no call, did not
        complete, or ``None``. *kind* gives a tool's kind (``other`` for a tool outside
        the table); with *plan* (a deepthink stage, which may end on a plan) only claims
        count."""
        # Imported here, at the end of the first reply: its patterns took a twentieth
        # of the frontend's import, in front of the first request.
        from harness.conversation._endings import honest_ending

        return honest_ending(
            self.said[-1] if self.said else "",
            [kind(n) for n in self.succeeded],
            announcements=not plan,
            earlier=self.said[:-1],
            finish=finish,
            prompt="" if plan else prompt,
            tried=[kind(n) for n in self.tried],
            last_run=self.last_run,
            failed_runs=[kind(n) for n in self.failed_runs],
        )
