"""A seventh batch of the fresh set (``BENCH_SET=seventh``): 24 tasks on a third project
the rules never saw, a community greenhouse's watering controller
(:mod:`bench._local_greenhouse`), written after the sixth batch's rules and before any run
of them.

Twelve ask (how much the tank holds, how often the dashboard refreshes, how hot it gets
before a warning, how cold before the watering stops; which files call the water
reckoning, which function times the valve, which tools use a helper; the water a bed got,
the morning's total and the average air temperature, which the programs print; a feed's
pH and a crop that are nowhere) and twelve change (a tool that prints the last watering
and a test, written; a pump's longest run, an alert's repeat, a chart's span, a crop's
water, how many old logs are kept; a gauge found wrong from what the dashboard prints; a
misspelt name and an unquoted value pasted as the errors came; a dryness threshold kept
in two files; a method renamed with its callers and tests).
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
import tomllib
from pathlib import Path

import yaml

from bench._local_fresh_ask import READ, REFUSE, RUN, SEARCH, _absent, _found, _ran, _t
from bench._local_fresh_change import CREATE, ERROR, FIX, MULTI, _task
from bench._local_greenhouse import (
    ALERTS_YAML,
    BEDS_PY,
    GAUGE_JS,
    GREENHOUSE,
    GREENHOUSE_TOML,
    ROTATE_SH,
    SCHEDULE_PY,
    SENSORS_JSON,
    greenhouse_with,
)
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

SCHEDULE_FLOW_TYPO = SCHEDULE_PY.replace(
    "litres / FLOW_LITRES_PER_MINUTE", "litres / FLOW_LITERS_PER_MINUTE"
)
TOML_UNQUOTED = GREENHOUSE_TOML.replace('timezone = "Europe/Dublin"', "timezone = Europe/Dublin")
GAUGE_COLDEST = GAUGE_JS.replace(
    "best === null || sensor.reading > best.reading",
    "best === null || sensor.reading < best.reading",
)

_NAME_ERROR = """\
Traceback (most recent call last):
  File "/home/sam/fernhill/plan.py", line 53, in <module>
    main()
  File "/home/sam/fernhill/plan.py", line 48, in main
    for line in plan():
                ^^^^^^
  File "/home/sam/fernhill/plan.py", line 32, in plan
    minutes += valve_minutes(amount)
               ^^^^^^^^^^^^^^^^^^^^^
  File "/home/sam/fernhill/schedule.py", line 23, in valve_minutes
    return math.ceil(litres / FLOW_LITERS_PER_MINUTE)
                              ^^^^^^^^^^^^^^^^^^^^^^
NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined. Did you mean: 'FLOW_LITRES_PER_MINUTE'?"""

_TOML_ERROR = """\
Traceback (most recent call last):
  File "/home/sam/fernhill/plan.py", line 53, in <module>
    main()
  File "/home/sam/fernhill/plan.py", line 48, in main
    for line in plan():
                ^^^^^^
  File "/home/sam/fernhill/plan.py", line 18, in plan
    conf = settings()
           ^^^^^^^^^^
  File "/home/sam/fernhill/plan.py", line 14, in settings
    return tomllib.load(f)
           ^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/tomllib/_parser.py", line 66, in load
    return loads(s, parse_float=parse_float)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/tomllib/_parser.py", line 102, in loads
    pos = key_value_rule(src, pos, out, header, parse_float)
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/tomllib/_parser.py", line 326, in key_value_rule
    pos, key, value = parse_key_value_pair(src, pos, parse_float)
                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/tomllib/_parser.py", line 369, in parse_key_value_pair
    pos, value = parse_value(src, pos, parse_float)
                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/tomllib/_parser.py", line 649, in parse_value
    raise suffixed_err(src, pos, "Invalid value")
