"""A twelfth batch of the fresh set (``BENCH_SET=twelfth``): 24 tasks on an eighth project
the rules never saw, a village community minibus, a dial-a-ride service run by volunteers
(:mod:`bench._local_minibus`), written by someone who had not read the rules, and before
any run of them.

Twelve ask (how late a hospital trip can be booked, who drives on Thursday, what a bus
pass holder pays for a return to the hospital; which code turns a late booking away,
what calls the screen's stop times, which code uses the minutes allowed at each door;
the fares to collect and the day's miles, when Thursday's hospital bus reaches a village
and leaves for home, and August's miles and passengers, which the programs print; the
bus's MOT, an assistant's phone number and the insurance policy, which are nowhere) and
twelve change (a tool that counts journeys and passengers by purpose, a test that a late
booking is refused and a script of the fare table for a poster, written; a sixteen-seater
in the settings; Monday's bookings closing on Friday and "1 seats left" on the screen,
found from what people saw; a settings key misspelt, a comma missing from the screen's
settings and a tool calling its helper without the month, pasted as the errors came; the
hospital fare in the code and on the screen, a new village on the places and the
Tuesday run, and a helper renamed in every file).
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import tempfile
import tomllib
from pathlib import Path

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
from bench._local_minibus import (
    BOOKINGS_PY,
    JOURNEYS_CSV,
    MINIBUS,
    MINIBUS_TOML,
    MONTH_SH,
    TIMETABLE_JS,
    TIMETABLE_JSON,
    minibus_with,
)
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
)

TOML_MISSPELT = MINIBUS_TOML.replace("wheelchair_spaces = 2", "wheelchair_space = 2")
TIMETABLE_NO_COMMA = TIMETABLE_JSON.replace('      "back": "16:00",\n', '      "back": "16:00"\n')
MONTH_NO_ARGUMENT = MONTH_SH.replace('month_ok "$MONTH"', "month_ok")
_WEEKEND = "    while before.weekday() >= 5:  # Saturday and Sunday: the office is shut\n"
_SUNDAY = "    while before.weekday() == 6:  # Sunday: the office is shut\n"
BOOKINGS_SUNDAY_ONLY = BOOKINGS_PY.replace(_WEEKEND, _SUNDAY)
_PLURAL = """\
  const seats = left === 1 ? 'seat' : 'seats';
  if (left <= fewLeftAt) {
    return `only ${left} ${seats} left - book soon`;
  }
  return `${left} ${seats} left`;
"""
TIMETABLE_JS_SEATS = TIMETABLE_JS.replace(
    _PLURAL,
    """\
  if (left <= fewLeftAt) {
    return `only ${left} seats left - book soon`;
  }
  return `${left} seats left`;
""",
)

#: What ``python3 runsheet.py`` prints on the minibus as it is.
RUNSHEET_OUT = """\
Hollowfield Community Minibus: run sheet for Tuesday 15 September 2026
bus YK19 HBW: 12 seats, 2 wheelchair spaces
10:00 to Marbury: 8 of 12 seats, 1 of 2 wheelchair spaces
  09:30  Hebden (wheelchair, escort), Hollowfield  bus pass return  3.00
  09:35  Pryce, Little Ashby  bus pass return  3.00
  09:35  Tolley, Little Ashby  full return  6.00
  09:35  Tolley, Little Ashby  under 16 return  0.00
  09:40  Okoro, Crane End  bus pass return  3.00
  09:40  Dutton, Wistow Green  full single  3.50
  09:40  Lacey, Crane End  bus pass return  3.00
11:20 to Kelbrook Hospital: 3 of 12 seats, 1 of 2 wheelchair spaces
  10:35  Gill, Hollowfield  full return  10.00
  10:45  Winstanley (wheelchair, escort), Wistow Green  bus pass return  5.00
12:00 to Crane End: 2 of 12 seats, 0 of 2 wheelchair spaces
  11:40  Fenn, Hollowfield  bus pass return  1.75
  11:45  Quigley, Wistow Green  bus pass return  1.75
14:10 to Marbury Health Centre: 1 of 12 seats, 0 of 2 wheelchair spaces
  13:45  Abbott, Little Ashby  bus pass return  3.00
passengers: 12, and 2 escorts
miles: 138.4, running cost 80.27 GBP
fares to collect: 43.00 GBP
"""

#: What ``node screen/main.js`` prints on the minibus as it is.
SCREEN_OUT = """\
Hollowfield Community Minibus: this week's regular runs
today is Tuesday 2026-09-15
Tuesday: Marbury market (today)
  09:25  Hollowfield, village hall
  09:33  Little Ashby, the Green
  09:40  Crane End, St Michael's church
  09:47  Wistow Green, the Plough
  10:00  Marbury, Market Square
  back at 12:30; 5 seats left
