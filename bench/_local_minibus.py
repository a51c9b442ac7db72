"""An eighth project for the fresh task set (issue 37): a village community minibus, a
dial-a-ride service run by volunteers for people who cannot get to the shops, the
surgery or the hospital on their own, written after the theatre's box office
(:mod:`bench._local_theatre`), so that a batch of tasks on it
(:mod:`bench._local_fresh_twelfth`) meets files, names and words the rules never saw.
Python (the places the bus goes, the fares, the day's bookings, the driver's run sheet
and their tests), JavaScript (the timetable screen in the village shop's window), TOML
and JSON settings, a YAML rota of drivers, shell tools sharing a helper, and a CSV log of
the journeys the bus made.
"""

from __future__ import annotations

README_MD = """\
# Hollowfield Community Minibus

The programs behind the Hollowfield Community Minibus, a twelve-seat, low-floor bus run
by volunteers for the villages along the B4077 between Hollowfield and Kelbrook. Members
ring the office to book a seat to the market at Marbury, the health centre, the hospital
at Kelbrook or the lunch club; the bus picks them up at their door.

- `python3 runsheet.py` prints the driver's run sheet for the day: each run, who to
  pick up where and when, the fares to collect, and the miles.
- `python3 -m unittest` runs the tests.
- `node screen/main.js` prints what the timetable screen in the village shop's window
  shows: this week's regular runs, the times at each stop, and the seats left.
- `bash tools/drivers.sh [LOG]` gives each driver's journeys and miles, the most first.
- `bash tools/month.sh MONTH [LOG]` gives a month's figures for the parish council:
  journeys, passengers, wheelchair users, miles and fares.

The journey log, `data/journeys.csv`, gets a row for every journey the bus made: the
day, who drove, where to, how many passengers and wheelchair users, the miles on the
clock, the fares taken and what the journey was for (shopping, medical or social).

Settings: `minibus.toml` (the service, the booking rules and the bus itself),
`rota.yaml` (this week's drivers and passenger assistants, and how to reach them),
`screen/timetable.json` (the regular runs and notices the screen shows).

## Places and fares

Every place on the patch lies on the B4077, so the miles between two of them are the
difference of their miles from the depot at Hollowfield village hall. The fare goes by
the zone of the farther end of the trip: local (the villages), town (Marbury) or
hospital (Kelbrook). Bus pass holders pay half, under-16s ride free, and a carer
travelling with a passenger who needs one rides free too.

## Booking

Only members can book (five pounds a year). Bookings close at noon on the working day
before the trip; the office is shut at weekends, so a Monday trip must be booked by noon
on the Friday. The bus runs Monday to Friday, from nine until five.
"""

PLACES_PY = '''\
"""The places the minibus goes: the villages on its patch, the market town and the
hospital, how far each is from the depot at Hollowfield village hall, and its fare zone.

The whole patch lies along the B4077, so the miles between two places are the difference
of their miles from the depot. The driver picks people up at their door; the fare and
the times go by the place."""

from __future__ import annotations

import math
from dataclasses import dataclass

DEPOT = "Hollowfield"
AVERAGE_MPH = 24  # lanes, tractors and the level crossing at Crane End
ZONES = ("local", "town", "hospital")  # the cheapest first


@dataclass(frozen=True)
class Place:
    name: str
    miles: float  # from the depot, by road
    zone: str


PLACES = {
    place.name: place
    for place in (
        Place("Hollowfield", 0.0, "local"),
        Place("Little Ashby", 2.5, "local"),
        Place("Crane End", 3.8, "local"),
        Place("Wistow Green", 5.2, "local"),
        Place("Marbury", 7.5, "town"),
        Place("Marbury Health Centre", 7.9, "town"),
        Place("Kelbrook Hospital", 14.0, "hospital"),
    )
}


def place(name: str) -> Place:
    try:
        return PLACES[name]
    except KeyError:
        raise ValueError(f"the minibus does not go to {name!r}") from None


def miles_between(start: str, end: str) -> float:
    return round(abs(place(end).miles - place(start).miles), 1)


def minutes_between(start: str, end: str) -> int:
    """How long the bus takes from *start* to *end*, rounded up to five minutes."""
    minutes = miles_between(start, end) / AVERAGE_MPH * 60
    return max(5, math.ceil(minutes / 5) * 5)


def zone_of(start: str, end: str) -> str:
    """The fare zone of a trip: the dearer zone of its two ends."""
    return max(place(start).zone, place(end).zone, key=ZONES.index)
'''

