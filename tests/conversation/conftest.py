"""Fixtures: sessions on real workers, with the scripted model (``workspace``, ``home`` and
``model`` come from tests/conftest.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.conversation import Session, SessionOptions, open_session
from tests.scripted import ScriptedModel

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

# The real workers.
MODULES = {
    "model": "harness.actors.model",
    "tools": "harness.actors.tools",
    "shell": "harness.actors.shell",
}


def options_for(workspace: Path, home: Path, model: ScriptedModel, **kw: Any) -> SessionOptions:
    env: dict[str, dict[str, str]] = {name: {"PYTHONPATH": PYTHONPATH} for name in MODULES}
    env["shell"]["TEST_WORKER_NAME"] = "shell"
    for name, extra in kw.pop("worker_env", {}).items():
        env.setdefault(name, {}).update(extra)
    names = kw.pop("names", ("model", "tools"))
    fields: dict[str, Any] = {
        "workspace": str(workspace),
        "home": str(home),
        "provider": "openai",
        "models": ("scripted",),
        "base_url": model.base_url,
        "permission_mode": "auto",
        # the shell worker only where a test needs it: each worker costs a start-up
        "workers": {k: v for k, v in MODULES.items() if k in names},
        "worker_env": env,
    }
    fields.update(kw)
    return SessionOptions(**fields)


@pytest.fixture
def session_factory(
    workspace: Path, home: Path, model: ScriptedModel
) -> Callable[..., AbstractAsyncContextManager[Session]]:
    def make(**kw: Any) -> AbstractAsyncContextManager[Session]:
        approver = kw.pop("approver", None)
        return open_session(options_for(workspace, home, model, **kw), approver=approver)

    return make


def system_prompt(model: ScriptedModel) -> str:
    """The system prompt of the last request *model* was sent."""
    first = model.requests[-1]["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def drain(channel: Any) -> list[Any]:
    """Every event waiting in *channel*."""
    out = []
    while True:
        try:
            out.append(channel.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            return out
