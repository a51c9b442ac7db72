"""A seventh project for the fresh task set (issue 37): the box office of a small
independent theatre run by its members, written after the sailing club
(:mod:`bench._local_sailing`), so that a batch of tasks on it
(:mod:`bench._local_fresh_eleventh`) meets files, names and words the rules never saw.
Python (the house and its seats, what a ticket costs, the season's shows and
performances, the book for a performance, the house manager's report for the night and
their tests), JavaScript (the screen in the foyer), TOML, YAML and JSON settings, shell
tools sharing a helper, and a CSV log of sales.
"""

from __future__ import annotations

README_MD = """\
# The Lantern Theatre: box office

The programs behind the box office of the Lantern Theatre, a 116-seat theatre on Pelham
Street run by its members: the house and its seats, what a ticket costs, the season's
shows and performances, the book for a performance and the house manager's report for
the night (Python), the screen in the foyer (JavaScript), and small tools that read the
sales log.

- `python3 nightly.py` prints the house manager's report for tonight: when the doors
  open, the interval and the curtain, how many seats are sold in each band, every
  booking, and what the tickets and the booking fees come to.
- `python3 -m unittest` runs the tests.
- `node foyer/main.js` prints what the screen in the foyer shows.
- `bash tools/sales.sh [LOG]` gives each show's tickets and takings, the most first.
- `bash tools/day.sh DATE [LOG]` gives one day's sales, online, by phone and at the window.

The sales log, `data/sales.csv`, gets a row for every sale: the day it was made, the
performance and the show, how many tickets, what was paid, by card or in cash, and
whether it came in online, by phone or at the window.

Settings: `theatre.toml` (the theatre, the box office's rules, the house and the bar),
`front_of_house.yaml` (who is on duty at each performance, and their phone numbers),
`foyer/screen.json` (what the foyer screen shows).

## Seats and tickets

The stalls are rows A to H, the circle rows J and K; there is no row I. Rows A to E are
sold as the stalls, F to H as the rear stalls. The end seats of the circle, behind the
pillars, are sold as restricted view. H11 and H12 are the wheelchair spaces; a wheelchair
user's companion comes in free, in the seat beside them.

Students, over-65s and under-16s pay less; a booking of eight tickets or more has a tenth
off. Tickets booked online or by phone carry a booking fee for each ticket; there is none
at the window. Phone bookings are held for a few days for payment, then go back on sale.
"""

SEATS_PY = '''\
"""The house: the rows of the stalls and the circle, how many seats each row has, the
two wheelchair spaces, and the band each seat is sold in. A seat is its row and its
number, "C5"; there is no row I, so that nobody mistakes it for a 1."""

from __future__ import annotations

import re

# the rows, front to back, and how many places each has
ROWS = {
    "A": 10,
    "B": 10,
    "C": 12,
    "D": 12,
    "E": 12,
    "F": 12,
    "G": 12,
    "H": 12,
    "J": 12,
    "K": 12,
}
STALLS = "ABCDEFGH"
CIRCLE = "JK"
REAR_STALLS_FROM = "F"  # rows F to H are sold as the rear stalls
RESTRICTED = {"J1", "J12", "K1", "K12"}  # the circle's end seats, behind the pillars
WHEELCHAIR = {"H11", "H12"}  # spaces at the end of row H, no seat fixed there

SEAT = re.compile(r"([A-HJK])([1-9][0-9]?)")


def parse(seat: str) -> tuple[str, int]:
    """The row and number of *seat*; a seat the house does not have is a ValueError."""
    found = SEAT.fullmatch(seat.strip().upper())
    if not found or int(found[2]) > ROWS[found[1]]:
        raise ValueError(f"there is no seat {seat!r} in the house")
    return found[1], int(found[2])


def seat_exists(seat: str) -> bool:
    try:
        parse(seat)
    except ValueError:
        return False
    return True


def band_of(seat: str) -> str:
    """The price band *seat* is sold in."""
    row, _ = parse(seat)
    if seat in RESTRICTED:
        return "restricted view"
    if row in CIRCLE:
        return "circle"
    if row >= REAR_STALLS_FROM:
        return "rear stalls"
    return "stalls"


def all_seats() -> list[str]:
    """Every place in the house, row by row, front to back."""
    return [f"{row}{n}" for row, count in ROWS.items() for n in range(1, count + 1)]


def capacity() -> int:
    return sum(ROWS.values())
'''

