"""The model made ready before the first prompt: an Ollama model's window asked for, and
the embedded model's load started and followed; and a sub-agent runner's imports made in
the fork server once the first run is over (:func:`warm_runners`).

A session on the embedded model (a profile that ``preloads``) starts its model worker
with ``HARNESS_LOCAL_MODEL``, so the load starts with the worker, and with
``HARNESS_LOCAL_CONTEXT`` at least the window its requests will carry: a smaller
context would be loaded again at the first request. :func:`prepare_model` then
streams ``LoadLocalModel``, which joins that load, and emits each step as a
``model_progress`` event, so a frontend says "loading model 60%" before anything is
asked. A prompt sent meanwhile waits for the same load; a load that fails says why at
that prompt (and in the last ``model_progress``, stage ``failed``).
"""

from __future__ import annotations

from collections.abc import Mapping

import trio

from harness.conversation import events as ev
from harness.conversation._loop import Conversation
from harness.conversation._loop_config import LoopConfig
from harness.conversation.context import ask_window
from harness.conversation.workers import Workers
from harness.errors import HarnessError
from harness.messages.local import LoadLocalModel, LocalModelProgress

__all__ = ["preload_env", "prepare_model", "warm_runners"]


def preload_env(config: LoopConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """What the model worker's environment gains so that it loads *config*'s model as it
    starts (nothing when the model is not one that preloads)."""
    if not (config.profile().preloads and config.models):
        return {}
    model = config.models[0]
    window = config.context.resolved(config.provider, model)[0]
    try:  # a larger context the user asked for serves a smaller window too
        window = max(window, int(environ.get("HARNESS_LOCAL_CONTEXT", "") or 0))
    except ValueError:
        pass
    return {"HARNESS_LOCAL_MODEL": model, "HARNESS_LOCAL_CONTEXT": str(window)}


def prepare_model(conv: Conversation, workers: Workers) -> None:
    """Get *conv*'s model ready in the background (at open and after each switch): ask
    a server for its window, follow the embedded model's load as events."""
    ask_window(conv, workers)
    cfg = conv.config
    if not (cfg.profile().preloads and cfg.models) or "model" not in workers.supervisor:
        return
    model = cfg.models[0]

    async def follow() -> None:
        handle = workers.supervisor.get("model")
        try:
            async with handle.stream(LoadLocalModel(model=model), timeout=None) as items:
                async for item in items:
                    if isinstance(item, LocalModelProgress):
                        conv.emit(
                            ev.ModelProgress(
                                session_id=conv.session_id,
                                stage=item.stage,
                                done=item.done,
                                total=item.total,
                                message=item.message,
                            )
                        )
        except HarnessError:
            pass  # the worker died or stopped: the first request says so

    workers.start_soon(follow)


#: Seconds from the end of a session's first run to its fork server's import of a
#: sub-agent runner's modules: a session that ends with that run (``harness -p``) has
#: closed by then, and its server imports nothing it would not use.
WARM_AFTER = 1.0


def warm_runners(conv: Conversation, workers: Workers) -> None:
    """Have the fork server import a sub-agent runner's modules :data:`WARM_AFTER`
    seconds after *conv*'s first run has ended (:meth:`Workers.warm_runners`): while a
    run starts, that import takes the CPU its first request waits for (``python -m
    bench headless``). A runner hired before then imports them itself."""
    asked = False

    async def warm_later() -> None:
        await trio.sleep(WARM_AFTER)
        await workers.warm_runners()

    def after_run(event: ev.ConversationEvent) -> None:
        nonlocal asked
        if isinstance(event, ev.Result) and not asked:
            asked = True
            workers.start_soon(warm_later)

    conv.subscribe(after_run)
