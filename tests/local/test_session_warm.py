"""A session on the embedded model follows the model's load from the moment it opens:
``model_progress`` events ("loading model 60%") before any prompt, ending ``ready``.

Issue 36: the model loaded only when the first question came, behind a bare "waiting
for the model". A prompt sent during the load waits for that same load, which the
model worker starts with the context the requests will carry (another size would load
the model a second time)."""

from __future__ import annotations

from pathlib import Path

import trio

from harness.actors.model.local import DEFAULT_MODEL
from harness.conversation import ContextSettings, open_session
from harness.conversation import events as ev
from harness.conversation._loop_config import LoopConfig
from harness.conversation.session._warm import preload_env


async def test_the_load_is_followed_from_the_open_with_no_prompt(
    tiny_model_path: Path, tiny_cache: Path, tmp_path: Path, home: Path
) -> None:
    # the tiny model (``_tiny.py``), named by its file: a load as the default model's,
    # in a fraction of the time
    environ = {"HARNESS_HOME": str(home), "HARNESS_MODEL_CACHE": str(tiny_cache)}
    seen: list[ev.ModelProgress] = []
    ready = trio.Event()

    def listen(event: ev.ConversationEvent) -> None:
        if isinstance(event, ev.ModelProgress):
            seen.append(event)
            if event.stage in ("ready", "failed"):
                ready.set()

    async with open_session(
        workspace=str(tmp_path),
        home=str(home),
        environ=environ,
        provider="local",
        models=(str(tiny_model_path),),
        record=False,
    ) as session:
        session.subscribe(listen)
        with trio.fail_after(120):
            await ready.wait()
        assert session.history == []  # nothing was asked
    assert seen[-1].stage == "ready", seen[-1]
    loading = [e.message for e in seen if e.stage == "loading"]
    assert loading, [e.message for e in seen]
    assert all(m.startswith("loading model") for m in loading)


def test_the_worker_loads_the_context_the_requests_will_carry() -> None:
    config = LoopConfig(
        workspace=".",
        provider="local",
        models=(DEFAULT_MODEL,),
        context=ContextSettings(window=16_384),
    )
    env = preload_env(config, {})
    assert env["HARNESS_LOCAL_MODEL"] == DEFAULT_MODEL
    assert int(env["HARNESS_LOCAL_CONTEXT"]) == 16_384
    # a larger context set by the user still serves the window
    assert preload_env(config, {"HARNESS_LOCAL_CONTEXT": "32768"})["HARNESS_LOCAL_CONTEXT"] == (
        "32768"
    )
    # a hosted model loads nothing in the model worker
    assert preload_env(LoopConfig(workspace=".", provider="openai", models=("gpt-x",)), {}) == {}