Thursday: Kelbrook hospital visiting
  13:45  Hollowfield, village hall
  13:55  Crane End, St Michael's church
  14:02  Wistow Green, the Plough
  14:25  Kelbrook Hospital, main entrance
  back at 16:00; only 1 seat left - book soon
Friday: Lunch club at Crane End
  11:20  Hollowfield, village hall
  11:28  Little Ashby, the Green
  11:37  Wistow Green, the Plough
  11:46  Crane End, village hall
  back at 14:30; full - ring the office to go on the waiting list
fares, single / return: local £2 / £3.50, town £3.50 / £6, hospital £6 / £10
* Book by noon the working day before: ring the office, 9 till 1
* Bus pass holders pay half; under-16s and carers ride free
* Membership is five pounds a year: ask the driver for a form
to book, ring 01632 960733  (next page in 15 s)
"""

#: What ``bash tools/drivers.sh`` prints.
DRIVERS_OUT = """\
Ann Fairley: 510.8 miles, 9 journeys, 33 passengers
Keith Ambler: 280.2 miles, 9 journeys, 84 passengers
Geoff Tanner: 227.4 miles, 11 journeys, 75 passengers
Ray Sutton: 188.0 miles, 7 journeys, 30 passengers
"""

#: What ``bash tools/month.sh 2026-08`` prints.
AUGUST_OUT = """\
2026-08
  journeys: 15
  passengers: 86, of them 11 in wheelchairs
  miles: 532.2
  fares: 250.00 GBP
"""

#: What ``bash tools/month.sh 2026-07`` prints.
JULY_OUT = """\
2026-07
  journeys: 13
  passengers: 85, of them 11 in wheelchairs
  miles: 420.6
  fares: 242.00 GBP
"""

_KEY_ERROR = """\
Traceback (most recent call last):
  File "/home/janet/minibus/runsheet.py", line 71, in <module>
    main()
  File "/home/janet/minibus/runsheet.py", line 66, in main
    for line in sheet():
                ^^^^^^^
  File "/home/janet/minibus/runsheet.py", line 27, in sheet
    book = sample_day(bus["seats"], bus["wheelchair_spaces"])
                                    ~~~^^^^^^^^^^^^^^^^^^^^^
KeyError: 'wheelchair_spaces'"""

_COMMA_ERROR = """\
<anonymous_script>:33
      "seats_left": 1
      ^

SyntaxError: Expected ',' or '}' after property value in JSON at position 865
    at JSON.parse (<anonymous>)
    at Object.<anonymous> (/home/janet/minibus/screen/main.js:9:21)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)
    at Module.load (node:internal/modules/cjs/loader:1266:32)
    at Module._load (node:internal/modules/cjs/loader:1091:12)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49

