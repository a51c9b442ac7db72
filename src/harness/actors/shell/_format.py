"""The words the model reads after a shell call: output, then one bracketed status line."""

from __future__ import annotations

import signal
from typing import Any

import attrs

from harness.messages.tools import ToolOutcome

__all__ = ["CallResult", "error_outcome", "outcome"]


@attrs.define
class CallResult:
    """What one call on a session came to.

    ``status`` is ``exited``, ``waiting`` (with ``certain`` False when only the
    silence fallback said so), ``timeout`` or ``ended`` (end_process, eviction,
    worker shutdown).
    """

    status: str
    session: str
    command: str
    output: str = ""
    cut_chars: int = 0
    cut_lines: int = 0
    exit_code: int | None = None
    exit_signal: int | None = None
    timeout: float | None = None
    certain: bool = True
    notes: list[str] = attrs.field(factory=list)
    data: dict[str, Any] = attrs.field(factory=dict)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _status_line(r: CallResult) -> str:
    sid = r.session
    if r.status == "exited":
        if r.exit_signal is not None:
            return f"[killed by signal {r.exit_signal} ({_signal_name(r.exit_signal)})]"
        return f"[exit code {r.exit_code}]"
    if r.status == "waiting":
        how = (
            "is waiting for input"
            if r.certain
            else "printed nothing and used no CPU for a while: it may be waiting for input"
        )
        return (
            f"[session {sid} {how}. Answer with send_input(session={sid!r}, text=...); "
            f"an empty text collects more output; end_process(session={sid!r}) stops it.]"
        )
    if r.status == "timeout":
        return (
            f"[timed out after {r.timeout:g} s: the command and everything it started were stopped]"
        )
    return f"[session {sid} ended: the command and everything it started were stopped]"


def outcome(r: CallResult) -> ToolOutcome:
    """The :class:`ToolOutcome` for a finished call.

    ``ok`` is False only for a timeout: a command that exits non-zero still ran, and
    its exit code is in the text.
    """
    body = r.output if r.output.strip() else "(no output)\n"
    if not body.endswith("\n"):
        body += "\n"
    lines = [body + _status_line(r)]
    lines += [f"Note: {n}" for n in r.notes]
    data: dict[str, Any] = {
        "status": r.status,
        "session": r.session if r.status == "waiting" else None,
        "command": r.command,
        "exit_code": r.exit_code,
        "signal": r.exit_signal,
        "cut_chars": r.cut_chars,
        "cut_lines": r.cut_lines,
        **r.data,
    }
    return ToolOutcome(ok=r.status != "timeout", output="\n".join(lines), data=data)


def error_outcome(message: str, **data: Any) -> ToolOutcome:
    """A call that could not run at all (bad arguments, no such session, no sandbox)."""
    return ToolOutcome(ok=False, output=message, data={"status": "error", **data})
