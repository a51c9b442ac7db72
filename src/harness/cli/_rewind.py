"""Going back without the terminal: ``--fork-session`` and ``--rewind-to N``.

``--fork-session`` copies the session ``--resume`` or ``--continue`` names into a new
one before anything opens, and goes on in the copy (the terminal and headless mode
alike); the original is not touched.

``--rewind-to N`` takes the resumed session back to before its prompt N. Alone (no
``-p``) its report is the output: a line per file on stdout in text, or one JSON object
(``--output-format json`` or ``stream-json``). Before a task (``-p``) the task's output
keeps stdout: the report's lines go to stderr (stream-json carries the ``rewound``
event with the others).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from harness.conversation import RewindOutcome, Session

__all__ = ["fork_first", "report_doc", "report_lines", "rewind"]


def fork_first(args: argparse.Namespace, stderr: IO[str] | None = None) -> int:
    """Fork the session *args* resume and resume the fork instead; 0, or the exit
    status of a failure (said on *stderr*)."""
    from harness.conversation import SessionNotFound, fork_session
    from harness.home import harness_home

    err = stderr or sys.stderr
    workspace = Path(args.workspace or os.getcwd()).resolve()
    try:
        info = fork_session(workspace, harness_home(), None if args.continue_ else args.resume)
    except (SessionNotFound, OSError) as exc:
        err.write(f"harness: {exc}\n")
        return 2
    err.write(f"harness: forked into session {info.id}; the original stays as it was\n")
    args.resume, args.continue_ = info.id, False
    return 0


def report_doc(session_id: str, out: RewindOutcome) -> dict[str, Any]:
    """The JSON object of a rewind."""
    files = out.files
    return {
        "type": "rewind",
        "ok": out.ok,
        "session_id": session_id,
        "prompt": out.checkpoint.number,
        "text": out.checkpoint.text,
        "conversation": out.conversation,
        "files": [
            {"path": f.path, "action": f.action, "note": f.note, "restored": f.restorable}
            for f in (files.files if files else ())
        ],
        "unrecorded": list(files.unrecorded) if files else [],
        "commands": list(out.commands),
        "notes": list(files.notes) if files else [],
        "message": out.message,
    }


def report_lines(out: RewindOutcome) -> list[str]:
    """The report as lines of text."""
    c = out.checkpoint
    parts = [w for w, on in (("conversation", out.conversation), ("files", out.files)) if on]
    text = " ".join(c.text.split())[:100]
    lines = [f"rewound the {' and '.join(parts)} to before prompt {c.number}: {text}"]
    if not out.ok:
        return [out.message]
    if out.files is not None:
        for f in out.files.files:
            note = f" ({f.note})" if f.note else ""
            lines.append(f"  {f.action if f.restorable else 'not restored'} {f.path}{note}")
        lines.extend(out.files.notes)
    if out.commands:
        lines.append("commands run since then: " + "; ".join(out.commands[:10]))
    return lines


async def rewind(session: Session, args: argparse.Namespace, out: IO[str], *, alone: bool) -> bool:
    """Rewind *session* as *args* say and write the report to *out*; whether it went."""
    only = args.rewind_only
    result = await session.checkpoints.rewind(
        args.rewind_to, conversation=only != "files", files=only != "conversation"
    )
    if alone and args.output_format != "text":
        out.write(orjson.dumps(report_doc(session.id, result)).decode() + "\n")
    else:
        for line in report_lines(result):
            out.write(line + "\n")
    out.flush()
    return result.ok
