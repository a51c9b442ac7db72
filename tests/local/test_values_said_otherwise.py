"""Values a change request says in other shapes than "X instead of Y": a percent a file
writes as a fraction, a pasted table of the value there now and the value wanted, a
count going up from one, a value there now in a clause beside a file's name or said
twice, and a named file whose line shares no word with the request. Read alone, and
run with the real tools against real files (``new-value``, ``value-wanted``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.actors.model.local._values import Form, value_change
from harness.actors.model.local._wanted import wanted_value

from ._chains import Call, drive, write

FEES = (
    "Fees per season:\n\n"
    "| mooring  | now | new |\n"
    "|----------|-----|-----|\n"
    "| pontoon  | 420 | 450 |\n"
    "| swinging | 185 | 185 |\n\n"
    "Please update moorings.yaml."
)


@pytest.mark.parametrize(
    ("prompt", "change"),
    [
        # a pasted table: the one row whose value changes; two rows that change are two
        # changes, and a table with no column of the value there now says none
        (FEES, ("420", "450")),
        (FEES.replace("| 185 | 185 |", "| 185 | 200 |"), None),
        (FEES.replace("| now | new |", "| size | fee |"), None),
        # the value there now in a clause beside a file's name, the wanted one after it
        (
            "The pump stops after 25 minutes, before it reaches the back beds. Please put "
            "max_run_minutes in greenhouse.toml up to 30.",
            ("25", "30"),
        ),
        # a value said twice in one clause is one value
        (
            "The log says: pool exhausted (8 of 8 connections in use). Please raise "
            "pool_size in settings.toml to 16.",
            ("8", "16"),
        ),
        ("It says 8 of 8 in use and 4 of 8 free. Raise pool_size to 16.", None),
        # "instead" asked of someone, a request after a few words of when, a relative
        # "who" that wonders about nothing
        ("Only the six most recent logs are kept. Could it keep twelve instead?", ("6", "12")),
        ("Starting tomorrow, could the counter bake go from 36 croissants to 24?", ("36", "24")),
        (
            "As a grower who checks every other day, I want the chart to cover 48 hours "
            "instead of 24.",
            ("24", "48"),
        ),
        ("Tell me who set the chart to 48 hours instead of 24.", None),
    ],
)
def test_the_values_are_read_from_a_table_a_clause_and_a_request_put_as_a_question(
    prompt: str, change: tuple[str, str] | None
) -> None:
    said = value_change(prompt)
    assert (said and (said.old, said.new)) == change


def test_a_percent_said_may_be_written_as_a_fraction() -> None:
    said = value_change("The standard rate goes from 20% to 23% next month; set TAX_RATE.")
    assert said is not None
    assert said.percent
    assert said.forms == [Form("20", "23", None), Form("0.2", "0.23", None)]
    # said as a fraction, or one of the two without its sign, it is only what is said
    fraction = value_change("The rate goes from 0.2 to 0.23; set TAX_RATE.")
    assert fraction is not None
    assert fraction.forms == [Form("0.2", "0.23", None)]
    bare = value_change("The discount goes from 5% to 10 now; set it in cart.js.")
    assert bare is not None
    assert not bare.percent


def _shapes(calls: list[Call]) -> list[tuple[str, str | None]]:
    return [(name, args.get("path") or args.get("glob")) for name, args in calls]


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
@pytest.mark.parametrize(
    ("line", "made"),
    [("TAX_RATE = 0.2", "TAX_RATE = 0.23"), ("TAX_PERCENT = 20", "TAX_PERCENT = 23")],
)
def test_a_percent_is_changed_where_a_file_writes_it_as_a_fraction_or_a_percent(
    tmp_path: Path, rg: bool, line: str, made: str
) -> None:
    files = {"pricing.py": f"{line}\nCURRENCY = 'EUR'\n", "report.py": "SHARE = 0.25  # of tax\n"}
    write(tmp_path, files)
    prompt = "Our accountant says the tax rate rises from 20% to 23% next month."
    calls, _ = drive(tmp_path, prompt, rule="new-value", rg=rg)
    assert _shapes(calls) == [
        ("search_text", None),
        ("read_file", "pricing.py"),
        ("edit_file", "pricing.py"),
    ]
    assert (tmp_path / "pricing.py").read_text() == f"{made}\nCURRENCY = 'EUR'\n"
    assert (tmp_path / "report.py").read_text() == files["report.py"]


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_named_file_whose_line_shares_no_word_is_searched_for_the_value_alone(
    tmp_path: Path, rg: bool
) -> None:
    files = {
        "pricing.py": "TAX_RATE = 0.2\nCURRENCY = 'EUR'\n",
        "settings.toml": "[tax]\nrate = 0.2\n[shop]\nname = 'Corner'\n",
        "report.py": "SHARE = 0.2  # of the takings\n",
    }
    write(tmp_path, files)
    # "VAT" is on no line: the first search finds nothing, the second looks in the two
    # files named, where each holds 0.2 on one line only
    prompt = "VAT goes from 0.2 to 0.23 - pricing.py and settings.toml need it."
    calls, _ = drive(tmp_path, prompt, rule="new-value", rg=rg)
    assert _shapes(calls) == [
        ("search_text", None),
        ("search_text", "{pricing.py,settings.toml}"),
        ("read_file", "pricing.py"),
        ("edit_file", "pricing.py"),
        ("read_file", "settings.toml"),
        ("edit_file", "settings.toml"),
    ]
    assert (tmp_path / "pricing.py").read_text() == "TAX_RATE = 0.23\nCURRENCY = 'EUR'\n"
    assert (tmp_path / "settings.toml").read_text() == files["settings.toml"].replace("0.2", "0.23")
    assert (tmp_path / "report.py").read_text() == files["report.py"]


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_named_file_holding_the_value_twice_with_no_word_is_left_to_the_model(
    tmp_path: Path, rg: bool
) -> None:
    files = {"settings.toml": "[tax]\nrate = 0.2\n[shop]\nshare = 0.2\n"}
    write(tmp_path, files)
    calls, _ = drive(tmp_path, "VAT goes from 0.2 to 0.23 in settings.toml.", rule="new-value")
    assert _shapes(calls) == [("search_text", None), ("search_text", "settings.toml")]
    assert (tmp_path / "settings.toml").read_text() == files["settings.toml"]


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_row_of_a_pasted_table_is_the_change(tmp_path: Path, rg: bool) -> None:
    files = {"moorings.yaml": "fees:\n  pontoon: 420.00\n  swinging: 185.00\n"}
    write(tmp_path, files)
    calls, _ = drive(tmp_path, FEES, rule="new-value", rg=rg)
    assert _shapes(calls) == [
        ("search_text", None),
        ("read_file", "moorings.yaml"),
        ("edit_file", "moorings.yaml"),
    ]
    assert (tmp_path / "moorings.yaml").read_text() == files["moorings.yaml"].replace(
        "420.00", "450.00"
    )


DEPLOY = (
    "services:\n  api:\n    replicas: 2\n    image: api:4\n"
    "  worker:\n    replicas: 1\n    image: worker:2\n"
)


@pytest.mark.parametrize(
    ("prompt", "wanted"),
    [
        ("Run 2 replicas of the worker instead of 1.", ("2", "1")),
        ("OPS-219: worker replicas 1 -> 2 in deploy.yaml.", ("2", "1")),
        ("Could deploy.yaml run the worker as two replicas rather than one?", ("2", "1")),
        ("Set the retries from 0 to 3.", ("3", "0")),
        # from 2 to 3 is new-value's; from 1 to 0.5 is no count
        ("Run 3 replicas of the worker instead of 2.", None),
    ],
)
def test_a_change_from_one_is_read_as_the_value_wanted_on_a_line_holding_one(
    prompt: str, wanted: tuple[str, str] | None
) -> None:
    said = wanted_value(prompt)
    assert (said and (said.value, said.held)) == wanted


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_count_from_one_changes_the_line_holding_one_not_another(
    tmp_path: Path, rg: bool
) -> None:
    write(tmp_path, {"deploy.yaml": DEPLOY})
    calls, _ = drive(
        tmp_path, "Run 2 replicas of the worker instead of 1.", rule="value-wanted", rg=rg
    )
    assert _shapes(calls) == [
        ("search_text", None),
        ("read_file", "deploy.yaml"),
        ("edit_file", "deploy.yaml"),
    ]
    assert (tmp_path / "deploy.yaml").read_text() == DEPLOY.replace("replicas: 1", "replicas: 2")


HOURS_SH = (
    "#!/usr/bin/env bash\n"
    '# TOP is how many boats to list (5 unless given), e.g. "Puffin: 23.5 h".\n'
    'TOP="${1:-5}"\n'
    'LOG="${2:-data/outings.csv}"\n'
    'awk -F, \'NR > 1 { print $2 }\' "$LOG" | head -n "$TOP"\n'
)


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
@pytest.mark.parametrize(
    "prompt",
    [
        "Change the hours script's default to 3 boats.",
        # the count of a thing the line does not name
        "By default the hours script should show the top 3 boats.",
    ],
)
def test_the_value_wanted_goes_on_the_one_line_of_the_file_described_giving_a_number(
    tmp_path: Path, rg: bool, prompt: str
) -> None:
    files = {"tools/hours.sh": HOURS_SH, "club.toml": "[club]\nboats = 5\n"}
    write(tmp_path, files)
    calls, _ = drive(tmp_path, prompt, rule="value-wanted", rg=rg)
    assert _shapes(calls) == [
        ("search_text", "*hours.*"),
        ("read_file", "tools/hours.sh"),
        ("edit_file", "tools/hours.sh"),
    ]
    assert (tmp_path / "tools/hours.sh").read_text() == HOURS_SH.replace(":-5}", ":-3}")
    assert (tmp_path / "club.toml").read_text() == files["club.toml"]


def test_a_file_described_with_two_lines_giving_numbers_is_left_to_the_model(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"tools/hours.sh": HOURS_SH.replace('LOG="', 'DAYS="${3:-7}"\nLOG="')})
    calls, _ = drive(tmp_path, "Change the hours script's default to 3 boats.", rule="value-wanted")
    assert _shapes(calls) == [("search_text", "*hours.*")]
