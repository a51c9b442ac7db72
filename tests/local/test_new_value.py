"""A change that says the value wanted and the value there now (the ``new-value`` rule), or
only the value wanted (``value-wanted``): the search, the read and the edit the harness
writes itself, run against real files with the real tools."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from harness.actors.model.local._choose import stems
from harness.actors.model.local._nudge import known_call, nudge_for
from harness.actors.model.local._nudge_values import described_file
from harness.actors.model.local._turn import turn_of
from harness.actors.model.local._values import Form, in_figures, swap_change, value_change
from harness.actors.model.local._wanted import keyed_value, shaped_value, wanted_value

from ._chains import TOOLS, Call, drive, history, write


@pytest.mark.parametrize(
    ("prompt", "change"),
    [
        ("We bake too many. From tomorrow just bake 24 for the counter, not 36.", ("36", "24")),
        ("The tax rate goes up from 0.2 to 0.23. Change it in pricing.py.", ("0.2", "0.23")),
        ("When the log is rotated, keep a dozen old logs rather than six.", ("6", "12")),
        ("Juniors can helm on their own from twelve now, not fourteen.", ("14", "12")),
        ("Bikes go for a service every 500 km instead of 400.", ("400", "500")),
        ("A group is half a dozen people now, not eight.", ("8", "6")),
        # a count of dozens is the count times twelve ("three dozen" is 36, not 3)
        ("Two dozen croissants from tomorrow, not three dozen - please change it.", ("36", "24")),
        ("Bake 2 dozen rather than 3 dozen.", ("36", "24")),
        ("The WELCOME5 coupon should take 10% off now, not 5%.", ("5", "10")),
        ("Can the chart show the last three days instead of two?", ("2", "3")),
        # a fault told says what happens first: its pair reads the other way round
        ("removeFromCart removes two lines instead of one. Fix it.", None),
        ("It shows 3 items instead of 5, which is wrong.", None),
        # a question about what is there, not a change
        ("Why does the report show 30 days rather than 14?", None),
        # no value there now, or 1, which nearly any line holds, or two changes at once
        ("Sourdough is going up to £4.50 a loaf.", None),
        ("Show the last two bins instead of just one.", None),
        # the value wanted said as enough, the value there now the prompt's one other
        ("The script lists five boats unless told. Three is plenty by default.", ("5", "3")),
        ("It nags us every two hours. Every four is plenty.", ("2", "4")),
        ("Bake 24 croissants, not 36, and 10 muffins rather than 12.", None),
        ("Make it 5, not 5.", None),
        ("The committee voted last night: from twelve now, not fourteen.", ("14", "12")),
        # the value there now said in a clause that asks nothing, the value wanted in a
        # later one that asks
        ("WELCOME5 is 5% off at the moment. Change it to 10%.", ("5", "10")),
        ("Both files have the tax rate at 0.2; it's 0.23 now. Update them.", ("0.2", "0.23")),
        ("Log rotation keeps six old watering logs. Make it twelve.", ("6", "12")),
        ("Set it to 10. It is 5 at the moment.", ("5", "10")),  # the value now said after
        ("Change it to 45 minutes before curtain up, it's 30 at the moment.", ("30", "45")),
        ("Service them every 500 km, it used to be 400.", ("400", "500")),
        ("Set it to 10. It is 5, I think.", None),  # 5 is not said to be there now
        ("It keeps 6 logs and 3 archives. Make it 12.", None),  # which one is not said
        # a span said with "every", a time of day with its half of the day
        ("Change the warning from every two hours to every four hours.", ("2", "4")),
        ("Only warn us every 4 hours, not every 2.", ("2", "4")),
        ("We now open at 8am instead of 7am.", ("7", "8")),
        ("We close at 9pm now, not 10 p.m.", ("22", "21")),
        # an arrow from the value there now to the value wanted, as notes and lists write
        # one ("deposit: 50 -> 60"), the unit written to the figure ("24h")
        ("deposit: 50 -> 60 in station.toml", ("50", "60")),
        ("Price change:\n- sourdough £4.20 -> £4.50\n- the screen too", ("4.20", "4.50")),
        ("Dashboard chart: 24h -> 48h.", ("24", "48")),
        ("Keep logs 7d → 14d, please.", ("7", "14")),
        # the value there now in brackets beside the one wanted
        ("config.json tweaks:\n- services.stock.retries: 5 (was 3)", ("3", "5")),
        ("Pump max run: 1800 seconds please (it's 25 minutes now).", ("25", "1800")),
        ("Make the pool 16 (currently 8).", ("8", "16")),
        ("can u bump the bike deposit up a tenner to £60, its 50 atm", ("50", "60")),
        ("counter croissants 24 not 36 from tmrw pls, bakery.toml", ("36", "24")),
        ("Juniors can now helm solo at 12 (it was 14). Update the rules.", ("14", "12")),
        ("Tax is going up to 0.23 (it's 0.2 now), please change it.", ("0.2", "0.23")),
        # two other values beside the one in brackets: which is wanted is not said
        ("Retries 5 and timeout 30 (was 3).", None),
        # a verb of changing a value by a factor, the values said
        ("Could you double pool_size in settings.toml, from 8 to 16?", ("8", "16")),
        # a measure written to the figure, the value going to another
        ("The service interval goes from 400km to 500km.", ("400", "500")),
        ("maxmemory 256mb -> 512mb", ("256", "512")),
        ("Thumbnails go from 120px to 160px wide.", ("120", "160")),
        # a number of tens said in words
        ("The pump may run thirty minutes at most, not twenty-five. Change it.", ("25", "30")),
        ("Make it forty five, not thirty.", ("30", "45")),
        (
            "pontoon berths r £450/season now (were 420), cn you update moorings.yaml",
            ("420", "450"),
        ),
        (
            "We can hold 16 connections. Set pool_size to that (it's 8 in settings.toml).",
            ("8", "16"),
        ),
        # the value a file still says is the one there now
        (
            "We've charged £4.50 a loaf since Monday, but prices.py and the counter screen "
            "(counter/menu.json) both still say £4.20. Please update both.",
            ("4.20", "4.50"),
        ),
    ],
)
def test_the_value_wanted_and_the_value_there_now_are_read_from_the_request(
    prompt: str, change: tuple[str, str] | None
) -> None:
    said = value_change(prompt)
    assert (said and (said.old, said.new)) == change


def _drive(
    root: Path,
    prompt: str,
    first: list[Call] | None = None,
    *,
    rg: bool = True,
    rule: str = "new-value",
) -> list[Call]:
    """The calls *rule* writes for *prompt* in *root*, run with the real tools."""
    return drive(root, prompt, first, rule=rule, rg=rg)[0]


BAKERY = {
    "bakery.toml": "[counter]\nsourdough = 12\ncroissant = 36\nmuffin = 24\n",
    "data/sales.csv": "day,item,baked,sold\n2026-05-05,croissant,36,28\n",
    "fees.py": "LATE_FEE = 36.5  # croissant fee\n",
    "bake.py": "import tomllib\n\nTRAYS = 36  # trays the oven holds\n",
    "README.md": "We bake 36 croissants a day.\n",
}


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_the_one_line_holding_the_value_there_now_is_found_read_and_changed(
    tmp_path: Path, rg: bool
) -> None:
    write(tmp_path, BAKERY)
    prompt = "We're throwing away too many croissants. From tomorrow just bake 24, not 36."
    made = _drive(tmp_path, prompt, rg=rg)
    assert made[0][0] == "search_text"
    search = re.compile(made[0][1]["pattern"])
    # lines giving 36, as a whole number, to a name, and a word of the request on them
    assert search.search("croissant = 36")
    assert search.search("TRAYS = 36  # croissants a day")
    assert not search.search("bake(croissants, 36)")
    assert not search.search("We bake 36 croissants a day.")
    assert not search.search("TRAYS = 36")
    assert not search.search("CROISSANT_FEE = 36.5")
    assert not search.search("croissant = 360")
    assert made[1:] == [
        ("read_file", {"path": "bakery.toml"}),
        (
            "edit_file",
            {"path": "bakery.toml", "old_text": "croissant = 36", "new_text": "croissant = 24"},
        ),
    ]
    assert "croissant = 24\n" in (tmp_path / "bakery.toml").read_text()
    # the sales record, the oven's trays and the README are left as they were
    for path in ("data/sales.csv", "bake.py", "README.md", "fees.py"):
        assert (tmp_path / path).read_text() == BAKERY[path]


def test_a_count_of_dozens_finds_and_changes_the_line_holding_it(tmp_path: Path) -> None:
    write(tmp_path, BAKERY)
    prompt = "Two dozen croissants for the counter from tomorrow, not three dozen - please."
    made = _drive(tmp_path, prompt)
    assert made[1:] == [
        ("read_file", {"path": "bakery.toml"}),
        (
            "edit_file",
            {"path": "bakery.toml", "old_text": "croissant = 36", "new_text": "croissant = 24"},
        ),
    ]
    assert "croissant = 24\n" in (tmp_path / "bakery.toml").read_text()


def test_a_change_written_as_an_arrow_finds_and_changes_the_line_holding_it(
    tmp_path: Path,
) -> None:
    write(tmp_path, {**BAKERY, "dashboard.json": '{\n  "chart": { "hours": 24 }\n}\n'})
    made = _drive(tmp_path, "Dashboard chart: 24h -> 48h.")
    assert made[1:] == [
        ("read_file", {"path": "dashboard.json"}),
        (
            "edit_file",
            {
                "path": "dashboard.json",
                "old_text": '  "chart": { "hours": 24 }',
                "new_text": '  "chart": { "hours": 48 }',
            },
        ),
    ]
    assert '"hours": 48' in (tmp_path / "dashboard.json").read_text()


def test_a_value_noted_as_what_it_was_is_the_one_changed(tmp_path: Path) -> None:
    write(tmp_path, BAKERY)
    made = _drive(tmp_path, "bakery.toml:\n- croissant 24 (was 36)\n- nothing else")
    assert made[-1] == (
        "edit_file",
        {"path": "bakery.toml", "old_text": "croissant = 36", "new_text": "croissant = 24"},
    )
    assert "croissant = 24\n" in (tmp_path / "bakery.toml").read_text()
    assert "36" in (tmp_path / "README.md").read_text()


def test_a_change_asked_in_more_than_one_place_is_made_in_each_file_found(
    tmp_path: Path,
) -> None:
    files = {
        "prices.py": 'PRICES = {\n    "sourdough": 4.20,\n    "rye": 3.80,\n}\n',
        "counter/menu.json": '{ "items": [\n  { "name": "Sourdough", "price": 4.20 }\n] }\n',
        "data/sales.csv": "day,item,price\n2026-05-05,sourdough,4.20\n",
    }
    write(tmp_path, files)
    prompt = (
        "Price change for Monday:\n- sourdough £4.20 -> £4.50\n- the counter screen shows "
        "prices too, so update it there as well"
    )
    made = _drive(tmp_path, prompt)
    assert [(name, args.get("path")) for name, args in made] == [
        ("search_text", None),
        # the line sharing the most words first ("sourdough", "price")
        ("read_file", "counter/menu.json"),
        ("edit_file", "counter/menu.json"),
        ("read_file", "prices.py"),
        ("edit_file", "prices.py"),
    ]
    assert '"sourdough": 4.50' in (tmp_path / "prices.py").read_text()
    assert '"price": 4.50' in (tmp_path / "counter/menu.json").read_text()
    # the record of sales is left as it was
    assert (tmp_path / "data/sales.csv").read_text() == files["data/sales.csv"]


def test_a_change_asked_in_one_place_changes_only_the_best_line(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "prices.py": 'PRICES = {\n    "sourdough": 4.20,\n}\n',
            "counter/menu.json": '{ "items": [\n  { "name": "Sourdough", "price": 4.20 }\n] }\n',
        },
    )
    made = _drive(tmp_path, "Sourdough price: £4.20 -> £4.50, too many complaints otherwise.")
    assert [name for name, _ in made].count("edit_file") == 1


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
@pytest.mark.parametrize(
    ("files", "prompt", "made"),
    [
        (
            {
                "fleet.py": "SERVICE_EVERY_KM = 400\nWHEELS = 2\n",
                "station.toml": "[bikes]\nservice_every_km = 400  # km between services\n",
                "notes.txt": "400 km is the service interval\n",
            },
            "Bikes now go for a service every 500 km instead of 400: change it in fleet.py "
            "and in station.toml.",
            {
                "fleet.py": "SERVICE_EVERY_KM = 500\nWHEELS = 2\n",
                "station.toml": "[bikes]\nservice_every_km = 500  # km between services\n",
            },
        ),
        # one file's line shares more words with the request ("tax", "rate") than the
        # other's: each named file is changed still, and a file not named is not
        (
            {
                "pricing.py": "TAX_RATE = 0.2\nCURRENCY = 'EUR'\n",
                "settings.toml": "[tax]\nrate = 0.2\n",
                "report.py": "SHARE = 0.2  # of the tax rate\n",
            },
            "The tax rate goes up from 0.2 to 0.23. Change it in pricing.py and in settings.toml.",
            {
                "pricing.py": "TAX_RATE = 0.23\nCURRENCY = 'EUR'\n",
                "settings.toml": "[tax]\nrate = 0.23\n",
            },
        ),
    ],
)
def test_each_file_the_request_names_is_changed_in_turn(
    tmp_path: Path, rg: bool, files: dict[str, str], prompt: str, made: dict[str, str]
) -> None:
    write(tmp_path, files)
    calls = _drive(tmp_path, prompt, rg=rg)
    assert [(name, args.get("path")) for name, args in calls] == [
        ("search_text", None),
        *((tool, path) for path in made for tool in ("read_file", "edit_file")),
    ]
    for path, text in files.items():
        assert (tmp_path / path).read_text() == made.get(path, text)


def test_a_shell_default_is_a_setting_and_a_call_argument_is_not(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "tools/rotate.sh": 'KEEP="${KEEP:-6}" # the newest archived logs kept\n',
            "tools/show.sh": 'printf "%6s" "$(tail -n 6 logs/today.log)"\n',
        },
    )
    made = _drive(tmp_path, "When the log is rotated, keep a dozen old logs rather than six.")
    assert made[-1] == (
        "edit_file",
        {
            "path": "tools/rotate.sh",
            "old_text": 'KEEP="${KEEP:-6}" # the newest archived logs kept',
            "new_text": 'KEEP="${KEEP:-12}" # the newest archived logs kept',
        },
    )
    write(tmp_path, {"fmt.js": "const line = pad(price, 10);\n", "rules.py": "BULK = 5\n"})
    # the only line holding 10 gives it to a call: a width, not the setting asked for
    made = _drive(tmp_path, "Bulk prices should start at 20 units, not 10.")
    assert [name for name, _ in made] == ["search_text"]


def test_an_hour_of_the_clock_is_changed_as_the_file_writes_it(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "station.toml": '[station]\nopens = "07:00"\ncloses = "21:00"\n',
            "fees.py": "LATE_FEE = 7.5\nGRACE_MINUTES = 7\n",
        },
    )
    made = _drive(tmp_path, "We open at 8 in the morning now, not 7.")
    assert made[-1] == (
        "edit_file",
        {"path": "station.toml", "old_text": 'opens = "07:00"', "new_text": 'opens = "08:00"'},
    )
    assert (tmp_path / "fees.py").read_text() == "LATE_FEE = 7.5\nGRACE_MINUTES = 7\n"
    # no time of day said: 7:00 is not the 7 asked about
    write(tmp_path, {"limits.toml": 'max_bikes = 7\nreset = "7:00"\n'})
    made = _drive(tmp_path, "Let people hire up to 9 bikes, not 7.")
    assert made[-1] == (
        "edit_file",
        {"path": "limits.toml", "old_text": "max_bikes = 7", "new_text": "max_bikes = 9"},
    )


def test_an_hour_wanted_alone_is_written_on_the_line_giving_a_time_of_day(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "station.toml": '[station]\nopens = "07:00"\ncloses = "21:00"\n',
            "fees.py": "LATE_FEE = 7.5\nGRACE_MINUTES = 7\n",
        },
    )
    made = _drive(
        tmp_path,
        "From next week we open at 8 in the morning. Please change the opening hour.",
        rule="value-wanted",
    )
    assert made[-1] == (
        "edit_file",
        {"path": "station.toml", "old_text": 'opens = "07:00"', "new_text": 'opens = "08:00"'},
    )
    assert (tmp_path / "fees.py").read_text() == "LATE_FEE = 7.5\nGRACE_MINUTES = 7\n"
    hour = wanted_value("We open at 9 in the morning now.")
    assert hour is not None
    assert hour.clock
    assert hour.made("opens = 7:30") == "opens = 9:00"
    assert hour.made('opens = "09:00"') is None  # already so
    assert hour.made('window = "07:00-19:00"') is None  # two times: which is not known
    assert hour.made("opens = 7") is None  # no time of day on the line
    # past noon, said the twelve-hour way: the file's hour is not known
    assert wanted_value("We close at 8 in the evening now.") is None
    late = wanted_value("We close at 18 o'clock now.")
    assert late is not None
    assert late.made('closes = "17:00"') == 'closes = "18:00"'


def test_a_span_of_time_is_found_in_the_unit_a_line_names() -> None:
    chart = value_change("Can the chart show the last two days instead of just one?")
    assert chart is not None
    # one day is no form (nearly any line holds 1); 24 hours, 1440 minutes are
    assert {(f.old, f.new, f.unit) for f in chart.forms} == {
        ("24", "48", "hour"),
        ("1440", "2880", "minute"),
        ("86400", "172800", "second"),
    }
    nag = value_change("The warning nags us every two hours. Every four is plenty.")
    assert nag is not None
    assert nag.set_in("  repeat_minutes: 120") == Form("120", "240", "minute")
    assert nag.set_in("  repeat_hours: 2") == Form("2", "4", "hour")
    # 120 on a line that names no minutes, or an argument of a call, is not it
    assert nag.set_in("  limit: 120") is None
    assert nag.set_in("sleep(120)  # minutes") is None
    hrs = value_change("Let it run for 3 hrs, not 2 hrs.")
    assert hrs is not None
    assert (hrs.old, hrs.old_unit, hrs.new, hrs.new_unit) == ("2", "hour", "3", "hour")
    half = value_change("Run the backup every 90 minutes instead of every 2 hours.")
    assert half is not None
    assert {(f.old, f.new, f.unit) for f in half.forms} == {
        ("7200", "5400", "second"),
        ("120", "90", "minute"),
        ("2", "1.5", "hour"),
    }


def test_a_span_of_time_is_changed_in_the_unit_the_file_writes(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "alerts.yaml": "low_tank:\n  level: 20\n  repeat_minutes: 120\n",
            "pump.toml": "max_run_minutes = 2\n",
        },
    )
    nags = "The low-tank warning nags us every two hours. Every four is plenty."
    made = _drive(tmp_path, nags)
    assert made[-1] == (
        "edit_file",
        {
            "path": "alerts.yaml",
            "old_text": "  repeat_minutes: 120",
            "new_text": "  repeat_minutes: 240",
        },
    )
    assert (tmp_path / "pump.toml").read_text() == "max_run_minutes = 2\n"


def test_a_unit_alone_is_no_word_the_line_and_the_request_share(tmp_path: Path) -> None:
    # two lines naming minutes hold two hours as 120: neither is more likely
    write(
        tmp_path,
        {"alerts.yaml": "  repeat_minutes: 120\n", "fees.py": "FIRST_MINUTES_FREE = 120\n"},
    )
    made = _drive(tmp_path, "The warning nags us every two hours. Every four is plenty.")
    assert [name for name, _ in made] == ["search_text"]
    # 15 as said, on a line that shares no word with the request but its unit
    write(tmp_path, {"fees.py": "FREE_MINUTES = 15\n"})
    made = _drive(tmp_path, "The reminder service runs every 15 minutes; every 30 is enough.")
    assert [name for name, _ in made] == ["search_text"]
    assert (tmp_path / "fees.py").read_text() == "FREE_MINUTES = 15\n"


def test_two_lines_alike_or_none_leave_the_change_to_the_model(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "club.toml": "min_age = 14\nmax_age = 14\n",
            "board.js": "const opens = '09:15';\n",
        },
    )
    # two lines of one file hold 14 and share as many words with the request
    made = _drive(tmp_path, "Members join from twelve in age now, not fourteen.")
    assert [name for name, _ in made] == ["search_text"]
    # no line holds 9 as a setting (a part of 09:15 is none)
    made = _drive(tmp_path, "Each member may book 4 boats now, not 9.")
    assert [name for name, _ in made] == ["search_text"]
    assert (tmp_path / "club.toml").read_text() == "min_age = 14\nmax_age = 14\n"


def test_the_rule_writes_nothing_once_the_model_went_its_own_way(tmp_path: Path) -> None:
    write(tmp_path, BAKERY)
    prompt = "From tomorrow just bake 24 croissants, not 36."
    assert _drive(tmp_path, prompt, first=[("read_file", {"path": "bake.py"})]) == []
    assert (tmp_path / "bake.py").read_text() == BAKERY["bake.py"]
    # a file changed already: nothing more
    said = value_change(prompt)
    assert said is not None
    first: list[tuple[str, dict[str, Any]]] = [
        ("search_text", {"pattern": said.search(prompt), "regex": True}),
        ("read_file", {"path": "bakery.toml"}),
        ("edit_file", {"path": "bakery.toml", "old_text": "croissant = 36", "new_text": "x"}),
    ]
    assert _drive(tmp_path, prompt, first=first) == []


def test_a_request_with_no_word_a_line_could_share_is_left_to_the_model(
    tmp_path: Path,
) -> None:
    # no line could be chosen, so no search is written that the model never asked for
    write(tmp_path, BAKERY)
    assert _drive(tmp_path, "Make it 24 now, not 36.") == []


def test_after_a_reply_the_known_call_is_asked_and_with_the_rule_off_it_is_not() -> None:
    asked_at = history("From tomorrow just bake 24 croissants for the counter, not 36.", [])
    turn = turn_of(tuple(asked_at), "I've updated the croissants to 24.", TOOLS)
    asked = nudge_for(turn, ["new-value"])
    assert asked is not None
    assert asked.tool == "search_text"
    assert asked.arguments is not None
    assert asked.arguments["regex"] is True
    assert known_call(turn_of(tuple(asked_at), "", TOOLS), ()) is None
    # with no edit tool offered (a question's tools), no change is begun
    looks = [t for t in TOOLS if t.name != "edit_file"]
    assert known_call(turn_of(tuple(asked_at), "", looks)) is None


# -- a change that says only the value wanted (value-wanted) ------------------------------


@pytest.mark.parametrize(
    ("prompt", "wanted"),
    [
        ("Raise the deposit to 60 pounds.", ("60", None)),
        ("Green tea costs 5 now in the sample order.", ("5", None)),
        ("Requests give up too soon. Set the timeout to 60 seconds.", ("60", "second")),
        ("Move the staging database to Postgres 16.4.", ("16.4", None)),
        ("The pontoon berths go up to £450 for the season. Can you put that in?", ("450", None)),
        ("station.toml: deposit = 60", ("60", None)),  # the setting's line as it should be
        # the value there now said too: new-value's
        ("Raise the deposit to 60 pounds, not 50.", None),
        # a share, a number that tells which, a fault, something new
        ("Make it 15 per cent.", None),
        ("From now on the over 65 tickets are called 'senior'.", None),
        ("The report shows 5 items, which is wrong. Fix it.", None),
        ("Add a coupon SUMMER20 worth 20 percent.", None),
        ("Set the retries to 1.", None),
        ("How much is the deposit? Is it 60?", None),
        # a count of tries, said after the verb it counts
        ("Calls to the stock service should be tried 5 times.", ("5", None)),
        ("Backups should be kept 30 days.", ("30", "day")),
        ("Make the queue 3 times bigger.", None),
        # after a modal and its verb; "one" that stands for a thing is no value
        ("Doors should open 45 minutes before the show now.", ("45", "minute")),
        ("A sourdough loaf costs £4.50 now. Change the one on the screen too.", ("4.50", None)),
        ("Set this one to 12.", ("12", None)),
        # after "every", and where it ends what is made so
        ("Make the low tank warning repeat every 4 hours.", ("4", "hour")),
        ("Make the deposit £60.", ("60", None)),
        ("Please make our deposit 60 pounds now.", ("60", None)),
        ("Make the pontoon fee £450 a season.", ("450", None)),
        ("Please make the over 65 tickets cheaper.", None),
        ("Make the sail number 655 boat the club boat.", None),
    ],
)
def test_the_value_wanted_alone_is_read_from_the_request(
    prompt: str, wanted: tuple[str, str | None] | None
) -> None:
    said = wanted_value(prompt)
    assert (said and (said.value, said.unit)) == wanted


def test_a_count_of_tries_is_a_setting_named_for_its_tries() -> None:
    tries = wanted_value("Calls to the stock service should be tried 5 times.")
    assert tries is not None
    assert tries.tries
    assert tries.made('      "retries": 3,') == '      "retries": 5,'
    assert tries.made("max_attempts = 2") == "max_attempts = 5"
    # a line naming no tries is no count of them, though it says "stock"
    assert tries.made("low_stock_threshold = 4") is None
    deposit = wanted_value("Raise the deposit to 60 pounds.")
    assert deposit is not None
    assert deposit.made("deposit = 50") == "deposit = 60"
    # "retry 5 times": tries, not a count of "times"
    retry = wanted_value("Checkout gives up too soon. Let it retry 5 times.")
    assert retry is not None
    assert (retry.value, retry.tries, retry.counts) == ("5", True, None)
    assert retry.made('      "retries": 3,') == '      "retries": 5,'
    assert retry.made('  "timeout_seconds": 12,') is None


STATION = {
    "station.toml": (
        "[fees]\n"
        "deposit = 50  # pounds, back when the bike is\n"
        "late_per_hour = 2.50\n"
        "\n"
        "[moorings]\n"
        "pontoon: 420.00\n"
    ),
    "fleet.py": (
        "def add(number: int, km: float = 0.0) -> None:\n"
        "    # a deposit of 20 is taken at the desk\n"
        "    pass\n"
    ),
    "data/deposits.csv": "day,deposit = 50\n",
    "README.md": "The deposit: 50 pounds.\n",
}


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_the_one_setting_the_request_speaks_of_gets_the_value_wanted(
    tmp_path: Path, rg: bool
) -> None:
    write(tmp_path, STATION)
    made = _drive(tmp_path, "Raise the deposit to 60 pounds.", rg=rg, rule="value-wanted")
    assert [(name, args.get("path")) for name, args in made] == [
        ("search_text", None),
        ("read_file", "station.toml"),
        ("edit_file", "station.toml"),
    ]
    assert "deposit = 60  # pounds" in (tmp_path / "station.toml").read_text()
    # the comment, the record and the README hold the word and a number, and are left
    for path in ("fleet.py", "data/deposits.csv", "README.md"):
        assert (tmp_path / path).read_text() == STATION[path]


def test_the_value_wanted_is_written_as_the_line_writes_its_value(tmp_path: Path) -> None:
    write(tmp_path, STATION)
    made = _drive(
        tmp_path,
        "The pontoon berths go up to £450 for the season. Can you put that in?",
        rule="value-wanted",
    )
    assert made[-1][1]["new_text"] == "pontoon: 450.00"
    # a span said in seconds, in the unit the line names
    write(tmp_path, {"app.toml": "[server]\nrequest_timeout_minutes = 2\n"})
    made = _drive(tmp_path, "Change the request timeout to 300 seconds.", rule="value-wanted")
    assert made[-1][1]["new_text"] == "request_timeout_minutes = 5"


def test_where_lines_tie_or_the_request_names_another_file_the_model_goes_on(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "settings.toml": "[server]\nport = 9412\n\n[mail]\nsmtp_port = 587\n",
            "package.json": '{\n  "engines": {\n    "node": ">=18.17"\n  }\n}\n',
        },
    )
    # two lines of one TOML file share "port", and the tables they sit in, [server] and
    # [mail], one word each of "mail server": the file is read, no line chosen
    made = _drive(tmp_path, "Switch the mail server port to 465.", rule="value-wanted")
    assert [name for name, _ in made] == ["search_text", "read_file"]
    assert "587" in (tmp_path / "settings.toml").read_text()
    # two lines in two files tie: the search alone
    write(tmp_path, {"app.toml": "port = 8080\n", "web.toml": "port = 9000\n"})
    (tmp_path / "settings.toml").unlink()
    made = _drive(tmp_path, "Set the port to 465.", rule="value-wanted")
    assert [name for name, _ in made] == ["search_text"]
    # the request names a file to write: package.json's node is not it
    made = _drive(tmp_path, "Pin the project to Node 20 with an .nvmrc file.", rule="value-wanted")
    assert [name for name, _ in made] == ["search_text"]
    assert (tmp_path / "package.json").read_text().count("18.17") == 1


GREENHOUSE = {
    "greenhouse.toml": (
        "[sensors]\n"
        "read_every_minutes = 20\n"
        "\n"
        "[pump]\n"
        "flow_litres_per_minute = 6.0\n"
        "max_run_minutes = 25\n"
        "\n"
        "[log]\n"
        "keep_days = 90\n"
    ),
    "alerts.yaml": "tank_low:\n  repeat_minutes: 60\n",
    "schedule.py": "FLOW_LITRES_PER_MINUTE = 6.0\n",
}


@pytest.mark.parametrize(
    ("prompt", "wanted"),
    [
        ("Let the pump run for up to half an hour at a stretch.", ("30", "minute")),
        ("Allow requests up to three quarters of an hour.", ("45", "minute")),
        ("Set the refresh to a quarter of an hour.", ("15", "minute")),
        ("Let me know what the pump does.", None),
    ],
)
def test_a_span_said_in_words_is_read_in_minutes(
    prompt: str, wanted: tuple[str, str | None] | None
) -> None:
    said = wanted_value(prompt)
    assert (said and (said.value, said.unit)) == wanted


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_line_is_known_by_its_toml_table_and_a_span_by_the_unit_its_name_says(
    tmp_path: Path, rg: bool
) -> None:
    write(tmp_path, GREENHOUSE)
    prompt = "Let the pump run for up to half an hour at a stretch."
    made = _drive(tmp_path, prompt, rg=rg, rule="value-wanted")
    assert made[-1] == (
        "edit_file",
        {
            "path": "greenhouse.toml",
            "old_text": "max_run_minutes = 25",
            "new_text": "max_run_minutes = 30",
        },
    )
    # the sensors' interval names minutes too, the flow is a rate, the alert's repeat has
    # no word of the request: all left
    text = (tmp_path / "greenhouse.toml").read_text()
    assert "read_every_minutes = 20" in text
    assert "flow_litres_per_minute = 6.0" in text
    assert (tmp_path / "alerts.yaml").read_text() == GREENHOUSE["alerts.yaml"]


def test_a_word_of_the_request_counts_before_the_unit_a_line_names(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "settings.toml": "[server]\nrequest_timeout = 45\n",
            "config.json": '{\n  "timeout_seconds": 12\n}\n',
        },
    )
    prompt = "Requests give up too soon. Let them run for 60 seconds."
    made = _drive(tmp_path, prompt, rule="value-wanted")
    assert made[-1][1]["new_text"] == "request_timeout = 60"


@pytest.mark.parametrize(
    ("prompt", "wanted"),
    [
        ("The worker can't keep up. Give it a second replica.", ("2", "repli")),
        ("Give the builds a third runner.", ("3", "runne")),
        ("Give it a second replica and a third worker.", None),
        ("The second replica keeps crashing: why?", None),
    ],
)
def test_one_more_is_read_as_the_count_it_comes_to(
    prompt: str, wanted: tuple[str, str] | None
) -> None:
    said = wanted_value(prompt)
    assert (said and (said.value, said.count_of)) == wanted


def test_one_more_goes_on_the_line_counting_that_thing_at_one_less(tmp_path: Path) -> None:
    files = {
        "deploy.yaml": (
            "services:\n  api:\n    replicas: 2\n    workers: 1\n  worker:\n    replicas: 1\n"
        )
    }
    write(tmp_path, files)
    prompt = "The worker can't keep up with the queue. Give it a second replica."
    made = _drive(tmp_path, prompt, rule="value-wanted")
    assert made[-1] == (
        "edit_file",
        {"path": "deploy.yaml", "old_text": "    replicas: 1", "new_text": "    replicas: 2"},
    )
    # the api's two replicas are no count of one; its one worker counts no replicas
    assert "    replicas: 2\n    workers: 1\n" in (tmp_path / "deploy.yaml").read_text()


@pytest.mark.parametrize(
    ("prompt", "value"),
    [
        ("Our mail goes out through smtp.mailhub.example from now on.", "smtp.mailhub.example"),
        ("Bump the version in package.json to 1.3.0.", "1.3.0"),
        ("Point the stock service at https://stock.example/api now.", "https://stock.example/api"),
        # a file's name is no host; two values, a question, a fault: none
        ("Change the host in settings.toml.", None),
        ("Move from 1.2.0 to 1.3.0 and then to 1.4.0.", None),
        ("Which version is 1.3.0 in?", None),
        ("Mail through smtp.mailhub.example fails. Fix it.", None),
    ],
)
def test_a_value_of_a_form_of_its_own_is_read_from_the_request(
    prompt: str, value: str | None
) -> None:
    said = shaped_value(prompt)
    assert (said and said.value) == value


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_value_of_a_form_of_its_own_replaces_the_one_line_holding_that_form(
    tmp_path: Path, rg: bool
) -> None:
    files = {
        "settings.toml": (
            "[server]\n"
            'host = "127.0.0.1"\n'
            "\n"
            "[mail]\n"
            'sender = "orders@shop.example"\n'
            'smtp_host = "smtp.shop.example"\n'
        ),
        "config.json": '{\n  "url": "https://pay.shop.example/api"\n}\n',
        "README.md": "Mail goes out through smtp.shop.example.\n",
    }
    write(tmp_path, files)
    prompt = "Our mail goes out through smtp.mailhub.example from now on."
    made = _drive(tmp_path, prompt, rg=rg, rule="value-wanted")
    assert made[-1] == (
        "edit_file",
        {
            "path": "settings.toml",
            "old_text": 'smtp_host = "smtp.shop.example"',
            "new_text": 'smtp_host = "smtp.mailhub.example"',
        },
    )
    for path in ("config.json", "README.md"):
        assert (tmp_path / path).read_text() == files[path]


BAKERY_PRICES = {
    "prices.py": 'PRICES = {\n    "white loaf": 2.40,\n    "sourdough": 4.20,\n}\n',
    "counter/menu.json": (
        '{\n  "items": [\n'
        '    { "name": "White loaf", "price": 2.40, "left": 9 },\n'
        '    { "name": "Sourdough", "price": 4.20, "left": 4 },\n'
        '    { "name": "Pasty", "price": 4.50, "left": 2 }\n'
        "  ]\n}\n"
    ),
    "bakery.toml": "[counter]\nsourdough = 12\n",
    "README.md": "Sourdough: £4.20 a loaf.\n",
}


def test_a_price_said_with_its_pence_for_each_of_a_thing_is_read_so() -> None:
    said = wanted_value("Sourdough is going up to £4.50 a loaf. Change the price, please.")
    assert said is not None
    assert (said.value, said.money, said.per) == ("4.50", True, "loaf")
    # a whole number is no sum with pence; of several numbers, the one named as asked
    assert said.made("sourdough = 12") is None
    line = '    { "name": "Sourdough", "price": 4.20, "left": 4 },'
    assert said.made(line) == '    { "name": "Sourdough", "price": 4.50, "left": 4 },'


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_value_said_to_be_held_in_two_places_is_changed_in_both(tmp_path: Path, rg: bool) -> None:
    write(tmp_path, BAKERY_PRICES)
    prompt = (
        "Sourdough is going up to £4.50 a loaf. The screen over the counter shows the "
        "price too, so it needs changing there as well."
    )
    made = _drive(tmp_path, prompt, rg=rg, rule="value-wanted")
    assert [(name, args.get("path")) for name, args in made] == [
        ("search_text", None),
        ("read_file", "counter/menu.json"),
        ("edit_file", "counter/menu.json"),
        ("read_file", "prices.py"),
        ("edit_file", "prices.py"),
    ]
    assert '"sourdough": 4.50,' in (tmp_path / "prices.py").read_text()
    menu = (tmp_path / "counter/menu.json").read_text()
    assert '"Sourdough", "price": 4.50' in menu
    assert '"White loaf", "price": 2.40' in menu
    # the count in bakery.toml and the README are left
    for path in ("bakery.toml", "README.md"):
        assert (tmp_path / path).read_text() == BAKERY_PRICES[path]


def test_the_other_place_is_found_by_the_value_it_holds_where_the_request_names_no_key(
    tmp_path: Path,
) -> None:
    # "price" is not said: of the menu line's two numbers, the one that is the value the
    # first edit changed (4.20) is the one to change there too
    write(tmp_path, BAKERY_PRICES)
    prompt = "Put the sourdough up to £4.50 a loaf, on the counter screen too."
    made = _drive(tmp_path, prompt, rule="value-wanted")
    assert [name for name, _ in made][-2:] == ["read_file", "edit_file"]
    assert '"sourdough": 4.50,' in (tmp_path / "prices.py").read_text()
    menu = (tmp_path / "counter/menu.json").read_text()
    assert '{ "name": "Sourdough", "price": 4.50, "left": 4 }' in menu


FLEET_TWICE = {
    "fleet.py": "SERVICE_EVERY_KM = 400\nDOCKS = 40\n",
    "station.toml": "[fleet]\nservice_every_km = 400\ndocks = 40\n",
    "README.md": "Bikes are serviced every 400 km.\n",
}


@pytest.mark.parametrize(
    "prompt",
    [
        "Bikes now get serviced every 500 km. Update both fleet.py and station.toml.",
        "Service the bikes every 500 km now, wherever it's set (fleet.py, station.toml).",
    ],
)
def test_lines_alike_in_each_file_the_request_names_are_each_changed(
    tmp_path: Path, prompt: str
) -> None:
    write(tmp_path, FLEET_TWICE)
    made = _drive(tmp_path, prompt, rule="value-wanted")
    assert [(name, args.get("path")) for name, args in made] == [
        ("search_text", None),
        ("read_file", "fleet.py"),
        ("edit_file", "fleet.py"),
        ("read_file", "station.toml"),
        ("edit_file", "station.toml"),
    ]
    assert "SERVICE_EVERY_KM = 500" in (tmp_path / "fleet.py").read_text()
    assert "service_every_km = 500" in (tmp_path / "station.toml").read_text()
    assert (tmp_path / "README.md").read_text() == FLEET_TWICE["README.md"]


def test_lines_alike_in_two_files_are_left_to_the_model_unless_both_are_asked(
    tmp_path: Path,
) -> None:
    write(tmp_path, FLEET_TWICE)
    # one place asked, or two places and no file named: which line is not known
    for prompt in (
        "Bikes now get serviced every 500 km.",
        "Bikes now get serviced every 500 km, in both places.",
    ):
        made = _drive(tmp_path, prompt, rule="value-wanted")
        assert [name for name, _ in made] == ["search_text"], prompt
        assert (tmp_path / "fleet.py").read_text() == FLEET_TWICE["fleet.py"]


def test_two_places_said_with_and_are_each_changed(tmp_path: Path) -> None:
    write(tmp_path, BAKERY_PRICES)
    prompt = "Sourdough is £4.50 a loaf from today; change it in the prices and on the screen."
    made = _drive(tmp_path, prompt, rule="value-wanted")
    assert [name for name, _ in made] == [
        "search_text",
        "read_file",
        "edit_file",
        "read_file",
        "edit_file",
    ]
    assert '"sourdough": 4.50,' in (tmp_path / "prices.py").read_text()
    assert '"Sourdough", "price": 4.50' in (tmp_path / "counter/menu.json").read_text()


def test_a_value_said_once_is_changed_in_one_place(tmp_path: Path) -> None:
    write(tmp_path, BAKERY_PRICES)
    prompt = "Sourdough is going up to £4.50 a loaf. Change the price, please."
    made = _drive(tmp_path, prompt, rule="value-wanted")
    assert [name for name, _ in made] == ["search_text", "read_file", "edit_file"]
    assert '"sourdough": 4.20,' in (tmp_path / "prices.py").read_text()


@pytest.mark.parametrize(
    ("prompt", "stem"),
    [
        ("The hours script gives me five boats unless I say otherwise.", "hours"),
        ("Got this from the plan script this morning.", "plan"),
        ("The shell script is slow.", None),
        ("The hours script and the tide script disagree.", None),
        ("Make it list three boats.", None),
        # a file's path given as the label the request starts with
        ("tools/hours.sh: a default of 5 boats is too long, 3 please.", "hours"),
        ("`fleet.py` - the interval should be 500", "fleet"),
        ("Change it in tools/hours.sh: 3, not 5.", None),
    ],
)
def test_a_file_named_by_what_it_is_is_read_from_the_request(prompt: str, stem: str | None) -> None:
    assert described_file(prompt) == stem


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
@pytest.mark.parametrize(
    "prompt",
    [
        "The hours script gives me five boats unless I say otherwise. Three is plenty by default.",
        # the file's path given as the label the request starts with
        "tools/hours.sh: a default of 5 boats is too long for the noticeboard, make it 3.",
    ],
)
def test_a_value_in_a_file_named_by_what_it_is_is_found_with_no_word_beside_it(
    tmp_path: Path, rg: bool, prompt: str
) -> None:
    files = {
        "tools/hours.sh": (
            "#!/usr/bin/env bash\n"
            "# TOP is how many boats to list (5 unless given)\n"
            'TOP="${1:-5}"\n'
            'head -n "$TOP" data.txt\n'
        ),
        "tools/skipper.sh": 'KEEP="${1:-5}"\n',
        "club.toml": "boats_listed = 5\n",
    }
    write(tmp_path, files)
    made = _drive(tmp_path, prompt, rg=rg)
    assert made[0] == (
        "search_text",
        {
            "pattern": r"""[=:<>]\s*["'(\[{]?\s*(?:\$\{\w+:-)?[£$€]?(?:5)(?:\.0+)?(?:[^\w.]|$)""",
            "regex": True,
            "glob": "*hours.*",
        },
    )
    assert made[-1] == (
        "edit_file",
        {"path": "tools/hours.sh", "old_text": 'TOP="${1:-5}"', "new_text": 'TOP="${1:-3}"'},
    )
    # the comment says 5 too, and is left; so are the other script and the settings
    assert "(5 unless given)" in (tmp_path / "tools/hours.sh").read_text()
    for path in ("tools/skipper.sh", "club.toml"):
        assert (tmp_path / path).read_text() == files[path]


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_figure_said_with_its_measure_is_changed_where_a_line_holds_it_bare(
    tmp_path: Path, rg: bool
) -> None:
    files = {
        "fleet.py": "SERVICE_EVERY_KM = 400\nWHEELS = 2\n",
        "station.toml": "[bikes]\nservice_every_km = 400\n",
        "deploy.yaml": 'args: ["--maxmemory", "256mb"]\nmemory: 256mb\n',
    }
    write(tmp_path, files)
    prompt = (
        "TODO before the new season:\n1. service interval goes from 400km to 500km\n"
        "2. keep fleet.py (SERVICE_EVERY_KM) and station.toml (service_every_km) in step"
    )
    _drive(tmp_path, prompt, rg=rg)
    assert (tmp_path / "fleet.py").read_text() == "SERVICE_EVERY_KM = 500\nWHEELS = 2\n"
    assert (tmp_path / "station.toml").read_text() == "[bikes]\nservice_every_km = 500\n"
    # a line holding the figure with its measure keeps the measure
    _drive(tmp_path, "Change the memory in deploy.yaml from 256mb to 512mb.", rg=rg)
    assert "memory: 512mb\n" in (tmp_path / "deploy.yaml").read_text()


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_value_is_found_however_many_zeros_its_decimals_end_in(tmp_path: Path, rg: bool) -> None:
    files = {
        "moorings.yaml": "fees:\n  pontoon: 420.00\n  swinging: 180.00\n",
        "src/index.js": "const order = [{ name: 'Green tea', price: 4.5 }];\n",
    }
    write(tmp_path, files)
    # a whole value said, written with decimals: the edit keeps them
    _drive(tmp_path, "pontoon berths r £450/season now (were 420), cn you update it", rg=rg)
    assert "  pontoon: 450.00\n  swinging: 180.00\n" in (tmp_path / "moorings.yaml").read_text()
    # a decimal said with its last zeros, written without them
    _drive(
        tmp_path, "green tea in the sample order should be 5.00 not 4.50, can you change it", rg=rg
    )
    assert "price: 5 }" in (tmp_path / "src/index.js").read_text()


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_a_word_of_three_letters_finds_the_line_naming_it(tmp_path: Path, rg: bool) -> None:
    files = {
        "pricing.py": "TAX_RATE = 0.2\nSYNTAX_LEVEL = 0.2\n",
        "pump.toml": "[pump]\nmax_run_minutes = 25\nfilter_minutes = 25\n",
    }
    write(tmp_path, files)
    made = _drive(tmp_path, "Tax is going up to 0.23 (it's 0.2 now). Sort it please.", rg=rg)
    search = re.compile(made[0][1]["pattern"])
    assert search.search("TAX_RATE = 0.2")
    assert search.search("sales_tax = 0.2")
    assert not search.search("SYNTAX_LEVEL = 0.2")  # a short word only where a word starts
    assert (tmp_path / "pricing.py").read_text() == "TAX_RATE = 0.23\nSYNTAX_LEVEL = 0.2\n"
    _drive(tmp_path, "Pump max run: 30 minutes, not 25.", rg=rg)
    assert "max_run_minutes = 30\nfilter_minutes = 25\n" in (tmp_path / "pump.toml").read_text()


