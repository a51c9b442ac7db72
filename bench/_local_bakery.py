"""A fifth project for the fresh task set (issue 37): a village bakery's order book and
oven, written after the library (:mod:`bench._local_library`), so that a batch of tasks on
it (:mod:`bench._local_fresh_ninth`) meets files, names and words the rules never saw.
Python (what everything costs and the baker's dozen, the order book, the oven's loads,
the morning's baking sheet and their tests), JavaScript (the screen over the counter),
TOML, YAML and JSON settings, shell tools sharing a helper, and a CSV log of what was
baked and sold.
"""

from __future__ import annotations

README_MD = """\
# Marrowby Bakery

The programs behind Marrowby's village bakery: what everything costs, the order book,
the oven's loads for the morning and the sheet the bakers work from (Python), the
screen over the counter (JavaScript), and small tools that read the sales log.

- `python3 daybook.py` prints the morning's baking sheet: what to bake for the orders
  and the counter, when each load goes in and comes out, what the orders come to.
- `python3 -m unittest` runs the tests.
- `node counter/main.js` prints what the counter screen shows.
- `bash tools/takings.sh [DATE]` adds up what the counter took, day by day.
- `bash tools/leftovers.sh [PERCENT]` lists what we bake too much of.

The sales log, `data/sales.csv`, gets a row for every product at closing time: how many
were baked, how many sold, at what price.

Settings: `bakery.toml` (opening hours, the oven, what is baked for the counter, special
orders), `deliveries.yaml` (the van's rounds), `counter/menu.json` (the counter screen
and what is on it).

Small things (baps, croissants, saffron buns) go by the baker's dozen: buy twelve, the
thirteenth is free.
"""

PRICES_PY = '''\
"""What the bakery charges: a price for everything it bakes, the baker's dozen on small
things, and when an order pays a deposit."""

from __future__ import annotations

PRICES = {
    "white loaf": 2.40,
    "sourdough": 4.20,
    "seeded rye": 3.80,
    "bap": 0.55,
    "croissant": 1.60,
    "saffron bun": 1.90,
    "pasty": 4.50,
    "custard tart": 2.20,
}
SMALL = ("bap", "croissant", "saffron bun")  # sold by the baker's dozen
BAKERS_DOZEN = 13  # pay for twelve of a small thing, the thirteenth is free
LARGE_ORDER = 30.00  # an order of this much or more pays a deposit when it is placed
DEPOSIT_RATE = 0.25
CURRENCY = "GBP"


def line_price(product: str, qty: int) -> float:
    """What *qty* of *product* cost: one in every thirteen small things is free."""
    unit = PRICES[product]
    free = qty // BAKERS_DOZEN if product in SMALL else 0
    return round((qty - free) * unit, 2)


def order_total(items: dict[str, int]) -> float:
    """What an order of *items* (product: how many) comes to."""
    return round(sum(line_price(product, qty) for product, qty in items.items()), 2)


def needs_deposit(total: float) -> bool:
    return total >= LARGE_ORDER
'''

