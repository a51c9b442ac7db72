"""An eleventh batch of the fresh set (``BENCH_SET=eleventh``): 24 tasks on a seventh
project the rules never saw, the box office of a small independent theatre
(:mod:`bench._local_theatre`), written by someone who had not read the rules, and before
any run of them.

Twelve ask (how long a phone booking is held unpaid, who is on the bar on Friday, what a
student saves on a ticket; which code stops a seat being sold twice, what calls a
ticket's price, which code reads the booking fee from the settings; the seats left and
the night's takings, when the show ends by the foyer screen, and a day's takings at the
box office, which the programs print; the foyer's wifi password, the price of a
programme and two seats in a row the house does not have, which are nowhere) and twelve
change (a tool that splits the takings into card and cash, a test that a seat is not
sold twice and a script of the seats left in each row, written; the doors open three
quarters of an hour before curtain up, a volunteer on the bar in place of another, a
group's discount from half a dozen tickets; a concession misspelt, a trailing comma in
the foyer screen's settings and a variable misspelt in a tool, pasted as the errors
came; the stalls' new price in the code and on the foyer screen, a new show in the
season and on the screen, and a concession renamed in every file).
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import tempfile
import tomllib
from pathlib import Path

import yaml

from bench._local_fresh_ask import (
    READ,
    REFUSE,
    RUN,
    SEARCH,
    _found,
    _run_says,
    _said_absent,
    _t,
)
from bench._local_fresh_change import CREATE, ERROR, FIX, MULTI, _task
from bench._local_task import (
    Events,
    Task,
    edits,
    json_of,
    passes,
    run,
    tests_catch,
    text,
    toml_of,
    write_files,
    yaml_of,
)
from bench._local_theatre import (
    BOOKINGS_PY,
    FRONT_OF_HOUSE_YAML,
    PRICES_PY,
    SALES_CSV,
    SALES_SH,
    SCREEN_JSON,
    THEATRE,
    THEATRE_TOML,
    theatre_with,
)

_LOMAX = 'office.book("Lomax", ["C7", "C8"], ["over 65", "over 65"], "phone")'
BOOKINGS_HYPHEN = BOOKINGS_PY.replace(_LOMAX, _LOMAX.replace('["over 65",', '["over-65",'))
SCREEN_TRAILING_COMMA = SCREEN_JSON.replace(
    '    "Please switch off mobile phones"\n', '    "Please switch off mobile phones",\n'
)
SALES_MISSPELT = SALES_SH.replace('LOG="${1:-$SALES_LOG}"', 'LOG="${1:-$SALE_LOG}"')

#: What ``python3 nightly.py`` prints on the box office as it is.
NIGHT_OUT = """\
The Lantern Theatre: Under the Pier (Tidewater Players)
saturday 2026-06-13, curtain up 19:30
house manager: Fiona Reid, duty technician: Sam Okafor
doors 19:00, interval 20:35-20:55, down 21:55
sold: 46 of 116 (39%), 70 left
  stalls 23 of 56, rear stalls 8 of 36, circle 14 of 20, restricted view 1 of 4
wheelchair spaces: 1 of 2 booked
tickets: full 23, student 4, over 65 8, under 16 10, companion 1
bookings: 15
  301  Holt  C5 C6  36.00 + 2.50 fee  phone
  302  Asante  D7 D8 D9  47.50 + 3.75 fee  online
  303  Varley  F1 F2  26.00 + 0.00 fee  window
  304  Wendham Book Club  E1 E2 E3 E4 E5 E6  100.00 + 7.50 fee  online
  305  Ng  J5 J6  23.00 + 2.50 fee  online
  306  Pereira  H11 H10  15.00 + 2.50 fee  phone
  307  Stowbridge Grammar School  K2 K3 K4 K5 K6 K7 K8 K9  75.60 + 10.00 fee  online
  308  Dunmore  A4 A5  36.00 + 0.00 fee  window
  309  Quill  J1  9.00 + 1.25 fee  online
  310  Baptiste  G6 G7 G8 G9  52.00 + 5.00 fee  phone
  311  Achterberg  B3 B4 B5 B6  72.00 + 5.00 fee  online
  312  Lomax  C7 C8  32.00 + 2.50 fee  phone
  313  Okonjo  D1 D2  33.50 + 2.50 fee  online
  314  Trent  E9 E10  36.00 + 2.50 fee  online
  315  Halloran  J7 J8 J9 J10  56.00 + 0.00 fee  window
tickets come to: 649.60 GBP
booking fees: 47.50 GBP
in all: 697.10 GBP
"""

#: What ``node foyer/main.js`` prints on the box office as it is.
FOYER_OUT = """\
The Lantern Theatre, 2026-06-13
tonight: Under the Pier (Tidewater Players), age 12+
doors 19:00, curtain up 19:30
interval 20:35-20:55, ends about 21:55
70 seats left for tonight
prices: stalls £18, rear stalls £15, circle £14, restricted view £9
coming up:
  17-20 June  Mr Pettigrew's Umbrella (family show, 75 minutes, no interval)
  25-27 June  The Glass Orchard (contains haze and strobe lighting)