FARES_PY = '''\
"""What a trip costs: the fare for each zone, single and return, and what each kind of
passenger pays of it. Escorts (a carer travelling with a passenger who needs one) ride
free and have no fare of their own."""

from __future__ import annotations

from places import zone_of

# zone: (single, return), in pounds
FARES = {
    "local": (2.00, 3.50),
    "town": (3.50, 6.00),
    "hospital": (6.00, 10.00),
}
# what each kind of passenger pays, as a share of the fare
SHARE = {"full": 1.0, "bus pass": 0.5, "under 16": 0.0}
PAID_IN = "GBP"


def fare(start: str, end: str, kind: str = "full", returning: bool = True) -> float:
    """What a passenger of *kind* pays for a trip from *start* to *end* (and back, when
    *returning*)."""
    if kind not in SHARE:
        raise ValueError(f"{kind!r} is not one of {', '.join(SHARE)}")
    single, back = FARES[zone_of(start, end)]
    return round((back if returning else single) * SHARE[kind], 2)
'''

BOOKINGS_PY = '''\
"""The book for one day: who goes where, for what time, and the checks a booking passes
before it is taken. Passengers going to the same place for the same time share a run;
a run holds as many riders as the bus has seats, escorts included, and as many
wheelchairs as it has spaces."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from fares import fare
from places import minutes_between, place

RUNS_FROM = "09:00"
RUNS_UNTIL = "17:00"


def deadline(day: str) -> datetime:
    """When bookings for *day* close: noon on the working day before."""
    before = date.fromisoformat(day) - timedelta(days=1)
    while before.weekday() >= 5:  # Saturday and Sunday: the office is shut
        before -= timedelta(days=1)
    return datetime.combine(before, time(12, 0))


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def to_minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


@dataclass
class Booking:
    ref: int
    name: str
    pick_up: str
    going_to: str
    arrive: str  # when they need to be there, HH:MM
    kind: str = "full"
    returning: bool = True
    wheelchair: bool = False
    escort: bool = False  # a carer comes too, and rides free
    fare: float = 0.0

    @property
    def riders(self) -> int:
        return 2 if self.escort else 1

    def pick_up_at(self, door_minutes: int) -> str:
        """When the bus calls for them: the time the trip takes, and *door_minutes* to
        get them out of the house and on board."""
        trip = minutes_between(self.pick_up, self.going_to)
        return hhmm(to_minutes(self.arrive) - trip - door_minutes)


@dataclass
class DayBook:
    day: str  # YYYY-MM-DD
    seats: int = 12
    wheelchair_spaces: int = 2
    bookings: dict[int, Booking] = field(default_factory=dict)

    def run(self, going_to: str, arrive: str) -> list[Booking]:
        return [b for b in self.bookings.values() if (b.going_to, b.arrive) == (going_to, arrive)]

    def runs(self) -> list[tuple[str, str]]:
        """The day's runs, (time, place), the earliest first."""
        return sorted({(b.arrive, b.going_to) for b in self.bookings.values()})

    def book(
        self,
        name: str,
        pick_up: str,
        going_to: str,
        arrive: str,
        booked: str,
        kind: str = "full",
        returning: bool = True,
        wheelchair: bool = False,
        escort: bool = False,
    ) -> Booking:
        place(pick_up)
        place(going_to)
        if pick_up == going_to:
            raise ValueError(f"{name} is going from {pick_up} to {going_to}")
        if not RUNS_FROM <= arrive <= RUNS_UNTIL:
            raise ValueError(f"the bus runs from {RUNS_FROM} to {RUNS_UNTIL}, not at {arrive}")
        closed = deadline(self.day)
        if datetime.fromisoformat(booked) > closed:
            raise ValueError(f"bookings for {self.day} closed at {closed:%A %H:%M}")
        riders = 2 if escort else 1
        on_board = self.run(going_to, arrive)
        if sum(b.riders for b in on_board) + riders > self.seats:
            raise ValueError(f"the {arrive} to {going_to} is full")
        if wheelchair and sum(b.wheelchair for b in on_board) >= self.wheelchair_spaces:
            raise ValueError(f"no wheelchair space left on the {arrive} to {going_to}")
        ref = max(self.bookings, default=500) + 1
        price = fare(pick_up, going_to, kind, returning)
        self.bookings[ref] = Booking(
            ref, name, pick_up, going_to, arrive, kind, returning, wheelchair, escort, price
        )
        return self.bookings[ref]

    def cancel(self, ref: int) -> Booking:
        return self.bookings.pop(ref)


def sample_day(seats: int = 12, wheelchair_spaces: int = 2) -> DayBook:
    """The book for Tuesday 15 September 2026, as it stood when bookings closed."""
    book = DayBook("2026-09-15", seats, wheelchair_spaces)
    book.book("Pryce", "Little Ashby", "Marbury", "10:00", "2026-09-09 10:12", "bus pass")
    book.book("Okoro", "Crane End", "Marbury", "10:00", "2026-09-09 11:40", "bus pass")
    book.book(
        "Hebden",
        "Hollowfield",
        "Marbury",
        "10:00",
        "2026-09-10 09:05",
        "bus pass",
        wheelchair=True,
        escort=True,
    )
    book.book("Dutton", "Wistow Green", "Marbury", "10:00", "2026-09-10 12:30", returning=False)
    book.book("Tolley", "Little Ashby", "Marbury", "10:00", "2026-09-11 09:20")
    book.book("Tolley", "Little Ashby", "Marbury", "10:00", "2026-09-11 09:20", "under 16")
    book.book("Lacey", "Crane End", "Marbury", "10:00", "2026-09-14 11:55", "bus pass")
    book.book(
        "Winstanley",
        "Wistow Green",
        "Kelbrook Hospital",
        "11:20",
        "2026-09-08 14:02",
        "bus pass",
        wheelchair=True,
        escort=True,
    )
    book.book("Gill", "Hollowfield", "Kelbrook Hospital", "11:20", "2026-09-11 10:47")
    book.book("Fenn", "Hollowfield", "Crane End", "12:00", "2026-09-07 09:30", "bus pass")
    book.book("Quigley", "Wistow Green", "Crane End", "12:00", "2026-09-10 10:15", "bus pass")
    book.book(
        "Abbott", "Little Ashby", "Marbury Health Centre", "14:10", "2026-09-14 09:48", "bus pass"
    )
    return book
'''

