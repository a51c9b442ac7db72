"""A second project for the fresh task set (issue 37): a city bike-rental station, written
after thirteen rounds of rules made on the shop (:mod:`bench._local_shop`), so that a
batch of tasks on it (:mod:`bench._local_fresh_sixth`) meets files, names and words the
rules never saw. Python (the fleet, the fees, a daily sheet and its tests), JavaScript
(the station map), TOML, JSON and YAML settings, shell tools and a CSV ride log.
"""

from __future__ import annotations

README_MD = """\
# Riverside bikes

The rental counter of a city bike station: the fleet, the fees and the daily sheet
(Python), the station map of the web page (JavaScript), and the tools that look after the
ride log.

- `python3 daily.py` prints today's sheet.
- `python3 -m unittest` runs the tests.
- `node web/main.js` prints the station nearest the sample rider.
- `bash tools/rides.sh` counts the rides in `logs/rides.csv`.
- `bash tools/archive.sh` moves last month's rides to `archive/`.

Settings: `station.toml` (the counter), `web/stations.json` (the map), `compose.yaml`
(the servers).
"""

FLEET_PY = '''\
"""The bikes of the station and who has them."""

from __future__ import annotations

from dataclasses import dataclass, field

SERVICE_EVERY_KM = 400


@dataclass
class Bike:
    number: int
    kind: str  # "city", "cargo" or "electric"
    km: float = 0.0
    rider: str | None = None


@dataclass
class Fleet:
    bikes: dict[int, Bike] = field(default_factory=dict)

    def add(self, number: int, kind: str, km: float = 0.0) -> Bike:
        if number in self.bikes:
            raise ValueError(f"bike {number} is already in the fleet")
        self.bikes[number] = Bike(number, kind, km)
        return self.bikes[number]

    def rent(self, number: int, rider: str) -> Bike:
        bike = self.bikes[number]
        if bike.rider is not None:
            raise ValueError(f"bike {number} is out with {bike.rider}")
        bike.rider = rider
        return bike

    def give_back(self, number: int, km: float) -> Bike:
        bike = self.bikes[number]
        bike.rider = None
        bike.km += km
        return bike

    def out(self) -> list[int]:
        """The numbers of the bikes out on a ride."""
        return sorted(n for n, b in self.bikes.items() if b.rider is not None)

    def due_for_service(self, every: float = SERVICE_EVERY_KM) -> list[int]:
        """The numbers of the bikes that have ridden *every* km or more."""
        return sorted(n for n, b in self.bikes.items() if b.km >= every)


def sample_fleet() -> Fleet:
    fleet = Fleet()
    fleet.add(1, "city", 120.0)
    fleet.add(2, "city", 512.0)
    fleet.add(3, "cargo", 80.0)
    fleet.add(4, "electric", 390.0)
    fleet.rent(3, "mia")
    return fleet
'''

FEES_PY = '''\
"""What a ride costs."""

from __future__ import annotations

HOURLY = {"city": 3.0, "cargo": 5.5, "electric": 6.0}
FIRST_MINUTES_FREE = 15
LATE_FEE = 7.5
CURRENCY = "GBP"


def ride_fee(kind: str, minutes: int) -> float:
    """The fee of a ride of *minutes* on a bike of *kind*: the first minutes are free,
    then every hour begun is paid."""
    paid = max(0, minutes - FIRST_MINUTES_FREE)
    hours = -(-paid // 60)
    return round(HOURLY[kind] * hours, 2)


def late_fee(hours_late: int) -> float:
    """Charged when a bike comes back after closing: per hour late, at most three."""
    return LATE_FEE * min(hours_late, 3)


def day_pass(kind: str) -> float:
    """A whole day on one bike: six hours' worth."""
    return HOURLY[kind] * 6
'''