* Latecomers are admitted at a suitable break in the performance
* Order your interval drinks at the bar before the show
* Hearing loop in the stalls: set your hearing aid to T
* Please switch off mobile phones
(next page in 12 s)
"""

#: What ``bash tools/sales.sh`` prints.
SALES_OUT = """\
Under the Pier: 73 tickets, 1194.10 GBP in 24 sales
Mr Pettigrew's Umbrella: 24 tickets, 254.00 GBP in 6 sales
The Glass Orchard: 17 tickets, 282.75 GBP in 7 sales
"""

#: What ``bash tools/day.sh 2026-06-06`` prints.
DAY_OUT = """\
2026-06-06
  online: 3 sales, 9 tickets, 158.25 GBP
  phone: 1 sales, 6 tickets, 63.00 GBP
  window: 2 sales, 4 tickets, 64.00 GBP
in all: 6 sales, 19 tickets, 285.25 GBP
"""

_HYPHEN_ERROR = """\
Traceback (most recent call last):
  File "/home/fiona/lantern/nightly.py", line 70, in <module>
    main()
  File "/home/fiona/lantern/nightly.py", line 65, in main
    for line in report():
                ^^^^^^^^
  File "/home/fiona/lantern/nightly.py", line 21, in report
    office = sample_night(box["max_tickets"])
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/fiona/lantern/bookings.py", line 115, in sample_night
    office.book("Lomax", ["C7", "C8"], ["over-65", "over 65"], "phone")
  File "/home/fiona/lantern/bookings.py", line 61, in book
    prices = [ticket_price(seat, kind) for seat, kind in zip(seats, kinds, strict=True)]
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/fiona/lantern/bookings.py", line 61, in <listcomp>
    prices = [ticket_price(seat, kind) for seat, kind in zip(seats, kinds, strict=True)]
              ^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/fiona/lantern/prices.py", line 21, in ticket_price
    return round(PRICES[band_of(seat)] - CONCESSIONS[kind], 2)
                                         ~~~~~~~~~~~^^^^^^
KeyError: 'over-65'"""

_COMMA_ERROR = """\
$ node foyer/main.js
<anonymous_script>:40
  ]
  ^

SyntaxError: Unexpected token ']', ..."hones",
  ]
}
" is not valid JSON
    at JSON.parse (<anonymous>)
    at Object.<anonymous> (/home/fiona/lantern/foyer/main.js:9:21)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)
    at Module.load (node:internal/modules/cjs/loader:1266:32)
    at Module._load (node:internal/modules/cjs/loader:1091:12)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49

