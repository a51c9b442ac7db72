"""The model worker: ``python -m harness.actors.model``.

Answers ``ChatRequest`` with a stream of model events, ``ListModels`` with the
provider's models, ``Embed`` with vectors and ``DescribeModel`` with what the server
says of a model's window. Keys, addresses and timeouts come from its environment (see
:mod:`harness.actors.model._credentials` and ``HARNESS_MODEL_*_TIMEOUT``).
"""

from __future__ import annotations

import os

from harness.actors.model._chat import ModelEngine
from harness.actors.model._oversize import fit_frames
from harness.actors.model._provider import ProviderError
from harness.ipc import Emit
from harness.messages.local import LoadLocalModel, LocalModelProgress
from harness.messages.model import (
    ChatRequest,
    DescribeModel,
    Embed,
    Embeddings,
    ListModels,
    ModelFacts,
    ModelList,
)
from harness.worker import Worker

worker = Worker("model")
engine = ModelEngine()


@worker.stream(ChatRequest)
async def chat(req: ChatRequest, emit: Emit) -> None:
    """Stream one reply."""
    await engine.chat(req, fit_frames(emit))


@worker.handle(ListModels)
async def list_models(req: ListModels) -> ModelList:
    """List a provider's models."""
    return await engine.list_models(req)


@worker.handle(Embed)
async def embed(req: Embed) -> Embeddings:
    """Embed texts with the provider's embedding model."""
    return await engine.embed(req)


@worker.handle(DescribeModel)
async def describe(req: DescribeModel) -> ModelFacts:
    """What the server says about a model's window."""
    return await engine.describe(req)


@worker.stream(LoadLocalModel)
async def load_local(req: LoadLocalModel, emit: Emit) -> None:
    """Start loading the embedded model now, so the first prompt does not wait for
    it, and stream the load's progress until it is ready or failed."""
    try:
        provider = engine.provider("local")
    except ProviderError as exc:
        await emit(LocalModelProgress(model=req.model, stage="failed", message=exc.message))
        return
    from harness.actors.model import local

    await local.stream_load(provider, req, emit)  # type: ignore[arg-type]


@worker.on_shutdown
async def close() -> None:
    """Close the providers' connections."""
    await engine.aclose()


def load_early() -> None:
    """Start loading the embedded model named by ``HARNESS_LOCAL_MODEL`` now (a session
    on the embedded model sets it), so the load runs while the user types, not at the
    first request; a model that cannot load says why at that request."""
    if os.environ.get("HARNESS_LOCAL_MODEL"):
        try:
            engine.provider("local")  # its constructor starts the load in a thread
        except ProviderError:
            pass


if __name__ == "__main__":
    load_early()
    worker.run()
