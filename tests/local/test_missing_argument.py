"""A shell function called without the argument it takes (the ``missing-argument``
rule): bash's own error, the read of the file it names, the search for the function's
calls, the read of the one that passes nothing, and the edit asked for, bound to start
on that call; run against real files with the real tools."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.actors.model.local._guide import Guide
from harness.actors.model.local._nudge import known_call
from harness.actors.model.local._nudge_arguments import enclosing_function, positional_unbound
from harness.actors.model.local._turn import turn_of
from harness.messages.model import ChatMessage

from ._chains import TOOLS, drive, history, write

LIB = """#!/usr/bin/env bash
# What the tools share: source it from a tool, do not run it.
LOG="data/journeys.csv"

die() {
  echo "minibus: $*" >&2
  exit 1
}

month_ok() {
  case "$1" in
    20[0-9][0-9]-0[1-9] | 20[0-9][0-9]-1[0-2]) ;;
    *) die "$1 is not a month (YYYY-MM)" ;;
  esac
}
"""
MONTH = """#!/usr/bin/env bash
# One month's journeys: bash tools/month.sh MONTH
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MONTH="$1"
month_ok
grep -c "^$MONTH" "$LOG"
"""
FILES = {
    "tools/lib.sh": LIB,
    "tools/month.sh": MONTH,
    "data/journeys.csv": "date,driver\n2026-08-03,Ray\n2026-08-05,Ann\n2026-09-01,Ray\n",
}


def _error(root: Path) -> str:
    """What bash prints running the month tool in *root*: its error, as the user pastes it."""
    ran = subprocess.run(
        ["bash", "tools/month.sh", "2026-08"], cwd=root, capture_output=True, text=True
    )
    assert ran.returncode != 0
    return ran.stderr.strip()


def test_bashs_own_error_names_the_functions_line_not_the_call(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    error = _error(tmp_path)
    assert positional_unbound(f"It fails:\n\n{error}\n\nPlease fix it.") == (
        "tools/lib.sh",
        11,
        "$1",
    )
    lines = dict(enumerate(LIB.splitlines(), start=1))
    assert enclosing_function(lines, 11) == "month_ok"
    assert enclosing_function(lines, 6) == "die"
    assert enclosing_function(lines, 3) is None  # outside any function
    assert enclosing_function({1: "f() {", 2: "}", 3: 'echo "$1"'}, 3) is None
    assert positional_unbound("x.sh: line 3: NAME: unbound variable") is None  # a name's


def test_the_call_passing_nothing_is_found_read_and_its_edit_bound_to_start_there(
    tmp_path: Path,
) -> None:
    write(tmp_path, FILES)
    prompt = (
        f"The month tool won't run:\n\n$ bash tools/month.sh 2026-08\n{_error(tmp_path)}\n\nFix it."
    )
    made, steps = drive(tmp_path, prompt, rule="missing-argument")
    assert made == [
        ("read_file", {"path": "tools/lib.sh"}),
        ("search_text", {"pattern": "month_ok"}),
        ("read_file", {"path": "tools/month.sh"}),
        ("edit_file", {}),  # asked of the model, bound
    ]
    asked = known_call(turn_of(tuple(history(prompt, steps)), "", TOOLS))
    assert asked is not None
    assert asked.at == (7,)
    assert asked.instead
    assert "line 7 of tools/month.sh" in asked.text
    # the edit the model may write starts on that call, nowhere else
    seen = turn_of(tuple(history(prompt, steps)), "", TOOLS)
    grammar = Guide().bound("edit_file", seen, TOOLS, at=asked.at)
    old = next(line for line in grammar.splitlines() if line.startswith("old ::= "))
    assert old.startswith('old ::= "month_ok')
    # the edit a model would write makes the tool run
    (tmp_path / "tools/month.sh").write_text(MONTH.replace("month_ok\n", 'month_ok "$MONTH"\n'))
    ran = subprocess.run(
        ["bash", "tools/month.sh", "2026-08"], cwd=tmp_path, capture_output=True, text=True
    )
    assert ran.stdout.strip() == "2"


def test_two_calls_passing_nothing_or_a_model_call_between_leave_it_to_the_model(
    tmp_path: Path,
) -> None:
    twice = {**FILES, "tools/week.sh": MONTH.replace("One month's", "One week's")}
    write(tmp_path, twice)
    prompt = f"It fails:\n\n{_error(tmp_path)}\n\nFix it."
    made, _ = drive(tmp_path, prompt, rule="missing-argument")
    assert [tool for tool, _ in made] == ["read_file", "search_text"]  # two: no read
    own = tmp_path / "own"
    write(own, FILES)
    made, _ = drive(
        own, prompt, [("read_file", {"path": "tools/month.sh"})], rule="missing-argument"
    )
    assert made == []
    # a question about the error, not a request to fix it: nothing
    asked = known_call(
        turn_of(
            (ChatMessage(role="user", content=f"What does this mean?\n{_error(own)}"),), "", TOOLS
        )
    )
    assert asked is None or asked.rule != "missing-argument"