PRICES_PY = '''\
"""What a ticket costs: each band's price, what comes off it for a concession, a group's
discount, and the booking fee on tickets not bought at the box office window."""

from __future__ import annotations

from seats import band_of

PRICES = {"stalls": 18.00, "rear stalls": 15.00, "circle": 14.00, "restricted view": 9.00}
# what comes off a ticket's price for each kind of ticket
CONCESSIONS = {"full": 0.00, "student": 2.50, "over 65": 2.00, "under 16": 4.00}
COMPANION = "companion"  # a wheelchair user's companion comes in free
GROUP_FROM = 8  # a booking of this many tickets or more is a group
GROUP_OFF = 0.10  # a group has a tenth off its tickets
PAID_IN = "GBP"


def ticket_price(seat: str, kind: str = "full") -> float:
    """What a ticket of *kind* for *seat* costs, before any group discount."""
    if kind == COMPANION:
        return 0.00
    return round(PRICES[band_of(seat)] - CONCESSIONS[kind], 2)


def tickets_total(prices: list[float]) -> float:
    """What the tickets of one booking come to, a group's discount taken off."""
    total = sum(prices)
    if len(prices) >= GROUP_FROM:
        total *= 1 - GROUP_OFF
    return round(total, 2)


def booking_fee(tickets: int, channel: str, fee: float) -> float:
    """The fee on a booking: *fee* a ticket when it is booked online or by phone, nothing
    at the window."""
    if channel == "window":
        return 0.00
    return round(tickets * fee, 2)
'''

PERFORMANCES_PY = '''\
"""The season: each show, who brings it and how long it runs, and its performances.
Times of day are "HH:MM"; a show's halves and interval are in minutes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Show:
    title: str
    company: str
    first_half: int  # minutes from curtain up to the interval (the whole show if none)
    interval: int  # minutes; 0 when the show runs straight through
    second_half: int = 0
    age_guidance: str = "all ages"


@dataclass(frozen=True)
class Performance:
    code: str
    title: str
    day: str  # YYYY-MM-DD
    curtain: str  # curtain up, HH:MM


SHOWS = {
    show.title: show
    for show in (
        Show("Under the Pier", "Tidewater Players", 65, 20, 60, "12+"),
        Show("Mr Pettigrew's Umbrella", "Lantern Youth Theatre", 75, 0),
        Show("The Glass Orchard", "Halfmoon Theatre Company", 55, 15, 50, "14+"),
    )
}

PERFORMANCES = {
    perf.code: perf
    for perf in (
        Performance("UP-0611E", "Under the Pier", "2026-06-11", "19:30"),
        Performance("UP-0612E", "Under the Pier", "2026-06-12", "19:30"),
        Performance("UP-0613M", "Under the Pier", "2026-06-13", "14:30"),
        Performance("UP-0613E", "Under the Pier", "2026-06-13", "19:30"),
        Performance("MP-0617M", "Mr Pettigrew's Umbrella", "2026-06-17", "14:00"),
        Performance("MP-0618M", "Mr Pettigrew's Umbrella", "2026-06-18", "14:00"),
        Performance("MP-0620M", "Mr Pettigrew's Umbrella", "2026-06-20", "11:00"),
        Performance("GO-0625E", "The Glass Orchard", "2026-06-25", "19:45"),
        Performance("GO-0626E", "The Glass Orchard", "2026-06-26", "19:45"),
        Performance("GO-0627E", "The Glass Orchard", "2026-06-27", "19:45"),
    )
}


def to_minutes(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def performance(code: str) -> Performance:
    try:
        return PERFORMANCES[code]
    except KeyError:
        raise ValueError(f"no performance {code!r} this season") from None


def doors_open(perf: Performance, minutes_before: int) -> str:
    return hhmm(to_minutes(perf.curtain) - minutes_before)


def interval(perf: Performance) -> tuple[str, str] | None:
    """When the interval starts and ends; None for a show with no interval."""
    show = SHOWS[perf.title]
    if not show.interval:
        return None
    starts = to_minutes(perf.curtain) + show.first_half
    return hhmm(starts), hhmm(starts + show.interval)


def comes_down(perf: Performance) -> str:
    """When the curtain comes down at the end."""
    show = SHOWS[perf.title]
    return hhmm(to_minutes(perf.curtain) + show.first_half + show.interval + show.second_half)


def of_show(title: str) -> list[Performance]:
    return [perf for perf in PERFORMANCES.values() if perf.title == title]
'''

