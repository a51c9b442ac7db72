"""The append side of a session's log: durable events into ``events.jsonl``.

Each durable event is one JSON line, written with ``write()`` on an ``O_APPEND``
descriptor: as it happens, or, once :meth:`SessionLog.write_behind` runs, as soon
as the loop next waits (for the model or a worker), the lines that came since in
one ``write()``. Either way a kill -9 of harness loses at most the lines of that
moment, and resume repairs a call left without its result. ``meta.json`` beside
it is the index that lists sessions (title, times, first prompt).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from harness._atomic import read_json, write_json_atomic
from harness.conversation import events as ev
from harness.conversation.events import Rewound

__all__ = ["SessionLog"]

# Every line reaches the kernel with write() (so kill -9 of harness loses nothing
# written); these events also fsync it, for a power loss: a run's end and a
# compaction, a rewind. An fsync per tool result cost ~10 ms a round on this machine's disk.
_SYNC_ON = (ev.Result, ev.Compacted, Rewound)
_META_ON = (ev.TitleChanged, ev.Result, ev.SessionStarted)
# Written at once even behind a write_behind task: a caller may read the log or
# the index as soon as the run returns.
_AT_ONCE = (*_SYNC_ON, *_META_ON)


class SessionLog:
    """The append side of one session's log; a listener for conversation events."""

    def __init__(self, directory: Path, session_id: str) -> None:
        self.id = session_id
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "events.jsonl"
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._pending: list[ev.ConversationEvent] = []
        self._wake: Callable[[], object] | None = None
        self._meta_path = self.dir / "meta.json"
        meta = read_json(self._meta_path, None) if self._meta_path.exists() else None
        self.meta: dict[str, Any] = (
            meta
            if isinstance(meta, dict)
            else {
                "id": session_id,
                "title": "",
                "created": time.time(),
                "updated": time.time(),
                "first_prompt": "",
            }
        )
        self._meta_dirty = True
        # A crash may have left a torn last line with no newline: start on a fresh line
        # so the next event is not glued to it.
        size = os.fstat(self._fd).st_size
        if size:
            with open(self.path, "rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    os.write(self._fd, b"\n")

    def append(self, event: ev.ConversationEvent) -> None:
        """Write *event* if it is durable (see :meth:`write_behind` for when); fsync
        when it ends a run."""
        if not event.DURABLE or self._fd is None:
            return
        self._pending.append(event)
        if self._wake is None or isinstance(event, _AT_ONCE):
            self.flush()
        elif len(self._pending) == 1:
            self._wake()

    def flush(self) -> None:
        """Write the events appended and not yet written, in order, with one ``write()``."""
        pending, self._pending = self._pending, []
        if not pending or self._fd is None:
            return
        os.write(self._fd, b"".join(orjson.dumps(ev.encode_event(e)) + b"\n" for e in pending))
        sync = meta = False
        for event in pending:
            if isinstance(event, ev.UserMessage) and not self.meta.get("first_prompt"):
                self.meta["first_prompt"] = event.text[:200]
                self._meta_dirty = True
            elif isinstance(event, ev.TitleChanged):
                self.meta["title"] = event.title
                self._meta_dirty = True
            sync = sync or isinstance(event, _SYNC_ON)
            if isinstance(event, _META_ON):
                self.meta["updated"] = event.ts
                meta = True
        if sync:
            os.fsync(self._fd)
        if meta:
            self.write_meta()

    async def write_behind(self) -> None:
        """Until cancelled, write appended events when the caller next waits
        rather than as they are appended.

        Encoding and writing a round's seven events cost the loop ~0.15 ms between
        a worker's answer and its next request; behind this task they happen while
        the worker or the model is busy. Events a caller may read at once (the
        result, a title, compaction) are still written as they come, and everything
        pending is written when this task ends or the log closes.
        """
        import trio  # only a live session runs this; reading logs needs no trio

        lot = trio.lowlevel.ParkingLot()
        self._wake = lot.unpark
        try:
            while True:
                if not self._pending:
                    await lot.park()
                self.flush()
        finally:
            self._wake = None
            self.flush()

    def write_meta(self) -> None:
        """Rewrite ``meta.json`` (atomically)."""
        write_json_atomic(self._meta_path, self.meta, mode=0o600)
        self._meta_dirty = False

    def close(self) -> None:
        """Flush and close the log."""
        if self._fd is not None:
            self.flush()
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None
            if self._meta_dirty:
                self.write_meta()
