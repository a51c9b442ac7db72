"""A fourth project for the fresh task set (issue 37): the lending desk of a small town's
community library, written after the greenhouse (:mod:`bench._local_greenhouse`), so that
a batch of tasks on it (:mod:`bench._local_fresh_eighth`) meets files, names and words
the rules never saw. Python (the stock and who has it out, loan periods and late fines,
the day's desk report and their tests), JavaScript (the self-service kiosk), TOML, JSON
and YAML settings, shell tools sharing a helper, and a CSV log of loans.
"""

from __future__ import annotations

README_MD = """\
# Kilnworth community library: the lending desk

The programs behind the lending desk of Kilnworth's community library: the stock and
who has it out, how long things go out for and what a late return costs, the day's desk
report (Python), the self-service kiosk by the entrance (JavaScript), and small tools
that read the loans log.

- `python3 desk.py` prints the day's desk report: what is due back, what is overdue, the
  fines owed.
- `python3 -m unittest` runs the tests.
- `node kiosk/main.js` prints what the kiosk shows, with a sample search.
- `bash tools/popular.sh` lists the most borrowed titles.
- `bash tools/member.sh CARD` lists the loans of one library card.

The loans log, `data/loans.csv`, gets a row for every loan when it comes back.

Settings: `library.toml` (opening hours, members' limits, fines), `kiosk/shelves.json`
(the kiosk, its shelf map and the titles it knows), `reminders.yaml` (the messages
members get).

Card numbers: M for adults, J for junior cards (under 16s).
"""

CATALOGUE_PY = '''\
"""The library's stock: what is on the shelves, who has it out, who is waiting for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from loans import may_renew

KINDS = ("book", "dvd", "audiobook")
MAX_HOLDS = 3  # holds one card may have waiting at a time


@dataclass
class Item:
    barcode: str
    title: str
    author: str
    kind: str = "book"
    card: str | None = None  # the card it is lent to, None while it is on the shelf
    due: date | None = None
    renewals: int = 0
    holds: list[str] = field(default_factory=list)  # cards waiting for it, first come first


@dataclass
class Catalogue:
    items: dict[str, Item] = field(default_factory=dict)

    def add(self, barcode: str, title: str, author: str, kind: str = "book") -> Item:
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}")
        if barcode in self.items:
            raise ValueError(f"barcode {barcode} is already in the catalogue")
        self.items[barcode] = Item(barcode, title, author, kind)
        return self.items[barcode]

    def lend(self, barcode: str, card: str, due: date) -> Item:
        item = self.items[barcode]
        if item.card is not None:
            raise ValueError(f"{item.title} is already out")
        if item.holds and item.holds[0] != card:
            raise ValueError(f"{item.title} is kept for {item.holds[0]}")
        if item.holds:
            item.holds.pop(0)
        item.card, item.due, item.renewals = card, due, 0
        return item

    def check_in(self, barcode: str) -> Item:
        item = self.items[barcode]
        item.card, item.due, item.renewals = None, None, 0
        return item

    def renew(self, barcode: str, due: date) -> Item:
        item = self.items[barcode]
        if not may_renew(item):
            raise ValueError(f"{item.title} cannot be renewed")
        item.due = due
        item.renewals += 1
        return item

    def place_hold(self, barcode: str, card: str) -> Item:
        waiting = sum(card in item.holds for item in self.items.values())
        if waiting >= MAX_HOLDS:
            raise ValueError(f"{card} already has {MAX_HOLDS} holds")
        self.items[barcode].holds.append(card)
        return self.items[barcode]

    def on_loan(self) -> list[Item]:
        """The items lent out, the soonest due first."""
        out = [item for item in self.items.values() if item.card is not None]
        return sorted(out, key=lambda item: (item.due, item.barcode))

    def overdue(self, today: date) -> list[str]:
        """The barcodes of the items that were due back before *today*, the longest
        overdue first."""
        return [item.barcode for item in self.on_loan() if item.due < today]

    def by_author(self, name: str) -> list[str]:
        """The titles by authors whose name holds *name*, in any case."""
        return sorted(i.title for i in self.items.values() if name.lower() in i.author.lower())

    def cards(self) -> dict[str, int]:
        """How many items each card has out."""
        counts: dict[str, int] = {}
        for item in self.on_loan():
            counts[item.card] = counts.get(item.card, 0) + 1
        return counts


def sample_catalogue() -> Catalogue:
    """Part of the stock, as the desk saw it on the morning of 14 March 2026."""
    stock = Catalogue()
    for barcode, title, author, kind in (
        ("K0001", "Wolf Hall", "Hilary Mantel", "book"),
        ("K0002", "The Secret Garden", "Frances Hodgson Burnett", "book"),
        ("K0003", "Gardening Through the Year", "Ian Spence", "book"),
        ("K0004", "Hamnet", "Maggie O'Farrell", "book"),
        ("K0005", "A Brief History of Time", "Stephen Hawking", "book"),
        ("K0006", "The Cat in the Hat", "Dr. Seuss", "book"),
        ("D0001", "Paddington 2", "Paul King", "dvd"),
        ("D0002", "Brassed Off", "Mark Herman", "dvd"),
        ("A0001", "Pride and Prejudice", "Jane Austen", "audiobook"),
        ("A0002", "The Hobbit", "J. R. R. Tolkien", "audiobook"),
    ):
        stock.add(barcode, title, author, kind)
    for barcode, card, due in (
        ("K0001", "M1042", date(2026, 3, 14)),
        ("K0002", "J2207", date(2026, 3, 9)),
        ("K0004", "M1108", date(2026, 3, 2)),
        ("D0001", "M1042", date(2026, 3, 10)),
        ("D0002", "M1315", date(2026, 3, 1)),
        ("A0001", "M1042", date(2026, 3, 20)),
        ("A0002", "M1315", date(2026, 3, 21)),
    ):
        stock.lend(barcode, card, due)
    stock.place_hold("K0005", "M1108")
    stock.place_hold("A0002", "M1042")
    stock.place_hold("A0002", "J2207")
    return stock
'''