RUNSHEET_PY = '''\
"""Print the driver's run sheet for the day: python3 runsheet.py"""

import tomllib
from datetime import date
from pathlib import Path

from bookings import sample_day
from fares import PAID_IN
from places import DEPOT, place


def settings() -> dict:
    with open(Path(__file__).with_name("minibus.toml"), "rb") as f:
        return tomllib.load(f)


def run_miles(places: list[str], back_again: bool) -> float:
    """Out from the depot to the farthest of *places* and back, and the same again
    later in the day to bring people home when *back_again*."""
    farthest = max(place(p).miles for p in [DEPOT, *places])
    return farthest * 2 * (2 if back_again else 1)


def sheet() -> list[str]:
    conf = settings()
    bus, service = conf["bus"], conf["service"]
    book = sample_day(bus["seats"], bus["wheelchair_spaces"])
    day = date.fromisoformat(book.day)
    lines = [
        f"{service['name']}: run sheet for {day.strftime('%A')} {day.day} {day:%B %Y}",
        f"bus {bus['registration']}: {bus['seats']} seats, "
        f"{bus['wheelchair_spaces']} wheelchair spaces",
    ]
    miles = 0.0
    for arrive, going_to in book.runs():
        on_board = book.run(going_to, arrive)
        riders = sum(b.riders for b in on_board)
        chairs = sum(b.wheelchair for b in on_board)
        lines.append(
            f"{arrive} to {going_to}: {riders} of {bus['seats']} seats, "
            f"{chairs} of {bus['wheelchair_spaces']} wheelchair spaces"
        )
        door = service["door_minutes"]
        for b in sorted(on_board, key=lambda b: (b.pick_up_at(door), b.ref)):
            needs = [n for n, yes in (("wheelchair", b.wheelchair), ("escort", b.escort)) if yes]
            extra = f" ({', '.join(needs)})" if needs else ""
            trip = "return" if b.returning else "single"
            lines.append(
                f"  {b.pick_up_at(door)}  {b.name}{extra}, {b.pick_up}  "
                f"{b.kind} {trip}  {b.fare:.2f}"
            )
        back_again = any(b.returning for b in on_board)
        miles += run_miles([going_to, *(b.pick_up for b in on_board)], back_again)
    bookings = list(book.bookings.values())
    escorts = sum(b.escort for b in bookings)
    fares = sum(b.fare for b in bookings)
    return [
        *lines,
        f"passengers: {len(bookings)}, and {escorts} escorts",
        f"miles: {miles:.1f}, running cost {miles * bus['cost_per_mile']:.2f} {PAID_IN}",
        f"fares to collect: {fares:.2f} {PAID_IN}",
    ]


def main() -> None:
    for line in sheet():
        print(line)


if __name__ == "__main__":
    main()
'''

