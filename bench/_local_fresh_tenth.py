"""A tenth batch of the fresh set (``BENCH_SET=tenth``): 24 tasks on a sixth project the
rules never saw, a small community sailing club's boat bookings and tide board
(:mod:`bench._local_sailing`), written by someone who had not read the rules, and before
any run of them.

Twelve ask (the safety boat's radio channel, what a swinging mooring costs for the
season, how often the tide board refreshes, what a member's guest pays on top; which
function stops a boat being booked twice, what calls the hire fee, which code reads the
slipway's height from the settings; the bookings outside the tide, the flag on the board
and one skipper's season, which the programs print; the boat shed's padlock code and a
kayak's hire, which are nowhere) and twelve change (a tool that adds up a month of the
outings log and a test that a boat is not booked twice at once, written; juniors helming
from twelve, a dearer pontoon berth, a notice taken off the board, three boats from the
hours tool; a booking refused as the one before it ends and night-time high waters with
one digit for the hour, found from what people saw; a misspelt boat and a helper called
by a wrong name, pasted as the errors came; a new keelboat in the fleet and on a
mooring, and a dinghy back in service in the code and on the board).
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
from bench._local_sailing import (
    BOOKINGS_PY,
    CLUB_TOML,
    MOORINGS_YAML,
    NOTICES_JSON,
    OUTINGS_CSV,
    SAILING,
    SKIPPER_SH,
    TIDEBOARD_JS,
    sailing_with,
)
from bench._local_task import (
    Events,
    Task,
    edits,
    json_of,
    passes,
    run,
    tests_catch,
    toml_of,
    write_files,
    yaml_of,
)

_APART = "to_minutes(a_start) < to_minutes(b_end) and to_minutes(b_start) < to_minutes(a_end)"
BOOKINGS_BACK_TO_BACK = BOOKINGS_PY.replace(_APART, _APART.replace("<", "<="))
BOOKINGS_MISSPELT = BOOKINGS_PY.replace(
    'diary.book("Shearwater", "Neil Ashby"', 'diary.book("Shearwatter", "Neil Ashby"'
)
TIDEBOARD_UNPADDED = TIDEBOARD_JS.replace(
    "return `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}`;",
    "return `${Math.floor(m / 60)}:${pad2(m % 60)}`;",
)
SKIPPER_MISNAMED = SKIPPER_SH.replace('\nlog_ok "$LOG"\n', '\nlog_okay "$LOG"\n')

#: What ``python3 sheet.py`` prints on the club as it is.
SHEET_OUT = """\
Hollesby Sailing Club, saturday 2026-06-13
officer of the day: Bernard Cole
safety boat Mallard out 10:00-17:00, VHF 72
high water 13:25 (4.1 m), low water 0.6 m
juniors helm alone from 14
out of service: Dabchick
off the hard:
  draws 0.10 m: 10:09-16:41  (Sprat, Winkle)
  draws 0.20 m: 10:16-16:34  (Puffin, Gannet)
  draws 0.90 m: 11:04-15:46  (Kittiwake, Shearwater)
  draws 1.40 m: 11:44-15:06  (Guillemot)
bookings: 8, 20 people afloat
  10:30-13:00  Puffin (Wayfarer), Ann Rowe, 3 aboard, 20.00 GBP
  10:30-12:30  Sprat (Topper), Maisie Fenn, 1 aboard, 16.00 GBP
  11:00-15:30  Kittiwake (Squib), Colin Darby, 3 aboard, 67.50 GBP
  12:00-15:30  Shearwater (Squib), Neil Ashby, 2 aboard, 52.50 GBP
  12:00-17:00  Guillemot (Sonata), Ruth Pask, 4 aboard, 75.00 GBP
  13:30-16:00  Gannet (Wayfarer), Priya Nair (guest), 2 aboard, 30.00 GBP
  14:00-15:15  Winkle (Topper), Ollie Fenn, 1 aboard, 16.00 GBP
  14:00-16:00  Puffin (Wayfarer), Dev Sharma (guest), 4 aboard, 24.00 GBP
