"""Messages of the embedded model (the ``local`` provider inside the model worker).

``LoadLocalModel`` asks the model worker to start loading an embedded model now (a front
end sends it at start-up when the ``local`` provider was chosen, so the first prompt does
not wait for the load) and streams ``LocalModelProgress`` until the model is ready or
failed. The last item has ``stage`` ``ready`` or ``failed``. A ``ChatRequest`` to the
embedded model streams the same message before its reply: the load's progress when the
model is not ready yet, and ``reading`` while a long prompt is read.
"""

from __future__ import annotations

import attrs

from harness.ipc import Message

__all__ = ["LoadLocalModel", "LocalModelProgress"]


@attrs.frozen
class LoadLocalModel(Message, tag="model.local.load"):
    """Load *model* (a catalogue name or a ``.gguf`` path); streams progress."""

    model: str


@attrs.frozen
class LocalModelProgress(Message, tag="model.local.progress"):
    """Where the load is. ``stage``: ``waiting``, ``assembling``, ``verifying``
    (``done``/``total`` in bytes), ``testing``, ``loading``, ``ready`` or ``failed``
    (``message`` says why, in words a user can act on); or, in a reply's stream,
    ``reading`` (``done``/``total`` in prompt tokens), and ``nudged`` when a reply that
    stopped short gets one more generation ("asking the model again: claimed-change",
    the nudge rule's name last). ``message`` is always one line for a status bar
    ("reading 1,480 tokens 35%")."""

    model: str
    stage: str
    done: int = 0
    total: int = 0
    message: str = ""
