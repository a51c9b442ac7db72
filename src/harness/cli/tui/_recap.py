"""The end of a resumed session's conversation, drawn so the user sees where they are.

The last few exchanges: each prompt after the ``❯`` it was typed at, the tool calls as
timeline lines (name and main argument; whether each succeeded is not in the history,
so they are drawn neutral), and the answers' first lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.rule import Rule
from rich.text import Text

from harness.cli.tui._sanitize import clean
from harness.cli.tui._timeline import ToolRecord, tool_line

if TYPE_CHECKING:
    from harness.actors.tools import ToolTable
    from harness.messages.model import ChatMessage

__all__ = ["recap"]

_ANSWER_LINES = 6
_PROMPT_LINES = 3


def _lines(text: str, most: int, width: int) -> list[str]:
    lines = clean(text).strip().split("\n")
    shown = [ln if len(ln) <= width else ln[: width - 1] + "…" for ln in lines[:most]]
    if len(lines) > most:
        shown.append("…")
    return shown


def _main_argument(table: ToolTable, name: str, arguments: dict[str, object]) -> str:
    from harness.actors.tools import UnknownToolError

    try:
        return table.get(name).main_value(arguments) or ""
    except UnknownToolError:
        return ""  # a tool of the API or a skill: the name alone


def recap(
    history: Sequence[ChatMessage], *, exchanges: int = 3, width: int = 80
) -> list[RenderableType]:
    """The last *exchanges* prompts of *history* and what followed each, to print."""
    starts = [i for i, m in enumerate(history) if m.role == "user"]
    if not starts:
        return []
    first = starts[-exchanges] if len(starts) >= exchanges else starts[0]
    from harness.actors.tools import builtin_table

    table = builtin_table()
    out: list[RenderableType] = [Rule("earlier in this session", style="dim")]
    for msg in history[first:]:
        if msg.role == "user":
            for i, line in enumerate(_lines(msg.content, _PROMPT_LINES, width - 2)):
                out.append(Text.assemble(("❯ " if i == 0 else "  ", "bold cyan"), line))
        elif msg.role == "assistant":
            for call in msg.tool_calls:
                rec = ToolRecord(
                    call.id, call.name, _main_argument(table, call.name, call.arguments), "past"
                )
                out.append(tool_line(rec, width=width))
            if msg.content.strip():
                out.extend(Text(line) for line in _lines(msg.content, _ANSWER_LINES, width))
    out.append(Rule(style="dim"))
    return out
