"""Conversation events as ACP ``session/update`` payloads (the SDK's models).

:class:`UpdateMapper` keeps what one session's mapping needs between events (the
workspace for absolute locations, the stages of a deepthink run) and turns each
event into zero or more updates. :func:`replay` turns a resumed history into the
updates a ``session/load`` sends. Nothing here touches a file: a diff comes from the
call's arguments or from what the tools worker computed (its preview, its result).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    PlanEntry,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from acp import helpers
from harness.conversation import events as ev

__all__ = [
    "STAGES",
    "Update",
    "UpdateMapper",
    "diff_contents",
    "plan_entries",
    "replay",
    "tool_kind",
]

Update = (
    AgentMessageChunk
    | AgentThoughtChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
)

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]

# the ACP kind of each built-in tool (an editor picks its icon and grouping by it)
_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "get_code_skeleton": "read",
    "query_ast": "read",
    "git_status": "read",
    "git_diff": "read",
    "get_system_info": "read",
    "read_memory": "read",
    "list_memory": "read",
    "use_skill": "read",
    "find_files": "search",
    "search_text": "search",
    "search_web": "search",
    "get_url": "fetch",
    "call_api": "fetch",
    "write_file": "edit",
    "edit_file": "edit",
    "create_dir": "edit",
    "copy_file": "edit",
    "write_memory": "edit",
    "edit_memory": "edit",
    "delete_path": "delete",
    "delete_memory": "delete",
    "move_file": "move",
    "run_cmd": "execute",
    "send_input": "execute",
    "end_process": "execute",
    "submit_plan": "switch_mode",
    "get_user_input": "other",
    "spawn_agent": "other",
}

#: the stages of a deepthink run, in order (shown as a plan)
STAGES = ("plan", "check", "implement", "review", "verify")

_PATH_ARGS = ("path", "source", "destination")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s*)?(.+?)\s*$")


def tool_kind(name: str) -> ToolKind:
    """The ACP kind of tool *name* (``other`` for MCP tools and the unknown)."""
    return _KINDS.get(name, "other")


def _title(name: str, main: str) -> str:
    main = " ".join(main.split())
    if len(main) > 80:
        main = main[:77] + "..."
    return f"{name} {main}".strip()


def _locations(workspace: str, arguments: Mapping[str, Any]) -> list[ToolCallLocation]:
    out: list[ToolCallLocation] = []
    for key in _PATH_ARGS:
        value = arguments.get(key)
        if isinstance(value, str) and value and "\x00" not in value:
            path = os.path.normpath(os.path.join(workspace, os.path.expanduser(value)))
            out.append(ToolCallLocation(path=path))
    return out


def _hunks(diff: str) -> list[tuple[str, str]]:
    # a unified diff's hunks as (old text, new text): context and removed lines make
    # the old side, context and added lines the new
    hunks: list[tuple[str, str]] = []
    old: list[str] | None = None
    new: list[str] = []
    for line in diff.splitlines():
        if line.startswith("@@"):
            if old is not None:
                hunks.append(("\n".join(old), "\n".join(new)))
            old, new = [], []
        elif old is None or line.startswith(("---", "+++", "\\")):
            continue
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        else:
            old.append(line[1:])
            new.append(line[1:])
    if old is not None:
        hunks.append(("\n".join(old), "\n".join(new)))
    return hunks


def diff_contents(
    workspace: str, name: str, arguments: Mapping[str, Any], diff: str = ""
) -> list[FileEditToolCallContent]:
    """ACP diffs for an edit: from the unified *diff* the tools worker made when there
    is one (its hunks), else from the call's own arguments."""
    locations = _locations(workspace, arguments)
    if not locations or tool_kind(name) != "edit":
        return []
    path = locations[0].path
    if diff.strip():
        return [helpers.tool_diff_content(path, new, old or None) for old, new in _hunks(diff)][:20]
    if name == "write_file" and isinstance(arguments.get("content"), str):
        return [helpers.tool_diff_content(path, arguments["content"])]
    if name == "edit_file":
        edits = arguments.get("edits")
        pairs: list[Any] = edits if isinstance(edits, list) else [arguments]
        out = []
        for edit in pairs[:20]:
            if isinstance(edit, Mapping) and isinstance(edit.get("new_text"), str):
                old = edit.get("old_text")
                out.append(
                    helpers.tool_diff_content(
                        path, edit["new_text"], old if isinstance(old, str) else None
                    )
                )
        return out
    return []


def plan_entries(plan: str) -> list[PlanEntry]:
    """A ``submit_plan`` plan's list items as plan entries (the whole plan, as one
    entry, when it has no list)."""
    items = [m.group(1) for line in plan.splitlines() if (m := _LIST_ITEM.match(line))]
    if not items:
        first = next((line.strip("# ").strip() for line in plan.splitlines() if line.strip()), "")
        items = [first or "(empty plan)"]
    return [helpers.plan_entry(item[:500]) for item in items[:50]]


def _text(content: str) -> ContentToolCallContent:
    return helpers.tool_content(helpers.text_block(content))