tomllib.TOMLDecodeError: Invalid value (at line 6, column 12)"""


_ask = functools.partial(_t, files=GREENHOUSE)


SEVENTH_ASK_TASKS: tuple[Task, ...] = (
    _ask(
        "ask-tank-size",
        READ,
        "How many litres does our water tank hold?",
        _found(r"(?<![\d.])800(?!\d|\.\d)", files=GREENHOUSE),
        "800 litres (tank_litres in greenhouse.toml).",
        "search_text",
    ),
    _ask(
        "ask-dashboard-refresh",
        READ,
        "how often does the dashboard refresh",
        _found(r"(?<![\d.])45(?!\d|\.\d)", files=GREENHOUSE),
        "Every 45 seconds (refresh_seconds in dashboard/sensors.json).",
        "search_text",
    ),
    _ask(
        "ask-heat-warning",
        READ,
        "At what temperature do the growers get warned that it's too hot in there?",
        _found(r"(?<![\d.])34(?!\d|\.\d)", files=GREENHOUSE),
        "Above 34 °C (the too-hot rule in alerts.yaml).",
        "read_file:alerts.yaml",
    ),
    _ask(
        "ask-frost-limit",
        READ,
        "If it's cold outside the controller skips the watering. Below what temperature "
        "does that kick in?",
        _found(r"(?<![\d.])2\.5(?!\d|\.\d)", files=GREENHOUSE),
        "At 2.5 °C or colder outside (FROST_LIMIT_C in schedule.py).",
        "search_text",
    ),
    _ask(
        "callers-litres-for",
        SEARCH,
        "Where is litres_for called from? I don't mean where it's defined.",
        _found(r"plan\.py", r"test_beds\.py", files=GREENHOUSE),
        "plan.py and test_beds.py.",
        "search_text",
    ),
    _ask(
        "def-valve-time",
        SEARCH,
        "Something works out how many minutes a valve stays open. What's the function "
        "called and which file is it in?",
        _found(r"valve_minutes", r"schedule\.py", files=GREENHOUSE),
        "valve_minutes, in schedule.py.",
        "search_text",
    ),
    _ask(
        "usage-require-csv",
        SEARCH,
        "Which of our shell tools rely on require_csv?",
        _found(r"water_used\.sh", r"rotate\.sh", files=GREENHOUSE),
        "tools/water_used.sh and tools/rotate.sh (it is defined in tools/lib.sh).",
        "search_text",
    ),
    _ask(
        "run-pepper-water",
        RUN,
        "How much water have the peppers had so far, going by the log? We have a tool that "
        "adds it up.",
        _ran("21.5", command="bash tools/water_used.sh", files=GREENHOUSE),
        "21.5 litres, in 5 minutes of watering.",
        "run_cmd:tools/water_used.sh",
    ),
    _ask(
        "run-water-today",
        RUN,
        "Run this morning's plan and tell me how much water goes out in total.",
        _ran("19.8", command="python3 plan.py", files=GREENHOUSE),
        "19.8 L today.",
        "run_cmd:plan.py",
    ),
    _ask(
        "run-average-air",
        RUN,
        "What's the average air temperature on the dashboard right now?",
        _ran("18.8", command="node dashboard/main.js", files=GREENHOUSE),
        "18.8 °C.",
        "run_cmd:dashboard/main.js",
    ),
    _ask(
        "missing-feed-ph",
        REFUSE,
        "What pH do we keep the feed water at?",
        _absent(files=GREENHOUSE),
        "No file sets a pH: the settings cover the watering window, the sensors, the pump "
        "and the log.",
        "search_text",
    ),
    _ask(
        "missing-cucumbers",
        REFUSE,
        "How many litres a square metre do the cucumbers get?",
        _absent(files=GREENHOUSE),
        "There are no cucumbers in the project: LITRES_PER_M2 in schedule.py has tomato, "
        "lettuce, pepper and herbs only.",
        "read_file:schedule.py",
    ),
)


def _last_watered(ws: Path) -> bool:
    """Whether tools/last_watered.sh prints the log's last date (not its whole row, nor
    earlier dates), and reads the log (a row added later is the one it prints)."""
    code, out = run(ws, "bash tools/last_watered.sh")
    if code != 0 or "2026-06-12" not in out or "2026-06-12," in out or "2026-06-11" in out:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "greenhouse"
        shutil.copytree(ws, copy)
        with (copy / "logs" / "watering.csv").open("a") as log:
            log.write("2026-06-14,lettuce,3.0,1\n")
        code, out = run(copy, "bash tools/last_watered.sh")
    return code == 0 and "2026-06-14" in out and "2026-06-12" not in out


def _lettuce_test(ws: Path) -> bool:
    """Whether test_schedule.py passes on schedule.py and fails on one that gives lettuce
    less water."""
    if not passes(ws, "python3 -m unittest -q test_schedule"):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        shutil.copy(ws / "test_schedule.py", copy)
        shutil.copy(ws / "beds.py", copy)
        (copy / "schedule.py").write_text(SCHEDULE_PY.replace('"lettuce": 3.0', '"lettuce": 2.5'))
        return not passes(copy, "python3 -m unittest -q test_schedule")


def _settings_but(ws: Path, table: str, key: str, value: object) -> bool:
    """Whether greenhouse.toml parses and is as it was but for *key* of *table*, which
    holds *value*."""
    want = tomllib.loads(GREENHOUSE_TOML)
    want[table][key] = value
    return toml_of(ws, "greenhouse.toml") == want


def _tank_alert_240(ws: Path) -> bool:
    want = yaml.safe_load(ALERTS_YAML)
    tank = next(rule for rule in want["rules"] if rule["name"] == "tank-low")
    tank["repeat_minutes"] = 240
    return yaml_of(ws, "alerts.yaml") == want


def _chart_48(ws: Path) -> bool:
    want = json.loads(SENSORS_JSON)
    want["chart"]["hours"] = 48
    return json_of(ws, "dashboard/sensors.json") == want


def _pepper_four(ws: Path) -> bool:
    """Whether schedule.py gives peppers 4 litres a square metre and is as it was but for
    that, and the plan still runs."""
    code, out = run(
        ws, 'python3 -c "import json, schedule; print(json.dumps(schedule.LITRES_PER_M2))"'
    )
    try:
        rates = json.loads(out) if code == 0 else None
    except ValueError:
        return False
    others = [line for line in text(ws, "schedule.py").splitlines() if "pepper" not in line]
    wanted = [line for line in SCHEDULE_PY.splitlines() if "pepper" not in line]
    return (
        rates == {"tomato": 4.0, "lettuce": 3.0, "pepper": 4.0, "herbs": 1.5}
        and others == wanted
        and "peppers: 8.0 L" in run(ws, "python3 plan.py")[1]
    )


def _keeps_twelve(ws: Path) -> bool:
    """Whether tools/rotate.sh, run with fourteen old logs in archive/, leaves twelve (with
    the one it archives), and is as it was but for the lines that say how many it keeps."""
    script = [line for line in text(ws, "tools/rotate.sh").splitlines() if "KEEP" not in line]
    if script != [line for line in ROTATE_SH.splitlines() if "KEEP" not in line]:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "greenhouse"
        shutil.copytree(ws, copy)
        archive = copy / "archive"
        archive.mkdir(exist_ok=True)
        for day in range(1, 15):
            (archive / f"watering-2026-01-{day:02d}.csv").write_text("date,bed,litres,minutes\n")
        if not passes(copy, "bash tools/rotate.sh"):
            return False
        return len(list(archive.glob("watering-*.csv"))) == 12


def _dashboard_right(ev: Events, ws: Path) -> bool:
    out = run(ws, "node dashboard/main.js")[1]
    return "warmest: Propagation bench 27.4 C" in out and "driest soil: Peppers 20%" in out


def _plan_back(ev: Events, ws: Path) -> bool:
    out = run(ws, "python3 plan.py")[1]
    return (
        "water today: 19.8 L" in out
        and "valve open: 5 min" in out
        and passes(ws, "python3 -m unittest -q")
    )


def _settings_back(ev: Events, ws: Path) -> bool:
    return (
        toml_of(ws, "greenhouse.toml") == tomllib.loads(GREENHOUSE_TOML)
        and "Fernhill greenhouse, watering 06:30-09:00" in run(ws, "python3 plan.py")[1]
    )


def _dry_below_40(ws: Path) -> bool:
    return (
        text(ws, "beds.py") == BEDS_PY.replace("DRY_BELOW = 35", "DRY_BELOW = 40")
        and _settings_but(ws, "sensors", "dry_below_percent", 40)
        and passes(ws, "python3 -m unittest -q")
    )


def _renamed(ws: Path) -> bool:
    code, out = run(ws, "python3 -m unittest")
    files = "".join(text(ws, name) for name in ("beds.py", "plan.py", "test_beds.py"))
    return (
        code == 0
        and "Ran 11 tests" in out
        and "def thirsty(" not in files
        and ".thirsty(" not in files
        and "def needs_water(" in text(ws, "beds.py")
        and "water today: 19.8 L" in run(ws, "python3 plan.py")[1]
    )


# a change task on the greenhouse project's files
_change = functools.partial(_task, files=GREENHOUSE)


_LAST_WATERED_SH = """\
#!/usr/bin/env bash
# The date of the last watering: bash tools/last_watered.sh [LOG]
set -euo pipefail

