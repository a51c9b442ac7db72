"""A sixth project for the fresh task set (issue 37): a small community sailing club's boat
bookings and tide board, written after the bakery (:mod:`bench._local_bakery`), so that a
batch of tasks on it (:mod:`bench._local_fresh_tenth`) meets files, names and words the
rules never saw. Python (the fleet and what an hour's hire costs, the bookings diary, the
tide over the club's hard and when each boat can get away, the day's sheet for the
officer of the day and their tests), JavaScript (the tide board in the clubhouse window),
TOML, YAML and JSON settings, shell tools sharing a helper, and a CSV log of outings.
"""

from __future__ import annotations

README_MD = """\
# Hollesby Sailing Club

The programs behind the club's boat bookings and the tide board in the clubhouse window:
the fleet and what hiring a boat costs, the bookings diary, the tide over the hard and
the day's sheet for the officer of the day (Python), the tide board (JavaScript), and
small tools that read the log of outings.

- `python3 sheet.py` prints the day's sheet: the tide, when there is water enough for
  each boat to get off the hard, who has which boat when, and what the hire comes to.
- `python3 -m unittest` runs the tests.
- `node board/main.js` prints what the tide board in the clubhouse window shows.
- `bash tools/hours.sh [TOP]` lists the boats that spend the most hours on the water.
- `bash tools/skipper.sh NAME [MONTH]` lists one skipper's outings (MONTH as 2026-05).

The log of outings, `data/outings.csv`, gets a row each time a boat comes back in: the
day, the boat, who skippered her, when she went out and came in, and how many were
aboard.

Settings: `club.toml` (the club, the hard, the rules for bookings, safety cover and the
duty rota), `moorings.yaml` (who lies on which mooring, and what a season costs),
`board/notices.json` (what the tide board shows).

## Booking a boat

Members book through the officer of the day. Dinghies are launched from the hard; the
keelboats lie on the club's moorings and are brought alongside the pontoon. Either way a
boat only gets away when there is water enough over the toe of the slipway: what she
draws, and a margin for the mud. The sheet lists the bookings that fall outside that
window, so the officer of the day can move them.

Hire is charged by the half hour started, with a minimum charge. Juniors may helm on
their own from the age set in `club.toml`; younger ones sail with an adult aboard.
"""

FLEET_PY = '''\
"""The club's boats: the dinghies launched from the hard and the keelboats on the
moorings, what each draws and how many she carries, and what an hour's hire costs."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

HOURLY = {"dinghy": 8.00, "keelboat": 15.00}  # what a member pays an hour
GUEST_RATE = 1.5  # a member's guest at the helm pays half as much again
MIN_HOURS = 2.0  # the least anyone is charged for, however short the sail
PAID_IN = "GBP"


@dataclass(frozen=True)
class Boat:
    name: str
    design: str  # the class she sails in: Wayfarer, Topper, Squib ...
    kind: str  # "dinghy" (launched from the hard) or "keelboat" (on a mooring)
    sail_number: str
    crew: int  # the most people aboard, the helm included
    draws: float  # metres of water she needs to get away, centreboard up
    in_service: bool = True


FLEET: dict[str, Boat] = {
    craft.name: craft
    for craft in (
        Boat("Puffin", "Wayfarer", "dinghy", "10418", 4, 0.20),
        Boat("Gannet", "Wayfarer", "dinghy", "9872", 4, 0.20),
        Boat("Sprat", "Topper", "dinghy", "48211", 1, 0.10),
        Boat("Winkle", "Topper", "dinghy", "47390", 1, 0.10),
        Boat("Dabchick", "RS Quest", "dinghy", "1207", 3, 0.15, in_service=False),
        Boat("Kittiwake", "Squib", "keelboat", "812", 3, 0.90),
        Boat("Shearwater", "Squib", "keelboat", "774", 3, 0.90),
        Boat("Guillemot", "Sonata", "keelboat", "7021", 4, 1.40),
    )
}


def boat(name: str) -> Boat:
    """The boat called *name*; a name not in the fleet is a ValueError."""
    try:
        return FLEET[name]
    except KeyError:
        raise ValueError(f"no boat called {name!r} in the fleet") from None


def of_kind(kind: str) -> list[Boat]:
    return [craft for craft in FLEET.values() if craft.kind == kind]


def in_service() -> list[Boat]:
    return [craft for craft in FLEET.values() if craft.in_service]


def hours_charged(minutes: int) -> float:
    """Hire goes by the half hour started, MIN_HOURS at the least."""
    return max(MIN_HOURS, ceil(minutes / 30) / 2)


def hire_fee(name: str, minutes: int, guest: bool = False) -> float:
    """What *minutes* out in the boat called *name* cost."""
    rate = HOURLY[boat(name).kind] * (GUEST_RATE if guest else 1)
    return round(hours_charged(minutes) * rate, 2)
'''