outside the tide: Kittiwake 11:00-15:30; Guillemot 12:00-17:00
busiest: 14:00, 6 boats out
hire comes to: 301.00 GBP
"""

#: What ``node board/main.js`` prints on the club as it is.
BOARD_OUT = """\
Hollesby Sailing Club, 2026-06-13
high water 13:25 (4.1 m)
next high waters: 01:50, 14:15, 02:40
wind SW 14 kn, gusts 21 kn
amber flag: reefs in, juniors stay in the creek
out of service: Dabchick (new centreboard case, at Fulcher's yard)
notices:
  Working party: scrub the pontoon, Saturday 6 June, 09:00 - Bernard Cole
  Saturday Series race 3: first gun 14:00, 20 June - Race officer
  Junior week 27-31 July: names to Sally Venn by 1 July - Sally Venn
  Bar open after racing on Saturdays from 17:00 - Bar committee
(this page refreshes every 90 s)
"""

#: What ``bash tools/skipper.sh "Ann Rowe"`` prints.
ANN_ROWE_OUT = """\
2026-05-02  Puffin  10:30-13:00  2.5 h
2026-05-09  Puffin  10:00-13:30  3.5 h
2026-05-16  Puffin  10:30-12:30  2.0 h
2026-05-23  Puffin  11:00-14:00  3.0 h
2026-06-03  Puffin  18:00-20:30  2.5 h
Ann Rowe: 5 outings, 13.5 h on the water
"""

_BOOKING_ERROR = """\
Traceback (most recent call last):
  File "/home/bernard/hollesby/sheet.py", line 72, in <module>
    main()
  File "/home/bernard/hollesby/sheet.py", line 67, in main
    for line in day_sheet():
                ^^^^^^^^^^^
  File "/home/bernard/hollesby/sheet.py", line 22, in day_sheet
    diary = sample_day(rules["min_helm_age"])
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/bernard/hollesby/bookings.py", line 105, in sample_day
    diary.book("Shearwatter", "Neil Ashby", 27, "12:00", "15:30", 2)
  File "/home/bernard/hollesby/bookings.py", line 55, in book
    craft = boat(name)
            ^^^^^^^^^^
  File "/home/bernard/hollesby/fleet.py", line 46, in boat
    raise ValueError(f"no boat called {name!r} in the fleet") from None
ValueError: no boat called 'Shearwatter' in the fleet"""

_SKIPPER_ERROR = """\
$ bash tools/skipper.sh "Ann Rowe"
tools/skipper.sh: line 17: log_okay: command not found"""


_ask = functools.partial(_t, files=SAILING)


_ran = functools.partial(_run_says, files=SAILING)


# how people say a thing is nowhere that says_absent does not read: "nothing in the
# project mentions a padlock", "the club doesn't own kayaks", "kayaks aren't listed"
_NOTHING_SAYS = (
    r"\bnothing\b.{0,60}\b(mentions?|says?|about|covers?|lists?|records?)\b|\bnowhere\b"
    r"|\bnot mentioned\b|\bno mention\b|\bno record\b"
    r"|\b(don[’']?t|do not|doesn[’']?t|does not)\s+(\w+\s+){0,2}?"
    r"(mention|cover|say|own|have|hire|keep|list|record|include|store|hold)"
    r"|\b(aren[’']?t|are not|isn[’']?t|is not)\s+(\w+\s+){0,2}?"
    r"(listed|mentioned|in|included|recorded|part|kept|stored|written)\b"
)


_nowhere = functools.partial(_said_absent, files=SAILING, nothing_says=_NOTHING_SAYS)


TENTH_ASK_TASKS: tuple[Task, ...] = (
    _ask(
        "ask-safety-boat-channel",
        READ,
        "I'm on the safety boat for the first time this Saturday. What channel do I keep "
        "the radio on?",
        _found(r"(?<![\d.])72(?!\d|\.\d)|\bseventy[- ]two\b", files=SAILING),
        "Channel 72 (vhf_channel under [safety] in club.toml).",
        "read_file:club.toml",
    ),
    _ask(
        "ask-swinging-mooring-fee",
        READ,
        "Harriet's thinking of taking a swinging mooring next season. What does "
        "moorings.yaml say one costs?",
        _found(r"(?<![\d.])185(?!\d|\.\d*[1-9])", files=SAILING),
        "£185 for the season (fees.swinging in moorings.yaml).",
        "read_file:moorings.yaml",
    ),
    _ask(
        "ask-board-refresh",
        READ,
        "We've put the tide board up in the clubhouse window now. How often does it refresh "
        "itself?",
        _found(
            r"(?<![\d.])90(?!\d|\.\d*[1-9])|\bninety\b|\bminute and a half\b"
            r"|(?<![\d.])1\.5\s*min",
            files=SAILING,
        ),
        "Every 90 seconds (refresh_seconds in board/notices.json).",
        "read_file:board/notices.json",
    ),
    _ask(
        "ask-guest-rate",
        READ,
        "if a member brings a friend and the friend takes the helm, do they pay more than "
        "the member would? how much more",
        _found(
            r"(?<![\d.])1\.5(?!\d)|(?<![\d.])50\s*(%|per ?cent)|\bhalf (as much )?again\b"
            r"|\bone and a half\b|\b(time|times) and a half\b|\bfifty per ?cent\b"
            # or in money: a dinghy's £12 an hour against £8, a keelboat's £22.50 against £15
            r"|£\s?12(\.00)?\s*(an|a|per|/)\s*h|£\s?22\.50?(?!\d)",
            files=SAILING,
        ),
        "Yes: a member's guest at the helm pays half as much again (GUEST_RATE = 1.5 in "
        "fleet.py), so £12 an hour for a dinghy instead of £8.",
        "search_text",
    ),
    _ask(
        "def-clash-check",
        SEARCH,
        "Something in the code stops two people booking the same boat at the same time. "
        "Which function is that, and what file is it in?",
        _found(r"\bbookings\.py\b", r"\boverlaps\b|\bbook\b", files=SAILING),
        "overlaps in bookings.py, which Diary.book calls for each booking the boat already has.",
        "search_text",
    ),
    _ask(
        "callers-hire-fee",
        SEARCH,
        "I want to change the way hire_fee works out the money. Before I touch it: what calls it?",
        _found(r"\bbookings\.py\b", r"\btest_club\.py\b", files=SAILING),
        "bookings.py (Booking.fee) and test_club.py call it; it is defined in fleet.py.",
        "search_text",
    ),
    _ask(
        "usage-toe-height",
        SEARCH,
        "There's a toe_height setting in club.toml. Which part of the code actually reads it?",
        _found(r"\bsheet\.py\b", files=SAILING),
        "sheet.py reads it (hard['toe_height']) and passes it to launch_window in tides.py.",
        "search_text",
    ),
    _ask(
        "run-outside-the-tide",
        RUN,
        "Which of Saturday's bookings are outside the tide? The day's sheet works that out, "
        "I think.",
        _ran(r"\bKittiwake\b", r"\bGuillemot\b", command="python3 sheet.py", every=True),
        "Two: Kittiwake 11:00-15:30 and Guillemot 12:00-17:00.",
        "run_cmd:sheet.py",
    ),
    _ask(
        "run-board-flag",
        RUN,
        "Run node board/main.js and tell me which flag the board is putting up.",
        _ran(r"\bamber\b", command="node board/main.js"),
        "The amber flag: reefs in, juniors stay in the creek (gusts of 21 knots).",
        "run_cmd:board/main.js",
    ),
    _ask(
        "run-ann-rowe-season",
        RUN,
        "Ann Rowe wants to move up to the keelboats, so the committee needs to know how much "
        "she's sailed this season: how many outings, and how many hours. One of the tools "
        "can tell you.",
        _ran(
            r"(?<![\d.])5(?![\d.])|\bfive\b",
            r"(?<![\d.])13\.5(?!\d)|\bthirteen and a half\b",
            command="bash tools/skipper.sh",
            every=True,
        ),
        "5 outings, 13.5 hours on the water, all in Puffin.",
        "run_cmd:tools/skipper.sh",
    ),
    _ask(
        "missing-padlock-code",
        REFUSE,
        "I'm opening up on Sunday morning. What's the combination for the padlock on the "
        "boat shed?",
        _nowhere(
            r"\bno (padlock|combination|code|lock)",
            invented=r"\b(code|combination|combo)\b[^.\n]{0,20}(?<![\d.])\d{3,6}(?![\d.])",
        ),
        "Nothing in the project mentions the boat shed's padlock or its combination: ask "
        "the bosun or the officer of the day.",
        "search_text",
    ),
    _ask(
        "missing-kayak-hire",
        REFUSE,
        "How much does it cost to hire one of the club's kayaks for an afternoon?",
        _nowhere(r"\bno (kayaks?|canoes?)\b", r"\bkayaks? (are|is)n[’']?t\b"),
        "The club has no kayaks in the fleet: fleet.py lists Wayfarers, Toppers, an RS Quest, "
        "Squibs and a Sonata only.",
        "read_file:fleet.py",
    ),
)


def _outings(month: str, log: str = OUTINGS_CSV) -> tuple[int, float]:
    """How many outings *log* has in *month* (YYYY-MM), and their hours on the water."""
    rows = [line.split(",") for line in log.splitlines()[1:]]

    def minutes(hhmm: str) -> int:
        hours, mins = hhmm.split(":")
        return int(hours) * 60 + int(mins)

    out = [minutes(end) - minutes(start) for day, _, _, start, end, _ in rows if day[:7] == month]
    return len(out), sum(out) / 60


def _month_said(ws: Path, month: str, log: str = OUTINGS_CSV) -> bool:
    """Whether tools/month.sh MONTH prints the month's outings and hours in all."""
    count, hours = _outings(month, log)
    code, out = run(ws, f"bash tools/month.sh {month}")
    figures = [float(f) for f in re.findall(r"(?<![\d.])\d+(?:\.\d+)?", out)]
    return (
        code == 0
        and float(count) in figures
        and any(abs(figure - hours) < 0.051 for figure in figures)
    )


def _tools_as_before(ws: Path) -> bool:
    """Whether the two tools print as they did (the shared helper may have grown)."""
    top = run(ws, "bash tools/hours.sh")
    return (
        top[0] == 0
        and top[1].startswith("Puffin: 23.5 h in 9 outings\n")
        and run(ws, 'bash tools/skipper.sh "Ann Rowe"') == (0, ANN_ROWE_OUT)
    )


def _month_tool(ws: Path) -> bool:
    """Whether tools/month.sh adds up May's and June's outings, reads the log (rows added
    later count), and the other tools still work."""
    if not (_month_said(ws, "2026-05") and _month_said(ws, "2026-06")):
        return False
    if not _tools_as_before(ws):
        return False
    more = (
        "2026-06-13,Puffin,Ann Rowe,10:30,13:00,3\n2026-06-13,Kittiwake,Colin Darby,11:00,15:30,3\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "club"
        shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("__pycache__"))
        with (copy / "data" / "outings.csv").open("a") as log:
            log.write(more)
        return _month_said(copy, "2026-06", OUTINGS_CSV + more)


def _juniors_from_twelve(ws: Path) -> bool:
    want = tomllib.loads(CLUB_TOML)
    want["rules"]["min_helm_age"] = 12
    return toml_of(ws, "club.toml") == want and run(ws, "python3 sheet.py") == (
        0,
        SHEET_OUT.replace("juniors helm alone from 14", "juniors helm alone from 12"),
    )


def _pontoon_dearer(ws: Path) -> bool:
    want = yaml.safe_load(MOORINGS_YAML)
    want["fees"]["pontoon"] = 450
    return yaml_of(ws, "moorings.yaml") == want


def _scrub_notice_off(ws: Path) -> bool:
    """Whether the working party is off the board's notices, the rest as it was, and the
    board prints without it."""
    want = json.loads(NOTICES_JSON)
    want["notices"] = [n for n in want["notices"] if not n["title"].startswith("Working party")]
    gone = "".join(line + "\n" for line in BOARD_OUT.splitlines() if "Working party" not in line)
    return json_of(ws, "board/notices.json") == want and run(ws, "node board/main.js") == (
        0,
        gone,
    )


_BACK_TO_BACK = """\
from bookings import Diary
d = Diary()
d.book("Puffin", "Ann Rowe", 41, "09:00", "12:00", 3)
d.book("Puffin", "Dev Sharma", 22, "12:00", "15:00", 4)
d.book("Puffin", "Priya Nair", 34, "07:30", "09:00", 2)
for start, end in (
    ("11:30", "12:30"), ("08:00", "09:30"), ("10:00", "11:00"), ("06:00", "16:00")
):
    try:
        d.book("Puffin", "Maisie Fenn", 15, start, end, 1)
    except ValueError:
        continue
    raise SystemExit(f"{start}-{end} was booked over another booking")
assert [b.skipper for b in d.for_boat("Puffin")] == ["Priya Nair", "Ann Rowe", "Dev Sharma"]
d.book("Gannet", "Sally Venn", 30, "11:00", "13:00", 3)
"""


def _back_to_back(ev: Events, ws: Path) -> bool:
    """Whether a booking may start as the one before it ends (and end as the next
    starts), a boat is still never booked twice at once, and the sheet and tests are as
    they were."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "back_to_back.py"
        script.write_text(_BACK_TO_BACK)
        if not passes(ws, f"PYTHONPATH=. python3 {script}"):
            return False
    return run(ws, "python3 sheet.py") == (0, SHEET_OUT) and passes(ws, "python3 -m unittest")


def _top_three(ws: Path) -> bool:
    """Whether tools/hours.sh lists three boats unless told, and as many as it is told."""

    def listed(command: str) -> list[str] | None:
        code, out = run(ws, command)
        return [line for line in out.splitlines() if line.strip()] if code == 0 else None

    every = listed("bash tools/hours.sh 10") or []
    return (
        len(every) == 8
        and every[0] == "Puffin: 23.5 h in 9 outings"
        and listed("bash tools/hours.sh") == every[:3]
        and listed("bash tools/hours.sh 6") == every[:6]
    )


_CLOCK_TIMES = (
    "node -e \"const {hhmm} = require('./board/tideboard'); "
    "console.log([65, 805, 1550, 1470, 2880 + 599, -10].map(hhmm).join(' '))\""
)


def _padded(ev: Events, ws: Path) -> bool:
    """Whether the board's times have two digits for the hour, at night too."""
    return run(ws, "node board/main.js") == (0, BOARD_OUT) and run(ws, _CLOCK_TIMES) == (
        0,
        "01:05 13:25 01:50 00:30 09:59 23:50\n",
    )


_FLEET_NAMES = (
    'python3 -c "import fleet; print(sorted(fleet.FLEET))"',
    "['Dabchick', 'Gannet', 'Guillemot', 'Kittiwake', 'Puffin', 'Shearwater', 'Sprat', 'Winkle']\n",
)


def _sheet_back(ev: Events, ws: Path) -> bool:
    """Whether the sheet prints again, Neil's booking on Shearwater (not on a boat made up
    for the misspelling), and the tests pass."""
    return (
        run(ws, "python3 sheet.py") == (0, SHEET_OUT)
        and run(ws, _FLEET_NAMES[0]) == (0, _FLEET_NAMES[1])
        and passes(ws, "python3 -m unittest")
    )


def _skipper_back(ev: Events, ws: Path) -> bool:
    """Whether skipper.sh prints Ann's outings again, still checks its log, and the hours
    tool is as it was."""
    code, out = run(ws, 'bash tools/skipper.sh "Ann Rowe" 2026-01 no-such-log.csv')
    may = "".join(line + "\n" for line in ANN_ROWE_OUT.splitlines()[:4])
    return (
        run(ws, 'bash tools/skipper.sh "Ann Rowe"') == (0, ANN_ROWE_OUT)
        and run(ws, 'bash tools/skipper.sh "Ann Rowe" 2026-05')
        == (0, may + "Ann Rowe: 4 outings, 11.0 h on the water\n")
        and code != 0
        and "no log of outings" in out
        and _tools_as_before(ws)
    )


_BOATS = (
    'python3 -c "import json, dataclasses, fleet; '
    'print(json.dumps([dataclasses.astuple(b) for b in fleet.FLEET.values()]))"'
)
_FLEET = [
    ["Puffin", "Wayfarer", "dinghy", "10418", 4, 0.2, True],
    ["Gannet", "Wayfarer", "dinghy", "9872", 4, 0.2, True],
    ["Sprat", "Topper", "dinghy", "48211", 1, 0.1, True],
    ["Winkle", "Topper", "dinghy", "47390", 1, 0.1, True],
    ["Dabchick", "RS Quest", "dinghy", "1207", 3, 0.15, False],
    ["Kittiwake", "Squib", "keelboat", "812", 3, 0.9, True],
    ["Shearwater", "Squib", "keelboat", "774", 3, 0.9, True],
    ["Guillemot", "Sonata", "keelboat", "7021", 4, 1.4, True],
]


def _boats(ws: Path) -> list[list[object]] | None:
    """The fleet as fleet.py has it, each boat's fields in order, or None."""
    code, out = run(ws, _BOATS)
    try:
        got = json.loads(out) if code == 0 else None
    except ValueError:
        return None
    return got if isinstance(got, list) else None


def _curlew(ws: Path) -> bool:
    """Whether Curlew is in the fleet as a Squib like the other two (sail number 655), on
    the free swinging mooring held by the club, the rest as it was, and the sheet has her
    out with the other Squibs."""
    boats = _boats(ws)
    if boats is None:
        return False
    curlew = [b for b in boats if b[0] == "Curlew"]
    if [b for b in boats if b[0] != "Curlew"] != _FLEET or len(curlew) != 1:
        return False
    if [str(f) for f in curlew[0]] != ["Curlew", "Squib", "keelboat", "655", "3", "0.9", "True"]:
        return False
    want = yaml.safe_load(MOORINGS_YAML)
    got = yaml_of(ws, "moorings.yaml")
    if not isinstance(got, dict) or not isinstance(got.get("moorings"), list):
        return False
    free = next((m for m in got["moorings"] if isinstance(m, dict) and m.get("id") == "S3"), {})
    if free.get("boat") != "Curlew" or "club" not in str(free.get("holder", "")).lower():
        return False
    for mooring in want["moorings"]:
        if mooring["id"] == "S3":
            mooring.update(boat="Curlew", holder=free["holder"])
    if got != want:
        return False
    code, sheet = run(ws, "python3 sheet.py")
    squibs = next((line for line in sheet.splitlines() if "draws 0.90 m" in line), "")
    others = [line for line in sheet.splitlines() if "draws 0.90 m" not in line]
    return (
        code == 0
        and squibs.startswith("  draws 0.90 m: 11:04-15:46  (")
        and all(name in squibs for name in ("Kittiwake", "Shearwater", "Curlew"))
        and others == [line for line in SHEET_OUT.splitlines() if "draws 0.90 m" not in line]
        and passes(ws, "python3 -m unittest")
    )


def _dabchick_back(ws: Path) -> bool:
    """Whether Dabchick is in service in fleet.py and off the board's list, all else as
    it was, and the sheet and the board both have her back."""
    boats = _boats(ws)
    want = [[*b[:6], True] for b in _FLEET]
    notices = json.loads(NOTICES_JSON)
    notices["out_of_service"] = []
    sheet = SHEET_OUT.replace("out of service: Dabchick", "out of service: none").replace(
        "  draws 0.20 m:", "  draws 0.15 m: 10:12-16:38  (Dabchick)\n  draws 0.20 m:"
    )
    board = BOARD_OUT.replace(
        "out of service: Dabchick (new centreboard case, at Fulcher's yard)", "out of service: none"
    )
    return (
        boats == want
        and json_of(ws, "board/notices.json") == notices
        and run(ws, "python3 sheet.py") == (0, sheet)
        and run(ws, "node board/main.js") == (0, board)
        and passes(ws, "python3 -m unittest")
    )


# a change task on the sailing club's files
_change = functools.partial(_task, files=SAILING)


_MONTH_SH = """\
#!/usr/bin/env bash
# A month's outings and hours on the water in all: bash tools/month.sh MONTH [LOG]
set -euo pipefail

. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "give a month, e.g. 2026-05"
MONTH="$1"
LOG="${2:-data/outings.csv}"
month_ok "$MONTH"
log_ok "$LOG"

awk -F, -v month="$MONTH" "$AWK_MINUTES"'
  NR > 1 && substr($1, 1, 7) == month { total += mins($5) - mins($4); trips++ }
  END { printf "%s: %d outings, %.1f h on the water\\n", month, trips, total / 60 }
' "$LOG"
"""

_CLASH_TEST = """\
    def test_first_out_first(self) -> None:
        refs = [b.ref for b in sample_day().in_order()]
        self.assertEqual(refs, [201, 202, 203, 204, 207, 205, 206, 208])

    def test_not_booked_twice_at_once(self) -> None:
        diary = Diary()
        diary.book("Puffin", "Ann Rowe", 41, "10:00", "13:00", 3)
        with self.assertRaises(ValueError):
            diary.book("Puffin", "Dev Sharma", 22, "12:00", "15:00", 4)
"""

TENTH_CHANGE_TASKS: tuple[Task, ...] = (
    _change(
        "create-month-script",
        CREATE,
        "Could you write tools/month.sh? I give it a month, 2026-05 say, and it tells me how "
        "many outings there were that month and how many hours the boats were out altogether.",
        lambda ev, ws: _month_tool(ws),
        write_files("Added tools/month.sh.", {"tools/month.sh": _MONTH_SH}),
        ("tools/month.sh", "tools/lib.sh", "README.md"),
    ),
    _change(
        "create-clash-test",
        CREATE,
        "Nothing in the tests checks that a boat can't be booked twice for the same time. "
        "Please add a test for it.",
        lambda ev, ws: tests_catch(
            ws, 12, "bookings.py", BOOKINGS_PY.replace(f"return {_APART}", "return False")
        ),  # a boat booked twice at once
        edits(
            "Added test_not_booked_twice_at_once to test_club.py.",
            (
                "test_club.py",
                "    def test_first_out_first(self) -> None:\n"
                "        refs = [b.ref for b in sample_day().in_order()]\n"
                "        self.assertEqual(refs, [201, 202, 203, 204, 207, 205, 206, 208])\n",
                _CLASH_TEST,
            ),
        ),
        ("test_club.py",),
    ),
    _change(
        "toml-juniors-from-twelve",
        FIX,
        "The committee voted last night: juniors can helm on their own from twelve now, not "
        "fourteen.",
        lambda ev, ws: _juniors_from_twelve(ws),
        edits("Done.", ("club.toml", "min_helm_age = 14", "min_helm_age = 12")),
        ("club.toml",),
    ),
    _change(
        "yaml-pontoon-fee",
        FIX,
        "Len says the pontoon berths are going up to £450 for the season. Can you put that in?",
        lambda ev, ws: _pontoon_dearer(ws),
        edits("Done.", ("moorings.yaml", "pontoon: 420.00", "pontoon: 450.00")),
        ("moorings.yaml",),
    ),
    _change(
        "json-scrub-notice-off",
        FIX,
        "The pontoon scrub was last Saturday, so take that notice off the tide board please.",
        lambda ev, ws: _scrub_notice_off(ws),
        edits(
            "Done.",
            (
                "board/notices.json",
                '    {\n      "title": "Working party: scrub the pontoon, Saturday 6 June, '
                '09:00",\n      "from": "Bernard Cole"\n    },\n',
                "",
            ),
        ),
        ("board/notices.json",),
    ),
    _change(
        "fix-back-to-back-bookings",
        FIX,
        "Dev tried to book Puffin from 12:00 to 15:00 and got told she's booked 09:00-12:00 "
        "by Ann. But Ann's back in at twelve! One booking ending just as the next one starts "
        "should be fine. Can you sort that out?",
        _back_to_back,
        edits(
            "Fixed.",
            ("bookings.py", _APART.replace("<", "<="), _APART),
        ),
        ("bookings.py",),
        files=sailing_with({"bookings.py": BOOKINGS_BACK_TO_BACK}),
    ),
    _change(
        "sh-hours-top-three",
        FIX,
        "The hours script gives me five boats unless I say otherwise. Three is plenty by default.",
        lambda ev, ws: _top_three(ws),
        edits("Done.", ("tools/hours.sh", 'TOP="${1:-5}"', 'TOP="${1:-3}"')),
        ("tools/hours.sh",),
    ),
    _change(
        "fix-board-night-times",
        FIX,
        "On the tide board the night-time high waters come out as 1:50 and 2:40. Every other "
        "time there has two digits for the hour, so they should say 01:50 and 02:40.",
        _padded,
        edits(
            "Fixed.",
            (
                "board/tideboard.js",
                "return `${Math.floor(m / 60)}:${pad2(m % 60)}`;",
                "return `${pad2(Math.floor(m / 60))}:${pad2(m % 60)}`;",
            ),
        ),
        ("board/tideboard.js",),
        files=sailing_with({"board/tideboard.js": TIDEBOARD_UNPADDED}),
    ),
    _change(
        "error-shearwater-booking",
        ERROR,
        f"The day's sheet won't print:\n\n{_BOOKING_ERROR}\n\nAll I did was put Neil's "
        "booking in for Saturday. What have I done?",
        _sheet_back,
        edits("Fixed.", ("bookings.py", '"Shearwatter"', '"Shearwater"')),
        ("bookings.py",),
        files=sailing_with({"bookings.py": BOOKINGS_MISSPELT}),
    ),
    _change(
        "error-skipper-tool",
        ERROR,
        f"Trying to look up Ann's outings and I get this:\n\n{_SKIPPER_ERROR}\n\nIt worked "
        "fine last month.",
        _skipper_back,
        edits("Fixed.", ("tools/skipper.sh", 'log_okay "$LOG"', 'log_ok "$LOG"')),
        ("tools/skipper.sh", "tools/lib.sh"),
        files=sailing_with({"tools/skipper.sh": SKIPPER_MISNAMED}),
    ),
    _change(
        "curlew-joins-the-fleet",
        MULTI,
        "Good news: the club has bought another Squib, Curlew, sail number 655. Please add "
        "her to the fleet. She's going on the free swinging mooring.",
        lambda ev, ws: _curlew(ws),
        edits(
            "Curlew added to the fleet and to mooring S3.",
            (
                "fleet.py",
                '        Boat("Guillemot", "Sonata", "keelboat", "7021", 4, 1.40),\n',
                '        Boat("Guillemot", "Sonata", "keelboat", "7021", 4, 1.40),\n'
                '        Boat("Curlew", "Squib", "keelboat", "655", 3, 0.90),\n',
            ),
            (
                "moorings.yaml",
                "  - id: S3\n    kind: swinging\n    boat: null  # free\n    holder: null\n",
                "  - id: S3\n    kind: swinging\n    boat: Curlew\n    holder: club\n",
            ),
        ),
        ("fleet.py", "moorings.yaml", "test_club.py", "README.md"),
        max_turns=10,
    ),
    _change(
        "dabchick-back-in-service",
        MULTI,
        "Dabchick is back from Fulcher's yard with her new centreboard case, so she can be "
        "booked again. Don't forget the tide board, it still says she's out of service.",
        lambda ev, ws: _dabchick_back(ws),
        edits(
            "Dabchick is back in service in fleet.py and off the board's list.",
            ("fleet.py", '"1207", 3, 0.15, in_service=False)', '"1207", 3, 0.15)'),
            (
                "board/notices.json",
                '"out_of_service": [\n'
                '    { "boat": "Dabchick", "why": "new centreboard case, at Fulcher\'s yard" }\n'
                "  ],",
                '"out_of_service": [],',
            ),
        ),
        ("fleet.py", "board/notices.json"),
        max_turns=10,
    ),
)

TENTH: tuple[Task, ...] = (*TENTH_ASK_TASKS, *TENTH_CHANGE_TASKS)

__all__ = [
    "ANN_ROWE_OUT",
    "BOARD_OUT",
    "BOOKINGS_BACK_TO_BACK",
    "BOOKINGS_MISSPELT",
    "SHEET_OUT",
    "SKIPPER_MISNAMED",
    "TENTH",
    "TIDEBOARD_UNPADDED",
]
