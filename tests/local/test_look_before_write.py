"""A new file that works from what the project has (the ``look-before-write`` rule): the
look at that thing is written before the model replies, run with the real search and
read tools on real files (ripgrep's search and Python's), and what it shows checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.actors.model.local._nudge import known_call
from harness.actors.model.local._nudge_reads import worked_from
from harness.actors.model.local._turn import turn_of
from harness.words import asks_to_write

from ._chains import TOOLS, drive, history, write

SCHEDULE = '''"""How much water each bed gets."""

UNIT = "litres"


def litres_for(crop: str, area_m2: float, moisture: int) -> float:
    """Litres for a bed of *crop* of *area_m2* square metres at *moisture* per cent."""
    if moisture >= 50:
        return 0
    return area_m2 * (3 if crop == "lettuce" else 2)
'''
README = """# Library desk

The tools in tools/ read the loans log.

The loans log, `data/loans.csv`, gets a row for every loan when it comes back.
"""
FILES = {
    "schedule.py": SCHEDULE,
    "README.md": README,
    "data/loans.csv": "card,title,out,back\n1042,Wolf Hall,2026-03-01,2026-03-15\n",
    "settings.toml": '[stock]\nlow_stock_threshold = 4\nwarehouses = ["lisbon", "porto"]\n',
    "data/orders.csv": "id,sku,qty\n1,KET-01,2\n2,MUG-02,1\n",
}


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
@pytest.mark.parametrize(
    ("prompt", "call", "shown"),
    [
        # a script that goes by a thing of the project: the line that says which file it is
        (
            "Add a script tools/borrowers.sh: I give it a book's title and it prints the card "
            "numbers of everyone who's borrowed it, going by the loans log.",
            ("search_text", {"pattern": "loans log"}),
            "The loans log, `data/loans.csv`, gets a row",
        ),
        # "our" things
        (
            "Make a file data/warehouses.txt that lists our warehouses, one per line.",
            ("search_text", {"pattern": "warehouses"}),
            'warehouses = ["lisbon", "porto"]',
        ),
        # another file the request names is read
        (
            "Create scripts/count.sh, a bash script that prints how many orders "
            "data/orders.csv holds (its lines but the header).",
            ("read_file", {"path": "data/orders.csv"}),
            "id,sku,qty",
        ),
    ],
)
def test_the_look_comes_before_the_model_writes(
    tmp_path: Path, prompt: str, call: tuple[str, dict[str, str]], shown: str, rg: bool
) -> None:
    write(tmp_path, FILES)
    made, steps = drive(tmp_path, prompt, rule="look-before-write", rg=rg)
    assert made == [call]  # one look, then the model writes
    assert shown in steps[0][2]


def test_a_file_that_works_from_nothing_of_the_project_is_left_to_the_model(
    tmp_path: Path,
) -> None:
    write(tmp_path, FILES)
    for prompt in (
        "Create scripts/hello.sh, a bash script that prints exactly: hello from the shop",
        # code it names is not looked at first: shown it, the model copied it (a wrong
        # import is said after the write)
        "Could you put a unittest for litres_for in a new test_schedule.py?",
        "Write price.py: a script that prints what 100 costs with tax, using with_tax "
        "from pricing.py.",
        "Add an .editorconfig so editors indent Python with 4 spaces and JavaScript with 2.",
        "Create data/coupons.json: a JSON object mapping SPRING10 to 10 and WELCOME5 to 5.",
        "Create .env.example with two lines: DATABASE_URL= and LOG_LEVEL=info",
        # a question, and a change to a file that is there: other rules' to read
        "What does the loans log hold?",
        "Fix the count in scripts/count.sh: it counts the header of data/orders.csv too.",
    ):
        known = known_call(turn_of(tuple(history(prompt, [])), "", TOOLS))
        assert known is None or known.rule != "look-before-write", prompt
    # once the model looked, the rule writes nothing
    prompt = "Make a file data/warehouses.txt that lists our warehouses, one per line."
    made, _ = drive(tmp_path, prompt, [("read_file", {"path": "README.md"})], rule="-")
    assert made == []


def test_what_a_file_works_from_is_read_in_order_of_sureness() -> None:
    cases = {
        # a file of data first, over a thing said in words; a name of the code is none
        "Write test_sales.py with a test that total_for gives 12 from the sales log.": (
            "search_text",
            "sales log",
        ),
        "Write tools/fares.js: it prints the fares of timetable.json, as the screen does.": (
            "read_file",
            "timetable.json",
        ),
        # a log before a report ("the grant report" is what the user writes, not a file)
        "For the grant report we need counts. Can you write tools/purposes.sh to count them "
        "from the journey log?": ("search_text", "journey log"),
        # "whole" is no part of the name
        "Could you write tools/payments.sh? Otherwise for the whole sales log.": (
            "search_text",
            "sales log",
        ),
        "Write RUNNING.md: how to print the stock report, one command.": (
            "search_text",
            "stock report",
        ),
        # the file to write is not a file to read, nor its own name a name to look up
        "Create test_pricing.py with a unittest test.": None,
    }
    for prompt, expected in cases.items():
        path = asks_to_write(prompt)
        assert path is not None, prompt
        assert worked_from(prompt, path) == expected, prompt
