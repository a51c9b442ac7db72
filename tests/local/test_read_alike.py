"""A new program the request asks for (the ``read-alike`` rule): the search of its folder's
files of its kind for the request's words, and the write asked of the model, bound to
one call; run against real files with the real tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.actors.model.local._nudge_alike import alike_search

from ._chains import drive, write

LIB = """#!/usr/bin/env bash
# What the minibus tools share: source it from a tool, do not run it.
JOURNEY_LOG="data/journeys.csv"
die() { echo "minibus: $*" >&2; exit 1; }
"""
MONTH = """#!/usr/bin/env bash
# One month's figures for the grant report: journeys and passengers.
#   bash tools/month.sh MONTH [LOG]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
MONTH="$1"
LOG="${2:-$JOURNEY_LOG}"
awk -F, -v month="$MONTH" 'NR > 1 && substr($1, 1, 7) == month { journeys++; people += $4 }
  END { print journeys " journeys, " people " passengers" }' "$LOG"
"""
DRIVERS = """#!/usr/bin/env bash
# Each driver's miles, the most first.
. "$(dirname "$0")/lib.sh"
awk -F, 'NR > 1 { miles[$2] += $6 } END { for (d in miles) print d ": " miles[d] }' "$JOURNEY_LOG"
"""
BUS = {
    "tools/lib.sh": LIB,
    "tools/month.sh": MONTH,
    "tools/drivers.sh": DRIVERS,
    "data/journeys.csv": "date,driver,destination,passengers,wheelchairs,miles,fares,purpose\n",
    "README.md": "The minibus's tools count the journeys and passengers for the grant report.\n",
}
PURPOSES = (
    "For the grant report we have to show how many journeys and how many passengers were "
    "for shopping, medical and social. Can you write tools/purposes.sh to count them from "
    "the journey log? For one month if I give it one like 2026-08, otherwise the whole log."
)


@pytest.mark.parametrize("rg", [True, False])
def test_the_folders_programs_lines_on_what_it_does_are_shown_then_the_write_is_asked(
    tmp_path: Path, rg: bool
) -> None:
    write(tmp_path, BUS)
    made, steps = drive(tmp_path, PURPOSES, rule="read-alike", rg=rg)
    assert [(tool, args.get("glob")) for tool, args in made] == [
        ("search_text", "tools/*.sh"),
        ("write_file", None),  # asked of the model, bound to the call
    ]
    shown = steps[0][2].splitlines()
    # the folder's shell scripts only, not the README or the log; their lines on the
    # journeys and the passengers, not a whole file to copy
    assert {line.split(":")[0] for line in shown} == {
        "tools/month.sh",
        "tools/drivers.sh",
        "tools/lib.sh",
    }
    assert any("people += $4" in line for line in shown)
    assert not any("set -euo pipefail" in line for line in shown)
    assert not (tmp_path / "tools/purposes.sh").exists()  # nothing written by the rule


def test_with_none_of_its_kind_in_the_folder_the_model_goes_on(tmp_path: Path) -> None:
    write(tmp_path, {k: v for k, v in BUS.items() if not k.startswith("tools/")})
    made, steps = drive(tmp_path, PURPOSES, rule="read-alike")
    assert [tool for tool, _ in made] == ["search_text"]  # no matches: no write asked
    assert steps[0][2].startswith("no matches")


def test_a_call_of_the_models_own_between_stops_the_rule(tmp_path: Path) -> None:
    write(tmp_path, BUS)
    first = [("read_file", {"path": "tools/lib.sh"})]
    made, _ = drive(tmp_path, PURPOSES, first, rule="read-alike")
    assert made == []


@pytest.mark.parametrize(
    ("prompt", "path", "glob"),
    [
        (PURPOSES, "tools/purposes.sh", "tools/*.sh"),
        (
            "Create test_pricing.py with a unittest test of apply_discount.",
            "test_pricing.py",
            "*.py",
        ),
        (
            "Could you write src/total.js that adds up the basket's prices?",
            "src/total.js",
            "src/*.js",
        ),
    ],
)
def test_a_new_program_is_searched_for_among_its_folders_files_of_its_kind(
    prompt: str, path: str, glob: str
) -> None:
    asked = alike_search(prompt)
    assert asked is not None
    assert (asked[0], asked[1]["glob"]) == (path, glob)


@pytest.mark.parametrize(
    "prompt",
    [
        "Create data/coupons.json mapping SPRING to 10.",  # data, not a program
        "Create a Makefile whose test target runs the tests.",  # no kind to look for
        "Write hello.sh that prints hello.",  # one word that says what it does
        # words any program says, none of this project's
        "Create src/sum.js that exports a function sum(numbers) returning the sum of an array.",
        "Fix tools/month.sh so it takes the month.",  # no new file
    ],
)
def test_no_search_for_data_a_makefile_too_few_words_or_a_change(prompt: str) -> None:
    assert alike_search(prompt) is None
