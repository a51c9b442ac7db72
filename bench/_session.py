"""The session options the in-process benches share: a scripted model, the model and
tools workers running this checkout's code, no questions asked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.scripted import ScriptedModel

from harness.conversation import SessionOptions

__all__ = ["scripted_options"]


def scripted_options(ws: Path, home: Path, model: ScriptedModel, **more: Any) -> SessionOptions:
    """Options for a session in *ws* on *model*, with *more* fields on top."""
    # the workers run the code of this checkout, as the loop does
    root = os.pathsep.join(
        filter(None, [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")])
    )
    return SessionOptions(
        workspace=str(ws),
        home=str(home),
        provider="openai",
        models=("scripted",),
        base_url=model.base_url,
        permission_mode="auto",
        workers={"model": "harness.actors.model", "tools": "harness.actors.tools"},
        worker_env={n: {"PYTHONPATH": root} for n in ("model", "tools")},
        **more,
    )
