"""A third project for the fresh task set (issue 37): the watering controller of a
community greenhouse, written after the bike station (:mod:`bench._local_bikes`), so that
a batch of tasks on it (:mod:`bench._local_fresh_seventh`) meets files, names and words
the rules never saw. Python (the beds, the water they need, the morning's plan and its
tests), JavaScript (the dashboard's gauges), TOML, JSON and YAML settings, shell tools
sharing a helper, and a CSV watering log.
"""

from __future__ import annotations

README_MD = """\
# Fernhill greenhouse

The watering controller of the Fernhill community greenhouse: the beds and their soil
readings, how much water each one needs and the morning's plan (Python), the dashboard's
gauges (JavaScript), and the tools that look after the watering log.

- `python3 plan.py` prints this morning's watering plan.
- `python3 -m unittest` runs the tests.
- `node dashboard/main.js` prints the dashboard's summary of the last sensor readings.
- `bash tools/water_used.sh` adds up the water each bed got, from `logs/watering.csv`.
- `bash tools/rotate.sh` starts a new watering log and keeps the old one in `archive/`.

Settings: `greenhouse.toml` (the controller and the pump), `dashboard/sensors.json` (the
dashboard), `alerts.yaml` (what the growers are warned about).
"""

BEDS_PY = '''\
"""The beds of the greenhouse, what grows in them and how wet their soil is."""

from __future__ import annotations

from dataclasses import dataclass, field

DRY_BELOW = 35  # soil moisture, percent
CROPS = ("tomato", "lettuce", "pepper", "herbs")


@dataclass
class Bed:
    name: str
    crop: str
    area_m2: float
    moisture: int = 50  # percent: the last reading of the bed's probe
    paused: bool = False  # left out of the watering (watered by hand, a leak)


@dataclass
class House:
    beds: dict[str, Bed] = field(default_factory=dict)

    def plant(self, name: str, crop: str, area_m2: float) -> Bed:
        if crop not in CROPS:
            raise ValueError(f"unknown crop {crop!r}")
        if name in self.beds:
            raise ValueError(f"bed {name} is already planted")
        self.beds[name] = Bed(name, crop, area_m2)
        return self.beds[name]

    def record(self, name: str, moisture: int) -> Bed:
        """Store a probe reading of bed *name*."""
        if not 0 <= moisture <= 100:
            raise ValueError(f"moisture {moisture} is not a percentage")
        bed = self.beds[name]
        bed.moisture = moisture
        return bed

    def pause(self, name: str) -> Bed:
        self.beds[name].paused = True
        return self.beds[name]

    def thirsty(self, below: int = DRY_BELOW) -> list[str]:
        """The names of the beds drier than *below* percent; paused beds are left out."""
        return sorted(n for n, b in self.beds.items() if b.moisture < below and not b.paused)

    def driest(self) -> Bed | None:
        """The bed with the lowest reading of those not paused, None when there is none."""
        watered = [b for b in self.beds.values() if not b.paused]
        return min(watered, key=lambda b: b.moisture, default=None)


def sample_house() -> House:
    house = House()
    for name, crop, area, moisture in (
        ("tomatoes-east", "tomato", 6.0, 28),
        ("tomatoes-west", "tomato", 6.0, 41),
        ("lettuce", "lettuce", 4.0, 52),
        ("peppers", "pepper", 3.0, 20),
        ("herb-trays", "herbs", 1.5, 12),
    ):
        house.plant(name, crop, area)
        house.record(name, moisture)
    house.pause("herb-trays")
    return house
'''

