"""The message vocabulary the actors speak to each other.

Each module groups one actor's messages; all of them are plain frozen attrs
classes built on :class:`harness.ipc.Message`, so they import nothing heavy and
every process may import them.
"""

from harness.messages.model import (
    PROVIDERS,
    ChatMessage,
    ChatOptions,
    ChatRequest,
    HistoryHeld,
    HistoryRef,
    HistoryUnknown,
    ListModels,
    ModelDone,
    ModelError,
    ModelEvent,
    ModelList,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolCallEvent,
    ToolSchema,
    Usage,
)
from harness.messages.tools import (
    PERMISSION_MODES,
    AutocommitState,
    PermissionMode,
    SetAutocommit,
    ToolInvoke,
    ToolOutcome,
    ToolPreview,
    ToolPreviewResult,
    Undo,
    UndoResult,
)

__all__ = [
    "PERMISSION_MODES",
    "PROVIDERS",
    "AutocommitState",
    "ChatMessage",
    "ChatOptions",
    "ChatRequest",
    "HistoryHeld",
    "HistoryRef",
    "HistoryUnknown",
    "ListModels",
    "ModelDone",
    "ModelError",
    "ModelEvent",
    "ModelList",
    "PermissionMode",
    "SetAutocommit",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "ToolCallEvent",
    "ToolInvoke",
    "ToolOutcome",
    "ToolPreview",
    "ToolPreviewResult",
    "ToolSchema",
    "Undo",
    "UndoResult",
    "Usage",
]