. "$(dirname "$0")/lib.sh"

LOG="${1:-logs/watering.csv}"
require_csv "$LOG"
tail -n 1 "$LOG" | cut -d, -f1
"""

_TEST_SCHEDULE_PY = """\
import unittest

from schedule import litres_for


class LitresTest(unittest.TestCase):
    def test_dry_lettuce(self) -> None:
        self.assertEqual(litres_for("lettuce", 2.0, 0), 6.0)


if __name__ == "__main__":
    unittest.main()
"""

SEVENTH_CHANGE_TASKS: tuple[Task, ...] = (
    _change(
        "create-last-watered",
        CREATE,
        "Add tools/last_watered.sh: it should print the date we last watered, taken from "
        "the watering log.",
        lambda ev, ws: _last_watered(ws),
        write_files("Added tools/last_watered.sh.", {"tools/last_watered.sh": _LAST_WATERED_SH}),
        ("tools/last_watered.sh",),
    ),
    _change(
        "create-schedule-test",
        CREATE,
        "Could you put a unittest for litres_for in a new test_schedule.py? Two square "
        "metres of lettuce on bone-dry soil should come out at 6 litres.",
        lambda ev, ws: _lettuce_test(ws),
        write_files("Wrote test_schedule.py.", {"test_schedule.py": _TEST_SCHEDULE_PY}),
        ("test_schedule.py",),
    ),
    _change(
        "toml-pump-half-hour",
        FIX,
        "Let the pump run for up to half an hour at a stretch.",
        lambda ev, ws: _settings_but(ws, "pump", "max_run_minutes", 30),
        edits("Done.", ("greenhouse.toml", "max_run_minutes = 25", "max_run_minutes = 30")),
        ("greenhouse.toml",),
    ),
    _change(
        "yaml-tank-alert-four-hours",
        FIX,
        "The low-tank warning nags us every two hours. Every four is plenty.",
        lambda ev, ws: _tank_alert_240(ws),
        edits(
            "Done.",
            (
                "alerts.yaml",
                "below: 15\n    repeat_minutes: 120",
                "below: 15\n    repeat_minutes: 240",
            ),
        ),
        ("alerts.yaml",),
    ),
    _change(
        "json-chart-two-days",
        FIX,
        "Can the dashboard's chart show the last two days instead of just one?",
        lambda ev, ws: _chart_48(ws),
        edits("Done.", ("dashboard/sensors.json", '"hours": 24', '"hours": 48')),
        ("dashboard/sensors.json",),
    ),
    _change(
        "py-pepper-four-litres",
        FIX,
        "peppers need more water - give them 4 litres per square metre",
        lambda ev, ws: _pepper_four(ws),
        edits("Done.", ("schedule.py", '"pepper": 3.5', '"pepper": 4.0')),
        ("schedule.py",),
    ),
    _change(
        "sh-keep-twelve-logs",
        FIX,
        "When the watering log is rotated, keep a dozen old logs in the archive rather than six.",
        lambda ev, ws: _keeps_twelve(ws),
        edits("Done.", ("tools/rotate.sh", 'KEEP="${KEEP:-6}"', 'KEEP="${KEEP:-12}"')),
        ("tools/rotate.sh",),
    ),
    _change(
        "fix-warmest-gauge",
        FIX,
        "The dashboard says the warmest spot is the cold frame at 9.2 degrees, which is "
        "nonsense: the propagation bench is far warmer. Please sort it out.",
        _dashboard_right,
        edits(
            "Fixed.",
            (
                "dashboard/gauge.js",
                "best === null || sensor.reading < best.reading) {\n      best = sensor;\n"
                "    }\n  }\n  return best;\n}\n\nfunction driestSoil",
                "best === null || sensor.reading > best.reading) {\n      best = sensor;\n"
                "    }\n  }\n  return best;\n}\n\nfunction driestSoil",
            ),
        ),
        ("dashboard/gauge.js",),
        files=greenhouse_with({"dashboard/gauge.js": GAUGE_COLDEST}),
    ),
    _change(
        "error-flow-name",
        ERROR,
        f"Got this from the plan script this morning:\n\n{_NAME_ERROR}\n\nfix please",
        _plan_back,
        edits("Fixed.", ("schedule.py", "FLOW_LITERS_PER_MINUTE)", "FLOW_LITRES_PER_MINUTE)")),
        ("schedule.py",),
        files=greenhouse_with({"schedule.py": SCHEDULE_FLOW_TYPO}),
    ),
    _change(
        "error-timezone-quotes",
        ERROR,
        "I changed a couple of settings and now python3 plan.py dies with this:\n\n"
        f"{_TOML_ERROR}\n\nWhat did I break? Put it right, please.",
        _settings_back,
        edits(
            "Fixed.", ("greenhouse.toml", "timezone = Europe/Dublin", 'timezone = "Europe/Dublin"')
        ),
        ("greenhouse.toml",),
        files=greenhouse_with({"greenhouse.toml": TOML_UNQUOTED}),
    ),
    _change(
        "dry-below-forty",
        MULTI,
        "A bed should count as dry below 40% moisture, not 35%. The number is in the code "
        "and in the controller's settings; keep the two in step.",
        lambda ev, ws: _dry_below_40(ws),
        edits(
            "Done.",
            ("beds.py", "DRY_BELOW = 35", "DRY_BELOW = 40"),
            ("greenhouse.toml", "dry_below_percent = 35", "dry_below_percent = 40"),
        ),
        ("beds.py", "greenhouse.toml"),
    ),
    _change(
        "rename-thirsty",
        MULTI,
        "Rename House.thirsty to needs_water, and update everything that calls it, the "
        "tests included.",
        lambda ev, ws: _renamed(ws),
        edits(
            "Renamed.",
            ("beds.py", "def thirsty(", "def needs_water("),
            ("plan.py", "house.thirsty(", "house.needs_water("),
            ("test_beds.py", "sample_house().thirsty(", "sample_house().needs_water("),
            ("test_beds.py", "sample_house().thirsty(", "sample_house().needs_water("),
        ),
        ("beds.py", "plan.py", "test_beds.py"),
        max_turns=12,
    ),
)

SEVENTH: tuple[Task, ...] = (*SEVENTH_ASK_TASKS, *SEVENTH_CHANGE_TASKS)

__all__ = ["GAUGE_COLDEST", "SCHEDULE_FLOW_TYPO", "SEVENTH", "TOML_UNQUOTED"]