Node.js v20.20.2"""

_UNBOUND_ERROR = """\
$ bash tools/sales.sh
tools/sales.sh: line 13: SALE_LOG: unbound variable"""


_ask = functools.partial(_t, files=THEATRE)


_ran = functools.partial(_run_says, files=THEATRE)


# how people say a thing is nowhere that says_absent does not read: "nothing in the
# files mentions the wifi", "we don't sell programmes", "programmes aren't listed"
_NOTHING_SAYS = (
    r"\bnothing\b.{0,60}\b(mentions?|says?|about|covers?|lists?|records?)\b|\bnowhere\b"
    r"|\bnot mentioned\b|\bno mention\b|\bno record\b"
    r"|\b(don[’']?t|do not|doesn[’']?t|does not)\s+(\w+\s+){0,2}?"
    r"(mention|cover|say|sell|have|list|record|include|store|hold|keep|give)"
    r"|\b(aren[’']?t|are not|isn[’']?t|is not)\s+(\w+\s+){0,2}?"
    r"(listed|mentioned|in|included|recorded|part|kept|stored|written|sold)\b"
)


_nowhere = functools.partial(_said_absent, files=THEATRE, nothing_says=_NOTHING_SAYS)


ELEVENTH_ASK_TASKS: tuple[Task, ...] = (
    _ask(
        "ask-unpaid-phone-hold",
        READ,
        "A lady on the phone has booked two for Saturday but can't pay until her son gets "
        "back with the card. How long do we hold the tickets before they go back on sale?",
        _found(
            r"(?<![\d.])3(?![\d.])\s*(whole |working )?days?\b|\bthree\s+(\w+\s+)?days?\b",
            files=THEATRE,
        ),
        "Three days (hold_unpaid_days under [box_office] in theatre.toml), then the seats "
        "go back on sale.",
        "read_file:theatre.toml",
    ),
    _ask(
        "ask-friday-bar",
        READ,
        "who's doing the bar on friday night?",
        _found(r"\bRosa\b", files=THEATRE),
        "Rosa Delgado (front_of_house.yaml, Friday 12 June, 19:30).",
        "read_file:front_of_house.yaml",
    ),
    _ask(
        "ask-student-saving",
        READ,
        "A student at the window wants to know how much cheaper her ticket is with her "
        "student card. What do students get off?",
        _found(r"(?<![\d.])2\.50?(?!\d)|\btwo pounds fifty\b|\btwo fifty\b", files=THEATRE),
        "£2.50 off each ticket (CONCESSIONS in prices.py): a stalls seat is £15.50 instead of £18.",
        "search_text",
    ),
    _ask(
        "def-seat-sold-twice",
        SEARCH,
        "What stops the box office selling the same seat to two different people? Which "
        "function does that, and in which file?",
        _found(r"\bbookings\.py\b", r"\bis_free\b|\bbook\b", files=THEATRE),
        "BoxOffice.book in bookings.py: it asks is_free for each seat and refuses one "
        "already sold.",
        "search_text",
    ),
    _ask(
        "callers-ticket-price",
        SEARCH,
        "I'm going to change how ticket_price works out the money. What calls it at the moment?",
        _found(r"\bbookings\.py\b", r"\btest_box_office\.py\b", files=THEATRE),
        "bookings.py (BoxOffice.book) and test_box_office.py call it; it is defined in prices.py.",
        "search_text",
    ),
    _ask(
        "usage-booking-fee-setting",
        SEARCH,
        "If I change booking_fee in theatre.toml, which bit of the code actually picks it up?",
        _found(r"\bnightly\.py\b", files=THEATRE),
        "nightly.py reads it (box['booking_fee']) and passes it to Booking.fee, which hands "
        "it to booking_fee in prices.py.",
        "search_text",
    ),
    _ask(
        "run-seats-left-tonight",
        RUN,
        "How many seats have we still got to sell for tonight, and what has the night taken "
        "so far, booking fees and all? The nightly report has it.",
        _ran(
            r"(?<![\d.])70(?![\d.])|\bseventy\b",
            r"(?<![\d.])697\.10?(?!\d)",
            command="python3 nightly.py",
            every=True,
        ),
        "70 seats left (46 of 116 sold), and 697.10 GBP in all: 649.60 for the tickets and "
        "47.50 in booking fees.",
        "run_cmd:nightly.py",
    ),
    _ask(
        "run-foyer-show-ends",
        RUN,
        "Run the foyer screen program and tell me what time it says tonight's show finishes. "
        "Someone's booking a taxi.",
        _ran(r"\b21[:.]55\b|\b9[:.]55\s*(pm|p\.m\.)|\bfive to ten\b", command="node foyer/main.js"),
        "It says the show ends about 21:55 (interval 20:35-20:55).",
        "run_cmd:foyer/main.js",
    ),
    _ask(
        "run-sixth-june-takings",
        RUN,
        "I'm checking the cash tin against the card machine for Saturday the 6th of June. "
        "What did the box office take that day, all in? There's a tool for it.",
        _ran(r"(?<![\d.])285\.25(?!\d)", command="bash tools/day.sh"),
        "285.25 GBP in all from 6 sales (19 tickets): 158.25 online, 63.00 by phone, 64.00 "
        "at the window.",
        "run_cmd:tools/day.sh",
    ),
    _ask(
        "missing-wifi-password",
        REFUSE,
        "A customer in the foyer is asking for the wifi password. What is it?",
        _nowhere(
            r"\bno (wifi|wi-fi|password|network)\b",
            invented=r"\bpassword\b[^.\n]{0,15}\bis\s*[:\"'`]",
        ),
        "Nothing in the box office's files mentions the wifi or its password: ask Fiona or "
        "whoever looks after the building.",
        "search_text",
    ),
    _ask(
        "missing-programme-price",
        REFUSE,
        "How much are we charging for programmes for Under the Pier?",
        _nowhere(
            r"\bno (programmes?|programs?)\b",
            invented=r"\bprogrammes?\b[^.\n]{0,30}£\s?\d|£\s?\d+(\.\d\d)?\s*(each|a programme)",
        ),
        "Nothing in the files says anything about programmes or their price: they are not "
        "in prices.py, the settings or the foyer screen.",
        "search_text",
    ),
    _ask(
        "missing-row-m",
        REFUSE,
        "A gentleman on the phone swears he sat in M7 and M8 last time and wants them again "
        "for Saturday night. Are they free?",
        _nowhere(
            r"\bno (row|seats?) M\b|\brow M\b[^.\n]{0,20}\b(does ?n[o’']t|isn[’']?t|is not)\b",
            r"\bonly (goes|go|runs?) (up )?to (row )?K\b|\bends at (row )?K\b",
            invented=r"\b(M7|M8|they|both)\b[^.\n]{0,30}\b(are|is) (both |still )?"
            r"(free|available|unsold)\b",
        ),
        "There is no row M: the stalls are rows A to H and the circle rows J and K, so M7 "
        "and M8 do not exist. He may be thinking of another theatre.",
        "read_file:seats.py",
    ),
)


def _paid(day: str = "", log: str = SALES_CSV) -> dict[str, float]:
    """What *log* took by card and in cash (on *day* only, when given)."""
    took = {"card": 0.0, "cash": 0.0}
    for row in log.splitlines()[1:]:
        when, _, _, _, amount, paid_by, _ = row.split(",")
        if not day or when == day:
            took[paid_by] += float(amount)
    return took


def _payments_said(ws: Path, day: str = "", log: str = SALES_CSV) -> bool:
    """Whether tools/payments.sh [DAY] prints the card takings on a line that says card,
    and the cash takings on one that says cash."""
    code, out = run(ws, f"bash tools/payments.sh {day}".strip())
    if code != 0:
        return False
    took = _paid(day, log)
    for way, money in took.items():
        lines = [line for line in out.splitlines() if way in line.lower()]
        figures = [float(f) for line in lines for f in re.findall(r"(?<![\d.])\d+(?:\.\d+)?", line)]
        if not any(abs(figure - money) < 0.005 for figure in figures):
            return False
    return True


def _tools_as_before(ws: Path) -> bool:
    """Whether the two tools print as they did (the shared helper may have grown)."""
    return run(ws, "bash tools/sales.sh") == (0, SALES_OUT) and run(
        ws, "bash tools/day.sh 2026-06-06"
    ) == (0, DAY_OUT)


def _payments_tool(ws: Path) -> bool:
    """Whether tools/payments.sh splits the whole log's takings and one day's into card
    and cash, reads the log (rows added later count), and the other tools still work."""
    if not (_payments_said(ws) and _payments_said(ws, "2026-06-06")):
        return False
    if not _tools_as_before(ws):
        return False
    more = (
        "2026-06-06,UP-0613E,Under the Pier,2,30.00,cash,window\n"
        "2026-06-13,GO-0627E,The Glass Orchard,1,19.25,card,online\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "lantern"
        shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("__pycache__"))
        with (copy / "data" / "sales.csv").open("a") as log:
            log.write(more)
        return _payments_said(copy, log=SALES_CSV + more) and _payments_said(
            copy, "2026-06-06", SALES_CSV + more
        )


_ROWS_LEFT = (
    'python3 -c "import json, seats, bookings; office = bookings.sample_night(); '
    "print(json.dumps([[row, sum(1 for s in office.unsold() if seats.parse(s)[0] == row)] "
    'for row in seats.ROWS]))"'
)


def _rows_said(ws: Path) -> bool:
    """Whether rows_left.py prints each row, front first, with the seats it has left on
    Saturday night as the box office's book has them."""
    code, out = run(ws, _ROWS_LEFT)
    if code != 0:
        return False
    want = [tuple(pair) for pair in json.loads(out)]
    code, out = run(ws, "python3 rows_left.py")
    if code != 0:
        return False
    got = []
    for line in out.splitlines():
        found = re.match(r"\s*(?:row\s+)?([A-HJK])\b\D*?(\d+)", line, re.IGNORECASE)
        if found:
            got.append((found[1].upper(), int(found[2])))
    return got == want