TEST_MINIBUS_PY = """\
import unittest

from bookings import DayBook, deadline
from fares import fare
from places import miles_between, minutes_between, zone_of


class PlacesTest(unittest.TestCase):
    def test_miles_along_the_road(self) -> None:
        self.assertEqual(miles_between("Little Ashby", "Marbury"), 5.0)
        self.assertEqual(miles_between("Marbury", "Little Ashby"), 5.0)

    def test_minutes_round_up_to_five(self) -> None:
        self.assertEqual(minutes_between("Hollowfield", "Little Ashby"), 10)
        self.assertEqual(minutes_between("Wistow Green", "Kelbrook Hospital"), 25)

    def test_the_dearer_zone_counts(self) -> None:
        self.assertEqual(zone_of("Crane End", "Marbury"), "town")
        self.assertEqual(zone_of("Kelbrook Hospital", "Little Ashby"), "hospital")


class FareTest(unittest.TestCase):
    def test_a_local_single(self) -> None:
        self.assertEqual(fare("Hollowfield", "Crane End", returning=False), 2.00)

    def test_bus_pass_pays_half(self) -> None:
        self.assertEqual(fare("Crane End", "Marbury", "bus pass"), 3.00)

    def test_under_16_rides_free(self) -> None:
        self.assertEqual(fare("Little Ashby", "Kelbrook Hospital", "under 16"), 0.00)


class BookingTest(unittest.TestCase):
    def setUp(self) -> None:
        self.book = DayBook("2026-09-16", seats=4, wheelchair_spaces=1)

    def test_a_wednesday_trip_closes_on_tuesday_at_noon(self) -> None:
        self.assertEqual(str(deadline("2026-09-16")), "2026-09-15 12:00:00")

    def test_no_such_place(self) -> None:
        with self.assertRaises(ValueError):
            self.book.book("Pryce", "Little Ashby", "Stowbridge", "10:00", "2026-09-14 10:00")

    def test_escorts_take_a_seat(self) -> None:
        self.book.book("Hebden", "Hollowfield", "Marbury", "10:00", "2026-09-14 10:00", escort=True)
        self.book.book("Okoro", "Crane End", "Marbury", "10:00", "2026-09-14 10:00", escort=True)
        with self.assertRaises(ValueError):
            self.book.book("Lacey", "Crane End", "Marbury", "10:00", "2026-09-14 10:00")

    def test_one_wheelchair_space(self) -> None:
        self.book.book(
            "Hebden", "Hollowfield", "Marbury", "10:00", "2026-09-14 10:00", wheelchair=True
        )
        with self.assertRaises(ValueError):
            self.book.book(
                "Winstanley",
                "Wistow Green",
                "Marbury",
                "10:00",
                "2026-09-14 10:00",
                wheelchair=True,
            )


if __name__ == "__main__":
    unittest.main()
"""