BOOKINGS_PY = '''\
"""The box office's book for one performance: which seats are sold to whom, and the
checks a booking passes before its seats are taken off sale."""

from __future__ import annotations

from dataclasses import dataclass, field

from performances import Performance, performance
from prices import COMPANION, booking_fee, ticket_price, tickets_total
from seats import WHEELCHAIR, all_seats, band_of, parse

CHANNELS = ("online", "phone", "window")


@dataclass
class Booking:
    ref: int
    name: str
    seats: list[str]
    kinds: list[str]  # the kind of each seat's ticket, in the same order
    channel: str
    prices: list[float] = field(default_factory=list)

    @property
    def tickets(self) -> float:
        return tickets_total(self.prices)

    def fee(self, per_ticket: float) -> float:
        return booking_fee(len(self.seats), self.channel, per_ticket)


@dataclass
class BoxOffice:
    perf: Performance
    max_tickets: int = 10
    bookings: dict[int, Booking] = field(default_factory=dict)
    sold: dict[str, int] = field(default_factory=dict)  # seat: the booking's ref

    def is_free(self, seat: str) -> bool:
        return seat not in self.sold

    def book(
        self, name: str, seats: list[str], kinds: list[str] | None = None, channel: str = "online"
    ) -> Booking:
        kinds = kinds or ["full"] * len(seats)
        if not 1 <= len(seats) <= self.max_tickets:
            raise ValueError(f"a booking is 1 to {self.max_tickets} tickets, not {len(seats)}")
        if len(kinds) != len(seats):
            raise ValueError("give one kind of ticket for each seat")
        if channel not in CHANNELS:
            raise ValueError(f"{channel!r} is not one of {', '.join(CHANNELS)}")
        if len(set(seats)) != len(seats):
            raise ValueError("the same seat twice in one booking")
        for seat in seats:
            parse(seat)
            if not self.is_free(seat):
                raise ValueError(f"{seat} is already sold")
        if COMPANION in kinds and not WHEELCHAIR & set(seats):
            raise ValueError("a companion ticket goes with a wheelchair space")
        ref = max(self.bookings, default=300) + 1
        prices = [ticket_price(seat, kind) for seat, kind in zip(seats, kinds, strict=True)]
        self.bookings[ref] = Booking(ref, name, list(seats), list(kinds), channel, prices)
        self.sold.update(dict.fromkeys(seats, ref))
        return self.bookings[ref]

    def cancel(self, ref: int) -> Booking:
        booking = self.bookings.pop(ref)
        for seat in booking.seats:
            del self.sold[seat]
        return booking

    def unsold(self) -> list[str]:
        return [seat for seat in all_seats() if self.is_free(seat)]

    def sold_in(self, band: str) -> int:
        return sum(1 for seat in self.sold if band_of(seat) == band)

    def tickets_of(self, kind: str) -> int:
        return sum(b.kinds.count(kind) for b in self.bookings.values())


def sample_night(max_tickets: int = 10) -> BoxOffice:
    """The book for Saturday 13 June 2026, 19:30, as it stood at noon that day."""
    office = BoxOffice(performance("UP-0613E"), max_tickets)
    office.book("Holt", ["C5", "C6"], channel="phone")
    office.book("Asante", ["D7", "D8", "D9"], ["full", "student", "under 16"])
    office.book("Varley", ["F1", "F2"], ["over 65", "over 65"], "window")
    office.book(
        "Wendham Book Club",
        ["E1", "E2", "E3", "E4", "E5", "E6"],
        ["over 65", "over 65", "over 65", "over 65", "full", "full"],
    )
    office.book("Ng", ["J5", "J6"], ["student", "student"])
    office.book("Pereira", ["H11", "H10"], ["full", "companion"], "phone")
    office.book(
        "Stowbridge Grammar School",
        ["K2", "K3", "K4", "K5", "K6", "K7", "K8", "K9"],
        [
            "full",
            "under 16",
            "under 16",
            "under 16",
            "under 16",
            "under 16",
            "under 16",
            "under 16",
        ],
    )
    office.book("Dunmore", ["A4", "A5"], channel="window")
    office.book("Quill", ["J1"])
    office.book(
        "Baptiste", ["G6", "G7", "G8", "G9"], ["full", "full", "under 16", "under 16"], "phone"
    )
    office.book("Achterberg", ["B3", "B4", "B5", "B6"])
    office.book("Lomax", ["C7", "C8"], ["over 65", "over 65"], "phone")
    office.book("Okonjo", ["D1", "D2"], ["full", "student"])
    office.book("Trent", ["E9", "E10"])
    office.book("Halloran", ["J7", "J8", "J9", "J10"], channel="window")
    return office
'''