_ONE_MORE = '    office.book("Zeller", ["A1", "A2", "J11"], channel="window")\n    return office\n'


def _rows_left(ws: Path) -> bool:
    """Whether rows_left.py gives each row's seats left, and reads the book (a booking
    added to Saturday night counts), the rest as it was."""
    if not _rows_said(ws) or not passes(ws, "python3 -m unittest"):
        return False
    if run(ws, "python3 nightly.py") != (0, NIGHT_OUT):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "lantern"
        shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("__pycache__"))
        book = text(copy, "bookings.py")
        (copy / "bookings.py").write_text(book.replace("    return office\n", _ONE_MORE))
        return _rows_said(copy)


def _night_with(*changes: tuple[str, str]) -> str:
    out = NIGHT_OUT
    for old, new in changes:
        assert old in out, old
        out = out.replace(old, new)
    return out


def _doors_at_quarter_to(ws: Path) -> bool:
    """Whether the doors open 45 minutes before curtain up in theatre.toml, all else
    there as it was, and the report says so; the foyer screen as it was, or with its
    own doors moved the same way."""
    want = tomllib.loads(THEATRE_TOML)
    want["house"]["doors_open_minutes"] = 45
    if toml_of(ws, "theatre.toml") != want:
        return False
    if run(ws, "python3 nightly.py") != (0, _night_with(("doors 19:00,", "doors 18:45,"))):
        return False
    screen = json.loads(SCREEN_JSON)
    if json_of(ws, "foyer/screen.json") == screen:
        return True
    screen["tonight"]["doors_minutes"] = 45
    return json_of(ws, "foyer/screen.json") == screen and run(ws, "node foyer/main.js") == (
        0,
        FOYER_OUT.replace("doors 19:00,", "doors 18:45,"),
    )


def _marjorie_on_the_bar(ws: Path) -> bool:
    want = yaml.safe_load(FRONT_OF_HOUSE_YAML)
    saturday = want["performances"][3]
    assert saturday["when"] == "Saturday 13 June, 19:30"
    assert saturday["bar"] == "Dennis Crane"
    saturday["bar"] = "Marjorie Blake"
    return yaml_of(ws, "front_of_house.yaml") == want