TIDES_PY = '''\
"""The tide over the club's hard: the height of water at any minute of the day, worked
out from the day's high and low water (a cosine between them, near enough on the creek),
and the window around high water when a boat can get off the hard. Times of day are
minutes after midnight."""

from __future__ import annotations

from math import cos, pi

PERIOD = 745  # minutes from one high water to the next: 12 h 25 min

# The day's high water, its height and the low water's, in metres above chart datum,
# copied from the harbour's tide table.
TABLE = {
    "2026-06-12": ("12:35", 4.0, 0.7),
    "2026-06-13": ("13:25", 4.1, 0.6),
    "2026-06-14": ("14:15", 4.1, 0.6),
    "2026-06-15": ("15:05", 4.0, 0.7),
}


def to_minutes(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def tide_for(day: str) -> tuple[int, float, float]:
    """The high water of *day* (YYYY-MM-DD): when, how high, and how low the low water."""
    high_at, high, low = TABLE[day]
    return to_minutes(high_at), high, low


def height_at(minute: float, high_at: int, high: float, low: float) -> float:
    """The height of tide at *minute*, high water being at *high_at*."""
    middle = (high + low) / 2
    half_range = (high - low) / 2
    return middle + half_range * cos(2 * pi * (minute - high_at) / PERIOD)


def launch_window(
    draws: float, high_at: int, high: float, low: float, toe: float, clearance: float
) -> tuple[int, int] | None:
    """The first and last minute around high water with *draws* and *clearance* metres
    of water over the toe of the slipway, which is *toe* metres above chart datum; None
    when the tide never gets that high."""
    needed = toe + draws + clearance
    if height_at(high_at, high_at, high, low) < needed:
        return None
    first = last = high_at
    while first > high_at - PERIOD // 2 and height_at(first - 1, high_at, high, low) >= needed:
        first -= 1
    while last < high_at + PERIOD // 2 and height_at(last + 1, high_at, high, low) >= needed:
        last += 1
    return first, last
'''

