"""The verify command: the user's own check, run when the model says it is done."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from typing import TYPE_CHECKING, Protocol

import trio

from harness.conversation import events as ev

if TYPE_CHECKING:
    from harness.conversation._loop_config import LoopConfig
    from harness.conversation._secrets import SecretMasker

__all__ = ["VerifyHost", "retry_message", "run_verify", "verify"]

_KEEP = 8000  # characters of output sent back to the model


async def run_verify(command: str, cwd: str, timeout: float) -> tuple[int | None, str]:
    """Run *command* with ``bash -c`` in *cwd*: ``(exit code, output)``.

    The command runs in its own process group, killed whole on timeout or cancel.
    ``None`` as the exit code means it timed out.
    """

    async def kill_group(proc: trio.Process) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    result: subprocess.CompletedProcess[bytes] | None = None
    with trio.move_on_after(timeout):
        result = await trio.run_process(
            ["bash", "-c", command],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_stdout=True,
            stderr=subprocess.STDOUT,
            check=False,
            start_new_session=True,
            deliver_cancel=kill_group,
        )
    if result is None:
        return None, f"(the verify command did not finish within {timeout:g} s and was stopped)"
    text = result.stdout.decode("utf-8", "replace")
    if len(text) > _KEEP:
        text = text[: _KEEP // 4] + "\n[... output cut ...]\n" + text[-(_KEEP * 3) // 4 :]
    return result.returncode, f"exit code {result.returncode}\n{text}"


class VerifyHost(Protocol):
    """What the verify step uses of the loop (the loop is one)."""

    session_id: str
    workspace: str
    config: LoopConfig
    masker: SecretMasker

    def emit(self, event: ev.ConversationEvent) -> None: ...


async def verify(conv: VerifyHost, attempt: int) -> tuple[bool, str]:
    """Run *conv*'s verify command as its *attempt*-th try, with its events:
    ``(passed, output as the model would see it)``."""
    command = conv.config.verify or ""
    conv.emit(ev.VerifyStarted(session_id=conv.session_id, command=command, attempt=attempt))
    code, output = await run_verify(command, conv.workspace, conv.config.verify_timeout)
    output = conv.masker.mask(output)
    ok = code == 0
    conv.emit(
        ev.VerifyFinished(
            session_id=conv.session_id, command=command, ok=ok, exit_code=code, output=output
        )
    )
    return ok, output


def retry_message(config: LoopConfig, output: str) -> str:
    """What the model is told when the verify command failed with *output*."""
    return (
        f"The verify command `{config.verify}` failed:\n{output}\n"
        "Fix the problem, then say when you are done."
    )