LOANS_PY = '''\
"""How long things go out for, what a late return costs, and when a loan may be renewed."""

from __future__ import annotations

from datetime import date, timedelta

LOAN_DAYS = {"book": 21, "dvd": 7, "audiobook": 14}
FINE_PER_DAY = {"book": 0.20, "dvd": 1.00, "audiobook": 0.20}  # pounds a day late
FINE_CAP = 5.00  # no item ever runs up more than this
MAX_RENEWALS = 2
CURRENCY = "GBP"


def due_date(kind: str, lent_on: date) -> date:
    """When an item of *kind* lent out on *lent_on* is due back."""
    return lent_on + timedelta(days=LOAN_DAYS[kind])


def days_late(due: date, today: date) -> int:
    return max(0, (today - due).days)


def is_junior(card: str) -> bool:
    """Junior cards (J...) are for the under 16s, who pay no fines."""
    return card.startswith("J")


def late_fee(kind: str, due: date, today: date, junior: bool = False) -> float:
    """The fine on an item of *kind* due back on *due* and still out on *today*: so much a
    day, never more than FINE_CAP, nothing on a junior card."""
    if junior:
        return 0.0
    return min(FINE_CAP, round(days_late(due, today) * FINE_PER_DAY[kind], 2))


def may_renew(item) -> bool:
    """Whether *item* may go out again for another period: not past MAX_RENEWALS, and
    nobody waiting for it."""
    return item.renewals < MAX_RENEWALS and not item.holds
'''

DESK_PY = '''\
"""Print the day's report for the lending desk: python3 desk.py"""

import tomllib
from datetime import date
from pathlib import Path

from catalogue import sample_catalogue
from loans import CURRENCY, days_late, is_junior, late_fee

TODAY = date(2026, 3, 14)  # the morning the sample catalogue was taken


def settings() -> dict:
    with open(Path(__file__).with_name("library.toml"), "rb") as f:
        return tomllib.load(f)


def report() -> list[str]:
    conf = settings()
    day = TODAY.strftime("%A").lower()
    name, hours = conf["library"]["name"], conf["hours"][day]
    stock = sample_catalogue()
    out = stock.on_loan()
    due_today = [item.title for item in out if item.due == TODAY]
    lines = [
        f"{name} library, {day} {TODAY.isoformat()}, open {hours}",
        f"items: {len(stock.items)}",
        f"on loan: {len(out)}",
        f"due back today: {', '.join(due_today) or 'none'}",
        "overdue:",
    ]
    owed = 0.0
    for barcode in stock.overdue(TODAY):
        item = stock.items[barcode]
        fee = late_fee(item.kind, item.due, TODAY, junior=is_junior(item.card))
        owed += fee
        late = days_late(item.due, TODAY)
        lines.append(f"  {item.title} ({item.card}): {late} days late, {fee:.2f} {CURRENCY}")
    busiest, count = max(stock.cards().items(), key=lambda pair: pair[1])
    members = conf["members"]
    limit = members["max_items_junior"] if is_junior(busiest) else members["max_items"]
    holds = sum(len(item.holds) for item in stock.items.values())
    return [
        *lines,
        f"fines owed: {owed:.2f} {CURRENCY}",
        f"busiest card: {busiest} ({count} of {limit} items)",
        f"holds waiting: {holds}",
    ]


def main() -> None:
    for line in report():
        print(line)


if __name__ == "__main__":
    main()
'''

