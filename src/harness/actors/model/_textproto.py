"""The text tool protocol: the system-prompt section and the history rendering.

Models without native tool support are told about the tools in the system prompt and call
them by writing ``<tool_call>`` blocks. Their history is rendered to match: an assistant's
calls become those blocks again (file bodies in tags, verbatim), and tool results go back
as a user message wrapped in ``<tool_response>`` (measured: small models repeat a call
when its result comes back through their template's tool role). A call refused until its
file was read is left out once the file has been, or changed (:func:`_settled`).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Sequence
from typing import Any

from harness.actors.model._bodytags import BODY_ALIASES
from harness.messages.model import ChatMessage, ToolCall, ToolSchema

__all__ = [
    "TEXT_PROTOCOL_STOPS",
    "body_params",
    "render_call",
    "render_text_history",
    "text_protocol_prompt",
]

TEXT_PROTOCOL_STOPS = ("</tool_call>", "<tool_response>")
"""Where a text-protocol reply ends, for backends that take stop sequences: after a call
(the parser closes a call cut off there), and before a tool result the model would make up."""


def body_params(tool: ToolSchema) -> dict[str, str]:
    """The parameters of *tool* written as body tags: parameter name -> tag name."""
    props = tool.parameters.get("properties", {}) if isinstance(tool.parameters, dict) else {}
    found: dict[str, str] = {}
    for tag, aliases in BODY_ALIASES.items():
        for name in aliases:
            spec = props.get(name)
            if isinstance(spec, dict) and spec.get("type") == "string":
                found[name] = tag
                break
    return found


def _example_args(tool: ToolSchema, skip: Iterable[str]) -> dict[str, Any]:
    props = tool.parameters.get("properties", {})
    required = tool.parameters.get("required", list(props))
    out: dict[str, Any] = {}
    for name in required:
        if name in skip or name not in props:
            continue
        kind = props[name].get("type") if isinstance(props[name], dict) else None
        out[name] = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}.get(
            str(kind), "..."
        )
    return out


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def _example_call(tools: list[ToolSchema]) -> str:
    """One concrete call: a file read where there is a tool for it, since that is the
    call a model needs first and most often."""
    tool = next(
        (t for t in tools if "path" in t.parameters.get("required", ()) and not body_params(t)),
        tools[0],
    )
    args = _example_args(tool, body_params(tool))
    if args.get("path") == "...":
        args["path"] = "notes.txt"
    return "<tool_call>" + json.dumps({"name": tool.name, "arguments": args}) + "</tool_call>"


def text_protocol_prompt(tools: Iterable[ToolSchema]) -> str:
    """The system-prompt section that teaches a text-protocol model the tools.

    Written for small models (measured with a 1.5B one): it says first that the files
    can only be seen through a tool (without that, asked which file defines a function,
    it answers a made-up name with no call), shows one concrete call, names each tool by
    what it is for (the one that searches contents was never picked before), and says
    what to do after a result.
    """
    tools = list(tools)
    if not tools:
        return ""
    lines = [
        "# Tools",
        "",
        "You cannot see the user's files. To answer anything about them, call a tool "
        "first, then answer from its result. Never guess a file's name or what it holds.",
        "",
        "To call a tool, write one <tool_call> block and stop: no plan or steps before "
        "it. The result comes back to you in a <tool_response> block. For example:",
        "",
        _example_call(tools),
        "",
        "Write the JSON on one line. After a result, answer the user's question with the "
        "facts asked for, or call another tool. When a question needs no file (general "
        "knowledge, arithmetic), answer in plain text with no tool.",
        "",
        "Pick the tool by what it does:",
    ]
    lines += [f"- {t.name}: {_first_sentence(t.description)}" for t in tools]
    with_body = [t for t in tools if body_params(t)]
    if with_body:
        tool = with_body[0]
        tags = body_params(tool)
        example = json.dumps({"name": tool.name, "arguments": _example_args(tool, tags)})
        lines += [
            "",
            "File contents never go inside the JSON. Put them after the JSON, inside the "
            "block, between tags, written exactly as they belong in the file, with no "
            "escaping:",
            "",
            f"<tool_call>{example}",
        ]
        for tag in tags.values():
            lines += [f"<{tag}>", "...", f"</{tag}>"]
        lines.append("</tool_call>")
        lines.append("")
        for t in with_body:
            pairs = ", ".join(f"<{tag}> for {p!r}" for p, tag in body_params(t).items())
            lines.append(f"- {t.name}: {pairs}")
    lines += ["", "Available tools:"]
    for t in tools:
        lines += ["", f"## {t.name}", t.description.strip(), *_parameter_lines(t)]
    return "\n".join(lines)


def _type_text(spec: dict[str, Any]) -> str:
    kind = spec.get("type")
    if kind == "array" and isinstance(spec.get("items"), dict):
        items = spec["items"]
        if items.get("type") == "object" and isinstance(items.get("properties"), dict):
            return "array of {" + ", ".join(items["properties"]) + "}"
        return f"array of {items.get('type', 'values')}"
    if kind == "object" and isinstance(spec.get("properties"), dict):
        return "object {" + ", ".join(spec["properties"]) + "}"
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    return str(kind or "value")


def _parameter_lines(tool: ToolSchema) -> list[str]:
    """One line per parameter: name, type, required, enum, description.

    A list, not the JSON schema itself: the schema dump tripled the prompt a small
    local model has to read before its first token, for nothing it uses.
    """
    params = tool.parameters if isinstance(tool.parameters, dict) else {}
    props = params.get("properties")
    if not isinstance(props, dict) or not props:
        return ["Parameters: none."]
    required = set(params.get("required") or ())
    out = ["Parameters:"]
    for name, spec in props.items():
        spec = spec if isinstance(spec, dict) else {}
        bits = [_type_text(spec)]
        if name in required:
            bits.append("required")
        if isinstance(spec.get("enum"), list):
            bits.append("one of " + ", ".join(json.dumps(v) for v in spec["enum"]))
        if "default" in spec:
            bits.append(f"default {json.dumps(spec['default'])}")
        text = f"- {name} ({', '.join(bits)})"
        if spec.get("description"):
            text += f": {str(spec['description']).strip()}"
        out.append(text)
    return out


def render_call(call: ToolCall, tool: ToolSchema | None = None) -> str:
    """*call* as a text-protocol model writes it, bodies in their tags."""
    tags = body_params(tool) if tool else {}
    args = {k: v for k, v in call.arguments.items() if not (k in tags and isinstance(v, str))}
    # "</" in a JSON string is written "<\/" (the same string to JSON), so a value
    # such as "</tool_call>" cannot end the block early
    head = json.dumps({"name": call.name, "arguments": args}).replace("</", "<\\/")
    out = [f"<tool_call>{head}"]
    for param, tag in tags.items():
        value = call.arguments.get(param)
        if isinstance(value, str):
            out.append(f"<{tag}>\n{value}</{tag}>")
    return "\n".join(out) + "</tool_call>"


def render_text_history(
    messages: Iterable[ChatMessage], tools: Iterable[ToolSchema]
) -> tuple[ChatMessage, ...]:
    """The history as a text-protocol model must see it: calls as text, results as user
    messages in ``<tool_response>`` tags, consecutive same-role messages merged, and
    thinking left out."""
    by_name = {t.name: t for t in tools}
    messages = list(messages)
    settled = _settled(messages)
    out: list[ChatMessage] = []

    def add(role: str, text: str) -> None:
        if out and out[-1].role == role and role != "system":
            out[-1] = ChatMessage(role=role, content=f"{out[-1].content}\n\n{text}".strip("\n"))
        else:
            out.append(ChatMessage(role=role, content=text))

    for msg in messages:
        if msg.role == "tool":
            if msg.tool_call_id not in settled:
                add("user", f"<tool_response>\n{msg.content}\n</tool_response>")
        elif msg.role == "assistant":
            calls = [c for c in msg.tool_calls if c.id not in settled]
            if msg.tool_calls and not calls:
                continue  # its text was the lead-in to the call left out
            parts = [msg.content] if msg.content else []
            parts += [render_call(c, by_name.get(c.name)) for c in calls]
            add("assistant", "\n".join(parts))
        else:
            add(msg.role, msg.content)
    return tuple(out)


# harness's answer to a write or edit of a file the model has not read (conversation's
# seen files): "The call was not run: … read it first with read_file …"
_NOT_RUN = "The call was not run: "
_READ_FIRST = "read it first with read_file"
# what only a write or edit that worked starts with (tools/_files.py): measured, after an
# edit refused until its file was read and an edit of it that then worked, the 1.5B model's last
# reply was that refusal said again
_WORKED = ("edited ", "wrote ", "created ")


def _settled(messages: Sequence[ChatMessage]) -> set[str]:
    """The ids of calls refused until their file was read, where a later ``read_file``
    of that file ran, or a later write or edit of it worked. Measured (bench
    local-tasks, rename-param): after the read and the edit that did the task, the 1.5B
    model's answer began with the refusal said again, 2 runs in 3; and in fix-line,
    shown its own unread edit of ``add`` as ``a + b``, it carried that belief into the
    edit after the read. Once read or changed, the refusal says nothing the model still
    needs."""
    calls: dict[str, str] = {}  # call id -> the path it named
    refused: dict[str, list[str]] = {}  # path -> ids of calls refused until it was read
    out: set[str] = set()
    for msg in messages:
        for call in msg.tool_calls:
            path = call.arguments.get("path")
            if isinstance(path, str) and path.strip():
                calls[call.id] = posixpath.normpath(path.strip())
        if msg.role != "tool" or msg.tool_call_id not in calls:
            continue
        path = calls[msg.tool_call_id]
        if msg.content.startswith(_NOT_RUN) and _READ_FIRST in msg.content:
            refused.setdefault(path, []).append(msg.tool_call_id)
        elif (msg.name == "read_file" and not msg.content.startswith(_NOT_RUN)) or (
            msg.name in ("edit_file", "write_file") and msg.content.startswith(_WORKED)
        ):
            out.update(refused.pop(path, ()))
    return out