@pytest.mark.parametrize(
    ("said", "figures"),
    [
        ("thirty minutes, not twenty-five", "30 minutes, not 25"),
        ("forty five, sixty or ninety-nine", "45, 60 or 99"),
        ("half an hour", "30 minutes"),
        # not a number: two words joined, a name
        ("fifty-fifty", "fifty-fifty"),
        ("the thirty-somethings", "the thirty-somethings"),
    ],
)
def test_spans_and_tens_said_in_words_are_written_in_figures(said: str, figures: str) -> None:
    assert in_figures(said) == figures


@pytest.mark.parametrize(
    ("text", "short"),
    [
        ("Tax is going up", {"tax"}),
        ("Pump max run", {"max"}),
        ("min_helm_age", {"min", "age"}),
        ("the api key", {"api", "key"}),
        # too common to name anything
        ("Fix it now, and put it in our new one too", set()),
    ],
)
def test_a_word_of_three_letters_counts_unless_too_common(text: str, short: set[str]) -> None:
    assert {s for s in stems(text) if len(s) == 3} == short


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("retry", "retries"),
        ("delivery", "deliveries"),
        ("opening", "opens_at"),
        ("warning", "warn_every_hours"),
        ("croissants", "croissant"),
        ("bookings", "book_by"),
    ],
)
def test_a_word_of_a_request_and_its_other_forms_in_a_file_share_a_stem(
    said: str, written: str
) -> None:
    assert stems(said) & stems(written)


