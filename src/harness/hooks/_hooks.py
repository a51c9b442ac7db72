"""Firing an event: the matching handlers run at once, in parallel, and their outcomes make
one :class:`~harness.hooks.Verdict`.

The conversation holds one :class:`Hooks` per session. Where no hook listens to an event
:meth:`Hooks.fire` returns at once without building a payload, so a session without hooks
pays one dictionary lookup per step.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from harness.hooks._claude import claude_response, claude_tool, harness_arguments, tool_names
from harness.hooks._config import HookConfig, HookHandler
from harness.hooks._run import run_command
from harness.hooks._verdict import NOTHING, HookOutcome, Verdict, combine, interpret

__all__ = ["NO_HOOKS", "HookListener", "Hooks"]

#: Called as each handler starts (outcome ``None``) and as it ends, with the call id the
#: event is about (``""`` for events not about a tool call).
HookListener = Callable[[HookHandler, "HookOutcome | None", str], None]


class Hooks:
    """The hooks of one session.

    Args:
        config: the active handlers (:func:`harness.hooks.load_hooks`).
        cwd: the workspace: where commands run, ``cwd`` of every payload, and what tool
            paths are made absolute against.
        session_id: the payload's ``session_id``.
        transcript_path: the payload's ``transcript_path`` (the session's event log).
        env: the commands' environment (default: this process's when each runs).
        listener: told as each handler starts and ends (the session's events).
    """

    def __init__(
        self,
        config: HookConfig | None = None,
        *,
        cwd: str | os.PathLike[str] = ".",
        session_id: str = "",
        transcript_path: str = "",
        env: Mapping[str, str] | None = None,
        listener: HookListener | None = None,
    ) -> None:
        self.config = config or HookConfig()
        self.cwd = Path(cwd)
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.env = env
        self.listener = listener
        self._events = frozenset(h.event for h in self.config.handlers)

    def __bool__(self) -> bool:
        return bool(self._events)

    def listens(self, event: str) -> bool:
        """Whether any handler is registered for *event* (whatever its matcher)."""
        return event in self._events

    def handlers(
        self, event: str, *, tool: str | None = None, match: str | None = None
    ) -> list[HookHandler]:
        """The handlers that would run for *event* on harness tool *tool* (or sub-kind
        *match*: ``startup``, ``manual``...)."""
        if event not in self._events:
            return []
        names = tool_names(tool) if tool is not None else (match,) if match else ()
        return self.config.for_event(event, names)

    def payload(
        self,
        event: str,
        *,
        tool: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        result: tuple[bool, str] | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """What a handler of *event* reads on stdin."""
        data: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str(self.cwd),
            "hook_event_name": event,
        }
        if tool is not None:
            name, tool_input = claude_tool(tool, arguments or {}, self.cwd)
            data["tool_name"] = name
            data["tool_input"] = tool_input
            if result is not None:
                ok, output = result
                data["tool_response"] = claude_response(tool, arguments or {}, ok, output, self.cwd)
        data.update(fields)
        return data

    async def fire(
        self,
        event: str,
        *,
        tool: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        result: tuple[bool, str] | None = None,
        match: str | None = None,
        call_id: str = "",
        **fields: Any,
    ) -> Verdict:
        """Run the handlers of *event* that match, in parallel; their verdict.

        Args:
            event: one of :data:`harness.hooks.EVENTS`.
            tool: the harness tool of a PreToolUse/PostToolUse call.
            arguments: that call's arguments.
            result: ``(ok, output)`` of the call (PostToolUse).
            match: the sub-kind other events match on (``startup``/``resume``, ``manual``/``auto``).
            call_id: the tool call the event is about, for the listener.
            fields: the event's own payload fields (``prompt``, ``stop_hook_active``...).

        A PreToolUse verdict's ``updated_input`` is given back as harness arguments.
        """
        handlers = self.handlers(event, tool=tool, match=match)
        if not handlers:
            return NOTHING
        payload = self.payload(event, tool=tool, arguments=arguments, result=result, **fields)
        data = json.dumps(payload).encode()
        outcomes: list[HookOutcome | None] = [None] * len(handlers)

        async def one(i: int, handler: HookHandler) -> None:
            if self.listener is not None:
                self.listener(handler, None, call_id)
            run = await run_command(
                handler.command, data, cwd=self.cwd, timeout=handler.timeout, env=self._env()
            )
            outcome = outcomes[i] = interpret(handler, run)
            if self.listener is not None:
                self.listener(handler, outcome, call_id)

        if len(handlers) == 1:
            await one(0, handlers[0])  # no nursery for the common case
        else:
            async with trio.open_nursery() as nursery:
                for i, handler in enumerate(handlers):
                    nursery.start_soon(one, i, handler)
        verdict = combine(o for o in outcomes if o is not None)
        if verdict.updated_input is not None and tool is not None:
            updated = harness_arguments(tool, verdict.updated_input, self.cwd)
            verdict = attrs.evolve(verdict, updated_input=updated)
        return verdict

    def _env(self) -> dict[str, str]:
        env = dict(os.environ if self.env is None else self.env)
        env["CLAUDE_PROJECT_DIR"] = env["HARNESS_PROJECT_DIR"] = str(self.cwd)
        return env


#: The hooks of a session that has none: every event returns at once.
NO_HOOKS = Hooks()
