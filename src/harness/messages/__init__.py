"""The message vocabulary the actors speak to each other.

Each module groups one actor's messages, and is the one import path of each of them:
:mod:`harness.messages.model` (``ChatRequest``, ``ToolCall`` ...),
:mod:`harness.messages.tools` (``ToolInvoke``, ``ToolOutcome`` ...),
:mod:`harness.messages.mcp`, :mod:`harness.messages.subagent` and
:mod:`harness.messages.local`; this face offers the modules, not their classes. All of
them are plain frozen attrs classes built on :class:`harness.ipc.Message`, so every
process may import them; importing any of them imports the package, which registers
every message class, so each process can decode every tag it may be sent.

The words every layer shares (the provider names, the permission modes) are
:mod:`harness.words`'s; they are re-exported here for the code that reads them
beside the messages.
"""

# imported for their registration (the codec finds a class by its tag), not re-exported
from harness.messages import local, mcp, model, subagent, tools
from harness.words import PERMISSION_MODES, PROVIDERS, PermissionMode

__all__ = [
    "PERMISSION_MODES",
    "PROVIDERS",
    "PermissionMode",
    "local",
    "mcp",
    "model",
    "subagent",
    "tools",
]