DAILY_PY = '''\
"""Print today's sheet: python3 daily.py"""

from fees import CURRENCY, day_pass, late_fee, ride_fee
from fleet import sample_fleet

RIDES = [("city", 40), ("cargo", 95), ("electric", 15), ("city", 130)]


def sheet() -> list[str]:
    fleet = sample_fleet()
    income = sum(ride_fee(kind, minutes) for kind, minutes in RIDES)
    due = fleet.due_for_service()
    return [
        f"bikes: {len(fleet.bikes)}",
        f"out now: {', '.join(str(n) for n in fleet.out()) or 'none'}",
        f"rides today: {len(RIDES)}",
        f"income: {income:.2f} {CURRENCY}",
        f"due for service: {', '.join(str(n) for n in due) or 'none'}",
        f"electric day pass: {day_pass('electric'):.2f} {CURRENCY}",
        f"two hours late: {late_fee(2):.2f} {CURRENCY}",
    ]


def main() -> None:
    for line in sheet():
        print(line)


if __name__ == "__main__":
    main()
'''

TEST_FLEET_PY = """\
import unittest

from fees import late_fee, ride_fee
from fleet import Fleet, sample_fleet


class FleetTest(unittest.TestCase):
    def test_rent_and_give_back(self) -> None:
        fleet = sample_fleet()
        fleet.rent(1, "noah")
        self.assertEqual(fleet.out(), [1, 3])
        fleet.give_back(1, 12.0)
        self.assertEqual(fleet.bikes[1].km, 132.0)

    def test_rent_twice(self) -> None:
        with self.assertRaises(ValueError):
            sample_fleet().rent(3, "noah")

    def test_add_twice(self) -> None:
        with self.assertRaises(ValueError):
            sample_fleet().add(1, "city")

    def test_due_for_service(self) -> None:
        self.assertEqual(sample_fleet().due_for_service(), [2])

    def test_free_quarter(self) -> None:
        self.assertEqual(ride_fee("city", 15), 0)

    def test_hour_begun(self) -> None:
        self.assertEqual(ride_fee("cargo", 76), 11.0)

    def test_late_fee_cap(self) -> None:
        self.assertEqual(late_fee(5), 22.5)

    def test_empty_fleet(self) -> None:
        self.assertEqual(Fleet().out(), [])


if __name__ == "__main__":
    unittest.main()
"""

STATION_TOML = """\
# Settings of the rental counter. Read when the counter starts.

[station]
name = "Riverside"
city = "Bristol"
opens = "07:00"
closes = "21:00"

[fleet]
size = 40
service_every_km = 400
max_ride_hours = 12

[payments]
currency = "GBP"
deposit = 50
card_provider = "payfast"

[notify]
ops_email = "ops@riversidebikes.example"
sms_sender = "RIVERSIDE"
remind_after_minutes = 180
"""

STATIONS_JSON = """\
{
  "city": "Bristol",
  "units": "km",
  "search_radius_km": 2.5,
  "stations": [
    { "id": "riverside", "name": "Riverside", "lat": 51.4495, "lon": -2.5981, "docks": 24 },
    { "id": "harbour", "name": "Harbour", "lat": 51.4486, "lon": -2.609, "docks": 16 },
    { "id": "temple", "name": "Temple Quay", "lat": 51.451, "lon": -2.584, "docks": 30 }
  ],
  "map": {
    "tiles": "https://tiles.riversidebikes.example/{z}/{x}/{y}.png",
    "zoom": 14
  }
}
"""

MAP_JS = """\
'use strict';

// Which station is nearest a rider: distances on the earth's surface.

const EARTH_RADIUS_KM = 6371;

function toRadians(degrees) {
  return (degrees * Math.PI) / 180;
}

function distanceKm(a, b) {
  const dLat = toRadians(b.lat - a.lat);
  const dLon = toRadians(b.lon - a.lon);
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(toRadians(a.lat)) * Math.cos(toRadians(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(h));
}

function nearest(stations, rider, radiusKm) {
  let best = null;
  for (const station of stations) {
    const km = distanceKm(station, rider);
    if (km <= radiusKm && (best === null || km < best.km)) {
      best = { station, km };
    }
  }
  return best;
}

function describe(found) {
  if (found === null) {
    return 'no station nearby';
  }
  return `${found.station.name} (${found.km.toFixed(1)} km, ${found.station.docks} docks)`;
}

module.exports = { distanceKm, nearest, describe };
"""

