"""The model worker: ``python -m harness.actors.model``.

Answers ``ChatRequest`` with a stream of model events and ``ListModels`` with the
provider's models. Keys, addresses and timeouts come from its environment (see
:mod:`harness.actors.model._credentials` and ``HARNESS_MODEL_*_TIMEOUT``).
"""

from __future__ import annotations

from harness.actors.base import Worker
from harness.actors.model._engine import ModelEngine
from harness.actors.protocol.model import ChatRequest, ListModels, ModelList
from harness.ipc import Emit

worker = Worker("model")
engine = ModelEngine()


@worker.stream(ChatRequest)
async def chat(req: ChatRequest, emit: Emit) -> None:
    """Stream one reply."""
    await engine.chat(req, emit)


@worker.handle(ListModels)
async def list_models(req: ListModels) -> ModelList:
    """List a provider's models."""
    return await engine.list_models(req)


@worker.on_shutdown
async def close() -> None:
    """Close the providers' connections."""
    await engine.aclose()


if __name__ == "__main__":
    worker.run()
