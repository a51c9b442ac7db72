"""What a running MCP call tells the user: its progress (a ``tool_call_progress``
event) and a server's question (MCP elicitation), put through the frontend.

The question's fields (a flat JSON Schema object) are asked one at a time with the
frontend's question dialog (``get_user_input``): a field with ``enum`` values or a
boolean offers them as options; numbers are read as numbers. A headless run has nobody
to ask: the question is declined, the server is told only ``decline``, and the user
sees a notice saying what was asked and why it was declined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.conversation import events as ev
from harness.messages.mcp import McpAnswer, McpProgress, McpQuestion
from harness.messages.tools import ToolInvoke

if TYPE_CHECKING:
    from harness.conversation._loop import Conversation

__all__ = ["ask_user", "tell_progress"]

_ANSWERED = "The user answered: "
_YES, _NO = ("yes", "true", "y", "1"), ("no", "false", "n", "0")


def tell_progress(conv: Conversation | None, request: ToolInvoke, progress: McpProgress) -> None:
    """*request*'s *progress* as a ``tool_call_progress`` event of *conv*."""
    if conv is not None:
        conv.emit(
            ev.ToolCallProgress(
                session_id=conv.session_id,
                call_id=request.call_id,
                name=request.name,
                progress=progress.progress,
                total=progress.total,
                message=progress.message,
            )
        )


def _fields(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
    props = schema.get("properties")
    required = schema.get("required") or []
    if not isinstance(props, dict):
        return []
    return [(k, v if isinstance(v, dict) else {}, k in required) for k, v in props.items()]


def _options(prop: dict[str, Any]) -> list[str]:
    if prop.get("type") == "boolean":
        return ["yes", "no"]
    values = prop.get("enum") or [o.get("const") for o in prop.get("oneOf") or [] if "const" in o]
    return [str(v) for v in values]


def _value(prop: dict[str, Any], text: str) -> Any:
    """*text* as the field's type (``ValueError`` when it is not one)."""
    kind = prop.get("type")
    if kind == "boolean":
        low = text.strip().lower()
        if low in _YES or low in _NO:
            return low in _YES
        raise ValueError(f"{text!r} is not yes or no")
    if kind == "integer":
        return int(text.strip())
    if kind == "number":
        return float(text.strip())
    return text


async def ask_user(conv: Conversation | None, server: str, question: McpQuestion) -> McpAnswer:
    """Ask the user *server*'s *question* through *conv*'s frontend; the answer to send."""
    if conv is None or conv.frontend is None:
        reason = "a headless run has nobody to answer it"
        if conv is not None:
            message = f"MCP server {server} asked {question.message!r}; declined: {reason}"
            conv.emit(ev.Notice(session_id=conv.session_id, kind="mcp", message=message))
        return McpAnswer(id=question.id, action="decline", reason=reason)
    content: dict[str, Any] = {}
    for n, (key, prop, required) in enumerate(_fields(question.schema)):
        label = str(prop.get("title") or key)
        if prop.get("description"):
            label += f" ({prop['description']})"
        text = f"MCP server {server} asks: {question.message}\n{label}" if n == 0 else label
        got = await conv.frontend.frontend_tool(
            "get_user_input", {"questions": [{"question": text, "options": _options(prop)}]}
        )
        if not got.ok:
            return McpAnswer(id=question.id, action="cancel", reason="the user did not answer")
        answer = got.output.removeprefix(_ANSWERED)
        if not answer and not required:
            continue
        try:
            content[key] = _value(prop, answer)
        except ValueError as exc:
            return McpAnswer(id=question.id, action="decline", reason=f"{label}: {exc}")
    return McpAnswer(id=question.id, action="accept", content=content)