MINIBUS_TOML = """\
# Hollowfield Community Minibus: the settings runsheet.py reads, and the office's rules.

[service]
name = "Hollowfield Community Minibus"
charity = "registered charity 1109342"
phone = "01632 960733"
office_hours = "09:00-13:00 Monday to Friday"  # the answerphone takes messages otherwise
days = "Monday to Friday, 09:00 to 17:00"
door_minutes = 10  # at each door, to get someone out of the house and on board

[booking]
book_by = "12:00 on the working day before"
cancel_by = "09:00 on the day"  # after that, or not in when the bus calls, the fare is owed
membership = 5.00  # a year; only members can book
escorts_free = true  # a carer travelling with a passenger who needs one

[bus]
registration = "YK19 HBW"
model = "Peugeot Boxer, low-floor, rear lift"
seats = 12
wheelchair_spaces = 2
cost_per_mile = 0.58  # fuel, tyres and servicing, for the grant report
service_every_miles = 6000
last_service_at = 48210  # miles on the clock
fuel = "diesel; fill up at Marbury Motors on the account, never on your own card"

[depot]
place = "Hollowfield"
address = "Hollowfield Village Hall, Church Lane"
keys = "in the key safe by the hall's side door; the coordinator has the code"
"""

ROTA_YAML = """\
# The rota for the week: who drives the bus and who goes with them as passenger
# assistant. Drivers need a MiDAS certificate in date; assistants help people on and off
# and work the lift. Swaps go through Janet, the coordinator: ring her before you change
# anything here.
coordinator: Janet Marsh
week_of: 2026-09-14
standby_driver: Ray Sutton

days:
  Monday:
    driver: Geoff Tanner
    assistant: Pam Hollis
  Tuesday:
    driver: Keith Ambler
    assistant: Pam Hollis
  Wednesday:
    driver: Ray Sutton
    assistant: Brenda Coyle
  Thursday:
    driver: Ann Fairley
    assistant: Dilip Rao
  Friday:
    driver: Geoff Tanner
    assistant: Maureen Cobb

drivers:
  - name: Geoff Tanner
    phone: "07700 900214"
    midas_until: 2027-05-31
  - name: Keith Ambler
    phone: "07700 900367"
    midas_until: 2026-11-30
  - name: Ray Sutton
    phone: "07700 900452"
    midas_until: 2028-02-29
  - name: Ann Fairley
    phone: "07700 900538"
    midas_until: 2027-09-30

assistants:
  - name: Pam Hollis
    phone: "07700 900619"
  - name: Brenda Coyle
    started: 2026-08-17
  - name: Dilip Rao
    phone: "07700 900743"
  - name: Maureen Cobb
    phone: "07700 900881"

coordinator_phone: "07700 900105"
"""

