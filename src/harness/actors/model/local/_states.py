"""Prompt states kept on disk: a model's context after the start of a prompt that comes
back (the system prompt's part every project shares, a project's whole system prompt),
saved by llama.cpp and loaded instead of reading those tokens again.

A state's file is named by the model, a hash of the tokens it holds, llama.cpp's version
and the context size, so a state only ever loads into the context that made it; the
tokens it holds are checked again when it loads. The most recently used are kept.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import struct
from pathlib import Path
from typing import Any

__all__ = ["STATES_KEPT", "SavedStates"]

STATES_KEPT = 8
"""Saved prompt states kept (about 33 MB each; one per workspace and tool list), the most
recently used."""


class SavedStates:
    """The states of one loaded model's context in *folder* (``None``: none are kept).

    *lib* is llama-cpp-python's low-level module; *name* ends each file's name (model,
    llama.cpp version, context size) after the hash of its tokens.
    """

    def __init__(self, folder: Path | None, model_key: str, name: str, lib: Any) -> None:
        self.folder = folder
        self._model_key = model_key
        self._name = name
        self._lib = lib

    def file(self, prefix: list[int]) -> Path | None:
        """Where the state after *prefix* is kept (``None`` when states are not kept)."""
        if self.folder is None:
            return None
        digest = hashlib.sha256(struct.pack(f"{len(prefix)}i", *prefix)).hexdigest()[:16]
        return self.folder / f"{self._model_key}-{digest}-{self._name}.state"

    def load(self, llama: Any, path: Path, prefix: list[int]) -> bool:
        """Load *path* into *llama*'s context; ``False`` (context emptied, file removed)
        when it does not load or holds other tokens than *prefix*."""
        out = (self._lib.llama_token * len(prefix))()
        count = ctypes.c_size_t(0)
        ok = self._lib.llama_state_load_file(
            llama._ctx.ctx, str(path).encode(), out, len(prefix), ctypes.byref(count)
        )
        if not ok or list(out[: count.value]) != prefix:
            # unreadable or not ours: forget whatever it left, evaluate from the start
            llama._ctx.kv_cache_seq_rm(-1, 0, -1)
            llama.n_tokens = 0
            path.unlink(missing_ok=True)
            return False
        llama.input_ids[: len(prefix)] = prefix
        llama.n_tokens = len(prefix)
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: the last to be pruned
        return True

    def save(self, llama: Any, path: Path, prefix: list[int]) -> None:
        """Save *llama*'s context, holding *prefix*, as *path*; then keep only the
        :data:`STATES_KEPT` most recently used. A state that cannot be written is none."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            return
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        arr = (self._lib.llama_token * len(prefix))(*prefix)
        if self._lib.llama_state_save_file(llama._ctx.ctx, str(tmp).encode(), arr, len(prefix)):
            os.replace(tmp, path)  # never a half-written state under the real name
        else:
            tmp.unlink(missing_ok=True)
        _prune(path.parent, STATES_KEPT)


def _prune(folder: Path, keep: int) -> None:
    try:
        states = sorted(folder.glob("*.state"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in states[keep:]:
        old.unlink(missing_ok=True)