@pytest.mark.parametrize(("word", "other"), [("string", "strap"), ("tries", "trees")])
def test_a_short_word_keeps_enough_of_itself_to_tell_it_apart(word: str, other: str) -> None:
    assert stems(word)
    assert not stems(word) & stems(other)


@pytest.mark.parametrize(
    ("prompt", "values"),
    [
        ("Cut the counter's croissants to 24 a day, down from 36.", ("24", "36")),
        ("Change doors to open 45 minutes before each show, up from 30.", ("45", "30")),
        # two sentences, two changes, money and a count, three values: not one change
        ("Set it to 10. It is 5, I think.", None),
        ("Set the retries to 5 and the timeout to 30.", None),
        ("Change the deposit to £60 for 3 nights.", None),
        ("Make it 6 logs, 3 archives and 12 backups.", None),
        ("Why is the timeout 30 when the docs say 60?", None),
    ],
)
def test_two_values_with_no_word_of_which_is_there_now_are_read_either_way(
    prompt: str, values: tuple[str, str] | None
) -> None:
    said = value_change(prompt)
    assert (said and said.either and (said.old, said.new)) == (values or None)


def test_of_two_values_the_one_a_line_of_the_request_holds_is_changed(tmp_path: Path) -> None:
    write(tmp_path, BAKERY)
    made = _drive(tmp_path, "Cut the counter's croissants to 24 a day, down from 36.")
    assert made[-1] == (
        "edit_file",
        {"path": "bakery.toml", "old_text": "croissant = 36", "new_text": "croissant = 24"},
    )
    # lines of the request's words holding each value: which is there now is not known
    write(tmp_path, {**BAKERY, "bakery.toml": "[counter]\ncroissant = 36\ncroissant_tray = 24\n"})
    made = _drive(tmp_path, "Cut the counter's croissants to 24 a day, down from 36.")
    assert [name for name, _ in made] == ["search_text"]
    assert "croissant = 36" in (tmp_path / "bakery.toml").read_text()