def _output(text: str, limit: int = 20_000) -> str:
    return (
        text
        if len(text) <= limit
        else text[:limit] + f"\n... ({len(text) - limit} more characters)"
    )


class UpdateMapper:
    """Turns one session's events into ACP updates.

    Args:
        workspace: the session's folder, to make locations absolute.
        show_thinking: send the model's thinking as thought chunks (default off).
        live: the calls run now, so a command run in the editor's terminal is shown
            by its terminal (a replay shows its output as text).
    """

    def __init__(self, workspace: str, *, show_thinking: bool = False, live: bool = True) -> None:
        self.workspace = workspace
        self.show_thinking = show_thinking
        self.live = live
        self._calls: dict[str, tuple[str, dict[str, Any]]] = {}
        self._stage = -1  # the deepthink stage running, and those done
        self._done: set[int] = set()

    def updates(self, event: ev.ConversationEvent) -> list[Update]:
        """The updates *event* becomes (none for most bookkeeping events)."""
        if isinstance(event, ev.TextDelta):
            return [helpers.update_agent_message_text(event.text)] if event.text else []
        if isinstance(event, ev.ThinkingDelta):
            if self.show_thinking and event.text:
                return [helpers.update_agent_thought_text(event.text)]
            return []
        if isinstance(event, ev.ToolCallRequested):
            return [self.start(event.call_id, event.name, event.arguments, event.main_argument)]
        if isinstance(event, ev.ToolCallStarted):
            return [helpers.update_tool_call(event.call_id, status="in_progress")]
        if isinstance(event, ev.ToolCallFinished):
            # a denied call ends here too (failed, with the reason as its output)
            return self._finished(event)
        if isinstance(event, ev.StageStarted | ev.StageFinished) and event.stage in STAGES:
            stage = STAGES.index(event.stage)
            if isinstance(event, ev.StageStarted):
                self._stage = stage
            else:
                self._done.add(stage)
                self._stage = -1
            return [self._stages()]
        if isinstance(event, ev.ErrorEvent):
            return [helpers.update_agent_message_text(f"\n\nharness: {event.message}\n")]
        if isinstance(event, ev.Notice) and event.kind in ("trust", "config_guard"):
            return [helpers.update_agent_message_text(f"harness: {event.message}\n\n")]
        return []

    def shown(self, call_id: str) -> bool:
        """Whether the client was told of call *call_id* and not yet of its end (a
        sub-agent's calls are never shown)."""
        return call_id in self._calls

    def start(
        self, call_id: str, name: str, arguments: Mapping[str, Any], main: str = ""
    ) -> ToolCallStart:
        """The ``tool_call`` update that announces a call."""
        args = dict(arguments)
        self._calls[call_id] = (name, args)
        content: list[Any] = list(diff_contents(self.workspace, name, args))
        return helpers.start_tool_call(
            call_id,
            _title(name, main),
            kind=tool_kind(name),
            status="pending",
            content=content or None,
            locations=_locations(self.workspace, args) or None,
            raw_input=args,
        )

    def _finished(self, event: ev.ToolCallFinished) -> list[Update]:
        name, args = self._calls.pop(event.call_id, (event.name, {}))
        content: list[Any] = []
        diff = event.data.get("diff") if isinstance(event.data, dict) else None
        if event.ok and isinstance(diff, str) and diff.strip():
            content.extend(diff_contents(self.workspace, name, args, diff))
        terminal = event.data.get("terminal_id") if isinstance(event.data, dict) else None
        if self.live and isinstance(terminal, str) and terminal:
            content.append(helpers.tool_terminal_ref(terminal))
        if event.output and not content:
            content.append(_text(_output(event.output)))
        return [
            helpers.update_tool_call(
                event.call_id,
                status="completed" if event.ok else "failed",
                content=content or None,
                raw_output={"ok": event.ok, "output": _output(event.output)},
            )
        ]

    def _stages(self) -> AgentPlanUpdate:
        entries = []
        for i, stage in enumerate(STAGES):
            status: Literal["pending", "in_progress", "completed"] = (
                "completed" if i in self._done else "in_progress" if i == self._stage else "pending"
            )
            entries.append(helpers.plan_entry(f"deepthink: {stage}", status=status))
        return helpers.update_plan(entries)


def replay(
    workspace: str, events: Sequence[ev.ConversationEvent], *, show_thinking: bool = False
) -> Iterable[Update]:
    """The updates that show a session's durable events (``Session.recorded()``) to a
    client: what the user asked, what the model answered, each tool call and how it ended
    (its diff, its output, a denial), and the stages of a deepthink run."""
    mapper = UpdateMapper(workspace, show_thinking=show_thinking, live=False)
    for event in events:
        if isinstance(event, ev.UserMessage):
            # a verify command's failure was harness's message to the model, not the user's
            if event.text and event.source != "verify":
                yield helpers.update_user_message_text(event.text)
        elif isinstance(event, ev.AssistantMessage):
            if show_thinking and event.thinking:
                yield helpers.update_agent_thought_text(event.thinking)
            if event.text:
                yield helpers.update_agent_message_text(event.text)
        elif not isinstance(event, ev.ToolCallStarted):
            yield from mapper.updates(event)