ORDERS_PY = '''\
"""The order book: what customers have asked for, when it is collected or goes out on the
van, and what they still owe."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from prices import DEPOSIT_RATE, PRICES, needs_deposit, order_total

HHMM = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")


@dataclass
class Order:
    number: int
    customer: str
    pickup: str  # "HH:MM": when it is collected, or when the van leaves with it
    items: dict[str, int]
    paid: bool = False
    van: str | None = None  # the delivery round it goes out on, None when collected

    @property
    def total(self) -> float:
        return order_total(self.items)

    @property
    def deposit(self) -> float:
        """What was paid when the order was placed: a share of a large order."""
        return round(self.total * DEPOSIT_RATE, 2) if needs_deposit(self.total) else 0.0

    @property
    def owing(self) -> float:
        return 0.0 if self.paid else round(self.total - self.deposit, 2)


@dataclass
class OrderBook:
    orders: dict[int, Order] = field(default_factory=dict)

    def place(
        self, customer: str, pickup: str, items: dict[str, int], van: str | None = None
    ) -> Order:
        if not HHMM.fullmatch(pickup):
            raise ValueError(f"pickup time {pickup!r} is not HH:MM")
        for product, qty in items.items():
            if product not in PRICES:
                raise ValueError(f"we don't bake {product!r}")
            if qty <= 0:
                raise ValueError(f"{qty} x {product} is not an order")
        number = max(self.orders, default=100) + 1
        self.orders[number] = Order(number, customer, pickup, dict(items), van=van)
        return self.orders[number]

    def cancel(self, number: int) -> Order:
        return self.orders.pop(number)

    def mark_paid(self, number: int) -> Order:
        self.orders[number].paid = True
        return self.orders[number]

    def by_pickup(self) -> list[Order]:
        """The orders, the earliest collected first."""
        return sorted(self.orders.values(), key=lambda o: (o.pickup, o.number))

    def to_bake(self) -> dict[str, int]:
        """How many of each product the orders need."""
        counts: dict[str, int] = {}
        for order in self.orders.values():
            for product, qty in order.items.items():
                counts[product] = counts.get(product, 0) + qty
        return counts

    def unpaid(self) -> list[Order]:
        return [o for o in self.by_pickup() if not o.paid]

    def on_van(self, name: str) -> list[Order]:
        return [o for o in self.by_pickup() if o.van == name]


def sample_book() -> OrderBook:
    """The order book for Saturday 16 May 2026, as it stood on Friday at closing."""
    book = OrderBook()
    book.place("The Ship Inn", "06:45", {"bap": 26, "white loaf": 4}, van="village")
    book.place("Mrs Penrose", "08:30", {"sourdough": 1, "saffron bun": 6})
    book.place(
        "St Anne's Church Hall",
        "06:45",
        {"saffron bun": 26, "custard tart": 12, "croissant": 13},
        van="village",
    )
    book.place("Tom Hale", "10:00", {"pasty": 4})
    book.place(
        "Saturday market stall",
        "09:15",
        {"sourdough": 10, "seeded rye": 6, "white loaf": 8},
        van="town",
    )
    book.place("Dr Okafor", "11:30", {"croissant": 4, "seeded rye": 1})
    book.place("Gwen and Alan Trew", "12:15", {"pasty": 2, "custard tart": 2, "white loaf": 1})
    book.mark_paid(102)
    book.mark_paid(105)
    return book
'''

OVEN_PY = '''\
"""The oven's morning: what bakes at what heat and for how long, how many go on a tray,
and the loads in the order they go in."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

BAKE = {  # product: (degrees C, minutes)
    "white loaf": (220, 35),
    "sourdough": (230, 40),
    "seeded rye": (210, 50),
    "bap": (200, 15),
    "croissant": (190, 18),
    "saffron bun": (190, 22),
    "pasty": (200, 45),
    "custard tart": (180, 25),
}
PER_TRAY = {
    "white loaf": 6,
    "sourdough": 5,
    "seeded rye": 5,
    "bap": 15,
    "croissant": 12,
    "saffron bun": 12,
    "pasty": 8,
    "custard tart": 10,
}
SETTLE_MINUTES = 10  # for the oven to come down to a lower heat between loads


@dataclass
class Load:
    start: int  # minutes after midnight
    end: int
    product: str
    trays: int
    heat: int


def trays_for(product: str, count: int) -> int:
    """How many trays *count* of *product* take."""
    return ceil(count / PER_TRAY[product])


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def minutes_of(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def plan(counts: dict[str, int], switch_on: str, shelves: int, preheat: int) -> list[Load]:
    """The loads that bake *counts* (product: how many), the hottest first. The oven is
    switched on at *switch_on* and takes *preheat* minutes to heat up; it holds *shelves*
    trays at a time, so a big batch goes in as several loads."""
    now = minutes_of(switch_on) + preheat
    heat = None
    loads = []
    for product in sorted(counts, key=lambda p: (-BAKE[p][0], p)):
        if counts[product] <= 0:
            continue
        temperature, minutes = BAKE[product]
        if heat is not None and temperature != heat:
            now += SETTLE_MINUTES
        heat = temperature
        left = trays_for(product, counts[product])
        while left:
            trays = min(left, shelves)
            loads.append(Load(now, now + minutes, product, trays, temperature))
            now += minutes
            left -= trays
    return loads
'''

