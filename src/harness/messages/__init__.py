"""The message vocabulary the actors speak to each other.

Each module groups one actor's messages, and is the one import path of each of them:
:mod:`harness.messages.model` (``ChatRequest``, ``ToolCall`` ...),
:mod:`harness.messages.tools` (``ToolInvoke``, ``ToolOutcome`` ...),
:mod:`harness.messages.mcp`, :mod:`harness.messages.subagent` and
:mod:`harness.messages.local`. All of them are plain frozen attrs classes built on
:class:`harness.ipc.Message`, so every process may import them. This face imports
none of them, so a process that needs one actor's messages loads only those.

The words every layer shares (the provider names, the permission modes) are
:mod:`harness.words`'s; they are re-exported here for the code that reads them
beside the messages.
"""

from harness.words import PERMISSION_MODES, PROVIDERS, PermissionMode

__all__ = ["PERMISSION_MODES", "PROVIDERS", "PermissionMode"]