Node.js v20.20.2"""

_UNBOUND_ERROR = """\
$ bash tools/month.sh 2026-08
tools/lib.sh: line 18: $1: unbound variable"""


_ask = functools.partial(_t, files=MINIBUS)


_ran = functools.partial(_run_says, files=MINIBUS)


# how people say a thing is nowhere that says_absent does not read: "nothing in the
# files mentions the MOT", "the rota doesn't give her number", "it isn't recorded"
_NOTHING_SAYS = (
    r"\bnothing\b.{0,60}\b(mentions?|says?|about|covers?|lists?|records?|gives?)\b|\bnowhere\b"
    r"|\bnot mentioned\b|\bno mention\b|\bno record\b"
    r"|\b(don[’']?t|do not|doesn[’']?t|does not)\s+(\w+\s+){0,2}?"
    r"(mention|cover|say|have|list|record|include|store|hold|keep|give|show)"
    r"|\b(aren[’']?t|are not|isn[’']?t|is not)\s+(\w+\s+){0,2}?"
    r"(listed|mentioned|in|included|recorded|part|kept|stored|written|given|there)\b"
)


_nowhere = functools.partial(_said_absent, files=MINIBUS, nothing_says=_NOTHING_SAYS)


TWELFTH_ASK_TASKS: tuple[Task, ...] = (
    _ask(
        "ask-latest-to-book",
        READ,
        "My mum needs the bus to Kelbrook hospital on Thursday. What's the latest I can "
        "ring up and book it for her?",
        _found(
            r"\b(noon|midday)\b|\b12[:.]00\b|\b12\s*(pm|p\.m\.|o[’']?clock)",
            r"\bwednesday\b|\bday before\b|\bprevious (working )?day\b|\bday prior\b",
            files=MINIBUS,
        ),
        "By noon on Wednesday: bookings close at 12:00 on the working day before the trip "
        "(book_by in minibus.toml).",
        "read_file:minibus.toml",
    ),
    _ask(
        "ask-thursday-driver",
        READ,
        "whos driving the bus on thursday",
        _found(r"\bAnn\b|\bFairley\b", files=MINIBUS),
        "Ann Fairley, with Dilip Rao as her assistant (rota.yaml).",
        "read_file:rota.yaml",
    ),
    _ask(
        "ask-hospital-return-bus-pass",
        READ,
        "How much will a return to Kelbrook Hospital cost my dad? He's got his bus pass.",
        _found(
            r"£\s?5(\.00)?(?!\d|\.\d)|(?<![\d.£])5\.00\b|\bfive pounds\b"
            r"|(?<![\d.£])5\s*(pounds|quid|GBP)\b",
            files=MINIBUS,
        ),
        "£5.00: a return to the hospital is £10 (FARES in fares.py), and bus pass holders "
        "pay half.",
        "read_file:fares.py",
    ),
    _ask(
        "def-booking-closes",
        SEARCH,
        "Where in the code does a booking get turned away when someone rings too late? "
        "Which function, and which file?",
        _found(r"\bbookings\.py\b", r"\bdeadline\b|\bbook\b", files=MINIBUS),
        "DayBook.book in bookings.py: it asks deadline() when bookings for the day close "
        "(noon on the working day before) and refuses one made after that.",
        "search_text",
    ),
    _ask(
        "callers-stop-times",
        SEARCH,
        "I'm about to change stopTimes in the timetable screen code. What calls it?",
        _found(r"\bmain\.js\b", files=MINIBUS),
        "screen/main.js calls it, once for each run; it is defined in screen/timetable.js.",
        "search_text",
    ),
    _ask(
        "usage-door-minutes",
        SEARCH,
        "door_minutes in minibus.toml - which bit of the code actually uses that?",
        _found(r"\brunsheet\.py\b", files=MINIBUS),
        "runsheet.py reads it (service['door_minutes']) and passes it to "
        "Booking.pick_up_at in bookings.py, which takes it off the pick-up time.",
        "search_text",
    ),
    _ask(
        "run-fares-to-collect",
        RUN,
        "How much should Keith be coming back with in fares today, and how many miles is "
        "he doing? The run sheet works it out.",
        _ran(
            r"(?<![\d.])43(\.00)?(?![\d.])|\bforty[- ]three\b",
            r"(?<![\d.])138\.4(?!\d)",
            command="python3 runsheet.py",
            every=True,
        ),
        "43.00 GBP in fares, and 138.4 miles (about 80.27 GBP of running cost).",
        "run_cmd:runsheet.py",
    ),
    _ask(
        "run-thursday-hospital-bus",
        RUN,
        "Can you run the timetable screen and tell me what time Thursday's hospital bus "
        "gets to Wistow Green, and what time it leaves the hospital to come home?",
        _ran(
            r"\b14[:.]02\b|\b2[:.]02\s*(pm|p\.m\.)",
            r"\b16[:.]00\b|\b4([:.]00)?\s*(pm|p\.m\.|o[’']?clock)|\bfour (o[’']?clock|pm)\b",
            command="node screen/main.js",
            every=True,
        ),
        "It reaches Wistow Green, the Plough at 14:02, and comes back from the hospital at 16:00.",
        "run_cmd:screen/main.js",
    ),
    _ask(
        "run-august-miles",
        RUN,
        "The parish council want August's figures for the grant form: how many miles did "
        "the bus do, and how many passengers did it carry? There's a tool that does it.",
        _ran(
            r"(?<![\d.])532\.2(?!\d)",
            r"(?<![\d.])86(?![\d.])|\beighty[- ]six\b",
            command="bash tools/month.sh",
            every=True,
        ),
        "In August 2026 the bus did 532.2 miles and carried 86 passengers (11 of them in "
        "wheelchairs) on 15 journeys.",
        "run_cmd:tools/month.sh",
    ),
    _ask(
        "missing-mot-due",
        REFUSE,
        "When's the minibus due its MOT?",
        _nowhere(
            r"\bno (MOT|mention of (the |an )?MOT)\b",
            invented=r"\bMOT\b (is |was )?(due|expires?|runs out)\b[^.;\n]{0,25}\d",
        ),
        "Nothing in the files mentions the MOT: minibus.toml only has the servicing "
        "(every 6000 miles, the last at 48210), so ask Janet or look at the certificate.",
        "search_text",
    ),
    _ask(
        "missing-brenda-phone",
        REFUSE,
        "Brenda's on with Ray on Wednesday and I need to ring her about a change. What's "
        "her number?",
        _nowhere(
            r"\bno (phone|number|mobile)\b",
            invented=r"\b(brenda|coyle|her)(['’]s)?[\s:*\-–]+((phone|mobile|number)[\s:*\-–]+)"
            r"{0,2}(is[\s:*]+)?0\d{3,4}",
        ),
        "Brenda Coyle has no phone number in rota.yaml (she started in August): ask Janet "
        "Marsh, the coordinator.",
        "read_file:rota.yaml",
    ),
    _ask(
        "missing-insurance-policy",
        REFUSE,
        "The garage wants the insurance details for the minibus. Who are we insured with, "
        "and what's the policy number?",
        _nowhere(
            r"\bno (insurance|insurer|policy)\b",
            invented=r"\bpolicy (number |no\.? )?(is |:)\s*\**[A-Z0-9][A-Z0-9/-]{4,}"
            r"|\binsurer is (?!not\b|unknown\b|never\b)\w+",
        ),
        "Nothing in the minibus's files says who insures the bus or gives a policy number: "
        "minibus.toml has its registration and servicing but not the insurance.",
        "search_text",
    ),
)


_PURPOSES = ("shopping", "medical", "social")


def _by_purpose(month: str = "", log: str = JOURNEYS_CSV) -> dict[str, tuple[int, int]]:
    """Each purpose's journeys and passengers in *log* (in *month* only, when given)."""
    counts = {purpose: (0, 0) for purpose in _PURPOSES}
    for row in log.splitlines()[1:]:
        day, _, _, passengers, _, _, _, purpose = row.split(",")
        if day.startswith(month):
            journeys, people = counts[purpose]
            counts[purpose] = (journeys + 1, people + int(passengers))
    return counts


