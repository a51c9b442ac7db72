"""``LoadLocalModel`` through the real model worker: progress streams to an end."""

from __future__ import annotations

from harness.messages.local import LoadLocalModel, LocalModelProgress
from harness.supervisor import ChildSpec, open_supervisor


async def test_loading_an_unknown_model_streams_a_failure_that_says_why() -> None:
    async with open_supervisor() as sup:
        h = await sup.start(ChildSpec(name="model", module="harness.actors.model"))
        async with h.stream(LoadLocalModel(model="no-such-model"), timeout=60) as items:
            got = [item async for item in items]
    assert got
    assert all(isinstance(item, LocalModelProgress) for item in got)
    assert got[-1].stage == "failed"
    assert "no-such-model" in got[-1].message


async def test_the_embedded_model_switched_off_is_a_failure_too() -> None:
    async with open_supervisor() as sup:
        h = await sup.start(
            ChildSpec(name="model", module="harness.actors.model", env={"HARNESS_EMBEDDED": "off"})
        )
        async with h.stream(LoadLocalModel(model="default"), timeout=60) as items:
            got = [item async for item in items]
    assert got[-1].stage == "failed"
    assert got[-1].message