BOOKINGS_PY = '''\
"""The bookings diary: who has which boat when, and the checks a booking passes before
the officer of the day writes it in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fleet import boat, hire_fee
from tides import to_minutes

CLOCK = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")


def overlaps(a_start: str, a_end: str, b_start: str, b_end: str) -> bool:
    """Whether two stretches of the day share a minute (one that ends as the other
    starts does not)."""
    return to_minutes(a_start) < to_minutes(b_end) and to_minutes(b_start) < to_minutes(a_end)


@dataclass
class Booking:
    ref: int
    boat: str
    skipper: str
    start: str  # "HH:MM"
    end: str
    aboard: int  # people, the skipper included
    guest: bool = False  # a member's guest at the helm pays the guest rate

    @property
    def minutes(self) -> int:
        return to_minutes(self.end) - to_minutes(self.start)

    @property
    def fee(self) -> float:
        return hire_fee(self.boat, self.minutes, self.guest)


@dataclass
class Diary:
    min_helm_age: int = 14
    bookings: dict[int, Booking] = field(default_factory=dict)

    def book(
        self,
        name: str,
        skipper: str,
        age: int,
        start: str,
        end: str,
        aboard: int,
        guest: bool = False,
    ) -> Booking:
        craft = boat(name)
        if not craft.in_service:
            raise ValueError(f"{name} is out of service")
        for time in (start, end):
            if not CLOCK.fullmatch(time):
                raise ValueError(f"{time!r} is not a time of day (HH:MM)")
        if to_minutes(end) <= to_minutes(start):
            raise ValueError(f"{start}-{end}: she has to come in after she goes out")
        if aboard > craft.crew:
            raise ValueError(f"{name} takes {craft.crew} aboard, not {aboard}")
        if age < self.min_helm_age:
            raise ValueError(f"{skipper} is {age}, too young to helm alone")
        for other in self.for_boat(name):
            if overlaps(start, end, other.start, other.end):
                raise ValueError(f"{name} is booked {other.start}-{other.end} by {other.skipper}")
        ref = max(self.bookings, default=200) + 1
        self.bookings[ref] = Booking(ref, name, skipper, start, end, aboard, guest)
        return self.bookings[ref]

    def cancel(self, ref: int) -> Booking:
        return self.bookings.pop(ref)

    def in_order(self) -> list[Booking]:
        """The bookings, the first out first."""
        return sorted(self.bookings.values(), key=lambda b: (b.start, b.ref))

    def for_boat(self, name: str) -> list[Booking]:
        return [b for b in self.in_order() if b.boat == name]

    def out_at(self, time: str) -> list[Booking]:
        """The bookings with a boat out at *time*."""
        minute = to_minutes(time)
        return [b for b in self.in_order() if to_minutes(b.start) <= minute < to_minutes(b.end)]

    def busiest(self) -> tuple[str, int]:
        """When most boats are out, and how many."""
        best = ("", 0)
        for booking in self.in_order():
            out = len(self.out_at(booking.start))
            if out > best[1]:
                best = (booking.start, out)
        return best


def sample_day(min_helm_age: int = 14) -> Diary:
    """The diary for Saturday 13 June 2026, as it stood on Friday evening."""
    diary = Diary(min_helm_age)
    diary.book("Puffin", "Ann Rowe", 41, "10:30", "13:00", 3)
    diary.book("Sprat", "Maisie Fenn", 15, "10:30", "12:30", 1)
    diary.book("Kittiwake", "Colin Darby", 58, "11:00", "15:30", 3)
    diary.book("Shearwater", "Neil Ashby", 27, "12:00", "15:30", 2)
    diary.book("Gannet", "Priya Nair", 34, "13:30", "16:00", 2, guest=True)
    diary.book("Winkle", "Ollie Fenn", 16, "14:00", "15:15", 1)
    diary.book("Guillemot", "Ruth Pask", 63, "12:00", "17:00", 4)
    diary.book("Puffin", "Dev Sharma", 22, "14:00", "16:00", 4, guest=True)
    return diary
'''

SHEET_PY = '''\
"""Print the day's sheet for the officer of the day: python3 sheet.py"""

import tomllib
from datetime import date
from pathlib import Path

from bookings import sample_day
from fleet import FLEET, PAID_IN
from tides import hhmm, launch_window, tide_for, to_minutes

DAY = date(2026, 6, 13)  # the Saturday the sample diary is for


def club_settings() -> dict:
    with open(Path(__file__).with_name("club.toml"), "rb") as f:
        return tomllib.load(f)


def day_sheet() -> list[str]:
    conf = club_settings()
    hard, rules, safety = conf["hard"], conf["rules"], conf["safety"]
    diary = sample_day(rules["min_helm_age"])
    high_at, high, low = tide_for(DAY.isoformat())
    lines = [
        f"{conf['club']['name']}, {DAY.strftime('%A').lower()} {DAY.isoformat()}",
        f"officer of the day: {conf['duty']['officer']}",
        f"safety boat {safety['boat']} out {safety['cover_from']}-{safety['cover_until']}, "
        f"VHF {safety['vhf_channel']}",
        f"high water {hhmm(high_at)} ({high:.1f} m), low water {low:.1f} m",
        f"juniors helm alone from {rules['min_helm_age']}",
    ]
    idle = [craft.name for craft in FLEET.values() if not craft.in_service]
    lines.append(f"out of service: {', '.join(idle) or 'none'}")
    lines.append("off the hard:")
    windows = {}
    afloat = [craft for craft in FLEET.values() if craft.in_service]
    for draws in sorted({craft.draws for craft in afloat}):
        names = [craft.name for craft in afloat if craft.draws == draws]
        window = launch_window(draws, high_at, high, low, hard["toe_height"], hard["clearance"])
        windows.update(dict.fromkeys(names, window))
        when = f"{hhmm(window[0])}-{hhmm(window[1])}" if window else "not today"
        lines.append(f"  draws {draws:.2f} m: {when}  ({', '.join(names)})")
    bookings = diary.in_order()
    lines.append(f"bookings: {len(bookings)}, {sum(b.aboard for b in bookings)} people afloat")
    outside = []
    for booking in bookings:
        craft = FLEET[booking.boat]
        who = f"{booking.skipper} (guest)" if booking.guest else booking.skipper
        lines.append(
            f"  {booking.start}-{booking.end}  {booking.boat} ({craft.design}), {who}, "
            f"{booking.aboard} aboard, {booking.fee:.2f} {PAID_IN}"
        )
        window = windows[booking.boat]
        start, end = to_minutes(booking.start), to_minutes(booking.end)
        if window is None or start < window[0] or end > window[1]:
            outside.append(f"{booking.boat} {booking.start}-{booking.end}")
    at, out = diary.busiest()
    return [
        *lines,
        f"outside the tide: {'; '.join(outside) or 'none'}",
        f"busiest: {at}, {out} boats out",
        f"hire comes to: {sum(b.fee for b in bookings):.2f} {PAID_IN}",
    ]


def main() -> None:
    for line in day_sheet():
        print(line)


if __name__ == "__main__":
    main()
'''

