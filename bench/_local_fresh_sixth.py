"""A sixth batch of the fresh set (``BENCH_SET=sixth``): 24 tasks on a project the rules
never saw, a city bike-rental station (:mod:`bench._local_bikes`), written after the
thirteenth round's rules and before any run of them.

Twelve ask (how long a ride may last, when the station closes, how far the map looks, who
takes the cards; which files call the fee, which function measures a distance, which
tools use a helper; the minutes ridden, the day's takings and the nearest station, which
the programs print; a phone number and a tandem's price that are nowhere) and twelve
change (an editor's settings and a test, written; an opening hour, a deposit, a reminder's
period, a map's zoom, a price; a wrong key found from what the program prints; a misspelt
name and a stray comma pasted as the errors came; a service interval kept in two files;
a method renamed with its tests).
"""

from __future__ import annotations

import configparser
import functools
import json
import shutil
import tempfile
import tomllib
from pathlib import Path

import yaml

from bench._local_bikes import (
    BIKES,
    COMPOSE_YAML,
    FEES_PY,
    FLEET_PY,
    MAIN_JS,
    STATION_TOML,
    STATIONS_JSON,
    bikes_with,
)
from bench._local_fresh_ask import READ, REFUSE, RUN, SEARCH, _absent, _found, _ran, _t
from bench._local_fresh_change import CREATE, ERROR, FIX, MULTI, _task
from bench._local_task import (
    Events,
    Task,
    edits,
    json_of,
    passes,
    run,
    text,
    toml_of,
    write_files,
    yaml_of,
)

FLEET_NAME_TYPO = FLEET_PY.replace("b.km >= every)", "b.km >= evrey)")
STATIONS_COMMA = STATIONS_JSON.replace('"docks": 30 }', '"docks": 30 },')
MAIN_RADIUS = MAIN_JS.replace("config.search_radius_km", "config.search_radius")

_NAME_ERROR = """\
  File "/station/fleet.py", line 47, in <genexpr>
    return sorted(n for n, b in self.bikes.items() if b.km >= evrey)
                                                              ^^^^^
NameError: name 'evrey' is not defined"""

_JSON_ERROR = """\
<anonymous_script>:9
  ],
  ^

SyntaxError: Unexpected token ']', ...": 30 },
  ],
  "map""... is not valid JSON
    at JSON.parse (<anonymous>)
    at Object.<anonymous> (/station/web/main.js:9:21)"""


_ask = functools.partial(_t, files=BIKES)


SIXTH_ASK_TASKS: tuple[Task, ...] = (
    _ask(
        "ask-longest-ride",
        READ,
        "How long can someone keep a bike on a single ride?",
        _found(r"(?<![\d.])12(?!\d|\.\d)", files=BIKES),
        "12 hours (max_ride_hours in station.toml).",
        "search_text",
    ),
    _ask(
        "ask-closing-time",
        READ,
        "When does the station close in the evening?",
        _found(r"\b21[:.]00\b|\b9(:00)?\s*(pm|p\.m\.)", files=BIKES),
        "At 21:00 (closes in station.toml).",
        "read_file:station.toml",
    ),
    _ask(
        "ask-search-radius",
        READ,
        "How far from a rider does the map look for stations?",
        _found(r"(?<![\d.])2\.5(?!\d|\.\d)", files=BIKES),
        "2.5 km (search_radius_km in web/stations.json).",
        "search_text",
    ),
    _ask(
        "ask-card-provider",
        READ,
        "Which company handles card payments at the counter?",
        _found(r"payfast", files=BIKES),
        "payfast (card_provider in station.toml).",
        "search_text",
    ),
    _ask(
        "callers-ride-fee",
        SEARCH,
        "Apart from fees.py, which files call ride_fee?",
        _found(r"daily\.py", r"test_fleet\.py", files=BIKES),
        "daily.py and test_fleet.py.",
        "search_text",
    ),
    _ask(
        "def-distance",
        SEARCH,
        "Which function works out how far a rider is from a station, and where is it?",
        _found(r"distanceKm", r"map\.js", files=BIKES),
        "distanceKm, in web/map.js.",
        "search_text",
    ),
    _ask(
        "usage-need-file",
        SEARCH,
        "Which of our tools use the need_file helper?",
        _found(r"rides\.sh", r"archive\.sh", files=BIKES),
        "tools/rides.sh and tools/archive.sh.",
        "search_text",
    ),
    _ask(
        "run-city-minutes",
        RUN,
        "How many minutes have been ridden on city bikes? tools/rides.sh adds them up.",
        _ran("192", command="bash tools/rides.sh", files=BIKES),
        "192 minutes.",
        "run_cmd:tools/rides.sh",
    ),
    _ask(
        "run-income-today",
        RUN,
        "How much did the station take today? The daily sheet has it.",
        _ran("20.00", command="python3 daily.py", files=BIKES),
        "20.00 GBP.",
        "run_cmd:daily.py",
    ),
    _ask(
        "run-nearest-station",
        RUN,
        "Which station is nearest the sample rider? The map script prints it.",
        _ran("Temple Quay", command="node web/main.js", files=BIKES),
        "Temple Quay, 0.5 km away.",
        "run_cmd:web/main.js",
    ),
    _ask(
        "missing-phone-number",
        REFUSE,
        "What is the station's phone number?",
        _absent(files=BIKES),
        "No file gives a phone number: the settings have an ops e-mail and an SMS sender.",
        "search_text",
    ),
    _ask(
        "missing-tandem-price",
        REFUSE,
        "How much does an hour on a tandem cost?",
        _absent(files=BIKES),
        "There is no tandem price: fees.py lists city, cargo and electric bikes only.",
        "read_file:fees.py",
    ),
)