@pytest.mark.parametrize(
    ("prompt", "step"),
    [
        ("Add one more replica to the worker service.", ("1", None, "repli")),
        ("Add another replica to the worker.", ("1", None, "repli")),
        ("Drop two fewer stops on the round.", ("-2", None, "stop")),
        ("Raise the deposit by 10 pounds.", ("10", None, None)),
        ("Raise the timeout by 10 seconds.", ("10", "second", None)),
        ("Cut the warning's repeat down by 2 hours.", ("-2", "hour", None)),
        ("Give the pump 10 more minutes.", ("10", "minute", None)),
        # a share, no way up or down, a value beside the step, two steps
        ("Raise prices by 10%.", None),
        ("Change the timeout by 10 seconds.", None),
        ("Increase the retries by 2 to 5.", None),
        ("Add one more replica and two more workers.", None),
    ],
)
def test_a_step_from_the_value_there_now_is_read_from_the_request(
    prompt: str, step: tuple[str, str | None, str | None] | None
) -> None:
    said = wanted_value(prompt)
    assert (said and said.step is not None and (said.value, said.unit, said.count_of)) == (
        step or None
    )


def test_a_step_moves_the_value_there_now_on_the_line_it_speaks_of(tmp_path: Path) -> None:
    compose = (
        "services:\n  web:\n    replicas: 2\n    port: 8080\n"
        "  worker:\n    replicas: 1\n    timeout_minutes: 2\n"
    )
    write(tmp_path, {"compose.yaml": compose, "notes.txt": "one more replica next year\n"})
    made = _drive(tmp_path, "Add one more replica to the worker service.", rule="value-wanted")
    assert made[-1][0] == "edit_file"
    assert (tmp_path / "compose.yaml").read_text() == compose.replace("replicas: 1", "replicas: 2")
    # a span stepped in the unit the line names
    made = _drive(tmp_path, "Give the worker's timeout 30 more seconds.", rule="value-wanted")
    assert "timeout_minutes: 2.5" in (tmp_path / "compose.yaml").read_text()
    # a step that takes a count to nothing is left to the model
    made = _drive(tmp_path, "Run three fewer replicas of the worker.", rule="value-wanted")
    assert not any(name == "edit_file" for name, _ in made)


