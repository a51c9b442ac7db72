"""The model actor: one stream of typed events out of every provider.

The worker (``python -m harness.actors.model``) answers
:class:`~harness.actors.protocol.model.ChatRequest` and
:class:`~harness.actors.protocol.model.ListModels`. This package surface stays light
(no httpx): it holds the provider seam other providers implement.
"""

from harness.actors.model._provider import (
    ERROR_KINDS,
    Finish,
    Provider,
    ProviderCall,
    ProviderError,
    ProviderEvent,
    ProviderFactory,
)

__all__ = [
    "ERROR_KINDS",
    "Finish",
    "Provider",
    "ProviderCall",
    "ProviderError",
    "ProviderEvent",
    "ProviderFactory",
]
