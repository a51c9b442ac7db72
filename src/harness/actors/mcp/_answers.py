"""The SDK's answers as harness's messages: a tool, a call's result (its text, and its
images for models that see them), a resource's contents, a listed resource or prompt.

Every string a server sends passes through :func:`~harness.actors.mcp._output.clean_text`
and, where it can be long, :func:`~harness.actors.mcp._output.cap_text`. Media the model
is not given whole become a one-line note of their kind and size.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from harness.actors.mcp._output import cap_text, clean_text
from harness.messages.mcp import McpPromptInfo, McpResource, McpTool
from harness.messages.tools import ToolOutcome

__all__ = [
    "IMAGES_PER_RESULT",
    "IMAGE_CAP",
    "IMAGE_TYPES",
    "block_text",
    "prompt_of",
    "resource_of",
    "resource_text",
    "tool_of",
    "tool_outcome",
]

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Image kinds every provider that takes images accepts."""
IMAGE_CAP = 5 * 1024 * 1024
"""Base64 characters of one image passed on to the model (Anthropic's limit is 5 MB)."""
IMAGES_PER_RESULT = 4


def tool_of(t: types.Tool) -> McpTool:
    """A listed tool, with what its annotations say."""
    ann = t.annotations
    return McpTool(
        name=t.name,
        description=t.description or "",
        input_schema=dict(t.input_schema or {"type": "object"}),
        read_only=bool(ann is not None and ann.read_only_hint),
        destructive=None if ann is None else ann.destructive_hint,
        title=(t.title or (ann.title if ann is not None and ann.title else "")) or "",
    )


def _decoded_size(data: str) -> int:
    """Bytes that base64 *data* holds (its padding is not data)."""
    return len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))


def block_text(block: Any) -> str:
    """One content block as text (media as a one-line note)."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent | types.AudioContent):
        kind = "image" if isinstance(block, types.ImageContent) else "audio"
        return f"[{kind} {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link {block.uri}" + (f" ({block.name})" if block.name else "") + "]"
    if isinstance(block, types.EmbeddedResource):
        return resource_text(block.resource)
    return f"[{getattr(block, 'type', type(block).__name__)} content]"


def resource_text(contents: Any) -> str:
    """A resource's contents as text (a blob as a one-line note)."""
    if isinstance(contents, types.TextResourceContents):
        return contents.text
    if isinstance(contents, types.BlobResourceContents):
        mime = contents.mime_type or "binary"
        return f"[{mime} resource {contents.uri}, {_decoded_size(contents.blob)} bytes]"
    return f"[resource {getattr(contents, 'uri', '')}]"


def _images(result: types.CallToolResult) -> list[dict[str, str]]:
    """The result's images as ``{"mime_type", "data"}`` (base64), for models that see
    images; a kind a provider does not take, or past the caps, stays a placeholder only."""
    out: list[dict[str, str]] = []
    for block in result.content:
        if (
            isinstance(block, types.ImageContent)
            and block.mime_type in IMAGE_TYPES
            and len(block.data) <= IMAGE_CAP
            and len(out) < IMAGES_PER_RESULT
        ):
            out.append({"mime_type": block.mime_type, "data": block.data})
    return out


def tool_outcome(result: types.CallToolResult) -> ToolOutcome:
    """A call's result: its blocks as capped text (structured content when the blocks
    say nothing), its images beside it, ``ok`` unless the server marked an error."""
    parts = [block_text(b) for b in result.content]
    if not any(p.strip() for p in parts) and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False)]
    text = cap_text(clean_text("\n".join(parts)))
    images = _images(result)
    data: dict[str, Any] = {"images": images} if images else {}
    return ToolOutcome(ok=not result.is_error, output=text or "(no output)", data=data)


def resource_of(r: types.Resource) -> McpResource:
    """A listed resource."""
    return McpResource(
        uri=str(r.uri),
        name=r.name or "",
        description=clean_text(r.description or ""),
        mime_type=r.mime_type or "",
    )


def prompt_of(p: types.Prompt) -> McpPromptInfo:
    """A listed prompt, with its arguments and which of them are required."""
    args = p.arguments or []
    return McpPromptInfo(
        name=p.name,
        description=clean_text(p.description or ""),
        arguments=tuple(a.name for a in args),
        required=tuple(a.name for a in args if a.required),
    )