TEST_CLUB_PY = """\
import unittest
from dataclasses import replace
from unittest import mock

from bookings import Diary, sample_day
from fleet import FLEET, hire_fee
from tides import height_at, launch_window, to_minutes


class HireTest(unittest.TestCase):
    def test_member_pays_by_the_hour(self) -> None:
        self.assertEqual(hire_fee("Puffin", 180), 24.00)

    def test_a_half_hour_started_is_charged(self) -> None:
        self.assertEqual(hire_fee("Kittiwake", 140), 37.50)

    def test_two_hours_at_the_least(self) -> None:
        self.assertEqual(hire_fee("Sprat", 45), 16.00)

    def test_a_guest_pays_more(self) -> None:
        self.assertEqual(hire_fee("Gannet", 180, guest=True), 36.00)


class DiaryTest(unittest.TestCase):
    def test_no_such_boat(self) -> None:
        with self.assertRaises(ValueError):
            Diary().book("Bluebottle", "Ann Rowe", 41, "10:00", "12:00", 2)

    def test_out_of_service(self) -> None:
        laid_up = replace(FLEET["Gannet"], in_service=False)
        with mock.patch.dict(FLEET, {"Gannet": laid_up}), self.assertRaises(ValueError):
            Diary().book("Gannet", "Priya Nair", 34, "13:00", "15:00", 2)

    def test_too_many_aboard(self) -> None:
        with self.assertRaises(ValueError):
            Diary().book("Sprat", "Maisie Fenn", 15, "10:30", "12:30", 2)

    def test_too_young_to_helm_alone(self) -> None:
        with self.assertRaises(ValueError):
            Diary().book("Winkle", "Alfie Venn", 12, "14:00", "15:00", 1)

    def test_first_out_first(self) -> None:
        refs = [b.ref for b in sample_day().in_order()]
        self.assertEqual(refs, [201, 202, 203, 204, 207, 205, 206, 208])


class TideTest(unittest.TestCase):
    def test_high_and_low_water(self) -> None:
        high_at = to_minutes("13:25")
        self.assertAlmostEqual(height_at(high_at, high_at, 4.1, 0.6), 4.1)
        self.assertAlmostEqual(height_at(high_at + 372.5, high_at, 4.1, 0.6), 0.6)

    def test_window_around_high_water(self) -> None:
        first, last = launch_window(0.9, to_minutes("13:25"), 4.1, 0.6, 1.8, 0.3)
        self.assertEqual((first, last), (to_minutes("11:04"), to_minutes("15:46")))

    def test_not_enough_water_at_neaps(self) -> None:
        self.assertIsNone(launch_window(1.4, to_minutes("09:10"), 3.2, 1.4, 1.8, 0.3))


if __name__ == "__main__":
    unittest.main()
"""