SCHEDULE_PY = '''\
"""How much water a bed gets, and how long the valve stays open for it."""

from __future__ import annotations

import math

LITRES_PER_M2 = {"tomato": 4.0, "lettuce": 3.0, "pepper": 3.5, "herbs": 1.5}
WET_ENOUGH = 60  # percent: a bed this wet gets nothing
FLOW_LITRES_PER_MINUTE = 6.0
FROST_LIMIT_C = 2.5
UNIT = "L"


def litres_for(crop: str, area_m2: float, moisture: int) -> float:
    """The water a bed of *crop* needs today: the full amount on bone-dry soil, less the
    wetter it is, none from WET_ENOUGH up."""
    share = max(0, WET_ENOUGH - moisture) / WET_ENOUGH
    return round(LITRES_PER_M2[crop] * area_m2 * share, 1)


def valve_minutes(litres: float) -> int:
    """How long the valve stays open to let *litres* through, in whole minutes."""
    return math.ceil(litres / FLOW_LITRES_PER_MINUTE)


def may_water(outside_c: float) -> bool:
    """Whether the watering may go ahead: not when the pipes outside could freeze."""
    return outside_c > FROST_LIMIT_C
'''

PLAN_PY = '''\
"""Print this morning's watering plan: python3 plan.py"""

import tomllib
from pathlib import Path

from beds import sample_house
from schedule import UNIT, litres_for, may_water, valve_minutes

OUTSIDE_C = 7.5  # this morning's reading of the thermometer outside


def settings() -> dict:
    with open(Path(__file__).with_name("greenhouse.toml"), "rb") as f:
        return tomllib.load(f)


def plan() -> list[str]:
    conf = settings()
    place = conf["greenhouse"]
    window = f"{place['water_from']}-{place['water_until']}"
    lines = [f"{place['name']} greenhouse, watering {window}"]
    if not may_water(OUTSIDE_C):
        return [*lines, f"no watering today: {OUTSIDE_C} C outside"]
    house = sample_house()
    thirsty = house.thirsty(conf["sensors"]["dry_below_percent"])
    lines += [f"beds: {len(house.beds)}", f"thirsty: {', '.join(thirsty) or 'none'}"]
    litres, minutes = 0.0, 0
    for name in thirsty:
        bed = house.beds[name]
        amount = litres_for(bed.crop, bed.area_m2, bed.moisture)
        litres += amount
        minutes += valve_minutes(amount)
        lines.append(f"  {name}: {amount:.1f} {UNIT}")
    paused = [n for n, b in sorted(house.beds.items()) if b.paused]
    driest = house.driest()
    pump, tank = conf["pump"]["max_run_minutes"], conf["pump"]["tank_litres"]
    return [
        *lines,
        f"paused: {', '.join(paused) or 'none'}",
        f"water today: {litres:.1f} {UNIT}",
        f"valve open: {minutes} min (at most {pump} at a time)",
        f"tank after: {tank - litres:.1f} of {tank} {UNIT}",
        f"driest: {driest.name} ({driest.moisture}%)" if driest else "driest: none",
    ]


def main() -> None:
    for line in plan():
        print(line)


if __name__ == "__main__":
    main()
'''

TEST_BEDS_PY = """\
import unittest

from beds import House, sample_house
from schedule import litres_for, may_water, valve_minutes


class BedsTest(unittest.TestCase):
    def test_thirsty(self) -> None:
        self.assertEqual(sample_house().thirsty(), ["peppers", "tomatoes-east"])

    def test_thirsty_below(self) -> None:
        self.assertEqual(sample_house().thirsty(42), ["peppers", "tomatoes-east", "tomatoes-west"])

    def test_plant_twice(self) -> None:
        with self.assertRaises(ValueError):
            sample_house().plant("lettuce", "lettuce", 2.0)

    def test_unknown_crop(self) -> None:
        with self.assertRaises(ValueError):
            House().plant("melons", "melon", 2.0)

    def test_reading_out_of_range(self) -> None:
        with self.assertRaises(ValueError):
            sample_house().record("peppers", 120)

    def test_driest_leaves_paused_out(self) -> None:
        self.assertEqual(sample_house().driest().name, "peppers")

    def test_empty_house(self) -> None:
        self.assertIsNone(House().driest())


class ScheduleTest(unittest.TestCase):
    def test_wet_bed_gets_nothing(self) -> None:
        self.assertEqual(litres_for("tomato", 6.0, 60), 0)

    def test_half_dry(self) -> None:
        self.assertEqual(litres_for("lettuce", 4.0, 30), 6.0)

    def test_valve_minutes_round_up(self) -> None:
        self.assertEqual(valve_minutes(12.8), 3)

    def test_frost(self) -> None:
        self.assertFalse(may_water(2.5))
        self.assertTrue(may_water(3.0))


if __name__ == "__main__":
    unittest.main()
"""