def _purposes_said(ws: Path, month: str = "", log: str = JOURNEYS_CSV) -> bool:
    """Whether tools/purposes.sh [MONTH] gives each purpose's journeys and passengers on
    a line that names the purpose."""
    code, out = run(ws, f"bash tools/purposes.sh {month}".strip())
    if code != 0:
        return False
    for purpose, want in _by_purpose(month, log).items():
        lines = [line for line in out.splitlines() if purpose in line.lower()]
        figures = {int(f) for line in lines for f in re.findall(r"(?<![\d.])\d+(?![\d.])", line)}
        if not set(want) <= figures:
            return False
    return True


def _tools_as_before(ws: Path) -> bool:
    """Whether the two tools print as they did (the shared helper may have grown)."""
    return run(ws, "bash tools/drivers.sh") == (0, DRIVERS_OUT) and run(
        ws, "bash tools/month.sh 2026-08"
    ) == (0, AUGUST_OUT)


def _purposes_tool(ws: Path) -> bool:
    """Whether tools/purposes.sh counts the whole log's journeys and passengers, and one
    month's, by purpose, reads the log (rows added later count), and the other tools
    still work."""
    if not (_purposes_said(ws) and _purposes_said(ws, "2026-08")):
        return False
    if not _tools_as_before(ws):
        return False
    more = (
        "2026-08-31,Ray Sutton,Marbury,6,0,30.8,18.00,shopping\n"
        "2026-09-14,Keith Ambler,Kelbrook Hospital,2,1,56.2,10.00,medical\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "minibus"
        shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("__pycache__"))
        with (copy / "data" / "journeys.csv").open("a") as log:
            log.write(more)
        return _purposes_said(copy, log=JOURNEYS_CSV + more) and _purposes_said(
            copy, "2026-08", JOURNEYS_CSV + more
        )


def _fare_lines(ws: Path, fares: dict[str, list[float]]) -> bool:
    """Whether ``node screen/fares.js`` gives each zone's single and return fare on a
    line that names the zone."""
    code, out = run(ws, "node screen/fares.js")
    if code != 0:
        return False
    for zone, amounts in fares.items():
        lines = [line for line in out.splitlines() if zone in line.lower()]
        figures = [float(f) for line in lines for f in re.findall(r"\d+(?:\.\d+)?", line)]
        for amount in amounts:
            if not any(abs(figure - amount) < 0.005 for figure in figures):
                return False
    return True


def _fares_poster(ws: Path) -> bool:
    """Whether screen/fares.js prints the fare table, reads it from timetable.json (a
    zone added or a fare changed there counts), and the screen is as it was."""
    if not _fare_lines(ws, json.loads(TIMETABLE_JSON)["fares"]):
        return False
    if run(ws, "node screen/main.js") != (0, SCREEN_OUT):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "minibus"
        shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("__pycache__"))
        screen = json.loads(TIMETABLE_JSON)
        screen["fares"] = {**screen["fares"], "hospital": [7, 12.5], "coast": [4.25, 8]}
        (copy / "screen" / "timetable.json").write_text(json.dumps(screen, indent=2))
        return _fare_lines(copy, screen["fares"])


_SETTINGS = tomllib.loads(MINIBUS_TOML)