CLUB_TOML = """\
# Hollesby Sailing Club: the settings sheet.py reads when it prints the day's sheet.

[club]
name = "Hollesby Sailing Club"
creek = "Hollesby Creek"
founded = 1931
timezone = "Europe/London"

# the hard: the club's slipway and pontoon, which dry at low water
[hard]
toe_height = 1.8  # metres above chart datum where the slipway runs out into the mud
clearance = 0.3  # water wanted under a boat beyond what she draws

[rules]
min_helm_age = 14  # younger juniors sail with an adult aboard
book_ahead_days = 14  # how far ahead a boat can be booked
longest_booking_hours = 8

[safety]
boat = "Mallard"  # the club's rib
vhf_channel = 72
cover_from = "10:00"
cover_until = "17:00"

[duty]
officer = "Bernard Cole"
race_officer = "Gill Marsh"
bosun = "Pete Lowther"  # looks after the club boats; tell him what breaks

[racing]
series = "Saturday Series"
first_gun = "14:00"
course_board = "by the starting hut"
"""

MOORINGS_YAML = """\
# The club's moorings in Hollesby Creek: who lies on each, and what a season costs.
# The season runs from April to October; boats come ashore for the winter.
harbour_master: Len Fulcher
season:
  from: "2026-04-01"
  to: "2026-10-31"
fees:  # for the season, in pounds
  pontoon: 420.00
  swinging: 185.00
  trot: 140.00
  winter_ashore: 95.00

moorings:
  - id: P1
    kind: pontoon
    boat: Kittiwake
    holder: club
  - id: P2
    kind: pontoon
    boat: Shearwater
    holder: club
  - id: P3
    kind: pontoon
    boat: Moonraker
    holder: Jill Tilbrook
  - id: S1
    kind: swinging
    boat: Guillemot
    holder: club
  - id: S2
    kind: swinging
    boat: Halcyon
    holder: Martin Oakes
  - id: S3
    kind: swinging
    boat: null  # free
    holder: null
  - id: T1
    kind: trot
    boat: Bluebell
    holder: Sue Gedge
  - id: T2
    kind: trot
    boat: Whimbrel
    holder: Ray Pinney
"""

NOTICES_JSON = """\
{
  "club": "Hollesby Sailing Club",
  "today": "2026-06-13",
  "refresh_seconds": 90,
  "next_high_waters": 3,
  "tide": {
    "high_water": "13:25",
    "height_m": 4.1,
    "low_m": 0.6
  },
  "wind": {
    "from": "SW",
    "mean_knots": 14,
    "gust_knots": 21
  },
  "flags": {
    "amber_at_knots": 18,
    "red_at_knots": 25
  },
  "out_of_service": [
    { "boat": "Dabchick", "why": "new centreboard case, at Fulcher's yard" }
  ],
  "notices": [
    {
      "title": "Working party: scrub the pontoon, Saturday 6 June, 09:00",
      "from": "Bernard Cole"
    },
    {
      "title": "Saturday Series race 3: first gun 14:00, 20 June",
      "from": "Race officer"
    },
    {
      "title": "Junior week 27-31 July: names to Sally Venn by 1 July",
      "from": "Sally Venn"
    },
    {
      "title": "Bar open after racing on Saturdays from 17:00",
      "from": "Bar committee"
    }
  ]
}
"""

TIDEBOARD_JS = """\
'use strict';

// What the tide board works out: times of day, the next high waters, the flag.

const PERIOD = 745; // minutes from one high water to the next: 12 h 25 min

function pad2(n) {
  return String(n).padStart(2, '0');
}

function toMinutes(time) {
  const [h, m] = time.split(':').map(Number);
  return h * 60 + m;
}

function hhmm(minutes) {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}`;
}

function nextHighs(highWater, count) {
  const first = toMinutes(highWater);
  const times = [];
  for (let i = 0; i < count; i += 1) {
    times.push(hhmm(first + i * PERIOD));
  }
  return times;
}

// The flag goes by the gusts: amber from amber_at_knots, red from red_at_knots.
function flagFor(wind, flags) {
  if (wind.gust_knots >= flags.red_at_knots) {
    return 'red';
  }
  if (wind.gust_knots >= flags.amber_at_knots) {
    return 'amber';
  }
  return 'green';
}

module.exports = { pad2, toMinutes, hhmm, nextHighs, flagFor };
"""