DAYBOOK_PY = '''\
"""Print the morning's baking sheet: python3 daybook.py"""

import tomllib
from datetime import date
from pathlib import Path

from orders import sample_book
from oven import clock, plan, trays_for
from prices import CURRENCY

DAY = date(2026, 5, 16)  # the Saturday the sample order book is for


def settings() -> dict:
    with open(Path(__file__).with_name("bakery.toml"), "rb") as f:
        return tomllib.load(f)


def sheet() -> list[str]:
    conf = settings()
    weekday = DAY.strftime("%A").lower()
    book = sample_book()
    orders = book.by_pickup()
    counts = dict(conf["counter"])
    for product, qty in book.to_bake().items():
        counts[product] = counts.get(product, 0) + qty
    oven = conf["oven"]
    loads = plan(counts, oven["switch_on"], oven["shelves"], oven["preheat_minutes"])
    vans = sum(1 for order in orders if order.van)
    lines = [
        f"{conf['bakery']['name']}, {weekday} {DAY.isoformat()}, "
        f"open {conf['hours'][weekday]}",
        f"orders: {len(orders)}, {vans} going out on the van",
        "to bake (orders and the counter):",
    ]
    for product in sorted(counts):
        trays = trays_for(product, counts[product])
        lines.append(f"  {product}: {counts[product]} ({trays} tray{'s' * (trays != 1)})")
    lines.append(f"oven on at {oven['switch_on']}, first load in at {clock(loads[0].start)}")
    for load in loads:
        lines.append(
            f"  {clock(load.start)}-{clock(load.end)}  {load.product}, "
            f"{load.trays} tray{'s' * (load.trays != 1)} at {load.heat} C"
        )
    total = sum(order.total for order in orders)
    deposits = sum(order.deposit for order in book.unpaid())
    owing = sum(order.owing for order in orders)
    return [
        *lines,
        f"last load out: {clock(loads[-1].end)}",
        f"orders come to: {total:.2f} {CURRENCY}",
        f"deposits paid: {deposits:.2f} {CURRENCY}",
        f"still owing: {owing:.2f} {CURRENCY}",
    ]


def main() -> None:
    for line in sheet():
        print(line)


if __name__ == "__main__":
    main()
'''