def _sheet_with(*changes: tuple[str, str]) -> str:
    out = RUNSHEET_OUT
    for old, new in changes:
        assert old in out, old
        out = out.replace(old, new)
    return out


def _sixteen_seater(ws: Path) -> bool:
    """Whether the bus has 16 seats in minibus.toml, all else there as it was, and the
    run sheet and the tests agree."""
    want = tomllib.loads(MINIBUS_TOML)
    want["bus"]["seats"] = 16
    sheet = _sheet_with(
        ("bus YK19 HBW: 12 seats,", "bus YK19 HBW: 16 seats,"), (" of 12 ", " of 16 ")
    )
    return (
        toml_of(ws, "minibus.toml") == want
        and run(ws, "python3 runsheet.py") == (0, sheet)
        and passes(ws, "python3 -m unittest")
    )


_CLOSING = """python3 -c '
import json, bookings
closes = [str(bookings.deadline(day)) for day in ("2026-09-21", "2026-09-22", "2026-09-25")]
taken = []
for booked in ("2026-09-18 15:00", "2026-09-19 09:00", "2026-09-18 11:30"):
    day = bookings.DayBook("2026-09-21")
    try:
        day.book("Gill", "Hollowfield", "Kelbrook Hospital", "11:20", booked)
        taken.append(True)
    except ValueError:
        taken.append(False)
print(json.dumps([closes, taken]))
'"""


def _monday_closes_on_friday(ws: Path) -> bool:
    """Whether bookings for a Monday close at noon on the Friday (those for other days
    at noon the day before, as they did), and the run sheet and the tests are as they
    were."""
    code, out = run(ws, _CLOSING)
    want = [
        ["2026-09-18 12:00:00", "2026-09-21 12:00:00", "2026-09-24 12:00:00"],
        [False, False, True],
    ]
    return (
        code == 0
        and json.loads(out) == want
        and run(ws, "python3 runsheet.py") == (0, RUNSHEET_OUT)
        and passes(ws, "python3 -m unittest")
    )


_SEATS_LINES = (
    "node -e \"const t = require('./screen/timetable'); "
    'console.log(JSON.stringify([1, 2, 3, 5, 0].map((n) => t.seatsLine(n, 3))))"'
)


def _one_seat(ws: Path) -> bool:
    """Whether the screen says one seat, and two seats, and is otherwise as it was."""
    code, out = run(ws, _SEATS_LINES)
    want = [
        "only 1 seat left - book soon",
        "only 2 seats left - book soon",
        "only 3 seats left - book soon",
        "5 seats left",
        "full - ring the office to go on the waiting list",
    ]
    return (
        code == 0 and json.loads(out) == want and run(ws, "node screen/main.js") == (0, SCREEN_OUT)
    )


def _sheet_back(ev: Events, ws: Path) -> bool:
    """Whether the settings read as they did, the run sheet prints, and the tests pass."""
    return (
        toml_of(ws, "minibus.toml") == _SETTINGS
        and run(ws, "python3 runsheet.py") == (0, RUNSHEET_OUT)
        and passes(ws, "python3 -m unittest")
    )


def _screen_back(ev: Events, ws: Path) -> bool:
    """Whether the screen's settings read as they did and the screen comes up."""
    return json_of(ws, "screen/timetable.json") == json.loads(TIMETABLE_JSON) and run(
        ws, "node screen/main.js"
    ) == (0, SCREEN_OUT)


def _month_back(ev: Events, ws: Path) -> bool:
    """Whether month.sh gives a month's figures again, still turns away a month that is
    not one and a call with none, and the drivers' tool is as it was."""
    bad_code, bad = run(ws, "bash tools/month.sh 2026-13")
    none_code, none = run(ws, "bash tools/month.sh")
    return (
        _tools_as_before(ws)
        and run(ws, "bash tools/month.sh 2026-07") == (0, JULY_OUT)
        and bad_code != 0
        and "2026-13 is not a month" in bad
        and none_code != 0
        and "give a month" in none
    )


_FARE_RULES = 'python3 -c "import json, fares; print(json.dumps([fares.FARES, fares.SHARE]))"'
_FARES = {"local": [2.0, 3.5], "town": [3.5, 6.0], "hospital": [6.0, 10.0]}
_SHARES = {"full": 1.0, "bus pass": 0.5, "under 16": 0.0}


def _fare_rules(ws: Path) -> object:
    """fares.py's fares and shares, or None."""
    code, out = run(ws, _FARE_RULES)
    try:
        return json.loads(out) if code == 0 else None
    except ValueError:
        return None