BOARD_MAIN_JS = """\
'use strict';

// Print what the tide board in the clubhouse window shows: node board/main.js

const fs = require('fs');
const path = require('path');
const { nextHighs, flagFor } = require('./tideboard');

const board = JSON.parse(fs.readFileSync(path.join(__dirname, 'notices.json'), 'utf8'));

const FLAG_WORDS = {
  green: 'green flag: sailing as usual',
  amber: 'amber flag: reefs in, juniors stay in the creek',
  red: 'red flag: no club boats out',
};

function main() {
  const { tide, wind, flags } = board;
  // the first of nextHighs is today's own high water
  const later = nextHighs(tide.high_water, board.next_high_waters + 1).slice(1);
  console.log(`${board.club}, ${board.today}`);
  console.log(`high water ${tide.high_water} (${tide.height_m.toFixed(1)} m)`);
  console.log(`next high waters: ${later.join(', ')}`);
  console.log(`wind ${wind.from} ${wind.mean_knots} kn, gusts ${wind.gust_knots} kn`);
  console.log(FLAG_WORDS[flagFor(wind, flags)]);
  const laidUp = board.out_of_service.map((b) => `${b.boat} (${b.why})`);
  console.log(`out of service: ${laidUp.join(', ') || 'none'}`);
  console.log('notices:');
  for (const notice of board.notices) {
    console.log(`  ${notice.title} - ${notice.from}`);
  }
  console.log(`(this page refreshes every ${board.refresh_seconds} s)`);
}

main();
"""

LIB_SH = """\
#!/usr/bin/env bash
# What the club's tools share: source it from a tool, do not run it.

OUTINGS_HEADER="date,boat,skipper,out,in,aboard"

# minutes after midnight of an HH:MM field, for awk programs: awk "$AWK_MINUTES"'...'
AWK_MINUTES='function mins(t,  p) { split(t, p, ":"); return p[1] * 60 + p[2] }'

die() {
  echo "hollesby: $*" >&2
  exit 1
}

log_ok() {
  [ -f "$1" ] || die "no log of outings at $1"
  [ "$(head -n 1 "$1")" = "$OUTINGS_HEADER" ] || die "$1 does not start with $OUTINGS_HEADER"
}

month_ok() {
  case "$1" in
    20[0-9][0-9]-0[1-9] | 20[0-9][0-9]-1[0-2]) ;;
    *) die "$1 is not a month (YYYY-MM)" ;;
  esac
}

count_ok() {
  case "$1" in
    '' | *[!0-9]*) die "$1 is not a whole number" ;;
  esac
}
"""

HOURS_SH = """\
#!/usr/bin/env bash
# The boats that spend the most hours on the water, the most first:
#   bash tools/hours.sh [TOP] [LOG]
#
# TOP is how many boats to list (5 unless given), LOG the log of outings
# (data/outings.csv unless given). Each line gives a boat's hours out and how many
# outings she had, e.g. "Puffin: 23.5 h in 9 outings". The bosun uses it to plan
# which boats come out of the water first for their winter refit.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

TOP="${1:-5}"
LOG="${2:-data/outings.csv}"
count_ok "$TOP"
log_ok "$LOG"

awk -F, "$AWK_MINUTES"'
  NR > 1 { out[$2] += mins($5) - mins($4); trips[$2]++ }
  END {
    for (b in out)
      printf "%d|%s: %.1f h in %d outings\\n", out[b], b, out[b] / 60, trips[b]
  }
' "$LOG" | sort -t'|' -k1,1nr | head -n "$TOP" | cut -d'|' -f2-
"""

SKIPPER_SH = """\
#!/usr/bin/env bash
# One skipper's outings and time on the water:
#   bash tools/skipper.sh NAME [MONTH] [LOG]
#
# NAME as it is written in the log ("Ann Rowe"), MONTH as 2026-05 for that month only,
# LOG the log of outings (data/outings.csv unless given). A line for each outing (the
# day, the boat, out and in, the hours), then the number of outings and the hours in
# all: what the club asks for before a member moves up to the keelboats.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "give a skipper's name, e.g. \\"Ann Rowe\\""
WHO="$1"
MONTH="${2:-}"
LOG="${3:-data/outings.csv}"
log_ok "$LOG"
if [ -n "$MONTH" ]; then
  month_ok "$MONTH"
fi

awk -F, -v who="$WHO" -v month="$MONTH" "$AWK_MINUTES"'
  NR > 1 && $3 == who && (month == "" || substr($1, 1, 7) == month) {
    m = mins($5) - mins($4)
    printf "%s  %s  %s-%s  %.1f h\\n", $1, $2, $4, $5, m / 60
    total += m
    trips++
  }
  END { printf "%s: %d outings, %.1f h on the water\\n", who, trips, total / 60 }
' "$LOG"
"""