TEST_LIBRARY_PY = """\
import unittest
from datetime import date

from catalogue import Catalogue, sample_catalogue
from loans import FINE_CAP, MAX_RENEWALS, due_date, late_fee, may_renew


class CatalogueTest(unittest.TestCase):
    def test_on_loan(self) -> None:
        self.assertEqual(len(sample_catalogue().on_loan()), 7)

    def test_overdue_early_in_march(self) -> None:
        self.assertEqual(sample_catalogue().overdue(date(2026, 3, 5)), ["D0002", "K0004"])

    def test_lend_twice(self) -> None:
        with self.assertRaises(ValueError):
            sample_catalogue().lend("K0001", "M1108", date(2026, 4, 1))

    def test_hold_comes_first(self) -> None:
        stock = sample_catalogue()
        with self.assertRaises(ValueError):
            stock.lend("K0005", "M1042", date(2026, 4, 4))
        self.assertEqual(stock.lend("K0005", "M1108", date(2026, 4, 4)).holds, [])

    def test_unknown_kind(self) -> None:
        with self.assertRaises(ValueError):
            Catalogue().add("V0001", "Abbey Road", "The Beatles", "vinyl")

    def test_by_author(self) -> None:
        self.assertEqual(sample_catalogue().by_author("mantel"), ["Wolf Hall"])

    def test_renewals_run_out(self) -> None:
        stock = sample_catalogue()
        for _ in range(MAX_RENEWALS):
            stock.renew("K0002", date(2026, 3, 30))
        self.assertFalse(may_renew(stock.items["K0002"]))
        with self.assertRaises(ValueError):
            stock.renew("K0002", date(2026, 4, 20))

    def test_no_renewal_while_someone_waits(self) -> None:
        self.assertFalse(may_renew(sample_catalogue().items["A0002"]))


class LoansTest(unittest.TestCase):
    def test_book_due(self) -> None:
        self.assertEqual(due_date("book", date(2026, 3, 1)), date(2026, 3, 22))

    def test_book_fine(self) -> None:
        self.assertEqual(late_fee("book", date(2026, 3, 1), date(2026, 3, 6)), 1.0)

    def test_not_late_yet(self) -> None:
        self.assertEqual(late_fee("book", date(2026, 3, 6), date(2026, 3, 6)), 0)

    def test_fine_capped(self) -> None:
        self.assertEqual(late_fee("dvd", date(2026, 3, 1), date(2026, 3, 20)), FINE_CAP)

    def test_junior_pays_nothing(self) -> None:
        self.assertEqual(late_fee("book", date(2026, 3, 1), date(2026, 3, 20), junior=True), 0)


if __name__ == "__main__":
    unittest.main()
"""

LIBRARY_TOML = """\
# Settings of the lending desk. desk.py reads them each morning.

[library]
name = "Kilnworth"
address = "2 Chapel Row, Kilnworth"
timezone = "Europe/London"

[hours]
monday = "closed"
tuesday = "09:30-17:00"
wednesday = "09:30-17:00"
thursday = "09:30-17:00"
friday = "09:30-17:00"
saturday = "10:00-13:00"
sunday = "closed"

[members]
max_items = 8
max_items_junior = 4
card_valid_years = 3

[fines]
pay_by = ["cash", "card"]
waive_below = 0.50

[log]
file = "data/loans.csv"
keep_months = 24
"""

