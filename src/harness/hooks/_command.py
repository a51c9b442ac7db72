"""``harness hooks``: what is active and where each came from, and a dry run of an event.

::

    harness hooks list [-C DIR] [--trust-project]
                                                every hook, its source, and what is ignored
    harness hooks test EVENT [--tool NAME] [--input JSON] [-C DIR] [--trust-project]
                                                run the matching hooks on a sample payload
                                                and print what each decided

``test`` runs the hooks for real (they are commands: that is the point of trying them),
only those that are active: a project's files count once the workspace is trusted, or
with ``--trust-project`` (what a run with that flag would load).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import IO, Any, cast

import trio

from harness.hooks._claude import harness_arguments
from harness.hooks._config import EVENTS, TOOL_EVENTS, LoadedHooks, load_hooks
from harness.hooks._hooks import Hooks
from harness.hooks._verdict import HookOutcome
from harness.terminal import SafeWriter, clean_line
from harness.trust import TrustStore, WorkspaceTrust
from harness.words import harness_tool

__all__ = ["build_hooks_parser", "describe_hooks", "hooks_main", "load_for"]

# What a tool call looks like when --input does not say (harness's arguments).
_SAMPLE_ARGS: dict[str, dict[str, Any]] = {
    "run_cmd": {"command": "echo hello"},
    "write_file": {"path": "example.txt", "content": "hello\n"},
    "edit_file": {"path": "example.txt", "old_text": "hello", "new_text": "goodbye"},
    "read_file": {"path": "example.txt"},
    "search_text": {"pattern": "hello"},
    "find_files": {"pattern": "*.py"},
    "get_url": {"url": "https://example.com/"},
    "search_web": {"query": "hooks"},
    "spawn_agent": {"task": "look around"},
}
_SAMPLE_FIELDS: dict[str, dict[str, Any]] = {
    "SessionStart": {"source": "startup"},
    "UserPromptSubmit": {"prompt": "hello"},
    "Stop": {"stop_hook_active": False},
    "SubagentStop": {"stop_hook_active": False},
    "PreCompact": {"trigger": "manual", "custom_instructions": ""},
    "Notification": {"message": "harness needs your permission to use Bash"},
    "SessionEnd": {"reason": "other"},
}
_MATCH_FIELD = {"SessionStart": "source", "PreCompact": "trigger", "SessionEnd": "reason"}


def build_hooks_parser() -> argparse.ArgumentParser:
    """The command line of ``harness hooks``."""
    parser = argparse.ArgumentParser(
        prog="harness hooks",
        description="Hooks are commands run around each step of a session, configured in "
        "$HARNESS_HOME/settings.json, .harness/settings*.json and .claude/settings*.json "
        "(a project's files count once the workspace is trusted: harness trust).",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    show = sub.add_parser("list", help="every hook, where it came from, and what is ignored")
    show.add_argument("-C", "--workspace", metavar="DIR", help="default: the current folder")
    _trust_flag(show)
    test = sub.add_parser("test", help="run the matching hooks on a sample payload")
    test.add_argument("event", choices=EVENTS)
    test.add_argument("--tool", metavar="NAME", help="the tool (Bash, Write, run_cmd...)")
    test.add_argument(
        "--input", metavar="JSON", help="tool_input (tool events) or payload fields (others)"
    )
    test.add_argument("-C", "--workspace", metavar="DIR", help="default: the current folder")
    _trust_flag(test)
    return parser


def _trust_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="count this workspace's hook files even if it is not trusted "
        "(what a run with --trust-project loads)",
    )


def load_for(
    workspace: Path, home: str | os.PathLike[str] | None = None, *, trust_all: bool = False
) -> LoadedHooks:
    """The hooks of *workspace* as a session there would load them, under the trust the
    user gave it (``harness trust``), or trusting every project file (*trust_all*: a run
    with ``--trust-project``)."""
    trust = WorkspaceTrust(workspace, TrustStore(home), trust_all=trust_all)
    return load_hooks(workspace, home=home, trusts=trust.trusts)


def describe_hooks(loaded: LoadedHooks) -> list[str]:
    """Lines that show what is active and where each hook came from, then each problem
    and each ignored file (``harness hooks list``, ``/hooks``)."""
    lines: list[str] = []
    for h in loaded.config.handlers:
        matcher = f" [{h.matcher}]" if h.matcher else ""
        extra = f", timeout {h.timeout:g} s" + (", fails closed" if h.on_failure == "block" else "")
        lines.append(f"{h.event}{matcher}: {clean_line(h.command)}  ({h.source}{extra})")
    if not loaded.config.handlers:
        lines.append("no hooks are active")
    return lines + _problems(loaded)


def _problems(loaded: LoadedHooks) -> list[str]:
    lines = [f"problem: {clean_line(problem)}" for problem in loaded.problems]
    lines += [
        f"ignored: {name} (this workspace is not trusted as it is: harness trust)"
        for name in loaded.ignored
    ]
    return lines


def _describe(outcome: HookOutcome) -> str:
    h = outcome.handler
    how = "killed at its timeout" if outcome.exit_code is None else f"exit {outcome.exit_code}"
    decision = outcome.decision or "no decision"
    line = f"{h.label} ({h.source}): {decision} ({how}, {outcome.ms:.0f} ms)"
    for label, text in (
        ("reason", outcome.reason),
        ("context", outcome.context),
        ("message", outcome.message),
    ):
        if text and not (label == "message" and text == outcome.reason):
            line += f"\n    {label}: {clean_line(text)}"
    if outcome.updated_input is not None:
        line += f"\n    updated input: {clean_line(json.dumps(outcome.updated_input))}"
    if outcome.stop:
        line += "\n    asks the session to stop"
    return line


def _test(args: argparse.Namespace, loaded: LoadedHooks, workspace: Path, out: IO[str]) -> int:
    event: str = args.event
    given: Any = {}
    if args.input is not None:
        try:
            given = json.loads(args.input)
        except ValueError as exc:
            sys.stderr.write(f"harness hooks: --input is not JSON: {exc}\n")
            return 2
        if not isinstance(given, dict):
            sys.stderr.write("harness hooks: --input must be a JSON object\n")
            return 2
    hooks = Hooks(loaded.config, cwd=workspace, session_id="hooks-test")
    tool: str | None = None
    arguments: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    if event in TOOL_EVENTS:
        if not args.tool:
            sys.stderr.write(f"harness hooks: {event} needs --tool NAME\n")
            return 2
        tool = harness_tool(args.tool)
        if args.input is not None:
            arguments = harness_arguments(tool, given, workspace)
        else:
            arguments = dict(_SAMPLE_ARGS.get(tool, {}))
    else:
        fields = {**_SAMPLE_FIELDS.get(event, {}), **given}
    match = fields.get(_MATCH_FIELD.get(event, ""))
    result = (True, "hello\n") if event == "PostToolUse" else None
    handlers = hooks.handlers(event, tool=tool, match=match if isinstance(match, str) else None)
    payload = hooks.payload(event, tool=tool, arguments=arguments, result=result, **fields)
    out.write(f"payload: {clean_line(json.dumps(payload))}\n")
    for line in _problems(loaded):
        out.write(line + "\n")
    if not handlers:
        out.write(f"no active hook matches {event}" + (f" on {args.tool}" if tool else "") + "\n")
        return 0

    async def fire() -> Any:
        return await hooks.fire(
            event,
            tool=tool,
            arguments=arguments,
            result=result,
            match=match if isinstance(match, str) else None,
            **fields,
        )

    verdict = trio.run(fire)
    for outcome in verdict.outcomes:
        out.write(_describe(outcome) + "\n")
    summary = verdict.decision or "no decision"
    if verdict.reason:
        summary += f": {clean_line(verdict.reason)}"
    out.write(f"together: {summary}\n")
    return 0


def hooks_main(
    argv: list[str],
    *,
    stdout: IO[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> int:
    """Run ``harness hooks`` with *argv*; the exit status (0, or 2 for a usage error)."""
    args = build_hooks_parser().parse_args(argv)
    out = cast("IO[str]", SafeWriter(stdout or sys.stdout))
    workspace = Path(args.workspace or os.getcwd()).resolve()
    if not workspace.is_dir():
        sys.stderr.write(f"harness hooks: {workspace} is not a folder\n")
        return 2
    loaded = load_for(workspace, home, trust_all=args.trust_project)
    if args.action == "list":
        for line in describe_hooks(loaded):
            out.write(line + "\n")
        return 0
    return _test(args, loaded, workspace, out)