_PRICE_RULES = (
    'python3 -c "import json, prices; '
    'print(json.dumps([prices.PRICES, prices.CONCESSIONS, prices.GROUP_FROM, prices.GROUP_OFF]))"'
)
_RULES = [
    {"stalls": 18.0, "rear stalls": 15.0, "circle": 14.0, "restricted view": 9.0},
    {"full": 0.0, "student": 2.5, "over 65": 2.0, "under 16": 4.0},
    8,
    0.1,
]


def _rules(ws: Path) -> object:
    """prices.py's prices, concessions and group rule, or None."""
    code, out = run(ws, _PRICE_RULES)
    try:
        return json.loads(out) if code == 0 else None
    except ValueError:
        return None


def _group_from_six(ws: Path) -> bool:
    """Whether a group is six tickets or more in prices.py, the rest of it as it was, the
    book club's six tickets have the tenth off in the report, and the tests pass."""
    want = [*_RULES[:2], 6, _RULES[3]]
    got = [line for line in text(ws, "prices.py").splitlines() if "GROUP_FROM" not in line]
    was = [line for line in PRICES_PY.splitlines() if "GROUP_FROM" not in line]
    night = _night_with(
        (
            "E1 E2 E3 E4 E5 E6  100.00 + 7.50 fee",
            "E1 E2 E3 E4 E5 E6  90.00 + 7.50 fee",
        ),
        ("tickets come to: 649.60 GBP", "tickets come to: 639.60 GBP"),
        ("in all: 697.10 GBP", "in all: 687.10 GBP"),
    )
    return (
        _rules(ws) == want
        and got == was
        and run(ws, "python3 nightly.py") == (0, night)
        and passes(ws, "python3 -m unittest")
    )


def _night_back(ev: Events, ws: Path) -> bool:
    """Whether the report prints again, Lomax's two seats at the over-65 price, and the
    tests pass."""
    return run(ws, "python3 nightly.py") == (0, NIGHT_OUT) and passes(ws, "python3 -m unittest")


def _screen_back(ev: Events, ws: Path) -> bool:
    """Whether the foyer screen's settings read as they did and the screen comes up."""
    return json_of(ws, "foyer/screen.json") == json.loads(SCREEN_JSON) and run(
        ws, "node foyer/main.js"
    ) == (0, FOYER_OUT)


def _sales_back(ev: Events, ws: Path) -> bool:
    """Whether sales.sh lists the shows again, still reads a log given to it and checks
    it, and the day tool is as it was."""
    code, out = run(ws, "bash tools/sales.sh no-such-log.csv")
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "june.csv"
        other.write_text(
            "".join(
                line + "\n"
                for line in SALES_CSV.splitlines()
                if line.startswith(("date,", "2026-06-1"))
            )
        )
        june = run(ws, f"bash tools/sales.sh {other}")
    return (
        _tools_as_before(ws)
        and code != 0
        and "no sales log" in out
        and june
        == (
            0,
            "Under the Pier: 19 tickets, 328.25 GBP in 6 sales\n"
            "The Glass Orchard: 5 tickets, 83.25 GBP in 2 sales\n"
            "Mr Pettigrew's Umbrella: 4 tickets, 42.00 GBP in 1 sales\n",
        )
    )


def _stalls_at_twenty(ws: Path) -> bool:
    """Whether the stalls are £20 in prices.py and on the foyer screen, all else as it
    was, and the report, the screen and the tests agree."""
    rules = [{**_RULES[0], "stalls": 20.0}, *_RULES[1:]]
    screen = json.loads(SCREEN_JSON)
    screen["prices"]["stalls"] = 20
    night = _night_with(
        ("C5 C6  36.00", "C5 C6  40.00"),
        ("D7 D8 D9  47.50", "D7 D8 D9  53.50"),
        ("E1 E2 E3 E4 E5 E6  100.00", "E1 E2 E3 E4 E5 E6  112.00"),
        ("A4 A5  36.00", "A4 A5  40.00"),
        ("B3 B4 B5 B6  72.00", "B3 B4 B5 B6  80.00"),
        ("C7 C8  32.00", "C7 C8  36.00"),
        ("D1 D2  33.50", "D1 D2  37.50"),
        ("E9 E10  36.00", "E9 E10  40.00"),
        ("tickets come to: 649.60 GBP", "tickets come to: 695.60 GBP"),
        ("in all: 697.10 GBP", "in all: 743.10 GBP"),
    )
    return (
        _rules(ws) == rules
        and json_of(ws, "foyer/screen.json") == screen
        and run(ws, "python3 nightly.py") == (0, night)
        and run(ws, "node foyer/main.js") == (0, FOYER_OUT.replace("stalls £18,", "stalls £20,"))
        and passes(ws, "python3 -m unittest")
    )