REMINDERS_YAML = """\
# The messages members get from the library, and when. The mailer reads it every morning.
sender: desk@kilnworth-library.example
send_at: "08:00"
sign_off: "Kilnworth Community Library"

messages:
  - name: due-soon
    days_before_due: 2
    by: [email]
  - name: overdue
    days_after_due: 3
    repeat_every_days: 7
    by: [email]
  - name: hold-ready
    keep_on_shelf_days: 5
    by: [email, text]
  - name: card-expiring
    days_before_expiry: 30
    by: [email]
    skip_junior_cards: true
"""

SHELVES_JSON = """\
{
  "library": "Kilnworth",
  "logout_after_seconds": 90,
  "max_renewals": 2,
  "demo_query": "garden",
  "screen": { "font_size": 18, "high_contrast": false, "language": "en-GB" },
  "shelves": [
    { "code": "A1", "section": "Adult fiction" },
    { "code": "A2", "section": "Crime and mystery" },
    { "code": "C1", "section": "Picture books" },
    { "code": "C2", "section": "Children's fiction" },
    { "code": "N1", "section": "Science" },
    { "code": "N2", "section": "Home and garden" },
    { "code": "L1", "section": "Local history" }
  ],
  "titles": [
    { "title": "Wolf Hall", "year": 2009, "shelf": "A1", "out": true },
    { "title": "Hamnet", "year": 2020, "shelf": "A1", "out": true },
    { "title": "Small Island", "year": 2004, "shelf": "A1", "out": false },
    { "title": "The Hound of the Baskervilles", "year": 1902, "shelf": "A2", "out": false },
    { "title": "Rivers of London", "year": 2011, "shelf": "A2", "out": true },
    { "title": "The Cat in the Hat", "year": 1957, "shelf": "C1", "out": false },
    { "title": "The Very Hungry Caterpillar", "year": 1969, "shelf": "C1", "out": false },
    { "title": "The Secret Garden", "year": 1911, "shelf": "C2", "out": true },
    { "title": "A Brief History of Time", "year": 1988, "shelf": "N1", "out": false },
    { "title": "Gardening Through the Year", "year": 1998, "shelf": "N2", "out": false },
    { "title": "Grow Your Own Veg", "year": 2007, "shelf": "N2", "out": false },
    { "title": "Kilnworth in Old Photographs", "year": 1994, "shelf": "L1", "out": false }
  ]
}
"""

SEARCH_JS = """\
'use strict';

// The kiosk's look-ups in the titles it knows and in its map of the shelves.

function search(titles, query) {
  const wanted = query.trim().toLowerCase();
  return titles.filter((t) => t.title.toLowerCase().includes(wanted));
}

function shelfFor(code, shelves) {
  return shelves.find((s) => s.code === code);
}

function onShelf(titles) {
  return titles.filter((t) => !t.out);
}

function oldest(titles) {
  let best = null;
  for (const t of titles) {
    if (best === null || t.year < best.year) {
      best = t;
    }
  }
  return best;
}

module.exports = { search, shelfFor, onShelf, oldest };
"""

MAIN_JS = """\
'use strict';

// Print what the self-service kiosk shows, with its sample search: node kiosk/main.js

const fs = require('fs');
const path = require('path');
const { search, shelfFor, onShelf, oldest } = require('./search');

const config = JSON.parse(fs.readFileSync(path.join(__dirname, 'shelves.json'), 'utf8'));

function describe(title) {
  const shelf = shelfFor(title.shelf, config.shelves);
  const where = title.out ? 'out on loan' : 'on the shelf';
  return `${title.title} (${shelf.section}, shelf ${shelf.code}): ${where}`;
}

function main() {
  const { titles, shelves } = config;
  console.log(`${config.library} kiosk: ${titles.length} titles on ${shelves.length} shelves`);
  console.log(`on the shelf: ${onShelf(titles).length} of ${titles.length}`);
  console.log(`search "${config.demo_query}":`);
  for (const title of search(titles, config.demo_query)) {
    console.log(`  ${describe(title)}`);
  }
  const first = oldest(titles);
  console.log(`oldest: ${first.title} (${first.year})`);
  console.log(`renewals allowed: ${config.max_renewals}`);
  console.log(`log out after: ${config.logout_after_seconds} s`);
}

main();
"""