TEST_BAKERY_PY = """\
import unittest

from orders import OrderBook, sample_book
from oven import minutes_of, plan, trays_for
from prices import line_price, order_total


class PricesTest(unittest.TestCase):
    def test_loaves(self) -> None:
        self.assertEqual(line_price("white loaf", 4), 9.60)

    def test_order_total(self) -> None:
        self.assertEqual(order_total({"pasty": 2, "custard tart": 2}), 13.40)


class OrdersTest(unittest.TestCase):
    def test_no_deposit_on_a_small_order(self) -> None:
        order = OrderBook().place("Tom Hale", "10:00", {"pasty": 4})
        self.assertEqual((order.deposit, order.owing), (0.0, 18.0))

    def test_deposit_on_a_large_order(self) -> None:
        order = OrderBook().place("Marrowby Cricket Club", "12:00", {"pasty": 8})
        self.assertEqual((order.deposit, order.owing), (9.0, 27.0))

    def test_paid_owes_nothing(self) -> None:
        book = OrderBook()
        book.place("Dr Okafor", "11:30", {"seeded rye": 1})
        self.assertEqual(book.mark_paid(101).owing, 0.0)

    def test_we_do_not_bake_it(self) -> None:
        with self.assertRaises(ValueError):
            OrderBook().place("Mrs Penrose", "08:30", {"bagel": 6})

    def test_pickup_time(self) -> None:
        with self.assertRaises(ValueError):
            OrderBook().place("Mrs Penrose", "8.30", {"sourdough": 1})

    def test_earliest_first(self) -> None:
        numbers = [order.number for order in sample_book().by_pickup()]
        self.assertEqual(numbers, [101, 103, 102, 105, 104, 106, 107])

    def test_to_bake(self) -> None:
        self.assertEqual(sample_book().to_bake()["pasty"], 6)


class OvenTest(unittest.TestCase):
    def test_trays_round_up(self) -> None:
        self.assertEqual(trays_for("croissant", 13), 2)

    def test_hottest_first(self) -> None:
        loads = plan({"custard tart": 10, "white loaf": 6}, "05:00", shelves=4, preheat=0)
        self.assertEqual([load.product for load in loads], ["white loaf", "custard tart"])
        self.assertEqual(loads[1].start, minutes_of("05:45"))

    def test_big_batch_in_two_loads(self) -> None:
        loads = plan({"bap": 100}, "05:00", shelves=4, preheat=0)
        self.assertEqual([load.trays for load in loads], [4, 3])


if __name__ == "__main__":
    unittest.main()
"""

BAKERY_TOML = """\
# Settings of the bakery's day. daybook.py reads them when it prints the morning's sheet.

[bakery]
name = "Marrowby Bakery"
address = "7 Fore Street, Marrowby"
timezone = "Europe/London"

[hours]
monday = "closed"
tuesday = "07:30-16:00"
wednesday = "07:30-16:00"
thursday = "07:30-16:00"
friday = "07:30-16:00"
saturday = "07:00-13:00"
sunday = "closed"

[oven]
switch_on = "03:30"
preheat_minutes = 30
shelves = 5  # trays it takes at a time

# what is baked for the counter each morning, on top of the orders
[counter]
"white loaf" = 18
sourdough = 12
"seeded rye" = 6
bap = 30
croissant = 36
"saffron bun" = 12
pasty = 16
"custard tart" = 10

[orders]
notice_hours = 48  # for special orders
cancel_by = "16:00"  # on the day before
largest = 200  # pieces in one order
"""

DELIVERIES_YAML = """\
# The van's delivery rounds. The driver's list is printed from it each morning.
van: white Berlingo
driver: Jess
charges:
  delivery_fee: 2.50
  free_over: 15.00

rounds:
  - name: village
    leaves: "06:45"
    days: [tue, wed, thu, fri, sat]
    stops:
      - The Ship Inn
      - Marrowby Primary School
      - Post Office Stores
      - St Anne's Church Hall
  - name: farms
    leaves: "07:30"
    days: [tue, fri]
    stops:
      - Ellis Farm Shop
      - Higher Combe Campsite
      - Nanscawen Dairy
  - name: town
    leaves: "09:15"
    days: [sat]
    stops:
      - Saturday market stall
"""

MENU_JSON = """\
{
  "shop": "Marrowby Bakery",
  "currency": "£",
  "rotate_seconds": 12,
  "show_allergens": true,
  "sections": ["bread", "sweet", "savoury"],
  "items": [
    { "name": "White loaf", "section": "bread", "price": 2.40, "left": 9,
      "allergens": ["gluten"] },
    { "name": "Sourdough", "section": "bread", "price": 4.20, "left": 0,
      "allergens": ["gluten"] },
    { "name": "Seeded rye", "section": "bread", "price": 3.80, "left": 3,
      "allergens": ["gluten", "sesame"] },
    { "name": "Bap", "section": "bread", "price": 0.55, "left": 22,
      "allergens": ["gluten"] },
    { "name": "Croissant", "section": "sweet", "price": 1.60, "left": 7,
      "allergens": ["gluten", "milk", "egg"] },
    { "name": "Saffron bun", "section": "sweet", "price": 1.90, "left": 0,
      "allergens": ["gluten", "milk"] },
    { "name": "Custard tart", "section": "sweet", "price": 2.20, "left": 5,
      "allergens": ["gluten", "milk", "egg"] },
    { "name": "Flapjack", "section": "sweet", "price": 1.75, "left": 10,
      "allergens": ["oats"] },
    { "name": "Pasty", "section": "savoury", "price": 4.50, "left": 6,
      "allergens": ["gluten", "milk"] }
  ]
}
"""