_NEW_SHOW = (
    'python3 -c "import json, dataclasses, performances as p; '
    "show = p.SHOWS.get('Salt and Vinegar'); "
    "print(json.dumps([dataclasses.asdict(show) if show else None, "
    "sorted([x.day, x.curtain, p.interval(x), p.comes_down(x)] "
    "for x in p.of_show('Salt and Vinegar')), "
    "sorted(x.code for x in p.PERFORMANCES.values()), "
    "sorted(dataclasses.astuple(x) for x in p.PERFORMANCES.values() "
    "if x.title != 'Salt and Vinegar'), "
    "sorted(dataclasses.astuple(s) for s in p.SHOWS.values() "
    "if s.title != 'Salt and Vinegar')]))\""
)
_PERFORMANCES = [
    ["GO-0625E", "The Glass Orchard", "2026-06-25", "19:45"],
    ["GO-0626E", "The Glass Orchard", "2026-06-26", "19:45"],
    ["GO-0627E", "The Glass Orchard", "2026-06-27", "19:45"],
    ["MP-0617M", "Mr Pettigrew's Umbrella", "2026-06-17", "14:00"],
    ["MP-0618M", "Mr Pettigrew's Umbrella", "2026-06-18", "14:00"],
    ["MP-0620M", "Mr Pettigrew's Umbrella", "2026-06-20", "11:00"],
    ["UP-0611E", "Under the Pier", "2026-06-11", "19:30"],
    ["UP-0612E", "Under the Pier", "2026-06-12", "19:30"],
    ["UP-0613E", "Under the Pier", "2026-06-13", "19:30"],
    ["UP-0613M", "Under the Pier", "2026-06-13", "14:30"],
]
_SHOWS = [
    ["Mr Pettigrew's Umbrella", "Lantern Youth Theatre", 75, 0, 0, "all ages"],
    ["The Glass Orchard", "Halfmoon Theatre Company", 55, 15, 50, "14+"],
    ["Under the Pier", "Tidewater Players", 65, 20, 60, "12+"],
]


def _salt_and_vinegar(ws: Path) -> bool:
    """Whether Salt and Vinegar is in the season (Jo Pennick's, seventy minutes straight
    through, 2 and 3 July at 19:45, each performance with a code of its own), third on
    the foyer screen's coming-up list, the rest as it was, and the report and tests as
    they were."""
    code, out = run(ws, _NEW_SHOW)
    try:
        show, dates, codes, others, shows = json.loads(out) if code == 0 else [None] * 5
    except ValueError:
        return False
    if not isinstance(show, dict) or others != _PERFORMANCES or shows != _SHOWS:
        return False
    if "pennick" not in str(show.get("company", "")).lower() or show.get("interval") != 0:
        return False
    if show.get("first_half", 0) + show.get("second_half", 0) != 70:
        return False
    if dates != [["2026-07-02", "19:45", None, "20:55"], ["2026-07-03", "19:45", None, "20:55"]]:
        return False
    if len(set(codes)) != 12:
        return False
    want = json.loads(SCREEN_JSON)
    got = json_of(ws, "foyer/screen.json")
    if not isinstance(got, dict) or not isinstance(got.get("coming_up"), list):
        return False
    new = got["coming_up"][2:]
    if len(new) != 1 or not isinstance(new[0], dict) or set(new[0]) != {"title", "dates", "note"}:
        return False
    if new[0]["title"] != "Salt and Vinegar" or not all(
        isinstance(v, str) for v in new[0].values()
    ):
        return False
    if not re.search(r"\b2(nd)?\b.*\b3(rd)?\b.*\bjul", new[0]["dates"], re.IGNORECASE):
        return False
    want["coming_up"].append(new[0])
    if got != want:
        return False
    foyer = FOYER_OUT.replace(
        "strobe lighting)\n",
        f"strobe lighting)\n  {new[0]['dates']}  Salt and Vinegar ({new[0]['note']})\n",
    )
    return (
        run(ws, "node foyer/main.js") == (0, foyer)
        and run(ws, "python3 nightly.py") == (0, NIGHT_OUT)
        and passes(ws, "python3 -m unittest")
    )


_OVER_65 = re.compile(r"over[ -]?65", re.IGNORECASE)


def _seniors(ws: Path) -> bool:
    """Whether the over-65s' concession is called senior in every Python file, at the
    same £2 off, the tests still test it and pass, and the report counts 8 senior
    tickets, all else in it as it was."""
    if any(_OVER_65.search(text(ws, p)) for p in THEATRE if p.endswith(".py")):
        return False
    rules = _rules(ws)
    concessions = {"full": 0.0, "student": 2.5, "senior": 2.0, "under 16": 4.0}
    if not isinstance(rules, list) or rules[0] != _RULES[0] or rules[1] != concessions:
        return False
    if rules[2:] != _RULES[2:] or '"senior"' not in text(ws, "test_box_office.py"):
        return False
    code, out = run(ws, "python3 -m unittest")
    if code != 0 or "Ran 12 tests" not in out:
        return False
    code, night = run(ws, "python3 nightly.py")
    tickets = "tickets: full 23, student 4, over 65 8, under 16 10, companion 1"
    want = [line for line in NIGHT_OUT.splitlines() if line != tickets]
    got = [line for line in night.splitlines() if not line.startswith("tickets: ")]
    said = [line for line in night.splitlines() if line.startswith("tickets: ")]
    counted = {"full 23", "student 4", "senior 8", "under 16 10", "companion 1"}
    return (
        code == 0
        and got == want
        and len(said) == 1
        and set(said[0].removeprefix("tickets: ").split(", ")) == counted
    )