NIGHTLY_PY = '''\
"""Print the house manager's report for the night: python3 nightly.py"""

import tomllib
from datetime import date
from pathlib import Path

from bookings import sample_night
from performances import SHOWS, comes_down, doors_open, interval
from prices import COMPANION, CONCESSIONS, PAID_IN, PRICES
from seats import WHEELCHAIR, all_seats, band_of, capacity


def theatre_settings() -> dict:
    with open(Path(__file__).with_name("theatre.toml"), "rb") as f:
        return tomllib.load(f)


def report() -> list[str]:
    conf = theatre_settings()
    box, house = conf["box_office"], conf["house"]
    office = sample_night(box["max_tickets"])
    perf = office.perf
    show = SHOWS[perf.title]
    day = date.fromisoformat(perf.day)
    breaks = interval(perf)
    lines = [
        f"{conf['theatre']['name']}: {show.title} ({show.company})",
        f"{day.strftime('%A').lower()} {perf.day}, curtain up {perf.curtain}",
        f"house manager: {house['house_manager']}, duty technician: {house['duty_technician']}",
        f"doors {doors_open(perf, house['doors_open_minutes'])}, "
        + (f"interval {breaks[0]}-{breaks[1]}, " if breaks else "no interval, ")
        + f"down {comes_down(perf)}",
    ]
    sold = len(office.sold)
    lines.append(
        f"sold: {sold} of {capacity()} ({sold * 100 // capacity()}%), {capacity() - sold} left"
    )
    bands = []
    for band in PRICES:
        places = sum(1 for seat in all_seats() if band_of(seat) == band)
        bands.append(f"{band} {office.sold_in(band)} of {places}")
    lines.append("  " + ", ".join(bands))
    spaces = sum(1 for seat in WHEELCHAIR if not office.is_free(seat))
    lines.append(f"wheelchair spaces: {spaces} of {len(WHEELCHAIR)} booked")
    kinds = [*CONCESSIONS, COMPANION]
    lines.append("tickets: " + ", ".join(f"{k} {office.tickets_of(k)}" for k in kinds))
    bookings = sorted(office.bookings.values(), key=lambda b: b.ref)
    lines.append(f"bookings: {len(bookings)}")
    fees = 0.0
    for b in bookings:
        fee = b.fee(box["booking_fee"])
        fees += fee
        seats = " ".join(b.seats)
        lines.append(f"  {b.ref}  {b.name}  {seats}  {b.tickets:.2f} + {fee:.2f} fee  {b.channel}")
    takings = sum(b.tickets for b in bookings)
    return [
        *lines,
        f"tickets come to: {takings:.2f} {PAID_IN}",
        f"booking fees: {fees:.2f} {PAID_IN}",
        f"in all: {takings + fees:.2f} {PAID_IN}",
    ]


def main() -> None:
    for line in report():
        print(line)


if __name__ == "__main__":
    main()
'''

