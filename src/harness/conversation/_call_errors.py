"""What the model is told about a call that did not run, or did not finish: a worker
that failed it, nobody to ask for approval, nobody to answer a frontend tool."""

from __future__ import annotations

from typing import Any

from harness.ipc import (
    ChannelClosed,
    IpcError,
    RemoteError,
    RequestTimeout,
    WorkerDied,
    WorkerError,
    WorkerUnavailable,
    describe_exit,
)
from harness.messages.tools import ToolOutcome

__all__ = ["describe_worker_error", "headless_frontend", "no_one_to_ask"]


def describe_worker_error(exc: IpcError, name: str, main: str) -> str:
    """One plain sentence for the model about a worker that failed a call."""
    what = f"{name}({main!r})" if main else name
    if isinstance(exc, WorkerDied):
        how = describe_exit(exc.exit_code)
        if exc.reason not in ("exited", "killed"):
            how += f" after {exc.reason}"
        return (
            f"The {exc.worker} worker crashed while running {what} ({how}); it is being "
            "restarted and the call did not finish. You may retry it."
        )
    if isinstance(exc, RequestTimeout):
        return (
            f"The {exc.worker} worker did not finish {what} within {exc.timeout:g} s; "
            "the call was stopped."
        )
    if isinstance(exc, WorkerUnavailable):
        return f"The {exc.worker} worker is not available, so {what} did not run: {exc}"
    if isinstance(exc, RemoteError):
        return f"{what} failed inside the {exc.worker} worker: {exc.type_name}: {exc.message}"
    if isinstance(exc, WorkerError):
        return f"{what} failed: {exc}"
    if isinstance(exc, ChannelClosed):
        return f"{what} did not finish: harness is shutting its workers down."
    return f"{what} failed: {exc}"


def no_one_to_ask(mode: str, why: str) -> str:
    """The refusal of a call that asks when nobody can answer; it never suggests the mode
    the run is already in (in auto mode such a call asks whatever the mode)."""
    if mode == "auto":
        return (
            f"denied: this call asks even in auto mode ({why}) and there is no terminal "
            "to ask (headless); run it interactively, or make the change another way"
        )
    return (
        f"denied: no terminal to ask for approval (headless {mode} mode); "
        "use --permission-mode auto or an allow rule to let it run"
    )


def headless_frontend(name: str, args: dict[str, Any]) -> ToolOutcome:
    """The answer to a frontend tool in a session with nobody to answer it."""
    if name == "submit_plan":
        return ToolOutcome(ok=True, output=str(args.get("plan", "")), data={"plan": True})
    return ToolOutcome(
        ok=False,
        output=(
            f"{name}: there is no user to answer in this session (headless); "
            "decide with your best judgement and say what you assumed."
        ),
    )
