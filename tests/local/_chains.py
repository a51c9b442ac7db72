"""Driving the rules that write their own calls (``known_call``) against real files: each
call the rules know is run with the real search, read and edit tools, and its result
given back, as the guide and the tools worker would."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.actors.model.local._nudge import known_call
from harness.actors.model.local._turn import turn_of
from harness.actors.shell._format import CallResult, outcome
from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table
from harness.actors.tools._dispatch import read_file
from harness.actors.tools._files import edit_file
from harness.actors.tools._jail import Workspace
from harness.actors.tools._result import Result
from harness.actors.tools._search import search_text
from harness.messages.model import ChatMessage

TOOLS = builtin_table().schemas(names=SMALL_MODEL_TOOLS)


def run_cmd(ws: Workspace, arguments: dict[str, Any]) -> Result:
    """The command run with bash in the workspace, its result written as the shell worker
    writes it (its output, then ``[exit code N]``)."""
    command = arguments["command"]
    ran = subprocess.run(
        ["bash", "-c", command], cwd=ws.root, capture_output=True, text=True, timeout=60
    )
    done = outcome(
        CallResult("exited", "s1", command, ran.stdout + ran.stderr, exit_code=ran.returncode)
    )
    return Result(done.output, done.data)


RUN: dict[str, Callable[[Workspace, dict[str, Any]], Result]] = {
    "search_text": search_text,
    "read_file": read_file,
    "edit_file": edit_file,
    "run_cmd": run_cmd,
}

Call = tuple[str, dict[str, Any]]
Made = tuple[str, dict[str, Any], str]


def history(prompt: str, steps: list[Made]) -> list[ChatMessage]:
    """The prompt and each call with its result, as the small model reads them."""
    messages = [ChatMessage(role="user", content=prompt)]
    for name, arguments, result in steps:
        call = json.dumps({"name": name, "arguments": arguments})
        messages.append(ChatMessage(role="assistant", content=f"<tool_call>{call}</tool_call>"))
        body = f"<tool_response>\n{result}\n</tool_response>"
        messages.append(ChatMessage(role="user", content=body))
    return messages


def drive(
    root: Path,
    prompt: str,
    first: list[Call] | None = None,
    *,
    rule: str | tuple[str, ...],
    rg: bool = True,
) -> tuple[list[Call], list[Made]]:
    """The calls the rule *rule* (or the rules, each call by one of them) writes for
    *prompt* in the workspace *root*, each run
    with the real tool (searching with ripgrep where there is one, or in Python), until
    it knows none, then ``("answer", {"text": …})`` where it knows the answer, or
    ``(tool, {})`` where it asks the model for a call bound to *tool*; and every
    step with its result. *first*: calls the model made before."""
    ws = Workspace(root)
    run = {**RUN, "search_text": functools.partial(search_text, use_rg=rg)}
    steps: list[Made] = [(n, a, run[n](ws, dict(a)).output) for n, a in first or []]
    made: list[Call] = []
    for _ in range(12):
        known = known_call(turn_of(tuple(history(prompt, steps)), "", TOOLS))
        if known is None:
            return made, steps
        assert known.rule in ((rule,) if isinstance(rule, str) else rule), known
        if known.answer:
            made.append(("answer", {"text": known.text}))
            return made, steps
        if known.arguments is None:
            # a call the rule asks the model for, bound to its tool: the model writes it
            made.append((known.tool, {}))
            return made, steps
        arguments = dict(known.arguments)
        made.append((known.tool, arguments))
        result = run[known.tool](ws, dict(arguments))
        if known.tool == "search_text" and rg and shutil.which("rg"):
            assert result.data["engine"] == "rg"  # a search ripgrep reads
        steps.append((known.tool, arguments, result.output))
    raise AssertionError(f"the rule did not stop: {made}")


def write(root: Path, files: dict[str, str]) -> None:
    """Write each of *files* (path: text) under *root*."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
