"""Long-term memory: a JSON object of key -> text in ``$HARNESS_HOME/memory.json``.

The memory tools (``write_memory``, ``read_memory``, ``list_memory``,
``edit_memory``, ``delete_memory``) run in the conversation itself. Every change
rewrites the file atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness._atomic import read_json, write_json_atomic
from harness.errors import ToolError

__all__ = ["MEMORY_TOOLS", "MemoryStore", "MemoryStoreError"]

MEMORY_TOOLS = ("write_memory", "read_memory", "list_memory", "edit_memory", "delete_memory")
_MAX_VALUE = 20_000


class MemoryStoreError(ToolError):
    """A memory tool call that cannot be done; the message says why."""


class MemoryStore:
    """The memory file at *path* (read on every call: another harness may write it)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def _load(self) -> dict[str, str]:
        try:
            data = read_json(self.path, {})
        except ValueError as exc:
            raise MemoryStoreError(f"{exc}; fix or remove it") from None
        if not isinstance(data, dict):
            raise MemoryStoreError(f"{self.path} does not hold a JSON object")
        return {str(k): str(v) for k, v in data.items()}

    def _save(self, data: dict[str, str]) -> None:
        write_json_atomic(self.path, data, mode=0o600)

    def write(self, key: str, value: str) -> str:
        """Save *value* under *key* (replacing what was there)."""
        key = _key(key)
        if len(value) > _MAX_VALUE:
            raise MemoryStoreError(f"a memory holds at most {_MAX_VALUE} characters")
        data = self._load()
        existed = key in data
        data[key] = value
        self._save(data)
        return f"{'Replaced' if existed else 'Saved'} memory {key!r}."

    def read(self, key: str) -> str:
        """The text under *key*."""
        data = self._load()
        if key not in data:
            raise MemoryStoreError(
                f"no memory named {key!r}; known: {', '.join(sorted(data)) or 'none'}"
            )
        return data[key]

    def list(self) -> str:
        """The keys, one a line, with the first line of each memory."""
        data = self._load()
        if not data:
            return "Memory is empty."
        return "\n".join(
            f"{k}: {v.splitlines()[0][:80] if v else ''}" for k, v in sorted(data.items())
        )

    def edit(self, key: str, old_text: str, new_text: str) -> str:
        """Replace *old_text* (which must occur exactly once) in memory *key*."""
        data = self._load()
        if key not in data:
            raise MemoryStoreError(f"no memory named {key!r}")
        count = data[key].count(old_text) if old_text else 0
        if count != 1:
            raise MemoryStoreError(
                f"old_text must occur exactly once in {key!r}; it occurs {count} times"
            )
        data[key] = data[key].replace(old_text, new_text, 1)
        self._save(data)
        return f"Edited memory {key!r}."

    def delete(self, key: str) -> str:
        """Remove memory *key*."""
        data = self._load()
        if key not in data:
            raise MemoryStoreError(f"no memory named {key!r}")
        del data[key]
        self._save(data)
        return f"Deleted memory {key!r}."

    def call(self, name: str, args: dict[str, Any]) -> str:
        """Run memory tool *name* with bound *args*."""
        if name == "write_memory":
            return self.write(args["key"], args["value"])
        if name == "read_memory":
            return self.read(args["key"])
        if name == "list_memory":
            return self.list()
        if name == "edit_memory":
            return self.edit(args["key"], args["old_text"], args["new_text"])
        if name == "delete_memory":
            return self.delete(args["key"])
        raise MemoryStoreError(f"{name} is not a memory tool")


def _key(key: str) -> str:
    key = key.strip()
    if not key or len(key) > 200:
        raise MemoryStoreError("a memory key must be 1 to 200 characters")
    return key
