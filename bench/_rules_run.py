"""Running the calls the small model's rules know (``known_call``) against real files,
as the guide and the tools worker would: each call is made with the real search, read,
edit and shell tools, and its result given back in the history the model reads. Shared
by ``python -m bench rules-alone`` and the tests of the rules that write their own
calls (``tests/local/_chains.py``)."""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.actors.model.local._nudge import known_call
from harness.actors.model.local._nudge_base import Nudge
from harness.actors.model.local._turn import turn_of
from harness.actors.shell._format import CallResult, outcome
from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table
from harness.actors.tools._dispatch import read_file
from harness.actors.tools._files import edit_file
from harness.actors.tools._jail import ToolError, Workspace
from harness.actors.tools._result import Result
from harness.actors.tools._search import search_text
from harness.messages.model import ChatMessage

TOOLS = builtin_table().schemas(names=SMALL_MODEL_TOOLS)

Made = tuple[str, dict[str, Any], str]
"""A call made: its tool, its arguments and its result."""


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


def history(prompt: str, steps: list[Made]) -> list[ChatMessage]:
    """The prompt and each call with its result, as the small model reads them."""
    messages = [ChatMessage(role="user", content=prompt)]
    for name, arguments, result in steps:
        call = json.dumps({"name": name, "arguments": arguments})
        messages.append(ChatMessage(role="assistant", content=f"<tool_call>{call}</tool_call>"))
        body = f"<tool_response>\n{result}\n</tool_response>"
        messages.append(ChatMessage(role="user", content=body))
    return messages


def run_known(
    root: Path,
    prompt: str,
    steps: list[Made],
    *,
    rg: bool = True,
    limit: int = 12,
    seen: Callable[[str, Result], None] | None = None,
) -> tuple[list[Nudge], list[Made], Nudge | None]:
    """Make each call the rules know for *prompt* in the workspace *root*, after *steps*
    (calls made before, with their results; extended in place), until they know none,
    know the answer, or ask the model for a call bound to a tool, or *limit* calls were
    made: the calls made (as the rules knew them), every step, and what stopped it (the
    answer, the call asked of the model, the call past the limit; ``None``: nothing
    known). A search runs with ripgrep where there is one (*rg*), else in Python; *seen*
    is given each call's tool and result."""
    ws = Workspace(root)
    run = {**RUN, "search_text": functools.partial(search_text, use_rg=rg)}
    made: list[Nudge] = []
    for _ in range(limit):
        known = known_call(turn_of(tuple(history(prompt, steps)), "", TOOLS))
        if known is None or known.answer or known.arguments is None:
            return made, steps, known
        arguments = dict(known.arguments)
        made.append(known)
        try:
            result = run[known.tool](ws, dict(arguments))
        except ToolError as refused:
            # as the tools worker answers it: the call's one sentence (a path that does
            # not exist), given back as its result, and the rules go on from there
            steps.append((known.tool, arguments, str(refused)))
            continue
        if seen is not None:
            seen(known.tool, result)
        steps.append((known.tool, arguments, result.output))
    return made, steps, known_call(turn_of(tuple(history(prompt, steps)), "", TOOLS))
