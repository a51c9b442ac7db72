"""The semantic history index: one vector per complete turn, kept beside the session.

``recall_index.json`` in the session's folder (under ``$HARNESS_HOME``, beside
``events.jsonl``) holds, per complete turn: its number and message range in the
history the session log rebuilds, a hash of its messages, and its vector (unit
length, float32, base64). Never the text: the log is the one transcript, and the
hash says whether a turn is the one the vector was made from. Versioned and written
atomically; derived, so a missing or corrupt file, another version, or one made by
another embedding model is started afresh and rebuilt from the log's turns.
"""

from __future__ import annotations

import base64
import contextlib
import math
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from harness._atomic import read_json, write_json_atomic

__all__ = ["INDEX_FILE", "VERSION", "Entry", "RecallIndex", "Turn", "unit"]

INDEX_FILE = "recall_index.json"
VERSION = 1


def unit(vector: Sequence[float]) -> array[float]:
    """*vector* scaled to length 1 (float32), so a dot product is the cosine."""
    norm = math.sqrt(math.fsum(x * x for x in vector)) or 1.0
    return array("f", (x / norm for x in vector))


@attrs.frozen
class Turn:
    """A complete turn: ``history[first:end]``, numbered from 1."""

    number: int
    first: int
    end: int
    digest: str


@attrs.frozen
class Entry:
    """One turn's vector and where the turn is: ``history[first:end]``."""

    turn: int
    first: int
    end: int
    digest: str
    vector: array[float] = attrs.field(eq=False)

    def to_json(self) -> dict[str, Any]:
        packed = base64.b64encode(self.vector.tobytes()).decode()
        return {
            "turn": self.turn,
            "first": self.first,
            "end": self.end,
            "hash": self.digest,
            "vector": packed,
        }

    @classmethod
    def from_json(cls, doc: Any) -> Entry:
        """The entry in *doc*.

        Raises:
            ValueError: *doc* is not an entry.
        """
        if not isinstance(doc, dict):
            raise ValueError("an entry is not an object")
        vector = array("f")
        try:
            vector.frombytes(base64.b64decode(str(doc["vector"]), validate=True))
            return cls(
                int(doc["turn"]), int(doc["first"]), int(doc["end"]), str(doc["hash"]), vector
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a bad entry: {exc}") from None


class RecallIndex:
    """One session's vectors, by the hash of the turn they were made from.

    Args:
        path: the index file (``None``: kept in memory only, for unrecorded sessions).
        provider, model: who embeds; an index made by another is started afresh.
    """

    def __init__(self, path: Path | None, provider: str, model: str) -> None:
        self.path = path
        self.provider = provider
        self.model = model
        self.entries: dict[str, Entry] = {}
        #: vectors or references changed since the file was written
        self.dirty = False
        #: why the file was not used (missing, corrupt, another model): rebuilt then
        self.started_afresh = ""
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            doc = read_json(path, None)
        except (ValueError, OSError):
            self.started_afresh = "corrupt"
            return
        if doc is None:
            self.started_afresh = "missing"
            return
        if not isinstance(doc, dict) or doc.get("version") != VERSION:
            self.started_afresh = "another version"
            return
        if (doc.get("provider"), doc.get("model")) != (self.provider, self.model):
            self.started_afresh = "another model"
            return
        try:
            entries = [Entry.from_json(e) for e in doc.get("turns") or ()]
        except ValueError:
            self.started_afresh = "corrupt"
            return
        self.entries = {e.digest: e for e in entries}

    def retarget(self, provider: str, model: str) -> None:
        """Embed with *provider*'s *model* from now on (its vectors are not comparable
        with the old ones: the index starts afresh)."""
        if (provider, model) != (self.provider, self.model):
            self.provider, self.model = provider, model
            self.entries = {}
            self.started_afresh = "another model"

    def vector(self, digest: str) -> array[float] | None:
        """The vector of the turn with *digest* (``None``: not embedded yet)."""
        entry = self.entries.get(digest)
        return entry.vector if entry is not None else None

    def add(self, entries: Iterable[Entry]) -> None:
        """Keep *entries* (in memory; :meth:`save` writes)."""
        for e in entries:
            self.entries[e.digest] = e
            self.dirty = True

    def renumber(self, turns: Iterable[Turn]) -> bool:
        """Take the numbers and message ranges of *turns* for the vectors made from
        them; whether any moved."""
        moved = False
        for t in turns:
            e = self.entries.get(t.digest)
            if e is not None and (e.turn, e.first, e.end) != (t.number, t.first, t.end):
                self.entries[t.digest] = attrs.evolve(e, turn=t.number, first=t.first, end=t.end)
                moved = self.dirty = True
        return moved

    def document(self, keep: set[str] | None = None) -> dict[str, Any]:
        """The file's contents, holding only the turns whose hash is in *keep*
        (``None``: all; the others are dropped from memory too)."""
        if keep is not None:
            self.entries = {d: e for d, e in self.entries.items() if d in keep}
        self.started_afresh = ""
        self.dirty = False
        return {
            "version": VERSION,
            "provider": self.provider,
            "model": self.model,
            "turns": [e.to_json() for e in sorted(self.entries.values(), key=lambda e: e.first)],
        }

    def write(self, document: dict[str, Any]) -> None:
        """Replace the file with *document* atomically (blocking: a thread's work); a
        failure to write loses only the index."""
        if self.path is not None:
            with contextlib.suppress(OSError):
                write_json_atomic(self.path, document, mode=0o600)

    def save(self, keep: set[str] | None = None) -> None:
        """:meth:`document` and :meth:`write` at once."""
        self.write(self.document(keep))