# a change task on the theatre's files
_change = functools.partial(_task, files=THEATRE)


_PAYMENTS_SH = """\
#!/usr/bin/env bash
# What came in by card and what in cash: bash tools/payments.sh [DATE] [LOG]
set -euo pipefail

. "$(dirname "$0")/lib.sh"

DAY="${1:-}"
LOG="${2:-$SALES_LOG}"
if [ -n "$DAY" ]; then
  date_ok "$DAY"
fi
log_ok "$LOG"

awk -F, -v day="$DAY" '
  NR > 1 && (day == "" || $1 == day) { money[$6] += $5 }
  END {
    printf "card: %.2f GBP\\n", money["card"]
    printf "cash: %.2f GBP\\n", money["cash"]
  }
' "$LOG"
"""

_ROWS_LEFT_PY = '''\
"""How many seats each row has left for Saturday night: python3 rows_left.py"""

from bookings import sample_night
from seats import ROWS, parse

office = sample_night()
for row in ROWS:
    left = sum(1 for seat in office.unsold() if parse(seat)[0] == row)
    print(f"{row}: {left} left")
'''

_SOLD_TWICE_TEST = """\
    def test_a_companion_goes_with_a_wheelchair_space(self) -> None:
        with self.assertRaises(ValueError):
            self.office.book("Pereira", ["G1", "G2"], ["full", "companion"])

    def test_a_seat_is_sold_only_once(self) -> None:
        self.office.book("Holt", ["C5", "C6"])
        with self.assertRaises(ValueError):
            self.office.book("Lomax", ["C6", "C7"])
"""

