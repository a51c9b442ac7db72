"""Errors of the embedded model, each with the words a user needs to act on it.

::

    LocalModelError
     ├─ CatalogueError        a model name nobody knows, a broken user catalogue
     ├─ ModelNotInstalled     part packages or llama-cpp-python missing: says the command
     ├─ ChecksumMismatch      the assembled file is not the file the catalogue pins
     └─ ModelLoadError        llama.cpp refused the file (not GGUF, out of memory ...)
"""

from __future__ import annotations

from harness.errors import ConfigError

__all__ = [
    "CatalogueError",
    "ChecksumMismatch",
    "LocalModelError",
    "ModelLoadError",
    "ModelNotInstalled",
]


class LocalModelError(ConfigError):
    """Base of the embedded model's errors; ``str()`` is the one line a user sees."""


class CatalogueError(LocalModelError):
    """The model name or the user's catalogue does not make sense."""


class ModelNotInstalled(LocalModelError):
    """Something the model needs is not installed; ``command`` installs it."""

    def __init__(self, what: str, command: str) -> None:
        super().__init__(f"{what} is not installed: run `{command}`")
        self.what = what
        self.command = command


class ChecksumMismatch(LocalModelError):
    """The assembled model file's SHA-256 is not the pinned one."""

    def __init__(self, model: str, expected: str, actual: str) -> None:
        super().__init__(
            f"model {model}: the assembled file fails its checksum (SHA-256 {actual[:16]}…, "
            f"expected {expected[:16]}…); it was not loaded. Reinstall its packages."
        )
        self.model = model
        self.expected = expected
        self.actual = actual


class ModelLoadError(LocalModelError):
    """llama.cpp could not load the file."""