TEST_BOX_OFFICE_PY = """\
import unittest

from bookings import BoxOffice
from performances import comes_down, interval, performance
from prices import booking_fee, ticket_price, tickets_total
from seats import band_of, capacity


class HouseTest(unittest.TestCase):
    def test_the_house_holds_116(self) -> None:
        self.assertEqual(capacity(), 116)

    def test_bands(self) -> None:
        self.assertEqual(band_of("F4"), "rear stalls")
        self.assertEqual(band_of("J1"), "restricted view")
        self.assertEqual(band_of("K6"), "circle")


class PriceTest(unittest.TestCase):
    def test_rear_stalls_at_full_price(self) -> None:
        self.assertEqual(ticket_price("G3"), 15.00)

    def test_concessions(self) -> None:
        self.assertEqual(ticket_price("G3", "student"), 12.50)
        self.assertEqual(ticket_price("J5", "over 65"), 12.00)

    def test_a_companion_comes_in_free(self) -> None:
        self.assertEqual(ticket_price("H10", "companion"), 0.00)

    def test_a_group_has_a_tenth_off(self) -> None:
        self.assertEqual(tickets_total([15.00] * 8), 108.00)

    def test_no_fee_at_the_window(self) -> None:
        self.assertEqual(booking_fee(4, "window", 1.25), 0.00)
        self.assertEqual(booking_fee(4, "phone", 1.25), 5.00)


class PerformanceTest(unittest.TestCase):
    def test_interval_and_curtain_down(self) -> None:
        saturday = performance("UP-0613E")
        self.assertEqual(interval(saturday), ("20:35", "20:55"))
        self.assertEqual(comes_down(saturday), "21:55")

    def test_a_show_with_no_interval(self) -> None:
        matinee = performance("MP-0617M")
        self.assertIsNone(interval(matinee))
        self.assertEqual(comes_down(matinee), "15:15")


class BoxOfficeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.office = BoxOffice(performance("UP-0613E"))

    def test_no_such_seat(self) -> None:
        for seat in ("I4", "A11", "L1"):
            with self.assertRaises(ValueError):
                self.office.book("Holt", [seat])

    def test_too_many_tickets(self) -> None:
        row_c = [f"C{n}" for n in range(1, 12)]
        with self.assertRaises(ValueError):
            self.office.book("Stowbridge Rotary", row_c)

    def test_a_companion_goes_with_a_wheelchair_space(self) -> None:
        with self.assertRaises(ValueError):
            self.office.book("Pereira", ["G1", "G2"], ["full", "companion"])


if __name__ == "__main__":
    unittest.main()
"""

THEATRE_TOML = """\
# The Lantern Theatre: the settings nightly.py reads for the house manager's report.

[theatre]
name = "The Lantern Theatre"
address = "14 Pelham Street, Stowbridge"
licence_until = "2027-03-31"  # the premises licence; the council sends the renewal

[box_office]
phone = "01632 960418"
window_open = "11:00-15:00 Tuesday to Saturday, and from an hour before curtain up"
booking_fee = 1.25  # on each ticket booked online or by phone; none at the window
max_tickets = 10  # in one booking; bigger parties go through the groups desk
hold_unpaid_days = 3  # phone bookings not paid for by then go back on sale
refunds = "only if the performance is cancelled; tickets can be exchanged up to 48 hours before"

[house]
doors_open_minutes = 30  # before curtain up
house_manager = "Fiona Reid"
duty_technician = "Sam Okafor"
latecomers = "admitted at a suitable break in the performance"

[bar]
opens_minutes = 60  # before curtain up
interval_orders = true  # drinks ordered before the show wait on the shelf at the interval
last_orders = "ten minutes after the curtain comes down"

[groups]
desk = "Carol Nash"  # parties of more than max_tickets book through her
email = "groups@lanterntheatre.example"
schools_free_teacher = false  # a school party's teachers pay like anyone else
"""

