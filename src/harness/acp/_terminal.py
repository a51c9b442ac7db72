"""A command in the editor's terminal: ``terminal/create``, the tool call showing it,
``terminal/wait_for_exit`` under the call's timeout, ``terminal/kill`` when it runs over
or the prompt is cancelled, ``terminal/output`` and always ``terminal/release``.

Which command runs, where and with what environment is the session's to decide (see
:mod:`harness.conversation`'s ``EditorPort``); this is only the wire. The client's
answers are checked against the SDK's models; a client that cannot create the
terminal leaves the command to harness's own shell worker (``None``).
"""

from __future__ import annotations

import trio
from acp.exceptions import RequestError
from acp.schema import (
    CreateTerminalRequest,
    CreateTerminalResponse,
    KillTerminalRequest,
    ReleaseTerminalRequest,
    TerminalOutputRequest,
    TerminalOutputResponse,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
)
from pydantic import ValidationError

from acp import helpers
from harness.acp._rpc import Connection, ConnectionClosed
from harness.conversation import TerminalRun

__all__ = ["TERMINAL_OUTPUT_BYTES", "run_in_terminal"]

#: the most output the editor keeps of a command (its last bytes)
TERMINAL_OUTPUT_BYTES = 64 * 1024
# how long the kill and release of a terminal may take once the call is over
_CLEANUP = 5.0
_FAILED = (ConnectionClosed, RequestError, ValidationError)


async def run_in_terminal(
    conn: Connection, session_id: str, call_id: str, argv: list[str], cwd: str, timeout: float
) -> TerminalRun | None:
    """Run *argv* in a new terminal of the client (see the module's text)."""
    create = CreateTerminalRequest(
        session_id=session_id,
        command=argv[0],
        args=argv[1:],
        cwd=cwd,
        output_byte_limit=TERMINAL_OUTPUT_BYTES,
    )
    try:
        made = CreateTerminalResponse.model_validate(await conn.request("terminal/create", create))
    except _FAILED:
        return None
    tid = made.terminal_id
    finished = False
    timed_out = False
    try:
        # the tool call shows the terminal while the command runs
        show = helpers.update_tool_call(call_id, content=[helpers.tool_terminal_ref(tid)])
        await conn.notify("session/update", helpers.session_notification(session_id, show))
        exit_code: int | None = None
        signal: str | None = None
        with trio.move_on_after(timeout):
            answer = await conn.request(
                "terminal/wait_for_exit",
                WaitForTerminalExitRequest(session_id=session_id, terminal_id=tid),
            )
            ended = WaitForTerminalExitResponse.model_validate(answer)
            exit_code, signal, finished = ended.exit_code, ended.signal, True
        if not finished:
            timed_out = True
            await conn.request(
                "terminal/kill", KillTerminalRequest(session_id=session_id, terminal_id=tid)
            )
            finished = True
        out = TerminalOutputResponse.model_validate(
            await conn.request(
                "terminal/output", TerminalOutputRequest(session_id=session_id, terminal_id=tid)
            )
        )
    except _FAILED as exc:
        return TerminalRun(tid, f"the editor's terminal failed: {exc}", timed_out=timed_out)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(_CLEANUP):
            try:
                if not finished:  # cancelled: the command must not outlive the call
                    await conn.request(
                        "terminal/kill", KillTerminalRequest(session_id=session_id, terminal_id=tid)
                    )
                await conn.request(
                    "terminal/release",
                    ReleaseTerminalRequest(session_id=session_id, terminal_id=tid),
                )
            except _FAILED:
                pass
    output = out.output
    if len(output) > TERMINAL_OUTPUT_BYTES:  # the client did not keep to the limit
        output = output[-TERMINAL_OUTPUT_BYTES:]
    if out.exit_status is not None and exit_code is None and signal is None:
        exit_code, signal = out.exit_status.exit_code, out.exit_status.signal
    return TerminalRun(
        tid,
        output,
        truncated=out.truncated or output is not out.output,
        exit_code=exit_code,
        signal=signal,
        timed_out=timed_out,
    )