def _editorconfig(ws: Path) -> bool:
    """Whether .editorconfig gives Python files an indent of 4 and JavaScript files 2."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        # an editorconfig may start with keys before any section (root = true)
        parser.read_string("[top]\n" + text(ws, ".editorconfig"))
    except configparser.Error:
        return False
    sizes: dict[str, set[str]] = {"py": set(), "js": set()}
    for section in parser.sections():
        size = parser[section].get("indent_size", "").strip()
        for lang, found in sizes.items():
            if lang in section:
                found.add(size)
    return sizes == {"py": {"4"}, "js": {"2"}}


def _day_pass_test(ws: Path) -> bool:
    """Whether test_fees.py passes on fees.py and fails on one whose day pass is wrong."""
    if not passes(ws, "python3 -m unittest -q test_fees"):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        shutil.copy(ws / "test_fees.py", copy)
        shutil.copy(ws / "fleet.py", copy)
        (copy / "fees.py").write_text(FEES_PY.replace("HOURLY[kind] * 6", "HOURLY[kind] * 5"))
        return not passes(copy, "python3 -m unittest -q test_fees")


def _station_but(ws: Path, table: str, key: str, *values: object) -> bool:
    """Whether station.toml parses and is as it was but for *key* of *table*, which holds
    one of *values*."""
    got = toml_of(ws, "station.toml")
    for value in values:
        want = tomllib.loads(STATION_TOML)
        want[table][key] = value
        if got == want:
            return True
    return False


def _reminders_30m(ws: Path) -> bool:
    want = yaml.safe_load(COMPOSE_YAML)
    want["services"]["reminders"]["command"][-1] = "30m"
    return yaml_of(ws, "compose.yaml") == want


def _zoom_15(ws: Path) -> bool:
    want = json.loads(STATIONS_JSON)
    want["map"]["zoom"] = 15
    return json_of(ws, "web/stations.json") == want


def _cargo_six(ws: Path) -> bool:
    """Whether fees.py prices cargo bikes at 6 an hour and is as it was but for that."""
    code, out = run(ws, 'python3 -c "import json, fees; print(json.dumps(fees.HOURLY))"')
    try:
        hourly = json.loads(out) if code == 0 else None
    except ValueError:
        return False
    others = [line for line in text(ws, "fees.py").splitlines() if "cargo" not in line]
    wanted = [line for line in FEES_PY.splitlines() if "cargo" not in line]
    return hourly == {"city": 3.0, "cargo": 6.0, "electric": 6.0} and others == wanted


def _nearest_found(ev: Events, ws: Path) -> bool:
    return "nearest: Temple Quay (0.5 km" in run(ws, "node web/main.js")[1]


def _sheet_back(ev: Events, ws: Path) -> bool:
    return "due for service: 2" in run(ws, "python3 daily.py")[1] and passes(
        ws, "python3 -m unittest -q"
    )


def _stations_back(ev: Events, ws: Path) -> bool:
    return json_of(ws, "web/stations.json") == json.loads(STATIONS_JSON) and _nearest_found(ev, ws)


def _service_500(ws: Path) -> bool:
    fleet = FLEET_PY.replace("SERVICE_EVERY_KM = 400", "SERVICE_EVERY_KM = 500")
    return text(ws, "fleet.py") == fleet and _station_but(ws, "fleet", "service_every_km", 500)


def _renamed(ws: Path) -> bool:
    code, out = run(ws, "python3 -m unittest")
    files = text(ws, "fleet.py") + text(ws, "test_fleet.py")
    return (
        code == 0
        and "Ran 8 tests" in out
        and "def give_back(" not in files
        and ".give_back(" not in files
        and "def return_bike(" in text(ws, "fleet.py")
    )


# a change task on the bikes project's files
_change = functools.partial(_task, files=BIKES)


SIXTH_CHANGE_TASKS: tuple[Task, ...] = (
    _change(
        "create-editorconfig",
        CREATE,
        "Add an .editorconfig so editors indent Python with 4 spaces and JavaScript with 2.",
        lambda ev, ws: _editorconfig(ws),
        write_files(
            "Wrote .editorconfig.",
            {
                ".editorconfig": "root = true\n\n[*.py]\nindent_style = space\n"
                "indent_size = 4\n\n[*.js]\nindent_style = space\nindent_size = 2\n"
            },
        ),
        (".editorconfig",),
    ),
    _change(
        "create-day-pass-test",
        CREATE,
        "Write test_fees.py with a unittest test that an electric bike's day pass costs 36.",
        lambda ev, ws: _day_pass_test(ws),
        write_files(
            "Wrote test_fees.py.",
            {
                "test_fees.py": "import unittest\n\nfrom fees import day_pass\n\n\n"
                "class FeesTest(unittest.TestCase):\n    def test_day_pass(self) -> None:\n"
                "        self.assertEqual(day_pass('electric'), 36)\n"
            },
        ),
        ("test_fees.py",),
    ),
    _change(
        "toml-open-at-eight",
        FIX,
        "We open at 8 in the morning now, not 7.",
        lambda ev, ws: _station_but(ws, "station", "opens", "08:00", "8:00"),
        edits("Done.", ("station.toml", 'opens = "07:00"', 'opens = "08:00"')),
        ("station.toml",),
    ),
    _change(
        "toml-deposit-sixty",
        FIX,
        "Raise the deposit to 60 pounds.",
        lambda ev, ws: _station_but(ws, "payments", "deposit", 60),
        edits("Done.", ("station.toml", "deposit = 50", "deposit = 60")),
        ("station.toml",),
    ),
    _change(
        "yaml-reminders-half-hour",
        FIX,
        "The reminder service runs every 15 minutes; every 30 is enough.",
        lambda ev, ws: _reminders_30m(ws),
        edits("Done.", ("compose.yaml", '"--every", "15m"', '"--every", "30m"')),
        ("compose.yaml",),
    ),
    _change(
        "json-zoom-closer",
        FIX,
        "Start the station map one zoom level closer in.",
        lambda ev, ws: _zoom_15(ws),
        edits("Done.", ("web/stations.json", '"zoom": 14', '"zoom": 15')),
        ("web/stations.json",),
    ),
    _change(
        "py-cargo-six",
        FIX,
        "Cargo bikes should cost 6 an hour.",
        lambda ev, ws: _cargo_six(ws),
        edits("Done.", ("fees.py", '"cargo": 5.5', '"cargo": 6.0')),
        ("fees.py",),
    ),
    _change(
        "fix-radius-key",
        FIX,
        "node web/main.js says there is no station nearby, yet the sample rider is half a "
        "kilometre from Temple Quay. Find out why and fix it.",
        _nearest_found,
        edits("Fixed.", ("web/main.js", "config.search_radius", "config.search_radius_km")),
        ("web/main.js", "web/stations.json"),
        files=bikes_with({"web/main.js": MAIN_RADIUS}),
    ),
    _change(
        "error-fleet-name",
        ERROR,
        f"python3 daily.py crashes:\n\n{_NAME_ERROR}\n\nCan you fix it?",
        _sheet_back,
        edits("Fixed.", ("fleet.py", "b.km >= evrey)", "b.km >= every)")),
        ("fleet.py",),
        files=bikes_with({"fleet.py": FLEET_NAME_TYPO}),
    ),
    _change(
        "error-stations-json",
        ERROR,
        f"The map script won't start:\n\n{_JSON_ERROR}",
        _stations_back,
        edits("Fixed.", ("web/stations.json", '"docks": 30 },', '"docks": 30 }')),
        ("web/stations.json",),
        files=bikes_with({"web/stations.json": STATIONS_COMMA}),
    ),
    _change(
        "service-every-500",
        MULTI,
        "Bikes now go for a service every 500 km instead of 400: change it in fleet.py and "
        "in station.toml.",
        lambda ev, ws: _service_500(ws),
        edits(
            "Done.",
            ("fleet.py", "SERVICE_EVERY_KM = 400", "SERVICE_EVERY_KM = 500"),
            ("station.toml", "service_every_km = 400", "service_every_km = 500"),
        ),
        ("fleet.py", "station.toml"),
    ),
    _change(
        "rename-give-back",
        MULTI,
        "Rename the method give_back to return_bike, and keep the tests passing.",
        lambda ev, ws: _renamed(ws),
        edits(
            "Done.",
            ("fleet.py", "def give_back(", "def return_bike("),
            ("test_fleet.py", "fleet.give_back(1, 12.0)", "fleet.return_bike(1, 12.0)"),
        ),
        ("fleet.py", "test_fleet.py"),
    ),
)

SIXTH: tuple[Task, ...] = (*SIXTH_ASK_TASKS, *SIXTH_CHANGE_TASKS)

__all__ = ["MAIN_RADIUS", "SIXTH", "STATIONS_COMMA"]