TIMETABLE_JSON = """\
{
  "service": "Hollowfield Community Minibus",
  "phone": "01632 960733",
  "today": "2026-09-15",
  "page_seconds": 15,
  "few_left_at": 3,
  "runs": [
    {
      "day": "Tuesday",
      "name": "Marbury market",
      "leaves": "09:25",
      "stops": [
        ["Hollowfield, village hall", 0],
        ["Little Ashby, the Green", 8],
        ["Crane End, St Michael's church", 15],
        ["Wistow Green, the Plough", 22],
        ["Marbury, Market Square", 35]
      ],
      "back": "12:30",
      "seats_left": 5
    },
    {
      "day": "Thursday",
      "name": "Kelbrook hospital visiting",
      "leaves": "13:45",
      "stops": [
        ["Hollowfield, village hall", 0],
        ["Crane End, St Michael's church", 10],
        ["Wistow Green, the Plough", 17],
        ["Kelbrook Hospital, main entrance", 40]
      ],
      "back": "16:00",
      "seats_left": 1
    },
    {
      "day": "Friday",
      "name": "Lunch club at Crane End",
      "leaves": "11:20",
      "stops": [
        ["Hollowfield, village hall", 0],
        ["Little Ashby, the Green", 8],
        ["Wistow Green, the Plough", 17],
        ["Crane End, village hall", 26]
      ],
      "back": "14:30",
      "seats_left": 0
    }
  ],
  "fares": {
    "local": [2, 3.5],
    "town": [3.5, 6],
    "hospital": [6, 10]
  },
  "notices": [
    "Book by noon the working day before: ring the office, 9 till 1",
    "Bus pass holders pay half; under-16s and carers ride free",
    "Membership is five pounds a year: ask the driver for a form"
  ]
}
"""

TIMETABLE_JS = """\
'use strict';

// What the timetable screen works out: the time at each stop, the line about seats,
// and fares in pounds.

function pad2(n) {
  return String(n).padStart(2, '0');
}

function toMinutes(time) {
  const [h, m] = time.split(':').map(Number);
  return h * 60 + m;
}

function hhmm(minutes) {
  return `${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;
}

// [time, stop] for each stop of a run, from when it leaves and the minutes to each stop
function stopTimes(run) {
  const leaves = toMinutes(run.leaves);
  return run.stops.map(([stop, after]) => [hhmm(leaves + after), stop]);
}

function weekday(isoDate) {
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  return days[new Date(`${isoDate}T12:00:00Z`).getUTCDay()];
}

function seatsLine(left, fewLeftAt) {
  if (left <= 0) {
    return 'full - ring the office to go on the waiting list';
  }
  const seats = left === 1 ? 'seat' : 'seats';
  if (left <= fewLeftAt) {
    return `only ${left} ${seats} left - book soon`;
  }
  return `${left} ${seats} left`;
}

function pounds(amount) {
  return Number.isInteger(amount) ? `£${amount}` : `£${amount.toFixed(2)}`;
}

module.exports = { pad2, toMinutes, hhmm, stopTimes, weekday, seatsLine, pounds };
"""

SCREEN_MAIN_JS = """\
'use strict';

// Print what the timetable screen in the shop window shows: node screen/main.js

const fs = require('fs');
const path = require('path');
const { stopTimes, weekday, seatsLine, pounds } = require('./timetable');

const screen = JSON.parse(fs.readFileSync(path.join(__dirname, 'timetable.json'), 'utf8'));

function main() {
  const today = weekday(screen.today);
  console.log(`${screen.service}: this week's regular runs`);
  console.log(`today is ${today} ${screen.today}`);
  for (const run of screen.runs) {
    const mark = run.day === today ? ' (today)' : '';
    console.log(`${run.day}: ${run.name}${mark}`);
    for (const [time, stop] of stopTimes(run)) {
      console.log(`  ${time}  ${stop}`);
    }
    console.log(`  back at ${run.back}; ${seatsLine(run.seats_left, screen.few_left_at)}`);
  }
  const fares = Object.entries(screen.fares).map(
    ([zone, [single, back]]) => `${zone} ${pounds(single)} / ${pounds(back)}`,
  );
  console.log(`fares, single / return: ${fares.join(', ')}`);
  for (const notice of screen.notices) {
    console.log(`* ${notice}`);
  }
  console.log(`to book, ring ${screen.phone}  (next page in ${screen.page_seconds} s)`);
}

main();
"""