FRONT_OF_HOUSE_YAML = """\
# Front of house for the run of Under the Pier: who does what at each performance.
# Every performance needs a duty manager, someone in the box office window, someone on
# the bar and enough ushers: three in the stalls and one in the circle, two in the
# stalls at a matinee. Swaps go through Fiona; tell her before you change anything here.
ushers_needed:
  stalls: 3
  circle: 1
  stalls_at_matinees: 2
first_aiders:
  - Fiona Reid
  - Tom Achebe
  - Carol Nash

performances:
  - when: Thursday 11 June, 19:30
    duty_manager: Fiona Reid
    box_office: Carol Nash
    bar: Gwen Otley
    ushers: [Priti Shah, Amos Webb, Dennis Crane, Joan Pike]
  - when: Friday 12 June, 19:30
    duty_manager: Tom Achebe
    box_office: Carol Nash
    bar: Rosa Delgado
    ushers: [Lily Ferris, Amos Webb, Hugh Mabey, Joan Pike]
  - when: Saturday 13 June, 14:30
    duty_manager: Fiona Reid
    box_office: Marjorie Blake
    bar: Gwen Otley
    ushers: [Priti Shah, Hugh Mabey]
  - when: Saturday 13 June, 19:30
    duty_manager: Fiona Reid
    box_office: Carol Nash
    bar: Dennis Crane
    ushers: [Lily Ferris, Amos Webb, Joan Pike, Priti Shah]

# who to ring when someone cannot come
volunteers:
  - name: Amos Webb
    phone: "07700 900112"
  - name: Carol Nash
    phone: "07700 900287"
  - name: Dennis Crane
    phone: "07700 900345"
  - name: Gwen Otley
    phone: "07700 900409"
  - name: Hugh Mabey
    phone: "07700 900521"
  - name: Joan Pike
    phone: "07700 900634"
  - name: Lily Ferris
    phone: "07700 900778"
  - name: Marjorie Blake
    phone: "07700 900816"
  - name: Priti Shah
    phone: "07700 900903"
  - name: Rosa Delgado
    phone: "07700 900958"
"""

SCREEN_JSON = """\
{
  "theatre": "The Lantern Theatre",
  "today": "2026-06-13",
  "page_seconds": 12,
  "few_left_at": 20,
  "tonight": {
    "title": "Under the Pier",
    "company": "Tidewater Players",
    "curtain": "19:30",
    "doors_minutes": 30,
    "first_half_minutes": 65,
    "interval_minutes": 20,
    "second_half_minutes": 60,
    "age_guidance": "12+",
    "seats_left": 70
  },
  "prices": {
    "stalls": 18,
    "rear stalls": 15,
    "circle": 14,
    "restricted view": 9
  },
  "coming_up": [
    {
      "title": "Mr Pettigrew's Umbrella",
      "dates": "17-20 June",
      "note": "family show, 75 minutes, no interval"
    },
    {
      "title": "The Glass Orchard",
      "dates": "25-27 June",
      "note": "contains haze and strobe lighting"
    }
  ],
  "notices": [
    "Latecomers are admitted at a suitable break in the performance",
    "Order your interval drinks at the bar before the show",
    "Hearing loop in the stalls: set your hearing aid to T",
    "Please switch off mobile phones"
  ]
}
"""

SCREEN_JS = """\
'use strict';

// What the foyer screen works out: times of the evening, and the line about seats.

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

// doors, the interval (null when there is none) and when it ends, from tonight's show
function timings(show) {
  const curtain = toMinutes(show.curtain);
  const doors = hhmm(curtain - show.doors_minutes);
  let interval = null;
  if (show.interval_minutes > 0) {
    const starts = curtain + show.first_half_minutes;
    interval = [hhmm(starts), hhmm(starts + show.interval_minutes)];
  }
  const ends = hhmm(
    curtain + show.first_half_minutes + show.interval_minutes + show.second_half_minutes,
  );
  return { doors, interval, ends };
}

function seatsLine(left, fewLeftAt) {
  if (left <= 0) {
    return 'SOLD OUT - returns only, ask at the window';
  }
  if (left <= fewLeftAt) {
    return `only ${left} seats left - book at the window now`;
  }
  return `${left} seats left for tonight`;
}

function pounds(amount) {
  return Number.isInteger(amount) ? `£${amount}` : `£${amount.toFixed(2)}`;
}

module.exports = { pad2, toMinutes, hhmm, timings, seatsLine, pounds };
"""