def _hospital_at_seven(ws: Path) -> bool:
    """Whether the hospital is £7 single and £12 return in fares.py and on the screen,
    all else as it was, and the run sheet, the screen and the tests agree."""
    rules = [{**_FARES, "hospital": [7.0, 12.0]}, _SHARES]
    screen = json.loads(TIMETABLE_JSON)
    screen["fares"]["hospital"] = [7, 12]
    sheet = _sheet_with(
        ("full return  10.00", "full return  12.00"),
        ("bus pass return  5.00", "bus pass return  6.00"),
        ("fares to collect: 43.00 GBP", "fares to collect: 46.00 GBP"),
    )
    return (
        _fare_rules(ws) == rules
        and json_of(ws, "screen/timetable.json") == screen
        and run(ws, "python3 runsheet.py") == (0, sheet)
        and run(ws, "node screen/main.js")
        == (0, SCREEN_OUT.replace("hospital £6 / £10", "hospital £7 / £12"))
        and passes(ws, "python3 -m unittest")
    )


_NEW_PLACE = (
    'python3 -c "import json, dataclasses, places, fares; '
    "print(json.dumps([sorted(dataclasses.astuple(p) for p in places.PLACES.values()), "
    "fares.fare('Hollowfield', 'Nether Ashby'), fares.fare('Nether Ashby', 'Marbury'), "
    "places.minutes_between('Nether Ashby', 'Marbury')]))\""
)
_PLACES = [
    ["Crane End", 3.8, "local"],
    ["Hollowfield", 0.0, "local"],
    ["Kelbrook Hospital", 14.0, "hospital"],
    ["Little Ashby", 2.5, "local"],
    ["Marbury", 7.5, "town"],
    ["Marbury Health Centre", 7.9, "town"],
    ["Nether Ashby", 3.1, "local"],
    ["Wistow Green", 5.2, "local"],
]


def _nether_ashby(ws: Path) -> bool:
    """Whether Nether Ashby is a place the bus goes (3.1 miles out, the local fare), a
    stop on the Tuesday run twelve minutes after it leaves, between Little Ashby and
    Crane End, the rest of the screen's settings as they were, and the run sheet, the
    screen and the tests agree."""
    code, out = run(ws, _NEW_PLACE)
    try:
        got = json.loads(out) if code == 0 else None
    except ValueError:
        return False
    if got != [_PLACES, 3.5, 6.0, 15]:
        return False
    want = json.loads(TIMETABLE_JSON)
    screen = json_of(ws, "screen/timetable.json")
    try:
        stops = screen["runs"][0]["stops"]  # type: ignore[index]
        stop, after = stops[2]
    except (TypeError, KeyError, IndexError, ValueError):
        return False
    if not (isinstance(stop, str) and stop.startswith("Nether Ashby")) or after != 12:
        return False
    want["runs"][0]["stops"].insert(2, [stop, 12])
    if screen != want:
        return False
    shown = SCREEN_OUT.replace(
        "  09:33  Little Ashby, the Green\n",
        f"  09:33  Little Ashby, the Green\n  09:37  {stop}\n",
        1,
    )
    return (
        run(ws, "node screen/main.js") == (0, shown)
        and run(ws, "python3 runsheet.py") == (0, RUNSHEET_OUT)
        and passes(ws, "python3 -m unittest")
    )


_FARE_ZONE = (
    "python3 -c \"import places; print(places.fare_zone('Crane End', 'Marbury'), "
    "places.fare_zone('Kelbrook Hospital', 'Little Ashby'), hasattr(places, 'zone_of'))\""
)


def _zone_renamed(ws: Path) -> bool:
    """Whether zone_of is fare_zone in every Python file, works as it did, the tests
    use the new name and still pass, and the run sheet is as it was."""
    if any(re.search(r"\bzone_of\b", text(ws, p)) for p in MINIBUS if p.endswith(".py")):
        return False
    if run(ws, _FARE_ZONE) != (0, "town hospital False\n"):
        return False
    if "fare_zone" not in text(ws, "test_minibus.py"):
        return False
    code, out = run(ws, "python3 -m unittest")
    return (
        code == 0 and "Ran 10 tests" in out and run(ws, "python3 runsheet.py") == (0, RUNSHEET_OUT)
    )


# a change task on the minibus's files
_change = functools.partial(_task, files=MINIBUS)


_PURPOSES_SH = """\
#!/usr/bin/env bash
# Journeys and passengers by what they were for: bash tools/purposes.sh [MONTH] [LOG]
set -euo pipefail

. "$(dirname "$0")/lib.sh"

MONTH="${1:-}"
LOG="${2:-$JOURNEY_LOG}"
if [ -n "$MONTH" ]; then
  month_ok "$MONTH"
fi
log_ok "$LOG"

awk -F, -v month="$MONTH" '
  NR > 1 && (month == "" || substr($1, 1, 7) == month) { journeys[$8]++; people[$8] += $4 }
  END {
    split("shopping medical social", purposes, " ")
    for (i = 1; i <= 3; i++) {
      p = purposes[i]
      printf "%s: %d journeys, %d passengers\\n", p, journeys[p], people[p]
    }
  }
' "$LOG"
"""

