"""Find a model's parts, assemble them into one GGUF file in the cache, and verify it.

The assembled file lives in the model cache (``$HARNESS_HOME/models`` by default), never in
the workspace. Assembly writes a temporary file, hashes it while writing, and renames it
into place only when the SHA-256 is the pinned one, so a half-written or wrong file is never
found there. Next to it a small stamp records the size and mtime it had when verified; a
file that changed since (truncated, overwritten) is hashed again before it is loaded, and
rebuilt from its parts when that fails.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from harness.actors.model.local._catalogue import DEFAULT_MODEL, CatalogueEntry
from harness.actors.model.local._errors import (
    ChecksumMismatch,
    LocalModelError,
    ModelNotInstalled,
)

__all__ = ["GGUF_MAGIC", "Progress", "assemble", "install_hint", "part_paths", "sha256_file"]

GGUF_MAGIC = b"GGUF"
_CHUNK = 4 << 20

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: stage is ``assembling`` or ``verifying``, in bytes."""


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


def install_hint(entry: CatalogueEntry) -> str:
    """The command a user runs to install *entry*."""
    if entry.name == DEFAULT_MODEL:
        return "make install"
    return f"{Path(sys.executable).name} -m harness.actors.model.local install {entry.name}"


def part_paths(entry: CatalogueEntry) -> list[Path]:
    """The part files of *entry*, in order.

    Raises:
        ModelNotInstalled: a part package is missing or not the pinned version, or a
            listed file is missing; the message names the install command.
    """
    if entry.files:
        missing = [f for f in entry.files if not Path(f).is_file()]
        if missing:
            raise LocalModelError(f"model {entry.name}: part file {missing[0]} does not exist")
        return [Path(f) for f in entry.files]
    paths: list[Path] = []
    for part in entry.packages:
        try:
            version = importlib.metadata.version(part.name)
        except importlib.metadata.PackageNotFoundError:
            raise ModelNotInstalled(
                f"model {entry.name} (package {part.name})", install_hint(entry)
            ) from None
        if version != part.version:
            raise ModelNotInstalled(
                f"model {entry.name} (package {part.requirement}; found {version})",
                install_hint(entry),
            )
        module = importlib.import_module(part.module)
        path = Path(module.get_part_path())
        if not path.is_file():
            raise ModelNotInstalled(
                f"model {entry.name} (file of package {part.name})", install_hint(entry)
            )
        paths.append(path)
    return paths


def sha256_file(path: Path, progress: Progress = _no_progress) -> str:
    """Hex SHA-256 of *path*, reporting ``verifying`` progress."""
    total = path.stat().st_size
    digest = hashlib.sha256()
    done = 0
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
            done += len(chunk)
            progress("verifying", done, total)
    return digest.hexdigest()


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _stamp_of(target: Path) -> dict[str, object]:
    st = target.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _stamp_matches(target: Path, sha256: str) -> bool:
    try:
        recorded = json.loads(_stamp_path(target).read_text(encoding="utf-8"))
        return bool(recorded == {"sha256": sha256, **_stamp_of(target)})
    except (OSError, ValueError):
        return False


def _write_stamp(target: Path, sha256: str) -> None:
    _stamp_path(target).write_text(json.dumps({"sha256": sha256, **_stamp_of(target)}))


def assemble(entry: CatalogueEntry, cache_dir: Path, progress: Progress = _no_progress) -> Path:
    """The verified model file of *entry* in *cache_dir*, assembling it when needed.

    Raises:
        ModelNotInstalled: a part is missing (names the install command).
        ChecksumMismatch: the parts assemble into a file with another digest.
        LocalModelError: the cache cannot be written, or the entry pins no digest.
    """
    if not entry.sha256:
        raise LocalModelError(
            f"model {entry.name} has no pinned SHA-256, so it cannot be verified; "
            "add one in the catalogue"
        )
    target = cache_dir / entry.file_name
    if target.is_file():
        if _stamp_matches(target, entry.sha256):
            return target
        # Changed since it was verified: hash again before trusting it.
        if sha256_file(target, progress) == entry.sha256:
            _write_stamp(target, entry.sha256)
            return target
        target.unlink()
    parts = part_paths(entry)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LocalModelError(f"cannot create the model cache {cache_dir}: {exc}") from None
    total = sum(p.stat().st_size for p in parts)
    tmp = cache_dir / f".{entry.file_name}.{os.getpid()}.part"
    digest = hashlib.sha256()
    done = 0
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while chunk := f.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        progress("assembling", done, total)
        actual = digest.hexdigest()
        if actual != entry.sha256:
            raise ChecksumMismatch(entry.name, entry.sha256, actual)
        os.replace(tmp, target)
    except OSError as exc:
        raise LocalModelError(f"cannot assemble model {entry.name} in {cache_dir}: {exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    _write_stamp(target, entry.sha256)
    return target