OUTINGS_CSV = """\
date,boat,skipper,out,in,aboard
2026-05-02,Puffin,Ann Rowe,10:30,13:00,3
2026-05-02,Kittiwake,Colin Darby,11:00,15:00,3
2026-05-02,Sprat,Maisie Fenn,11:00,12:30,1
2026-05-03,Gannet,Priya Nair,13:00,15:30,2
2026-05-03,Guillemot,Ruth Pask,12:00,17:00,4
2026-05-06,Puffin,Dev Sharma,18:00,20:30,2
2026-05-06,Winkle,Ollie Fenn,18:00,20:00,1
2026-05-09,Puffin,Ann Rowe,10:00,13:30,4
2026-05-09,Dabchick,Maisie Fenn,10:00,12:00,2
2026-05-09,Shearwater,Neil Ashby,11:30,15:00,2
2026-05-10,Kittiwake,Colin Darby,13:00,17:00,3
2026-05-10,Gannet,Sally Venn,13:30,16:00,3
2026-05-13,Sprat,Ollie Fenn,18:15,19:45,1
2026-05-13,Puffin,Priya Nair,18:00,20:00,2
2026-05-16,Guillemot,Ruth Pask,09:30,16:30,4
2026-05-16,Puffin,Ann Rowe,10:30,12:30,3
2026-05-16,Winkle,Maisie Fenn,10:30,12:00,1
2026-05-17,Shearwater,Neil Ashby,14:00,17:30,3
2026-05-17,Dabchick,Sally Venn,14:00,16:30,3
2026-05-20,Gannet,Dev Sharma,18:00,20:30,2
2026-05-23,Kittiwake,Colin Darby,10:00,14:30,3
2026-05-23,Puffin,Ann Rowe,11:00,14:00,2
2026-05-23,Sprat,Maisie Fenn,11:00,13:00,1
2026-05-24,Guillemot,Ruth Pask,12:30,18:00,3
2026-05-27,Winkle,Ollie Fenn,18:00,20:00,1
2026-05-30,Puffin,Dev Sharma,09:30,13:00,4
2026-05-30,Shearwater,Neil Ashby,10:00,13:30,2
2026-05-31,Gannet,Priya Nair,13:00,16:30,2
2026-06-03,Puffin,Ann Rowe,18:00,20:30,2
2026-06-06,Kittiwake,Colin Darby,12:00,16:00,3
2026-06-06,Sprat,Maisie Fenn,12:30,14:00,1
2026-06-06,Gannet,Sally Venn,12:00,15:30,3
2026-06-07,Guillemot,Ruth Pask,13:00,18:30,4
2026-06-07,Winkle,Ollie Fenn,14:00,15:30,1
2026-06-10,Puffin,Priya Nair,18:30,20:30,2
"""

SAILING: dict[str, str] = {
    "README.md": README_MD,
    "fleet.py": FLEET_PY,
    "tides.py": TIDES_PY,
    "bookings.py": BOOKINGS_PY,
    "sheet.py": SHEET_PY,
    "test_club.py": TEST_CLUB_PY,
    "club.toml": CLUB_TOML,
    "moorings.yaml": MOORINGS_YAML,
    "board/notices.json": NOTICES_JSON,
    "board/tideboard.js": TIDEBOARD_JS,
    "board/main.js": BOARD_MAIN_JS,
    "tools/lib.sh": LIB_SH,
    "tools/hours.sh": HOURS_SH,
    "tools/skipper.sh": SKIPPER_SH,
    "data/outings.csv": OUTINGS_CSV,
}
"""The sailing club, file by file: every task of the tenth batch starts from it."""


def sailing_with(changes: dict[str, str]) -> dict[str, str]:
    """:data:`SAILING` with the files in *changes* replaced."""
    return {**SAILING, **changes}
