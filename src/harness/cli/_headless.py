"""Headless mode: ``harness -p TASK`` runs one task, writes its output, exits with a status.

Output formats:

- ``text``: the model's answer on stdout, each reply once it is whole (what the model
  says before it calls a tool is not the answer, and stays off stdout); tool activity
  (with the path or command), denials and errors as quiet lines on stderr.
- ``json``: one JSON object on stdout at the end (the ``result`` event, with the
  session id, turns, usage, each hook that ran and what it decided, and the error if
  there was one).
- ``stream-json``: every conversation event as one JSON object a line on stdout,
  and nothing else on stdout; the last line is the ``result``.

A reader that goes away (``harness -p ... | head -1``) stops the run quietly: the
session is cancelled, nothing more is written, and the status is 141, as for a program
ended by ``SIGPIPE``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any, cast

import orjson
import trio

from harness.conversation import events as ev
from harness.terminal import SafeWriter

if TYPE_CHECKING:
    from harness.conversation import Session, SessionOptions
    from harness.custom import FileCommand

__all__ = ["PIPE_CLOSED", "exit_status", "run_headless"]

PIPE_CLOSED = 141
"""The status when stdout's reader went away: 128 + ``SIGPIPE``, as the shell reports
a program that signal ended."""

PROVIDER_ERRORS = frozenset(
    {
        "auth",
        "not_found",
        "rate_limit",
        "network",
        "server",
        "bad_response",
        "config",
        "worker",
        "context_length",
    }
)


# notices said on stderr in every output format: what was ignored or undone for safety
_ALWAYS_SAID = frozenset({"trust", "config_guard"})


def exit_status(result: ev.Result | None, error_kind: str) -> int:
    """The process status for a run's result (see :mod:`harness.cli._main`)."""
    if result is None:
        return 1
    if result.ok:
        return 0
    if result.reason == "cancelled":
        return 130
    if result.reason == "max_turns" or error_kind == "budget":
        return 4
    if result.reason == "error" and error_kind in PROVIDER_ERRORS:
        return 3
    return 1


def _say(stream: IO[str], text: str) -> None:
    stream.write(text + "\n")
    stream.flush()