COMMON_SH = """\
#!/usr/bin/env bash
# Helpers shared by the desk's tools: source it, do not run it.

LOG_HEADER="date,card,barcode,title,days_kept"

complain() {
  echo "library: $*" >&2
}

check_log() {
  local file="$1"
  if [ ! -f "$file" ]; then
    complain "no loans log at $file"
    exit 1
  fi
  if [ "$(head -n 1 "$file")" != "$LOG_HEADER" ]; then
    complain "$file does not start with $LOG_HEADER"
    exit 1
  fi
}

check_card() {
  case "$1" in
    [MJ][0-9][0-9][0-9][0-9]) ;;
    *)
      complain "$1 is not a card number (M1234 or J1234)"
      exit 1
      ;;
  esac
}
"""

POPULAR_SH = """\
#!/usr/bin/env bash
# The most borrowed titles in the loans log: bash tools/popular.sh [HOW_MANY] [LOG]
set -euo pipefail

. "$(dirname "$0")/common.sh"

TOP="${1:-3}"
LOG="${2:-data/loans.csv}"
check_log "$LOG"

tail -n +2 "$LOG" | cut -d, -f4 | sort | uniq -c | sort -k1,1nr -k2 | head -n "$TOP" |
  while read -r count title; do
    echo "$title: $count loans"
  done
"""

MEMBER_SH = """\
#!/usr/bin/env bash
# The loans of one library card: bash tools/member.sh CARD [LOG]
set -euo pipefail

. "$(dirname "$0")/common.sh"

CARD="${1:?give a card number, e.g. M1042}"
LOG="${2:-data/loans.csv}"
check_card "$CARD"
check_log "$LOG"

awk -F, -v card="$CARD" '
  NR > 1 && $2 == card { n++; days += $5; printf "%s  %s (%d days)\\n", $1, $4, $5 }
  END { printf "%s: %d loans, %d days in all\\n", card, n, days }
' "$LOG"
"""

LOANS_CSV = """\
date,card,barcode,title,days_kept
2026-01-06,M1042,K0001,Wolf Hall,19
2026-01-08,M1108,K0004,Hamnet,21
2026-01-10,J2207,K0002,The Secret Garden,14
2026-01-13,M1315,D0001,Paddington 2,7
2026-01-17,M1290,K0008,Small Island,20
2026-01-27,M1108,K0001,Wolf Hall,21
2026-01-31,M1290,K0004,Hamnet,16
2026-02-03,M1315,D0002,Brassed Off,9
2026-02-05,J2231,K0002,The Secret Garden,21
2026-02-07,J2231,D0001,Paddington 2,6
2026-02-10,M1290,K0001,Wolf Hall,12
2026-02-14,M1042,K0004,Hamnet,21
2026-02-17,M1377,A0002,The Hobbit,14
2026-02-19,M1290,D0002,Brassed Off,7
2026-02-21,M1377,K0001,Wolf Hall,18
2026-02-24,J2207,K0002,The Secret Garden,21
2026-02-26,M1042,D0001,Paddington 2,8
2026-02-28,M1377,K0004,Hamnet,14
2026-03-03,M1315,K0001,Wolf Hall,10
2026-03-05,M1290,K0002,The Secret Garden,9
2026-03-07,M1108,K0004,Hamnet,5
2026-03-09,M1042,K0001,Wolf Hall,5
2026-03-11,M1315,K0007,Rivers of London,3
"""

LIBRARY: dict[str, str] = {
    "README.md": README_MD,
    "catalogue.py": CATALOGUE_PY,
    "loans.py": LOANS_PY,
    "desk.py": DESK_PY,
    "test_library.py": TEST_LIBRARY_PY,
    "library.toml": LIBRARY_TOML,
    "reminders.yaml": REMINDERS_YAML,
    "kiosk/shelves.json": SHELVES_JSON,
    "kiosk/search.js": SEARCH_JS,
    "kiosk/main.js": MAIN_JS,
    "tools/common.sh": COMMON_SH,
    "tools/popular.sh": POPULAR_SH,
    "tools/member.sh": MEMBER_SH,
    "data/loans.csv": LOANS_CSV,
}
"""The library, file by file: every task of the eighth batch starts from it."""


def library_with(changes: dict[str, str]) -> dict[str, str]:
    """:data:`LIBRARY` with the files in *changes* replaced."""
    return {**LIBRARY, **changes}