GREENHOUSE_TOML = """\
# Settings of the watering controller. Read by plan.py each morning.

[greenhouse]
name = "Fernhill"
site = "Plot 14, Fernhill Lane allotments"
timezone = "Europe/Dublin"
water_from = "06:30"
water_until = "09:00"

[sensors]
read_every_minutes = 20
dry_below_percent = 35
probe_depth_cm = 10

[pump]
flow_litres_per_minute = 6.0
max_run_minutes = 25
tank_litres = 800
refill_from = "rain butts"

[log]
file = "logs/watering.csv"
keep_days = 90
"""

ALERTS_YAML = """\
# What the alert service warns the growers about, and how.
notify:
  email: growers@fernhill.example
  chat_channel: "#greenhouse"
  quiet_hours: ["22:00", "06:00"]

rules:
  - name: too-hot
    sensor: air_temperature
    above: 34
    repeat_minutes: 30
  - name: too-cold
    sensor: air_temperature
    below: 4
    repeat_minutes: 30
  - name: tank-low
    sensor: tank_level_percent
    below: 15
    repeat_minutes: 120
  - name: soil-dry
    sensor: soil_moisture
    below: 20
    repeat_minutes: 60
    paused_beds: skip
"""

SENSORS_JSON = """\
{
  "greenhouse": "Fernhill",
  "refresh_seconds": 45,
  "units": { "temperature": "C", "moisture": "%" },
  "sensors": [
    { "id": "air-1", "place": "Propagation bench", "kind": "air", "reading": 27.4 },
    { "id": "air-2", "place": "Tomato row", "kind": "air", "reading": 23.6 },
    { "id": "air-3", "place": "Cold frame", "kind": "air", "reading": 9.2 },
    { "id": "air-4", "place": "Potting shed", "kind": "air", "reading": 15.1 },
    { "id": "soil-1", "place": "Peppers", "kind": "soil", "reading": 20 },
    { "id": "soil-2", "place": "Lettuce", "kind": "soil", "reading": 52 }
  ],
  "chart": { "hours": 24, "colour": "#2e7d32", "smooth": true }
}
"""

GAUGE_JS = """\
'use strict';

// The figures of the dashboard's gauges, from the sensors' last readings.

function ofKind(sensors, kind) {
  return sensors.filter((s) => s.kind === kind);
}

function warmest(sensors) {
  let best = null;
  for (const sensor of ofKind(sensors, 'air')) {
    if (best === null || sensor.reading > best.reading) {
      best = sensor;
    }
  }
  return best;
}

function driestSoil(sensors) {
  let best = null;
  for (const sensor of ofKind(sensors, 'soil')) {
    if (best === null || sensor.reading < best.reading) {
      best = sensor;
    }
  }
  return best;
}

function average(values) {
  if (values.length === 0) {
    return null;
  }
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function toFahrenheit(celsius) {
  return (celsius * 9) / 5 + 32;
}

module.exports = { ofKind, warmest, driestSoil, average, toFahrenheit };
"""

MAIN_JS = """\
'use strict';

// Print the dashboard's summary of the last readings: node dashboard/main.js

const fs = require('fs');
const path = require('path');
const { ofKind, warmest, driestSoil, average, toFahrenheit } = require('./gauge');

const config = JSON.parse(fs.readFileSync(path.join(__dirname, 'sensors.json'), 'utf8'));

function main() {
  const air = ofKind(config.sensors, 'air').map((s) => s.reading);
  const hot = warmest(config.sensors);
  const dry = driestSoil(config.sensors);
  console.log(`${config.greenhouse}: ${config.sensors.length} sensors`);
  const fahrenheit = toFahrenheit(hot.reading).toFixed(1);
  console.log(`warmest: ${hot.place} ${hot.reading.toFixed(1)} C (${fahrenheit} F)`);
  console.log(`average air: ${average(air).toFixed(1)} C`);
  console.log(`driest soil: ${dry.place} ${dry.reading}%`);
}

main();
"""