BOARD_JS = """\
'use strict';

// What the counter screen shows: price tags, what has run out, what to warn people about.

function priceTag(price, currency) {
  return `${currency}${price.toFixed(2)}`;
}

function inSection(items, section) {
  return items.filter((item) => item.section === section);
}

function soldOut(items) {
  return items.filter((item) => item.left === 0).map((item) => item.name);
}

function freeOf(items, allergen) {
  return items.filter((item) => !item.allergens.includes(allergen)).map((item) => item.name);
}

function cheapest(items) {
  let best = null;
  for (const item of items) {
    if (best === null || item.price < best.price) {
      best = item;
    }
  }
  return best;
}

module.exports = { priceTag, inSection, soldOut, freeOf, cheapest };
"""

MAIN_JS = """\
'use strict';

// Print what the screen over the counter shows: node counter/main.js

const fs = require('fs');
const path = require('path');
const { priceTag, inSection, soldOut, freeOf, cheapest } = require('./board');

const menu = JSON.parse(fs.readFileSync(path.join(__dirname, 'menu.json'), 'utf8'));

function line(item) {
  const price = priceTag(item.price, menu.currency);
  const warn = menu.show_allergens ? `  (${item.allergens.join(', ')})` : '';
  const left = item.left === 0 ? 'sold out' : `${item.left} left`;
  return `${item.name}  ${price}${warn}  ${left}`;
}

function main() {
  const { items, sections } = menu;
  console.log(`${menu.shop}: ${items.length} things, a page every ${menu.rotate_seconds} s`);
  for (const section of sections) {
    console.log(`${section}:`);
    for (const item of inSection(items, section)) {
      console.log(`  ${line(item)}`);
    }
  }
  console.log(`sold out: ${soldOut(items).join(', ') || 'nothing'}`);
  console.log(`gluten free: ${freeOf(items, 'gluten').join(', ') || 'nothing'}`);
  const low = cheapest(items);
  console.log(`cheapest: ${low.name} (${priceTag(low.price, menu.currency)})`);
}

main();
"""

COMMON_SH = """\
#!/usr/bin/env bash
# Helpers shared by the bakery's tools: source it, do not run it.

SALES_HEADER="date,product,baked,sold,price"

complain() {
  echo "bakery: $*" >&2
}

check_log() {
  local file="$1"
  if [ ! -f "$file" ]; then
    complain "no sales log at $file"
    exit 1
  fi
  if [ "$(head -n 1 "$file")" != "$SALES_HEADER" ]; then
    complain "$file does not start with $SALES_HEADER"
    exit 1
  fi
}

check_date() {
  case "$1" in
    [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]) ;;
    *)
      complain "$1 is not a date (YYYY-MM-DD)"
      exit 1
      ;;
  esac
}

check_number() {
  case "$1" in
    '' | *[!0-9]*)
      complain "$1 is not a whole number"
      exit 1
      ;;
  esac
}
"""

TAKINGS_SH = """\
#!/usr/bin/env bash
# What the counter took, day by day: bash tools/takings.sh [DATE] [LOG]
set -euo pipefail

. "$(dirname "$0")/common.sh"

DAY="${1:-}"
LOG="${2:-data/sales.csv}"
check_log "$LOG"
if [ -n "$DAY" ]; then
  check_date "$DAY"
fi

awk -F, -v day="$DAY" '
  NR > 1 && (day == "" || $1 == day) { took[$1] += $4 * $5; all += $4 * $5 }
  END {
    for (d in took) printf "%s  %.2f GBP\\n", d, took[d] | "sort"
    close("sort")
    printf "total: %.2f GBP\\n", all
  }
' "$LOG"
"""