@pytest.mark.parametrize(
    ("prompt", "counts"),
    [
        ("Run three replicas of the api service: change deploy.yaml.", ("3", "repli")),
        ("Use 4 workers for the queue.", ("4", "worke")),
        # a number that tells which, a unit, no thing counted
        ("Make the over 65 tickets cheaper.", None),
        ("Book the 3 boats for Sunday.", None),
        ("Use 4 minutes for the queue.", None),
        ("Use 4 for the queue.", None),
    ],
)
def test_a_count_said_with_what_it_counts_is_a_value_wanted(
    prompt: str, counts: tuple[str, str] | None
) -> None:
    said = wanted_value(prompt)
    assert (said and said.counts and (said.value, said.counts)) == (counts or None)


def test_a_count_goes_on_the_line_of_the_service_the_request_names_by_its_key(
    tmp_path: Path,
) -> None:
    deploy = (
        "services:\n"
        "  api:\n    image: shop/api:4.2.0\n    replicas: 2\n"
        "  worker:\n    image: shop/worker:4.2.0\n    replicas: 1\n"
    )
    write(tmp_path, {"deploy.yaml": deploy, "limits.toml": "max_workers = 8\n"})
    made = _drive(tmp_path, "Change the api service to run three replicas.", rule="value-wanted")
    assert made[-1] == (
        "edit_file",
        {"path": "deploy.yaml", "old_text": "    replicas: 2", "new_text": "    replicas: 3"},
    )
    # no key said: the two services' lines tie, and the model goes on
    write(tmp_path, {"deploy.yaml": deploy})
    made = _drive(tmp_path, "Change the service to run three replicas.", rule="value-wanted")
    assert not any(name == "edit_file" for name, _ in made)
    assert (tmp_path / "deploy.yaml").read_text() == deploy