MAIN_JS = """\
'use strict';

// Print the station nearest the sample rider: node web/main.js

const fs = require('fs');
const path = require('path');
const { nearest, describe } = require('./map');

const config = JSON.parse(fs.readFileSync(path.join(__dirname, 'stations.json'), 'utf8'));
const rider = { lat: 51.4545, lon: -2.5879 };

function main() {
  const found = nearest(config.stations, rider, config.search_radius_km);
  console.log(`rider at ${rider.lat}, ${rider.lon}`);
  console.log(`nearest: ${describe(found)}`);
}

main();
"""

COMPOSE_YAML = """\
# The station's servers (docker compose).
services:
  counter:
    image: registry.riversidebikes.example/counter:1.8.2
    ports:
      - "8000:8000"
    environment:
      STATION: riverside
      DATABASE_URL: postgresql://bikes@postgres/bikes
    depends_on:
      - postgres

  web:
    image: nginx:1.27
    ports:
      - "80:80"
    volumes:
      - ./web:/usr/share/nginx/html:ro

  reminders:
    image: registry.riversidebikes.example/reminders:0.9.1
    command: ["python", "-m", "reminders", "--every", "15m"]
    restart: unless-stopped

  postgres:
    image: postgres:15.6
    environment:
      POSTGRES_USER: bikes
      POSTGRES_DB: bikes
    volumes:
      - pgdata:/var/lib/postgresql/data

volumes:
  pgdata: {}
"""

COMMON_SH = """\
#!/usr/bin/env bash
# Shared by the station's tools.

say() {
  echo "[bikes] $*"
}

need_file() {
  [ -f "$1" ] || { say "missing $1" >&2; exit 1; }
}
"""

RIDES_SH = """\
#!/usr/bin/env bash
# Count the rides in logs/rides.csv, and the minutes ridden on each kind of bike.
set -euo pipefail

. "$(dirname "$0")/common.sh"

LOG="${1:-logs/rides.csv}"
need_file "$LOG"

awk -F, '
  NR == 1 { next }
  { rides += 1; minutes[$3] += $4 }
  END {
    printf "rides: %d\\n", rides
    for (kind in minutes) printf "%s minutes: %d\\n", kind, minutes[kind]
  }
' "$LOG" | sort
"""

ARCHIVE_SH = """\
#!/usr/bin/env bash
# Move last month's ride log into archive/ and start a new one.
set -euo pipefail

. "$(dirname "$0")/common.sh"

ARCHIVE_DIR="${ARCHIVE_DIR:-archive}"
MONTH="$(date -d 'last month' +%Y-%m)"
LOG="logs/rides.csv"

need_file "$LOG"
mkdir -p "$ARCHIVE_DIR"
mv "$LOG" "$ARCHIVE_DIR/rides-$MONTH.csv"
echo "date,bike,kind,minutes" > "$LOG"
say "archived $MONTH"
"""

RIDES_CSV = """\
date,bike,kind,minutes
2026-11-02,1,city,40
2026-11-02,3,cargo,95
2026-11-03,4,electric,15
2026-11-03,2,city,130
2026-11-04,1,city,22
2026-11-05,3,cargo,60
"""

BIKES: dict[str, str] = {
    "README.md": README_MD,
    "fleet.py": FLEET_PY,
    "fees.py": FEES_PY,
    "daily.py": DAILY_PY,
    "test_fleet.py": TEST_FLEET_PY,
    "station.toml": STATION_TOML,
    "web/stations.json": STATIONS_JSON,
    "web/map.js": MAP_JS,
    "web/main.js": MAIN_JS,
    "compose.yaml": COMPOSE_YAML,
    "tools/common.sh": COMMON_SH,
    "tools/rides.sh": RIDES_SH,
    "tools/archive.sh": ARCHIVE_SH,
    "logs/rides.csv": RIDES_CSV,
}
"""The station, file by file: every task of the sixth batch starts from it."""


def bikes_with(changes: dict[str, str]) -> dict[str, str]:
    """:data:`BIKES` with the files in *changes* replaced."""
    return {**BIKES, **changes}
