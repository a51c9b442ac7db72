"""A ``!`` line of a command kept as a file, run as the user's own ``run_cmd`` call.

A command file is project input nobody vetted, so its ``!`` lines get no way around
the session: each is bound like the model's ``run_cmd``, shown to the PreToolUse hooks
(a guard that blocks ``rm -rf`` for the model blocks it here too), decided by the
session's permission rules in its mode (a deny rule refuses it, ``plan`` runs only what
reads), asked about through the session's approver when the rules say ask (headless,
with no one to ask, that is a refusal), then run on the shell worker, and its output
shown to the PostToolUse hooks.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from harness.conversation._call_errors import describe_worker_error
from harness.conversation._ports import ApprovalRequest
from harness.conversation._tool_hooks import ToolUse, asking, post_tool_use, pre_tool_use
from harness.ipc import IpcError
from harness.messages.tools import ToolInvoke

if TYPE_CHECKING:
    from harness.conversation.session._session import Session

__all__ = ["run_shell_line"]

_TOOL = "run_cmd"
_IDS = itertools.count(1)


async def run_shell_line(session: Session, command: str) -> tuple[bool, str]:
    """Run *command* for the user under *session*'s rules: ``(True, output)`` when it ran
    (its output with its status, secrets masked), ``(False, why)`` when it did not."""
    conv = session.conversation
    if _TOOL not in conv.table:
        return False, f"this session has no {_TOOL}"
    call_id = f"command-line-{next(_IDS)}"
    spec = conv.table.get(_TOOL)
    try:
        args = spec.bind({"command": command})
    except (ValueError, TypeError) as exc:
        return False, f"not a command: {exc}"
    use = ToolUse(_Call(call_id), spec, args, command)
    before = await pre_tool_use(conv, use)  # may refuse, rewrite (bound again), allow, ask
    args, command = use.args, use.main or command
    decision, why = before.decide(conv.policy, spec, args, conv.config.permission_mode)
    if decision == "deny":
        return False, why or "denied"
    if decision == "ask":
        if conv.approver is None:
            return False, "it would ask, and there is no terminal to ask (headless)"
        answer = await asking(
            conv,
            conv.approver,
            ApprovalRequest(
                call_id=call_id,
                name=_TOOL,
                arguments=args,
                main_argument=command,
                kind=spec.kind,
            ),
        )
        if answer == "always":
            conv.policy.allow_always(spec, args)
        elif answer != "yes":
            return False, "denied by the user"
    invoke = ToolInvoke(
        name=_TOOL,
        arguments=args,
        call_id=call_id,
        session_id=conv.session_id,
        workspace=conv.workspace,
    )
    try:
        out = await conv.executors.invoke(spec.executor, invoke, conv.config.tool_timeout)
    except IpcError as exc:
        return False, describe_worker_error(exc, _TOOL, command)
    out = await post_tool_use(conv, use, out)
    # a command that ran and failed still says something worth reading: its output
    return True, conv.masker.mask(out.output)


class _Call:
    """What the hooks read of a call: its id."""

    def __init__(self, call_id: str) -> None:
        self.id = call_id