@pytest.mark.parametrize(
    ("prompt", "keyed"),
    [
        ("Set LOG_LEVEL of the worker service in deploy.yaml to info.", ("LOG_LEVEL", "info")),
        ("Change `theme` to 'dark'.", ("theme", "dark")),
        ("Change log_level to debug in settings.toml.", ("log_level", "debug")),
        # a switch's word or a number (other rules'), no word ending the clause, a
        # question, two keys, the word before the key
        ("Set DEBUG_MODE to true.", None),
        ("Set log_level to 3.", None),
        ("Set log_level to match the api.", None),
        ("Why is LOG_LEVEL set to info?", None),
        ("Set log_level and LOG_FORMAT to json.", None),
        ("Change to debug the log_level.", None),
    ],
)
def test_a_word_wanted_for_a_setting_named_as_code_is_read_from_the_request(
    prompt: str, keyed: tuple[str, str] | None
) -> None:
    said = keyed_value(prompt)
    assert (said and (said.key, said.value)) == keyed


def test_a_word_wanted_replaces_the_word_the_named_setting_holds(tmp_path: Path) -> None:
    deploy = (
        "services:\n"
        "  api:\n    environment:\n      LOG_LEVEL: info\n"
        "  worker:\n    environment:\n      LOG_LEVEL: warning\n"
    )
    app = 'import os\n\nLOG_LEVEL = os.environ.get("LOG_LEVEL", "warning")\n'
    write(tmp_path, {"deploy.yaml": deploy, "app.py": app})
    prompt = "Set LOG_LEVEL of the worker service in deploy.yaml to info."
    made = _drive(tmp_path, prompt, rule="value-wanted")
    assert made[-1] == (
        "edit_file",
        {
            "path": "deploy.yaml",
            "old_text": "      LOG_LEVEL: warning",
            "new_text": "      LOG_LEVEL: info",
        },
    )
    # a quoted word keeps its quotes; a call is no word the setting holds
    write(tmp_path, {"settings.toml": 'log_level = "warn"  # how much to log\n'})
    _drive(tmp_path, "Change log_level to debug in settings.toml.", rule="value-wanted")
    assert (tmp_path / "settings.toml").read_text() == 'log_level = "debug"  # how much to log\n'
    made = _drive(tmp_path, "Change LOG_LEVEL to debug in app.py.", rule="value-wanted")
    assert not any(name == "edit_file" for name, _ in made)
    assert (tmp_path / "app.py").read_text() == app


