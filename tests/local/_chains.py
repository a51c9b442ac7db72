"""Driving the rules that write their own calls (``known_call``) against real files: each
call the rules know is run with the real search, read and edit tools, and its result
given back, as the guide and the tools worker would."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path
from typing import Any

from bench._rules_run import RUN, TOOLS, Made, history, run_cmd, run_known

from harness.actors.tools._jail import Workspace
from harness.actors.tools._result import Result
from harness.actors.tools._search import search_text

__all__ = ["RUN", "TOOLS", "Call", "Made", "drive", "history", "run_cmd", "write"]

Call = tuple[str, dict[str, Any]]


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

    def seen(tool: str, result: Result) -> None:
        if tool == "search_text" and rg and shutil.which("rg"):
            assert result.data["engine"] == "rg"  # a search ripgrep reads

    known, steps, stop = run_known(root, prompt, steps, rg=rg, seen=seen)
    made: list[Call] = []
    for call in known:
        assert call.rule in ((rule,) if isinstance(rule, str) else rule), call
        made.append((call.tool, dict(call.arguments or {})))
    if stop is None:
        return made, steps
    assert stop.rule in ((rule,) if isinstance(rule, str) else rule), stop
    if stop.answer:
        made.append(("answer", {"text": stop.text}))
        return made, steps
    if stop.arguments is None:
        # a call the rule asks the model for, bound to its tool: the model writes it
        made.append((stop.tool, {}))
        return made, steps
    raise AssertionError(f"the rule did not stop: {made}")


def write(root: Path, files: dict[str, str]) -> None:
    """Write each of *files* (path: text) under *root*."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