ELEVENTH_CHANGE_TASKS: tuple[Task, ...] = (
    _change(
        "create-payments-script",
        CREATE,
        "Could you write me tools/payments.sh? It should tell me how much came in by card and "
        "how much in cash: for one day if I give it a date like 2026-06-06, otherwise for the "
        "whole sales log.",
        lambda ev, ws: _payments_tool(ws),
        write_files("Added tools/payments.sh.", {"tools/payments.sh": _PAYMENTS_SH}),
        ("tools/payments.sh", "tools/lib.sh", "README.md"),
    ),
    _change(
        "create-sold-twice-test",
        CREATE,
        "There's no test that stops a seat being sold twice for the same night. Please add one.",
        lambda ev, ws: tests_catch(
            ws,
            12,
            "bookings.py",
            BOOKINGS_PY.replace("return seat not in self.sold", "return True"),
        ),  # a seat sold twice
        edits(
            "Added test_a_seat_is_sold_only_once to test_box_office.py.",
            (
                "test_box_office.py",
                "    def test_a_companion_goes_with_a_wheelchair_space(self) -> None:\n"
                "        with self.assertRaises(ValueError):\n"
                '            self.office.book("Pereira", ["G1", "G2"], ["full", "companion"])\n',
                _SOLD_TWICE_TEST,
            ),
        ),
        ("test_box_office.py",),
    ),
    _change(
        "create-rows-left-script",
        CREATE,
        "For Saturday night I'd like a little script, rows_left.py, that prints how many "
        "seats are left in each row, front row first, one row a line, like 'A: 8 left'.",
        lambda ev, ws: _rows_left(ws),
        write_files("Added rows_left.py.", {"rows_left.py": _ROWS_LEFT_PY}),
        ("rows_left.py", "README.md"),
    ),
    _change(
        "toml-doors-three-quarters",
        FIX,
        "Fiona wants the house open three quarters of an hour before curtain up now, not half "
        "an hour. Change the setting, would you?",
        lambda ev, ws: _doors_at_quarter_to(ws),
        edits("Done.", ("theatre.toml", "doors_open_minutes = 30", "doors_open_minutes = 45")),
        ("theatre.toml", "foyer/screen.json"),
    ),
    _change(
        "yaml-marjorie-on-the-bar",
        FIX,
        "Dennis has done his back in, so Marjorie's doing the bar on Saturday night instead "
        "of him.",
        lambda ev, ws: _marjorie_on_the_bar(ws),
        edits(
            "Done.",
            (
                "front_of_house.yaml",
                "    box_office: Carol Nash\n    bar: Dennis Crane\n",
                "    box_office: Carol Nash\n    bar: Marjorie Blake\n",
            ),
        ),
        ("front_of_house.yaml",),
    ),
    _change(
        "py-group-half-dozen",
        FIX,
        "The committee's agreed that a group gets its discount from half a dozen tickets "
        "now, not eight.",
        lambda ev, ws: _group_from_six(ws),
        edits("Done.", ("prices.py", "GROUP_FROM = 8", "GROUP_FROM = 6")),
        ("prices.py", "README.md"),
    ),
    _change(
        "error-over-65-typo",
        ERROR,
        f"Tonight's report won't print:\n\n{_HYPHEN_ERROR}\n\nI only put the Lomaxes' "
        "booking in. What's wrong?",
        _night_back,
        edits("Fixed.", ("bookings.py", '["over-65", "over 65"]', '["over 65", "over 65"]')),
        ("bookings.py",),
        files=theatre_with({"bookings.py": BOOKINGS_HYPHEN}),
    ),
    _change(
        "error-foyer-screen-comma",
        ERROR,
        "I added a notice to the foyer screen yesterday and took it off again this morning, "
        f"and now the screen won't come up at all:\n\n{_COMMA_ERROR}\n\nCan you fix it?",
        _screen_back,
        edits(
            "Fixed.",
            (
                "foyer/screen.json",
                '    "Please switch off mobile phones",\n',
                '    "Please switch off mobile phones"\n',
            ),
        ),
        ("foyer/screen.json",),
        files=theatre_with({"foyer/screen.json": SCREEN_TRAILING_COMMA}),
    ),
    _change(
        "error-sales-tool",
        ERROR,
        f"the sales tool's broken:\n\n{_UNBOUND_ERROR}\n\nthe committee meets tonight and "
        "they want the figures",
        _sales_back,
        edits("Fixed.", ("tools/sales.sh", 'LOG="${1:-$SALE_LOG}"', 'LOG="${1:-$SALES_LOG}"')),
        ("tools/sales.sh",),
        files=theatre_with({"tools/sales.sh": SALES_MISSPELT}),
    ),
    _change(
        "stalls-up-to-twenty",
        MULTI,
        "The committee has put the stalls up to twenty pounds. The foyer screen shows the "
        "prices as well, so change it there too.",
        lambda ev, ws: _stalls_at_twenty(ws),
        edits(
            "The stalls are £20 in prices.py and on the foyer screen.",
            ("prices.py", 'PRICES = {"stalls": 18.00,', 'PRICES = {"stalls": 20.00,'),
            ("foyer/screen.json", '"stalls": 18,', '"stalls": 20,'),
        ),
        ("prices.py", "foyer/screen.json"),
        max_turns=10,
    ),
    _change(
        "salt-and-vinegar-booked",
        MULTI,
        "We've booked a new show for July: Salt and Vinegar, a one-woman show by Jo Pennick. "
        "Two nights, the 2nd and 3rd of July, curtain up at quarter to eight, seventy minutes "
        "with no interval. Please put it in the season and on the foyer screen's coming-up "
        "list.",
        lambda ev, ws: _salt_and_vinegar(ws),
        edits(
            "Salt and Vinegar is in performances.py, two performances, and on the foyer screen.",
            (
                "performances.py",
                '"14+"),\n    )\n}\n',
                '"14+"),\n        Show("Salt and Vinegar", "Jo Pennick", 70, 0),\n    )\n}\n',
            ),
            (
                "performances.py",
                '        Performance("GO-0627E", "The Glass Orchard", "2026-06-27", "19:45"),\n',
                '        Performance("GO-0627E", "The Glass Orchard", "2026-06-27", "19:45"),\n'
                '        Performance("SV-0702E", "Salt and Vinegar", "2026-07-02", "19:45"),\n'
                '        Performance("SV-0703E", "Salt and Vinegar", "2026-07-03", "19:45"),\n',
            ),
            (
                "foyer/screen.json",
                '      "note": "contains haze and strobe lighting"\n    }\n',
                '      "note": "contains haze and strobe lighting"\n    },\n'
                "    {\n"
                '      "title": "Salt and Vinegar",\n'
                '      "dates": "2-3 July",\n'
                '      "note": "Jo Pennick, 70 minutes, no interval"\n'
                "    }\n",
            ),
        ),
        ("performances.py", "foyer/screen.json"),
        max_turns=10,
    ),
    _change(
        "over-65s-become-seniors",
        MULTI,
        "From now on the committee wants the over 65 tickets called 'senior'. Change it "
        "everywhere in the code, and the tests.",
        lambda ev, ws: _seniors(ws),
        edits(
            "The over 65 concession is now senior in prices.py, bookings.py and the tests.",
            ("prices.py", '"over 65": 2.00', '"senior": 2.00'),
            ("bookings.py", '["over 65", "over 65"], "window"', '["senior", "senior"], "window"'),
            (
                "bookings.py",
                '["over 65", "over 65", "over 65", "over 65", "full", "full"]',
                '["senior", "senior", "senior", "senior", "full", "full"]',
            ),
            ("bookings.py", '["over 65", "over 65"], "phone"', '["senior", "senior"], "phone"'),
            ("test_box_office.py", 'ticket_price("J5", "over 65")', 'ticket_price("J5", "senior")'),
        ),
        ("prices.py", "bookings.py", "test_box_office.py", "README.md"),
        max_turns=10,
    ),
)

ELEVENTH: tuple[Task, ...] = (*ELEVENTH_ASK_TASKS, *ELEVENTH_CHANGE_TASKS)

__all__ = [
    "BOOKINGS_HYPHEN",
    "DAY_OUT",
    "ELEVENTH",
    "FOYER_OUT",
    "NIGHT_OUT",
    "SALES_MISSPELT",
    "SALES_OUT",
    "SCREEN_TRAILING_COMMA",
]