@pytest.mark.parametrize(
    ("prompt", "swap"),
    [
        ("Give the redis cache 512mb of memory instead of 256mb.", ("512mb", "256mb")),
        ("Raise the worker's memory limit from 256Mi to 1Gi.", ("256Mi", "1Gi")),
        # an ordinal, a time of day, one value, the same twice, a question
        ("Move the 2nd backup to 3am.", None),
        ("Give redis 512mb.", None),
        ("Give redis 512mb, not 512MB.", None),
        ("Why does redis get 512mb and not 256mb?", None),
    ],
)
def test_a_value_written_with_its_unit_in_one_word_is_read_either_way(
    prompt: str, swap: tuple[str, str] | None
) -> None:
    said = swap_change(prompt)
    assert (said and (said.old, said.new)) == swap


def test_a_value_written_with_its_unit_is_replaced_as_the_line_writes_it(tmp_path: Path) -> None:
    deploy = (
        "services:\n  redis:\n"
        '    command: ["redis-server", "--maxmemory", "256MB"]\n'
        "  web:\n    mem_limit: 512mb\n"
    )
    write(tmp_path, {"deploy.yaml": deploy, "README.md": "Redis gets 256MB.\n"})
    _drive(tmp_path, "Give the redis cache 512mb of memory instead of 256mb.")
    assert (tmp_path / "deploy.yaml").read_text() == deploy.replace("256MB", "512MB")
    assert (tmp_path / "README.md").read_text() == "Redis gets 256MB.\n"


def test_a_port_is_changed_in_a_web_address_as_in_a_setting(tmp_path: Path) -> None:
    settings = "[server]\nport = 9412\nstarted = 14:00\n"
    config = (
        '{\n  "stock": {\n    "url": "http://127.0.0.1:9412/stock",\n    "retries": 3\n  }\n}\n'
    )
    write(tmp_path, {"settings.toml": settings, "config.json": config})
    prompt = (
        "The server moves to port 9500 from 9412: change settings.toml and the stock url "
        "in config.json."
    )
    _drive(tmp_path, prompt)
    assert (tmp_path / "settings.toml").read_text() == settings.replace("9412", "9500")
    assert (tmp_path / "config.json").read_text() == config.replace("9412", "9500")
    # a time of day is no port
    change = value_change("Move the stock service from port 14 to 15.")
    assert change is not None
    assert change.set_in('when = "http://x.example/14:00"') is None
