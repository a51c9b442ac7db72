"""The embedded model: a GGUF model run in the model worker with llama.cpp.

The public surface. This module stays light (no llama.cpp, no trio): the command line
imports it to choose the start-up model. The provider itself is built by
:func:`make_provider`, which the model worker calls once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.actors.model.local._catalogue import (
    CATALOGUE,
    DEFAULT_MODEL,
    CatalogueEntry,
    PartPackage,
    catalogue,
    lookup,
)
from harness.actors.model.local._default import (
    NoModelAvailable,
    StartupChoice,
    choose_startup_model,
    embedded_installed,
    probe_ollama,
)
from harness.actors.model.local._errors import (
    CatalogueError,
    ChecksumMismatch,
    LocalModelError,
    ModelLoadError,
    ModelNotInstalled,
)

if TYPE_CHECKING:
    from harness.actors.model.local._provider import LocalProvider

__all__ = [
    "CATALOGUE",
    "DEFAULT_MODEL",
    "CatalogueEntry",
    "CatalogueError",
    "ChecksumMismatch",
    "LocalModelError",
    "ModelLoadError",
    "ModelNotInstalled",
    "NoModelAvailable",
    "PartPackage",
    "StartupChoice",
    "catalogue",
    "choose_startup_model",
    "embedded_installed",
    "lookup",
    "make_provider",
    "probe_ollama",
]


def make_provider() -> LocalProvider:
    """The ``local`` provider, configured from the environment (see
    :class:`~harness.actors.model.local._provider.LocalProvider`)."""
    from harness.actors.model.local._provider import make_provider as make

    return make()