FOYER_MAIN_JS = """\
'use strict';

// Print what the screen in the foyer shows: node foyer/main.js

const fs = require('fs');
const path = require('path');
const { timings, seatsLine, pounds } = require('./screen');

const screen = JSON.parse(fs.readFileSync(path.join(__dirname, 'screen.json'), 'utf8'));

function main() {
  const show = screen.tonight;
  const { doors, interval, ends } = timings(show);
  console.log(`${screen.theatre}, ${screen.today}`);
  console.log(`tonight: ${show.title} (${show.company}), age ${show.age_guidance}`);
  console.log(`doors ${doors}, curtain up ${show.curtain}`);
  if (interval) {
    console.log(`interval ${interval[0]}-${interval[1]}, ends about ${ends}`);
  } else {
    console.log(`no interval, ends about ${ends}`);
  }
  console.log(seatsLine(show.seats_left, screen.few_left_at));
  const prices = Object.entries(screen.prices).map(([band, p]) => `${band} ${pounds(p)}`);
  console.log(`prices: ${prices.join(', ')}`);
  console.log('coming up:');
  for (const next of screen.coming_up) {
    console.log(`  ${next.dates}  ${next.title} (${next.note})`);
  }
  for (const notice of screen.notices) {
    console.log(`* ${notice}`);
  }
  console.log(`(next page in ${screen.page_seconds} s)`);
}

main();
"""

LIB_SH = """\
#!/usr/bin/env bash
# What the box office tools share: source it from a tool, do not run it.

SALES_HEADER="date,performance,show,tickets,amount,paid_by,channel"
SALES_LOG="data/sales.csv"

die() {
  echo "lantern: $*" >&2
  exit 1
}

log_ok() {
  [ -f "$1" ] || die "no sales log at $1"
  [ "$(head -n 1 "$1")" = "$SALES_HEADER" ] || die "$1 does not start with $SALES_HEADER"
}

date_ok() {
  case "$1" in
    20[0-9][0-9]-0[1-9]-[0-3][0-9] | 20[0-9][0-9]-1[0-2]-[0-3][0-9]) ;;
    *) die "$1 is not a date (YYYY-MM-DD)" ;;
  esac
}
"""

SALES_SH = """\
#!/usr/bin/env bash
# Tickets sold and money taken for each show, the most tickets first:
#   bash tools/sales.sh [LOG]
#
# LOG is the sales log (data/sales.csv unless given). Each line gives a show's tickets,
# what they brought in and how many sales, e.g.
# "Under the Pier: 78 tickets, 1230.50 GBP in 22 sales". The committee reads it at the
# end of each month to see how the season is going.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

LOG="${1:-$SALES_LOG}"
log_ok "$LOG"

awk -F, '
  NR > 1 { tickets[$3] += $4; money[$3] += $5; sales[$3]++ }
  END {
    for (show in tickets)
      printf "%d|%s: %d tickets, %.2f GBP in %d sales\\n",
        tickets[show], show, tickets[show], money[show], sales[show]
  }
' "$LOG" | sort -t'|' -k1,1nr | cut -d'|' -f2-
"""

DAY_SH = """\
#!/usr/bin/env bash
# One day's sales at the box office, by how they came in, then in all:
#   bash tools/day.sh DATE [LOG]
#
# DATE as 2026-06-06, LOG the sales log (data/sales.csv unless given). A line for each
# of online, phone and window (sales, tickets, money), then the day's total: what the
# box office manager checks against the card machine and the cash tin.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "give a date, e.g. 2026-06-06"
DAY="$1"
LOG="${2:-$SALES_LOG}"
date_ok "$DAY"
log_ok "$LOG"

awk -F, -v day="$DAY" '
  NR > 1 && $1 == day { sales[$7]++; tickets[$7] += $4; money[$7] += $5 }
  END {
    print day
    split("online phone window", ways, " ")
    for (i = 1; i <= 3; i++) {
      w = ways[i]
      printf "  %s: %d sales, %d tickets, %.2f GBP\\n", w, sales[w], tickets[w], money[w]
      all_sales += sales[w]; all_tickets += tickets[w]; all_money += money[w]
    }
    printf "in all: %d sales, %d tickets, %.2f GBP\\n", all_sales, all_tickets, all_money
  }
' "$LOG"
"""