def run_headless(
    args: argparse.Namespace,
    *,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Run ``args.prompt`` headless; the exit status."""
    stdin = stdin or sys.stdin
    stdout = raw_out = stdout or sys.stdout
    # Text output and stderr reach a terminal: the model, tools and providers write there.
    stderr = cast("IO[str]", SafeWriter(stderr or sys.stderr))
    if args.output_format == "text":
        stdout = cast("IO[str]", SafeWriter(stdout))
    env = os.environ if environ is None else environ
    prompt: str | None = args.prompt
    if prompt == "-":
        prompt = stdin.read()
    if prompt is not None and not prompt.strip():
        _say(stderr, "harness: the task is empty (give it after -p, or on stdin with -p -)")
        return 2
    from harness.cli._session_options import session_options

    try:
        options = session_options(args, env)
    except ValueError as exc:
        _say(stderr, f"harness: {exc}")
        return 2
    try:
        status = trio.run(_run, options, prompt, args, stdout, stderr)
    except BaseException as caught:  # one quiet line, never a stack trace
        return _failed(_alone(caught), stderr)
    if status == PIPE_CLOSED:
        _quiet(raw_out)
    return status


def _alone(exc: BaseException) -> BaseException:
    # trio hands a failure inside a nursery over as a group of one: say the one
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _failed(exc: BaseException, stderr: IO[str]) -> int:
    from harness.conversation import SessionNotFound
    from harness.ipc import IpcError

    if isinstance(exc, SessionNotFound | ValueError):
        _say(stderr, f"harness: {exc}")
        return 2
    if isinstance(exc, KeyboardInterrupt):
        _say(stderr, "harness: interrupted")
        return 130
    if isinstance(exc, OSError):
        from harness.cli._errors import os_error_line

        _say(stderr, f"harness: {os_error_line(exc)}")
        return 1
    if isinstance(exc, IpcError):
        _say(stderr, f"harness: a worker could not start: {exc}")
        return 3
    if isinstance(exc, Exception):
        _say(stderr, f"harness: {type(exc).__name__}: {exc}")
        return 1
    raise exc


def _quiet(stdout: IO[str]) -> None:
    # Python flushes stdout once more on the way out: with the reader gone that would
    # print "Exception ignored ... BrokenPipeError". Point the descriptor at /dev/null.
    try:
        fd = stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


class _Writer:
    """Writes events in the chosen format."""

    def __init__(self, fmt: str, stdout: IO[str], stderr: IO[str]) -> None:
        self.fmt = fmt
        self.out = stdout
        self.err = stderr
        self.error_kind = ""
        self.error_message = ""
        self.result: ev.Result | None = None
        self.session_id = ""
        self.closed = False  # stdout's reader went away
        self.on_closed: Callable[[], None] = lambda: None
        self._reply: list[str] = []  # the text of the reply being streamed (text format)
        self._arguments: dict[str, str] = {}  # call id -> its path or command
        self._hooks: list[dict[str, Any]] = []  # each hook that ran (json format)

    def _write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            self.closed = True
            self.on_closed()

    def _note(self, line: str) -> None:
        try:
            _say(self.err, line)
        except BrokenPipeError:
            pass  # nobody reads the notes any more; the answer still goes out

    def __call__(self, event: ev.ConversationEvent) -> None:
        if isinstance(event, ev.ErrorEvent) and (event.fatal or not self.error_kind):
            self.error_kind, self.error_message = event.kind, event.message
        if isinstance(event, ev.Result):
            self.result = event
        if isinstance(event, ev.SessionStarted):
            self.session_id = event.session_id
        if isinstance(event, ev.HookFinished) and self.fmt == "json":
            self._hooks.append(_hook_summary(event))
        if self.fmt == "stream-json":
            self._write(orjson.dumps(ev.encode_event(event)).decode() + "\n")
        if self.fmt != "text" and isinstance(event, ev.Notice) and event.kind in _ALWAYS_SAID:
            self._note(f"harness: {event.message}")  # stdout carries only the JSON
        if self.fmt == "text":
            self._text(event)

    def _text(self, event: ev.ConversationEvent) -> None:
        if isinstance(event, ev.TextDelta):
            self._reply.append(event.text)
            return
        if isinstance(event, ev.AssistantMessage):
            text, self._reply = "".join(self._reply), []
            # Text before a tool call is the model narrating what it is about to do,
            # not the answer: stdout is for the answer alone.
            if text.strip() and not event.tool_calls:
                self._write(text if text.endswith("\n") else text + "\n")
        if isinstance(event, ev.ToolCallRequested):
            self._arguments[event.call_id] = event.main_argument
        line = _quiet_line(event, self._arguments)
        if line:
            self._note(line)

    def finish(self) -> None:
        if self.closed:
            return
        if self.fmt == "json":
            r = self.result
            doc: dict[str, Any] = {
                "type": "result",
                "ok": bool(r and r.ok),
                "reason": r.reason if r else "error",
                "text": r.text if r else "",
                "session_id": self.session_id,
                "turns": r.turns if r else 0,
                "usage": r.usage if r else {},
                "duration": round(r.duration, 3) if r else 0.0,
                "hooks": self._hooks,
            }
            if self.error_kind:
                doc["error"] = {"kind": self.error_kind, "message": self.error_message}
            self._write(orjson.dumps(doc).decode() + "\n")
        elif self.fmt == "text" and "".join(self._reply).strip():
            # a reply cut short (cancelled, or an error mid-stream): what came of it
            text = "".join(self._reply)
            self._write(text if text.endswith("\n") else text + "\n")


def _hook_summary(event: ev.HookFinished) -> dict[str, Any]:
    """A hook that ran, as the ``json`` result lists it (its ``hook_finished`` event)."""
    keys = ("event", "hook", "source", "decision", "reason", "ms", "exit_code", "call_id")
    return {key: getattr(event, key) for key in keys}


def _quiet_line(event: ev.ConversationEvent, arguments: Mapping[str, str]) -> str:
    if isinstance(event, ev.SessionStarted) and event.chosen:
        return f"harness: {event.chosen}"
    if isinstance(event, ev.ToolCallStarted):
        what = arguments.get(event.call_id, "").splitlines()
        return f"• {event.name} {what[0][:200]}" if what else f"• {event.name}"
    if isinstance(event, ev.ToolCallFinished) and not event.ok:
        first = event.output.strip().splitlines()[0] if event.output.strip() else ""
        # a tool's error may already start with "write_file failed"; say it once
        said = first.removeprefix(f"{event.name} failed:").strip()
        return f"  {event.name} failed: {said[:200]}"
    if isinstance(event, ev.ToolCallDenied):
        return f"  {event.name} {event.reason}"
    if isinstance(event, ev.WorkerExited):
        return f"  {event.description}"
    if isinstance(event, ev.WorkerGaveUp):
        return f"  {event.worker} worker given up: {event.reason}"
    if isinstance(event, ev.ErrorEvent | ev.Notice):
        return f"harness: {event.message}"
    if isinstance(event, ev.HookFinished) and event.decision in ("deny", "block", "error"):
        said = f": {event.reason.strip().splitlines()[0][:200]}" if event.reason.strip() else ""
        return f"  hook {event.event} {event.hook}: {event.decision}{said}"
    if isinstance(event, ev.VerifyFinished) and not event.ok:
        return f"  verify failed: {event.command}"
    if isinstance(event, ev.Cancelled):
        return "harness: cancelled"
    return ""


async def _file_command(
    session: Session, options: SessionOptions, prompt: str, stderr: IO[str]
) -> tuple[str, FileCommand | None]:
    """*prompt*, or the prompt the command kept as a file it names (``/review x``)
    becomes, its ``!`` lines run through the session; what was refused on stderr."""
    if not prompt.lstrip().startswith("/"):
        return prompt, None
    from pathlib import Path

    from harness.cli._filecmd import expand_line
    from harness.cli.tui import builtin_command_names
    from harness.home import harness_home

    home = Path(options.home) if options.home else harness_home()
    expanded, lines, command = await expand_line(session, prompt, home, builtin_command_names())
    for line in lines:
        _say(stderr, f"harness: {line}")
    return expanded, command


async def _run(
    options: SessionOptions,
    prompt: str | None,
    args: argparse.Namespace,
    stdout: IO[str],
    stderr: IO[str],
) -> int:
    from harness.conversation import open_session

    fmt = args.output_format
    writer = _Writer(fmt, stdout, stderr)
    async with open_session(options) as session:
        if prompt is None:  # --rewind-to alone: its report is the output
            from harness.cli._rewind import rewind

            return 0 if await rewind(session, args, stdout, alone=True) else 1
        writer.on_closed = session.cancel
        session.subscribe(writer)
        # session_started and the problems went out before we subscribed
        for event in session.opening:
            writer(event)
        if getattr(args, "rewind_to", None) is not None:
            from harness.cli._rewind import rewind

            if not await rewind(session, args, stderr, alone=False):  # stdout is the task's
                return 1
        if session.mcp is not None:
            await session.mcp.wait_started()  # the task is given now: its MCP tools must be there
        interrupted = False
        async with trio.open_nursery() as nursery:

            async def on_sigint() -> None:
                nonlocal interrupted
                with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _ in signals:
                        interrupted = True
                        session.cancel()

            nursery.start_soon(on_sigint)
            prompt, command = await _file_command(session, options, prompt, stderr)
            if command is None:  # a plain prompt: the file commands' module is not needed
                result = await session.run(prompt)
            else:
                from harness.cli._filecmd import command_settings

                with command_settings(session, command, options.base_url) as notes:
                    for note in notes:
                        _say(stderr, f"harness: {note}")
                    result = await session.run(prompt)
            nursery.cancel_scope.cancel()
    writer.finish()
    if writer.closed:
        return PIPE_CLOSED
    status = exit_status(result, writer.error_kind)
    if interrupted and not result.ok:
        status = 130
    return status