_FARES_JS = """\
'use strict';

// Print the fare table for a poster: node screen/fares.js

const fs = require('fs');
const path = require('path');
const { pounds } = require('./timetable');

const screen = JSON.parse(fs.readFileSync(path.join(__dirname, 'timetable.json'), 'utf8'));

console.log(`${screen.service}: fares`);
for (const [zone, [single, back]] of Object.entries(screen.fares)) {
  console.log(`${zone}: single ${pounds(single)}, return ${pounds(back)}`);
}
"""

_LATE_TEST = """\
    def test_a_wednesday_trip_closes_on_tuesday_at_noon(self) -> None:
        self.assertEqual(str(deadline("2026-09-16")), "2026-09-15 12:00:00")

    def test_a_booking_after_noon_the_day_before_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            self.book.book("Gill", "Hollowfield", "Marbury", "10:00", "2026-09-15 14:30")
"""

TWELFTH_CHANGE_TASKS: tuple[Task, ...] = (
    _change(
        "create-purposes-script",
        CREATE,
        "For the grant report we have to show how many journeys and how many passengers "
        "were for shopping, medical and social. Can you write tools/purposes.sh to count "
        "them from the journey log? For one month if I give it one like 2026-08, otherwise "
        "for the whole log.",
        lambda ev, ws: _purposes_tool(ws),
        write_files("Added tools/purposes.sh.", {"tools/purposes.sh": _PURPOSES_SH}),
        ("tools/purposes.sh", "tools/lib.sh", "README.md"),
    ),
    _change(
        "create-late-booking-test",
        CREATE,
        "nothing tests that the office can't take a booking once bookings have closed for "
        "that day. add a test for it please",
        lambda ev, ws: tests_catch(
            ws,
            10,
            "bookings.py",
            BOOKINGS_PY.replace("if datetime.fromisoformat(booked) > closed:", "if False:"),
        ),  # a late booking taken
        edits(
            "Added test_a_booking_after_noon_the_day_before_is_refused to test_minibus.py.",
            (
                "test_minibus.py",
                "    def test_a_wednesday_trip_closes_on_tuesday_at_noon(self) -> None:\n"
                '        self.assertEqual(str(deadline("2026-09-16")), "2026-09-15 12:00:00")\n',
                _LATE_TEST,
            ),
        ),
        ("test_minibus.py",),
    ),
    _change(
        "create-fares-poster",
        CREATE,
        "I'm doing a poster for the church porch. Could you write a little node script, "
        "screen/fares.js, that prints the fare table from timetable.json: one zone per "
        "line, with the single and the return?",
        lambda ev, ws: _fares_poster(ws),
        write_files("Added screen/fares.js.", {"screen/fares.js": _FARES_JS}),
        ("screen/fares.js", "screen/timetable.js", "README.md"),
    ),
    _change(
        "toml-sixteen-seater",
        FIX,
        "We've swapped the bus for a sixteen-seater, same two wheelchair spaces. Can you "
        "update the settings?",
        lambda ev, ws: _sixteen_seater(ws),
        edits("Done.", ("minibus.toml", "seats = 12", "seats = 16")),
        ("minibus.toml", "README.md"),
    ),
    _change(
        "fix-monday-bookings",
        FIX,
        "Someone rang at three o'clock on Friday afternoon for a Monday hospital trip and "
        "the booking went through. Bookings for a Monday are supposed to close at noon on "
        "the Friday.",
        lambda ev, ws: _monday_closes_on_friday(ws),
        edits(
            "Fixed: deadline() skips Saturday as well as Sunday.",
            ("bookings.py", _SUNDAY, _WEEKEND),
        ),
        ("bookings.py",),
        files=minibus_with({"bookings.py": BOOKINGS_SUNDAY_ONLY}),
    ),
    _change(
        "js-one-seat-left",
        FIX,
        "The screen in the shop window says 'only 1 seats left' for Thursday's hospital "
        "bus. It should be 1 seat.",
        lambda ev, ws: _one_seat(ws),
        edits(
            "Fixed.",
            (
                "screen/timetable.js",
                "    return `only ${left} seats left - book soon`;\n",
                "    return `only ${left} ${left === 1 ? 'seat' : 'seats'} left - book soon`;\n",
            ),
        ),
        ("screen/timetable.js",),
        files=minibus_with({"screen/timetable.js": TIMETABLE_JS_SEATS}),
    ),
    _change(
        "error-wheelchair-key",
        ERROR,
        "I was tidying up minibus.toml last night and now the run sheet won't print:"
        f"\n\n{_KEY_ERROR}\n\nKeith needs it for tomorrow morning.",
        _sheet_back,
        edits("Fixed.", ("minibus.toml", "wheelchair_space = 2", "wheelchair_spaces = 2")),
        ("minibus.toml",),
        files=minibus_with({"minibus.toml": TOML_MISSPELT}),
    ),
    _change(
        "error-timetable-comma",
        ERROR,
        "I changed the seats left on the timetable screen this morning and now it doesn't "
        f"come up at all. This is what I get:\n\n$ node screen/main.js\n{_COMMA_ERROR}",
        _screen_back,
        edits("Fixed.", ("screen/timetable.json", '"back": "16:00"\n', '"back": "16:00",\n')),
        ("screen/timetable.json",),
        files=minibus_with({"screen/timetable.json": TIMETABLE_NO_COMMA}),
    ),
    _change(
        "error-month-tool",
        ERROR,
        f"The month tool won't run for me:\n\n{_UNBOUND_ERROR}\n\n2026-08 is a month, "
        "isn't it? The parish council want the August figures by Friday.",
        _month_back,
        edits("Fixed.", ("tools/month.sh", "month_ok\n", 'month_ok "$MONTH"\n')),
        ("tools/month.sh", "tools/lib.sh"),
        files=minibus_with({"tools/month.sh": MONTH_NO_ARGUMENT}),
    ),
    _change(
        "hospital-fare-rise",
        MULTI,
        "The trustees have agreed the hospital fare goes up to £7 single and £12 return. "
        "It's on the timetable screen as well, so change it there too please.",
        lambda ev, ws: _hospital_at_seven(ws),
        edits(
            "The hospital fare is £7 single and £12 return in fares.py and on the screen.",
            ("fares.py", '"hospital": (6.00, 10.00),', '"hospital": (7.00, 12.00),'),
            ("screen/timetable.json", '"hospital": [6, 10]', '"hospital": [7, 12]'),
        ),
        ("fares.py", "screen/timetable.json", "README.md"),
        max_turns=10,
    ),
    _change(
        "nether-ashby-stop",
        MULTI,
        "From next week the Tuesday market bus will call at Nether Ashby too, at the phone "
        "box. It's 3.1 miles from the hall, so it's the local fare, and the bus gets there "
        "12 minutes after it sets off, between Little Ashby and Crane End. Can you add "
        "Nether Ashby to the places we go, and the stop to the Tuesday run on the timetable "
        "screen?",
        lambda ev, ws: _nether_ashby(ws),
        edits(
            "Nether Ashby is in places.py, and a stop on the Tuesday run on the screen.",
            (
                "places.py",
                '        Place("Little Ashby", 2.5, "local"),\n',
                '        Place("Little Ashby", 2.5, "local"),\n'
                '        Place("Nether Ashby", 3.1, "local"),\n',
            ),
            (
                "screen/timetable.json",
                '        ["Little Ashby, the Green", 8],\n',
                '        ["Little Ashby, the Green", 8],\n'
                '        ["Nether Ashby, the phone box", 12],\n',
            ),
        ),
        ("places.py", "screen/timetable.json", "README.md"),
        max_turns=10,
    ),
    _change(
        "rename-zone-of",
        MULTI,
        "zone_of is a confusing name when Place has a zone of its own. Rename it to "
        "fare_zone everywhere, tests included.",
        lambda ev, ws: _zone_renamed(ws),
        edits(
            "zone_of is now fare_zone in places.py, fares.py and the tests.",
            ("places.py", "def zone_of(", "def fare_zone("),
            ("fares.py", "from places import zone_of", "from places import fare_zone"),
            ("fares.py", "FARES[zone_of(start, end)]", "FARES[fare_zone(start, end)]"),
            (
                "test_minibus.py",
                "from places import miles_between, minutes_between, zone_of",
                "from places import fare_zone, miles_between, minutes_between",
            ),
            ("test_minibus.py", 'zone_of("Crane End"', 'fare_zone("Crane End"'),
            ("test_minibus.py", 'zone_of("Kelbrook Hospital"', 'fare_zone("Kelbrook Hospital"'),
        ),
        ("places.py", "fares.py", "test_minibus.py"),
        max_turns=10,
    ),
)

TWELFTH: tuple[Task, ...] = (*TWELFTH_ASK_TASKS, *TWELFTH_CHANGE_TASKS)

__all__ = [
    "AUGUST_OUT",
    "BOOKINGS_SUNDAY_ONLY",
    "DRIVERS_OUT",
    "JULY_OUT",
    "MONTH_NO_ARGUMENT",
    "RUNSHEET_OUT",
    "SCREEN_OUT",
    "TIMETABLE_JS_SEATS",
    "TIMETABLE_NO_COMMA",
    "TOML_MISSPELT",
    "TWELFTH",
]