LEFTOVERS_SH = """\
#!/usr/bin/env bash
# What we bake too much of: the products of which more than PERCENT (10 unless given) of
# what was baked went unsold, the most left over first.
#   bash tools/leftovers.sh [PERCENT] [LOG]
set -euo pipefail

. "$(dirname "$0")/common.sh"

OVER="${1:-10}"
LOG="${2:-data/sales.csv}"
check_number "$OVER"
check_log "$LOG"

awk -F, -v over="$OVER" '
  NR > 1 { baked[$2] += $3; left[$2] += $3 - $4 }
  END {
    for (p in baked)
      if (100 * left[p] > over * baked[p])
        printf "%d|%s: %d left of %d baked (%d%%)\\n",
          left[p], p, left[p], baked[p], 100 * left[p] / baked[p]
  }
' "$LOG" | sort -t'|' -k1,1nr | cut -d'|' -f2-
"""

SALES_CSV = """\
date,product,baked,sold,price
2026-05-05,white loaf,20,17,2.40
2026-05-05,sourdough,12,12,4.20
2026-05-05,seeded rye,6,5,3.80
2026-05-05,bap,30,24,0.55
2026-05-05,croissant,36,28,1.60
2026-05-05,custard tart,10,9,2.20
2026-05-06,white loaf,20,19,2.40
2026-05-06,sourdough,12,11,4.20
2026-05-06,seeded rye,6,5,3.80
2026-05-06,bap,30,27,0.55
2026-05-06,croissant,36,30,1.60
2026-05-06,custard tart,10,7,2.20
2026-05-07,white loaf,20,18,2.40
2026-05-07,sourdough,12,12,4.20
2026-05-07,seeded rye,6,6,3.80
2026-05-07,bap,30,25,0.55
2026-05-07,croissant,36,25,1.60
2026-05-07,pasty,16,15,4.50
2026-05-07,custard tart,10,10,2.20
2026-05-08,white loaf,22,22,2.40
2026-05-08,sourdough,14,13,4.20
2026-05-08,seeded rye,6,4,3.80
2026-05-08,bap,30,30,0.55
2026-05-08,croissant,36,31,1.60
2026-05-08,saffron bun,12,12,1.90
2026-05-08,pasty,16,16,4.50
2026-05-08,custard tart,12,11,2.20
2026-05-09,white loaf,18,18,2.40
2026-05-09,sourdough,12,12,4.20
2026-05-09,seeded rye,6,6,3.80
2026-05-09,bap,30,29,0.55
2026-05-09,croissant,36,34,1.60
2026-05-09,saffron bun,12,10,1.90
2026-05-09,pasty,16,14,4.50
2026-05-09,custard tart,10,8,2.20
"""

BAKERY: dict[str, str] = {
    "README.md": README_MD,
    "prices.py": PRICES_PY,
    "orders.py": ORDERS_PY,
    "oven.py": OVEN_PY,
    "daybook.py": DAYBOOK_PY,
    "test_bakery.py": TEST_BAKERY_PY,
    "bakery.toml": BAKERY_TOML,
    "deliveries.yaml": DELIVERIES_YAML,
    "counter/menu.json": MENU_JSON,
    "counter/board.js": BOARD_JS,
    "counter/main.js": MAIN_JS,
    "tools/common.sh": COMMON_SH,
    "tools/takings.sh": TAKINGS_SH,
    "tools/leftovers.sh": LEFTOVERS_SH,
    "data/sales.csv": SALES_CSV,
}
"""The bakery, file by file: every task of the ninth batch starts from it."""


def bakery_with(changes: dict[str, str]) -> dict[str, str]:
    """:data:`BAKERY` with the files in *changes* replaced."""
    return {**BAKERY, **changes}
