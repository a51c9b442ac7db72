"""The embedded model: a GGUF model run in the model worker with llama.cpp.

The public surface. This module stays light (no llama.cpp, no trio): the command line
imports it to choose the start-up model. The provider itself is built by
:func:`make_provider`, which the model worker calls once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
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
from harness.actors.model.local._grammar import TRIGGERS
from harness.actors.model.local._looping import LoopWatch

if TYPE_CHECKING:
    from harness.actors.model.local._guide import Guide as Guide
    from harness.actors.model.local._provider import LocalProvider
    from harness.ipc import Message
    from harness.messages.local import LoadLocalModel
    from harness.messages.model import ToolSchema

__all__ = [
    "CATALOGUE",
    "DEFAULT_MODEL",
    "TRIGGERS",
    "CatalogueEntry",
    "CatalogueError",
    "ChecksumMismatch",
    "LocalModelError",
    "LoopWatch",
    "ModelLoadError",
    "ModelNotInstalled",
    "NoModelAvailable",
    "PartPackage",
    "StartupChoice",
    "cannot_prime",
    "catalogue",
    "choose_startup_model",
    "embedded_installed",
    "lookup",
    "make_provider",
    "primed",
    "probe_ollama",
    "shared_prompt",
    "stream_load",
    "text_guide",
]


def make_provider() -> LocalProvider:
    """The ``local`` provider, configured from the environment (see
    :class:`~harness.actors.model.local._provider.LocalProvider`)."""
    from harness.actors.model.local._provider import make_provider as make

    return make()


def text_guide() -> Guide:
    """The guidance of text-protocol replies (call grammar, nudges, repeat cap; see
    :class:`~harness.actors.model.local._guide.Guide`) with the small-model profile
    (:data:`~harness.actors.model.SMALL_MODEL`): what a llama.cpp server's replies get.
    The embedded provider builds its own from the environment."""
    from harness.actors.model.local._guide import Guide as Guide

    return Guide()


def shared_prompt(system: str, tools: Sequence[ToolSchema]) -> tuple[str, str]:
    """``(system, shared)``: a session's system prompt as the embedded model reads it
    with *tools* offered, and the part every project shares (see
    :func:`~harness.actors.model.local._prime.shared_prompt`)."""
    from harness.actors.model.local._prime import shared_prompt as split

    return split(system, tools)


def cannot_prime(spec: str, env: Mapping[str, str] | None = None) -> str:
    """Why model *spec* cannot read its shared prompt ahead here ("" when it can);
    loads nothing (see :func:`~harness.actors.model.local._prime.cannot_prime`)."""
    from harness.actors.model.local._prime import cannot_prime as why

    return why(spec, env)


def primed(shared: str, spec: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether model *spec* has read *shared* ahead and its state is still kept; loads
    nothing (see :func:`~harness.actors.model.local._prime.primed`)."""
    from harness.actors.model.local._prime import primed as done

    return done(shared, spec, env)


async def stream_load(
    provider: LocalProvider, req: LoadLocalModel, emit: Callable[[Message], Awaitable[None]]
) -> None:
    """Serve :class:`~harness.messages.local.LoadLocalModel` on the model worker:
    start loading and stream :class:`~harness.messages.local.LocalModelProgress`
    until the model is ready or failed."""
    from harness.actors.model.local._provider import stream_load as serve

    await serve(provider, req, emit)