LIB_SH = """\
#!/usr/bin/env bash
# What the minibus tools share: source it from a tool, do not run it.

JOURNEYS_HEADER="date,driver,destination,passengers,wheelchairs,miles,fares,purpose"
JOURNEY_LOG="data/journeys.csv"

die() {
  echo "minibus: $*" >&2
  exit 1
}

log_ok() {
  [ -f "$1" ] || die "no journey log at $1"
  [ "$(head -n 1 "$1")" = "$JOURNEYS_HEADER" ] || die "$1 does not start with $JOURNEYS_HEADER"
}

month_ok() {
  case "$1" in
    20[0-9][0-9]-0[1-9] | 20[0-9][0-9]-1[0-2]) ;;
    *) die "$1 is not a month (YYYY-MM)" ;;
  esac
}
"""

DRIVERS_SH = """\
#!/usr/bin/env bash
# Each driver's journeys and miles, the most miles first:
#   bash tools/drivers.sh [LOG]
#
# LOG is the journey log (data/journeys.csv unless given). Each line gives a driver's
# miles, journeys and the passengers they carried, e.g.
# "Geoff Tanner: 104.6 miles, 9 journeys, 41 passengers". Janet reads it when she draws
# up the rota, so that nobody does more than their share.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

LOG="${1:-$JOURNEY_LOG}"
log_ok "$LOG"

awk -F, '
  NR > 1 { miles[$2] += $6; journeys[$2]++; people[$2] += $4 }
  END {
    for (driver in miles)
      printf "%.1f|%s: %.1f miles, %d journeys, %d passengers\\n",
        miles[driver], driver, miles[driver], journeys[driver], people[driver]
  }
' "$LOG" | sort -t'|' -k1,1nr | cut -d'|' -f2-
"""

MONTH_SH = """\
#!/usr/bin/env bash
# One month's figures for the parish council's grant report:
#   bash tools/month.sh MONTH [LOG]
#
# MONTH as 2026-08, LOG the journey log (data/journeys.csv unless given). Prints the
# journeys the bus made, the passengers and wheelchair users it carried, the miles and
# what came in in fares.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "give a month, e.g. 2026-08"
MONTH="$1"
LOG="${2:-$JOURNEY_LOG}"
month_ok "$MONTH"
log_ok "$LOG"

awk -F, -v month="$MONTH" '
  NR > 1 && substr($1, 1, 7) == month {
    journeys++; people += $4; chairs += $5; miles += $6; fares += $7
  }
  END {
    print month
    printf "  journeys: %d\\n", journeys
    printf "  passengers: %d, of them %d in wheelchairs\\n", people, chairs
    printf "  miles: %.1f\\n", miles
    printf "  fares: %.2f GBP\\n", fares
  }
' "$LOG"
"""