SALES_CSV = """\
date,performance,show,tickets,amount,paid_by,channel
2026-05-26,UP-0613E,Under the Pier,2,38.50,card,online
2026-05-26,UP-0611E,Under the Pier,4,64.00,card,phone
2026-05-27,GO-0626E,The Glass Orchard,2,36.00,cash,window
2026-05-27,UP-0612E,Under the Pier,3,49.75,card,online
2026-05-28,MP-0617M,Mr Pettigrew's Umbrella,5,52.50,card,online
2026-05-28,UP-0613M,Under the Pier,2,28.00,cash,window
2026-05-29,UP-0613E,Under the Pier,6,107.50,card,online
2026-05-29,GO-0625E,The Glass Orchard,2,30.50,card,phone
2026-05-30,UP-0612E,Under the Pier,2,36.00,cash,window
2026-05-30,MP-0620M,Mr Pettigrew's Umbrella,4,44.00,card,window
2026-05-30,UP-0611E,Under the Pier,1,19.25,card,online
2026-06-02,UP-0613E,Under the Pier,8,85.60,card,online
2026-06-02,GO-0627E,The Glass Orchard,4,74.50,card,online
2026-06-03,UP-0612E,Under the Pier,2,33.50,card,phone
2026-06-03,MP-0618M,Mr Pettigrew's Umbrella,3,31.50,cash,window
2026-06-04,UP-0613M,Under the Pier,4,58.00,card,online
2026-06-04,UP-0611E,Under the Pier,2,26.00,cash,window
2026-06-05,GO-0626E,The Glass Orchard,2,30.50,card,online
2026-06-05,UP-0613E,Under the Pier,2,38.50,card,phone
2026-06-06,UP-0612E,Under the Pier,4,77.00,card,online
2026-06-06,UP-0613E,Under the Pier,2,36.00,cash,window
2026-06-06,MP-0617M,Mr Pettigrew's Umbrella,6,63.00,card,phone
2026-06-06,UP-0613M,Under the Pier,3,42.75,card,online
2026-06-06,GO-0625E,The Glass Orchard,2,28.00,cash,window
2026-06-06,UP-0611E,Under the Pier,2,38.50,card,online
2026-06-09,UP-0613E,Under the Pier,4,69.00,card,phone
2026-06-09,MP-0620M,Mr Pettigrew's Umbrella,2,21.00,card,online
2026-06-09,UP-0612E,Under the Pier,1,18.00,cash,window
2026-06-10,GO-0627E,The Glass Orchard,3,47.25,card,online
2026-06-10,UP-0613E,Under the Pier,2,25.00,card,online
2026-06-10,UP-0611E,Under the Pier,3,51.00,card,window
2026-06-11,UP-0612E,Under the Pier,2,38.50,card,online
2026-06-11,UP-0611E,Under the Pier,4,72.00,cash,window
2026-06-11,MP-0618M,Mr Pettigrew's Umbrella,4,42.00,card,online
2026-06-12,UP-0613E,Under the Pier,3,51.75,card,phone
2026-06-12,UP-0612E,Under the Pier,5,90.00,card,window
2026-06-12,GO-0626E,The Glass Orchard,2,36.00,card,window
"""

THEATRE: dict[str, str] = {
    "README.md": README_MD,
    "seats.py": SEATS_PY,
    "prices.py": PRICES_PY,
    "performances.py": PERFORMANCES_PY,
    "bookings.py": BOOKINGS_PY,
    "nightly.py": NIGHTLY_PY,
    "test_box_office.py": TEST_BOX_OFFICE_PY,
    "theatre.toml": THEATRE_TOML,
    "front_of_house.yaml": FRONT_OF_HOUSE_YAML,
    "foyer/screen.json": SCREEN_JSON,
    "foyer/screen.js": SCREEN_JS,
    "foyer/main.js": FOYER_MAIN_JS,
    "tools/lib.sh": LIB_SH,
    "tools/sales.sh": SALES_SH,
    "tools/day.sh": DAY_SH,
    "data/sales.csv": SALES_CSV,
}
"""The theatre's box office, file by file: every task of the eleventh batch starts from it."""


def theatre_with(changes: dict[str, str]) -> dict[str, str]:
    """:data:`THEATRE` with the files in *changes* replaced."""
    return {**THEATRE, **changes}