LIB_SH = """\
#!/usr/bin/env bash
# Helpers shared by the greenhouse tools: source it, do not run it.

LOG_HEADER="date,bed,litres,minutes"

note() {
  echo "greenhouse: $*" >&2
}

require_csv() {
  local file="$1"
  if [ ! -f "$file" ]; then
    note "no log at $file"
    exit 1
  fi
  if [ "$(head -n 1 "$file")" != "$LOG_HEADER" ]; then
    note "$file does not start with $LOG_HEADER"
    exit 1
  fi
}
"""

WATER_USED_SH = """\
#!/usr/bin/env bash
# How much water each bed got, from the watering log: bash tools/water_used.sh [LOG]
set -euo pipefail

. "$(dirname "$0")/lib.sh"

LOG="${1:-logs/watering.csv}"
require_csv "$LOG"

awk -F, '
  NR == 1 { next }
  { litres[$2] += $3; minutes[$2] += $4; total += $3; days[$1] = 1 }
  END {
    for (bed in litres) printf "%s: %.1f L in %d min\\n", bed, litres[bed], minutes[bed] | "sort"
    close("sort")
    n = 0
    for (day in days) n++
    printf "total: %.1f L over %d days\\n", total, n
  }
' "$LOG"
"""

ROTATE_SH = """\
#!/usr/bin/env bash
# Start a new watering log and keep the old one in archive/: bash tools/rotate.sh
set -euo pipefail

. "$(dirname "$0")/lib.sh"

LOG="logs/watering.csv"
ARCHIVE_DIR="${ARCHIVE_DIR:-archive}"
KEEP="${KEEP:-6}" # the newest archived logs kept

require_csv "$LOG"
mkdir -p "$ARCHIVE_DIR"
STAMP="$(date +%Y-%m-%d)"
mv "$LOG" "$ARCHIVE_DIR/watering-$STAMP.csv"
echo "$LOG_HEADER" >"$LOG"

ls -1 "$ARCHIVE_DIR"/watering-*.csv | head -n -"$KEEP" | while read -r old; do
  rm -- "$old"
  note "removed $old"
done
note "archived to $ARCHIVE_DIR/watering-$STAMP.csv"
"""

WATERING_CSV = """\
date,bed,litres,minutes
2026-06-08,tomatoes-east,12.5,3
2026-06-08,peppers,7.0,2
2026-06-09,tomatoes-east,11.0,2
2026-06-09,tomatoes-west,6.5,2
2026-06-09,lettuce,4.0,1
2026-06-10,peppers,8.5,2
2026-06-10,tomatoes-east,13.0,3
2026-06-11,lettuce,5.5,1
2026-06-11,peppers,6.0,1
2026-06-12,tomatoes-east,12.0,2
2026-06-12,tomatoes-west,7.0,2
"""

GREENHOUSE: dict[str, str] = {
    "README.md": README_MD,
    "beds.py": BEDS_PY,
    "schedule.py": SCHEDULE_PY,
    "plan.py": PLAN_PY,
    "test_beds.py": TEST_BEDS_PY,
    "greenhouse.toml": GREENHOUSE_TOML,
    "alerts.yaml": ALERTS_YAML,
    "dashboard/sensors.json": SENSORS_JSON,
    "dashboard/gauge.js": GAUGE_JS,
    "dashboard/main.js": MAIN_JS,
    "tools/lib.sh": LIB_SH,
    "tools/water_used.sh": WATER_USED_SH,
    "tools/rotate.sh": ROTATE_SH,
    "logs/watering.csv": WATERING_CSV,
}
"""The greenhouse, file by file: every task of the seventh batch starts from it."""


def greenhouse_with(changes: dict[str, str]) -> dict[str, str]:
    """:data:`GREENHOUSE` with the files in *changes* replaced."""
    return {**GREENHOUSE, **changes}