JOURNEYS_CSV = """\
date,driver,destination,passengers,wheelchairs,miles,fares,purpose
2026-07-06,Geoff Tanner,Marbury Health Centre,3,0,32.2,7.50,medical
2026-07-07,Keith Ambler,Marbury,9,1,31.2,28.50,shopping
2026-07-08,Ray Sutton,Crane End,6,1,15.4,9.00,social
2026-07-09,Ann Fairley,Kelbrook Hospital,4,1,57.0,21.00,medical
2026-07-10,Geoff Tanner,Crane End,8,0,15.4,11.50,social
2026-07-14,Keith Ambler,Marbury,10,2,31.2,30.00,shopping
2026-07-16,Ann Fairley,Kelbrook Hospital,3,0,56.4,20.00,medical
2026-07-17,Geoff Tanner,Crane End,7,1,15.4,10.50,social
2026-07-21,Keith Ambler,Marbury,8,1,30.8,25.50,shopping
2026-07-22,Ray Sutton,Marbury Health Centre,2,0,31.4,6.00,medical
2026-07-23,Ann Fairley,Kelbrook Hospital,5,1,57.2,27.50,medical
2026-07-24,Geoff Tanner,Crane End,9,1,15.6,12.00,social
2026-07-28,Keith Ambler,Marbury,11,2,31.4,33.00,shopping
2026-08-03,Geoff Tanner,Kelbrook Hospital,2,1,56.0,10.00,medical
2026-08-04,Keith Ambler,Marbury,9,1,31.0,27.00,shopping
2026-08-06,Ann Fairley,Kelbrook Hospital,4,0,56.8,24.00,medical
2026-08-07,Geoff Tanner,Crane End,8,1,15.4,11.00,social
2026-08-11,Ray Sutton,Marbury,7,0,30.6,24.50,shopping
2026-08-12,Ray Sutton,Marbury Health Centre,3,1,31.8,7.50,medical
2026-08-13,Ann Fairley,Kelbrook Hospital,3,1,56.6,15.00,medical
2026-08-14,Geoff Tanner,Crane End,6,0,15.2,9.50,social
2026-08-18,Keith Ambler,Marbury,10,1,31.2,31.00,shopping
2026-08-20,Ann Fairley,Kelbrook Hospital,5,1,57.4,25.00,medical
2026-08-21,Geoff Tanner,Crane End,8,1,15.4,10.50,social
2026-08-25,Keith Ambler,Marbury,8,2,31.0,22.50,shopping
2026-08-26,Ray Sutton,Marbury Health Centre,4,0,32.0,10.50,medical
2026-08-27,Ann Fairley,Kelbrook Hospital,2,0,56.2,12.00,medical
2026-08-28,Geoff Tanner,Crane End,7,1,15.6,10.00,social
2026-09-01,Keith Ambler,Marbury,9,1,31.0,28.00,shopping
2026-09-02,Ray Sutton,Crane End,5,0,15.2,7.50,social
2026-09-03,Ann Fairley,Kelbrook Hospital,4,1,56.8,20.00,medical
2026-09-04,Geoff Tanner,Crane End,9,2,15.8,11.50,social
2026-09-08,Keith Ambler,Marbury,10,1,31.4,30.50,shopping
2026-09-09,Ray Sutton,Marbury Health Centre,3,0,31.6,8.00,medical
2026-09-10,Ann Fairley,Kelbrook Hospital,3,1,56.4,16.00,medical
2026-09-11,Geoff Tanner,Crane End,8,1,15.4,11.00,social
"""

MINIBUS: dict[str, str] = {
    "README.md": README_MD,
    "places.py": PLACES_PY,
    "fares.py": FARES_PY,
    "bookings.py": BOOKINGS_PY,
    "runsheet.py": RUNSHEET_PY,
    "test_minibus.py": TEST_MINIBUS_PY,
    "minibus.toml": MINIBUS_TOML,
    "rota.yaml": ROTA_YAML,
    "screen/timetable.json": TIMETABLE_JSON,
    "screen/timetable.js": TIMETABLE_JS,
    "screen/main.js": SCREEN_MAIN_JS,
    "tools/lib.sh": LIB_SH,
    "tools/drivers.sh": DRIVERS_SH,
    "tools/month.sh": MONTH_SH,
    "data/journeys.csv": JOURNEYS_CSV,
}
"""The minibus service, file by file: every task of the twelfth batch starts from it."""


def minibus_with(changes: dict[str, str]) -> dict[str, str]:
    """:data:`MINIBUS` with the files in *changes* replaced."""
    return {**MINIBUS, **changes}
