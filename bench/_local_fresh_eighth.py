"""An eighth batch of the fresh set (``BENCH_SET=eighth``): 24 tasks on a fourth project
the rules never saw, the lending desk of a small town's community library
(:mod:`bench._local_library`), written after the seventh batch's rules by someone who had
not read them, and before any run of them.

Twelve ask (how long a DVD goes out for, when the library shuts on Saturdays, how long a
reserved book waits, when the kiosk logs a member out; which files call the fine, which
function decides a renewal, what calls the kiosk's shelf look-up; the fines owed, the
most borrowed title and the titles on the shelves, which the programs print; a room's
hire and an e-reader's loan that are nowhere) and twelve change (a tool that lists who
borrowed a title and a test of a DVD's due date, written; a late evening, a hold's
texts, the kiosk's contrast, a DVD's fine, how many popular titles are listed; a book
called overdue on its due day, found from what the report prints; a shelf code and a
kind of item pasted as the errors came; a renewal limit kept in the code and the kiosk;
magazines, a new kind of loan, in two modules).
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
from bench._local_library import (
    CATALOGUE_PY,
    LIBRARY,
    LIBRARY_TOML,
    LOANS_PY,
    REMINDERS_YAML,
    SHELVES_JSON,
    library_with,
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
    yaml_of,
)

CATALOGUE_DUE_DAY = CATALOGUE_PY.replace("if item.due < today]", "if item.due <= today]")
SHELVES_LOWER_CODE = SHELVES_JSON.replace(
    '"The Secret Garden", "year": 1911, "shelf": "C2"',
    '"The Secret Garden", "year": 1911, "shelf": "c2"',
)
CATALOGUE_KIND_SPACE = CATALOGUE_PY.replace(
    '"J. R. R. Tolkien", "audiobook"', '"J. R. R. Tolkien", "audio book"'
)

_NODE_ERROR = """\
Kilnworth kiosk: 12 titles on 7 shelves
on the shelf: 8 of 12
search "garden":
/home/jo/kilnworth/kiosk/main.js:14
  return `${title.title} (${shelf.section}, shelf ${shelf.code}): ${where}`;
                                  ^

TypeError: Cannot read properties of undefined (reading 'section')
    at describe (/home/jo/kilnworth/kiosk/main.js:14:35)
    at main (/home/jo/kilnworth/kiosk/main.js:23:22)
    at Object.<anonymous> (/home/jo/kilnworth/kiosk/main.js:31:1)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)
    at Module.load (node:internal/modules/cjs/loader:1266:32)
    at Module._load (node:internal/modules/cjs/loader:1091:12)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49

Node.js v20.20.2"""

_KIND_ERROR = """\
Traceback (most recent call last):
  File "/home/jo/kilnworth/desk.py", line 57, in <module>
    main()
  File "/home/jo/kilnworth/desk.py", line 52, in main
    for line in report():
                ^^^^^^^^
  File "/home/jo/kilnworth/desk.py", line 22, in report
    stock = sample_catalogue()
            ^^^^^^^^^^^^^^^^^^
  File "/home/jo/kilnworth/catalogue.py", line 106, in sample_catalogue
    stock.add(barcode, title, author, kind)
  File "/home/jo/kilnworth/catalogue.py", line 32, in add
    raise ValueError(f"unknown kind {kind!r}")
ValueError: unknown kind 'audio book'"""


_ask = functools.partial(_t, files=LIBRARY)


_ran_any = functools.partial(_run_says, files=LIBRARY)


# how people say a thing is nowhere that says_absent does not read: "nothing in the
# project mentions a meeting room", "we don't lend e-readers", "e-readers aren't listed"
_NOTHING_SAYS = (
    r"\bnothing\b.{0,60}\b(mentions?|says?|about|covers?)\b|\bnowhere\b|\bnot mentioned\b"
    r"|\b(don[’']?t|do not|doesn[’']?t|does not)\s+(\w+\s+){0,2}?"
    r"(mention|cover|say|lend|loan|stock)"
    r"|\b(aren[’']?t|are not)\s+(\w+\s+){0,2}?(listed|mentioned|in|included|lent|loaned|offered)\b"
)


_nowhere = functools.partial(_said_absent, files=LIBRARY, nothing_says=_NOTHING_SAYS)


EIGHTH_ASK_TASKS: tuple[Task, ...] = (
    _ask(
        "ask-dvd-loan",
        READ,
        "how long can someone keep a dvd",
        _found(r"(?<![\d.])7(?!\d|\.\d)|\bseven\b|\b(a|one) week\b", files=LIBRARY),
        "7 days (LOAN_DAYS in loans.py).",
        "search_text",
    ),
    _ask(
        "ask-saturday-hours",
        READ,
        "A member's asking what time we shut on Saturdays. What do I tell her?",
        _found(r"\b13[:.]00\b|\b1(:00)?\s*(pm|p\.m\.)|\bone o.?clock", files=LIBRARY),
        "At 13:00: the library is open 10:00-13:00 on Saturdays (library.toml).",
        "read_file:library.toml",
    ),
    _ask(
        "ask-hold-shelf",
        READ,
        "When a book somebody reserved comes in, how many days do we keep it for them "
        "before it goes back on the shelf?",
        _found(r"(?<![\d.])5(?!\d|\.\d)|\bfive\b", files=LIBRARY),
        "5 days (keep_on_shelf_days of the hold-ready message in reminders.yaml).",
        "search_text",
    ),
    _ask(
        "ask-kiosk-logout",
        READ,
        "If someone walks off and leaves the self-service kiosk logged in, how long until "
        "it logs them out?",
        _found(
            r"(?<![\d.])90(?!\d|\.\d)|\bninety\b|minute and a half|(one|1) and a half minutes?"
            r"|(?<![\d.])1\.5\s*min",
            files=LIBRARY,
        ),
        "After 90 seconds (logout_after_seconds in kiosk/shelves.json).",
        "search_text",
    ),
    _ask(
        "callers-late-fee",
        SEARCH,
        "I want to change how late_fee works. Which files call it, so I know what else to check?",
        _found(r"desk\.py", r"test_library\.py", files=LIBRARY),
        "desk.py and test_library.py call it (it is defined in loans.py).",
        "search_text",
    ),
    _ask(
        "def-renew-rule",
        SEARCH,
        "Something decides whether a member is allowed to renew a loan again. Which function "
        "is that, and which file is it in?",
        _found(r"may_renew", r"loans\.py", files=LIBRARY),
        "may_renew, in loans.py.",
        "search_text",
    ),
    _ask(
        "caller-shelf-lookup",
        SEARCH,
        "The kiosk has a function that works out which shelf a title is on. Where does it "
        "get called?",
        _found(r"main\.js|\bdescribe\b", files=LIBRARY),
        "shelfFor (kiosk/search.js) is called by describe in kiosk/main.js.",
        "search_text",
    ),
    _ask(
        "run-fines-owed",
        RUN,
        "How much do members owe us in late fines at the moment? The desk report works it out.",
        _ran_any(r"(?<![\w.])11\.40?(?!\d|\.\d)", command="python3 desk.py"),
        "11.40 GBP.",
        "run_cmd:desk.py",
    ),
    _ask(
        "run-most-borrowed",
        RUN,
        "Which title gets borrowed the most? There's a script in tools that counts up the "
        "loans log.",
        _ran_any(r"\bwolf hall\b", command="bash tools/popular.sh"),
        "Wolf Hall, with 6 loans.",
        "run_cmd:tools/popular.sh",
    ),
    _ask(
        "run-kiosk-on-shelf",
        RUN,
        "According to the kiosk, how many of its titles are on the shelves right now rather "
        "than out on loan?",
        _ran_any(r"(?<![\w.])8(?!\w|\.\d)|\beight\b", command="node kiosk/main.js"),
        "8 of its 12 titles are on the shelves.",
        "run_cmd:kiosk/main.js",
    ),
    _ask(
        "missing-room-booking",
        REFUSE,
        "How much do we charge to hire the meeting room upstairs?",
        _nowhere(r"\bno (meeting )?rooms?\b"),
        "Nothing in the project mentions a meeting room or its hire: the settings cover the "
        "opening hours, members' limits, fines and the loans log.",
        "search_text",
    ),
    _ask(
        "missing-ereader",
        REFUSE,
        "How long can people borrow an e-reader for?",
        _nowhere(r"\bno e-?readers?\b"),
        "The library does not lend e-readers: LOAN_DAYS in loans.py has books, DVDs and "
        "audiobooks only.",
        "read_file:loans.py",
    ),
)


def _cards(ws: Path, title: str) -> tuple[int, set[str]]:
    code, out = run(ws, f'bash tools/borrowers.sh "{title}"')
    return code, set(re.findall(r"\b[MJ]\d{4}\b", out))


def _borrowers(ws: Path) -> bool:
    """Whether tools/borrowers.sh prints the cards that borrowed a title (those and no
    others), and reads the log (a row added later is in what it prints)."""
    if _cards(ws, "Wolf Hall") != (0, {"M1042", "M1108", "M1290", "M1315", "M1377"}):
        return False
    if _cards(ws, "The Secret Garden") != (0, {"J2207", "J2231", "M1290"}):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "library"
        shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("__pycache__"))
        with (copy / "data" / "loans.csv").open("a") as log:
            log.write("2026-03-13,M1999,K0004,Hamnet,2\n")
        return _cards(copy, "Hamnet") == (0, {"M1042", "M1108", "M1290", "M1377", "M1999"})


def _thursday_till_seven(ws: Path) -> bool:
    """Whether library.toml parses and is as it was but for Thursday, open 09:30 to 19:00
    (written as people write it)."""
    got, want = toml_of(ws, "library.toml"), tomllib.loads(LIBRARY_TOML)
    hours = got.get("hours")
    thursday = hours.get("thursday") if isinstance(hours, dict) else None
    if not isinstance(thursday, str):
        return False
    if not re.fullmatch(r"0?9[:.]30\s*(-|–|to)\s*19[:.]00", thursday.strip()):
        return False
    want["hours"]["thursday"] = thursday
    return got == want


def _no_hold_texts(ws: Path) -> bool:
    """Whether reminders.yaml parses and is as it was but for the hold-ready message,
    which goes by email alone (as a list of one or as a word)."""
    got, want = yaml_of(ws, "reminders.yaml"), yaml.safe_load(REMINDERS_YAML)
    if not isinstance(got, dict) or not isinstance(got.get("messages"), list):
        return False
    held = [m for m in got["messages"] if isinstance(m, dict) and m.get("name") == "hold-ready"]
    if len(held) != 1 or held[0].get("by") not in (["email"], "email"):
        return False
    next(m for m in want["messages"] if m["name"] == "hold-ready")["by"] = held[0]["by"]
    return got == want


def _high_contrast(ws: Path) -> bool:
    want = json.loads(SHELVES_JSON)
    want["screen"]["high_contrast"] = True
    return json_of(ws, "kiosk/shelves.json") == want


def _dvd_fifty(ws: Path) -> bool:
    """Whether loans.py fines a late DVD 0.50 a day and is as it was but for that, and the
    desk report adds it up."""
    code, out = run(ws, 'python3 -c "import json, loans; print(json.dumps(loans.FINE_PER_DAY))"')
    try:
        rates = json.loads(out) if code == 0 else None
    except ValueError:
        return False
    others = [line for line in text(ws, "loans.py").splitlines() if "dvd" not in line]
    wanted = [line for line in LOANS_PY.splitlines() if "dvd" not in line]
    report = run(ws, "python3 desk.py")[1]
    return (
        rates == {"book": 0.2, "dvd": 0.5, "audiobook": 0.2}
        and others == wanted
        and "Paddington 2 (M1042): 4 days late, 2.00 GBP" in report
        and "fines owed: 9.40 GBP" in report
    )


def _top_five(ws: Path) -> bool:
    """Whether tools/popular.sh lists five titles by default, the most borrowed first, and
    still as many as it is asked for."""
    code, out = run(ws, "bash tools/popular.sh")
    lines = [line for line in out.splitlines() if line.strip()]
    if code != 0 or len(lines) != 5 or "Wolf Hall" not in lines[0]:
        return False
    if "Brassed Off" not in lines[4]:
        return False
    code, out = run(ws, "bash tools/popular.sh 2")
    lines = [line for line in out.splitlines() if line.strip()]
    return code == 0 and len(lines) == 2 and "Hamnet" in lines[1]


_OVERDUE = (
    'python3 -c "from datetime import date; from catalogue import sample_catalogue; '
    's = sample_catalogue(); print(s.overdue(date(2026, 3, 14)), s.overdue(date(2026, 3, 15)))"'
)


def _not_late_on_due_day(ev: Events, ws: Path) -> bool:
    """Whether the report leaves out what is due back today, and the catalogue counts it
    overdue from the next day (a bug fixed, not a line of the report hidden)."""
    report = run(ws, "python3 desk.py")[1]
    lists = run(ws, _OVERDUE)[1]
    early = "['D0002', 'K0004', 'K0002', 'D0001']"
    return (
        "Wolf Hall (M1042)" not in report
        and "Paddington 2 (M1042): 4 days late, 4.00 GBP" in report
        and "fines owed: 11.40 GBP" in report
        and f"{early} {early[:-1]}, 'K0001']" in lists
        and passes(ws, "python3 -m unittest -q")
    )


def _kiosk_back(ev: Events, ws: Path) -> bool:
    """Whether the kiosk prints its search again, the Secret Garden on shelf C2, with the
    shelf map fixed or the look-up made to read the code in any case."""
    out = run(ws, "node kiosk/main.js")[1]
    return (
        "The Secret Garden (Children's fiction, shelf C2): out on loan" in out
        and "Gardening Through the Year (Home and garden, shelf N2): on the shelf" in out
        and "log out after: 90 s" in out
        and json_of(ws, "kiosk/shelves.json")
        in (json.loads(SHELVES_JSON), json.loads(SHELVES_LOWER_CODE))
    )


_KINDS = (
    'python3 -c "from catalogue import KINDS, sample_catalogue; '
    "assert KINDS == ('book', 'dvd', 'audiobook'), KINDS; "
    "assert sample_catalogue().items['A0002'].kind == 'audiobook'\""
)


def _desk_back(ev: Events, ws: Path) -> bool:
    """Whether the report runs again, the Hobbit an audiobook (not a new kind added)."""
    report = run(ws, "python3 desk.py")[1]
    return (
        "fines owed: 11.40 GBP" in report
        and "holds waiting: 3" in report
        and passes(ws, _KINDS)
        and passes(ws, "python3 -m unittest -q")
    )


def _renewals_three(ws: Path) -> bool:
    others = [line for line in text(ws, "loans.py").splitlines() if "MAX_RENEWALS" not in line]
    wanted = [line for line in LOANS_PY.splitlines() if "MAX_RENEWALS" not in line]
    kiosk = json.loads(SHELVES_JSON)
    kiosk["max_renewals"] = 3
    return (
        others == wanted
        and passes(ws, "python3 -c 'import loans; assert loans.MAX_RENEWALS == 3'")
        and json_of(ws, "kiosk/shelves.json") == kiosk
        and "renewals allowed: 3" in run(ws, "node kiosk/main.js")[1]
        and passes(ws, "python3 -m unittest -q")
    )


_MAGAZINES = """\
from datetime import date
from catalogue import Catalogue
from loans import FINE_CAP, FINE_PER_DAY, LOAN_DAYS, due_date, late_fee
Catalogue().add("G0001", "Kilnworth Gazette", "Kilnworth Press", "magazine")
assert due_date("magazine", date(2026, 3, 1)) == date(2026, 3, 8)
assert abs(late_fee("magazine", date(2026, 3, 1), date(2026, 3, 4)) - 0.3) < 1e-9
assert late_fee("magazine", date(2026, 1, 1), date(2026, 6, 1)) == FINE_CAP == 5
assert late_fee("magazine", date(2026, 3, 1), date(2026, 3, 4), junior=True) == 0
assert {k: LOAN_DAYS[k] for k in ("book", "dvd", "audiobook")} == {
    "book": 21, "dvd": 7, "audiobook": 14}
assert {k: FINE_PER_DAY[k] for k in ("book", "dvd", "audiobook")} == {
    "book": 0.2, "dvd": 1.0, "audiobook": 0.2}
"""


def _magazines(ws: Path) -> bool:
    """Whether a magazine can be catalogued, goes out for a week and is fined 0.10 a day
    up to the cap, the other kinds as they were, and the tests and the report still run."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "magazines.py"
        script.write_text(_MAGAZINES)
        if not passes(ws, f"PYTHONPATH=. python3 {script}"):
            return False
    report = run(ws, "python3 desk.py")[1]
    return (
        "fines owed: 11.40 GBP" in report
        and "items: 10" in report
        and passes(ws, "python3 -m unittest -q")
    )


# a change task on the library project's files
_change = functools.partial(_task, files=LIBRARY)


_BORROWERS_SH = """\
#!/usr/bin/env bash
# Who has borrowed a title: bash tools/borrowers.sh TITLE [LOG]
set -euo pipefail

. "$(dirname "$0")/common.sh"

TITLE="${1:?give a title, e.g. \\"Wolf Hall\\"}"
LOG="${2:-data/loans.csv}"
check_log "$LOG"

awk -F, -v title="$TITLE" 'NR > 1 && $4 == title { print $2 }' "$LOG" | sort -u
"""

_DVD_TEST = """\
    def test_book_due(self) -> None:
        self.assertEqual(due_date("book", date(2026, 3, 1)), date(2026, 3, 22))

    def test_dvd_due(self) -> None:
        self.assertEqual(due_date("dvd", date(2026, 3, 28)), date(2026, 4, 4))
"""

EIGHTH_CHANGE_TASKS: tuple[Task, ...] = (
    _change(
        "create-borrowers-script",
        CREATE,
        "Add a script tools/borrowers.sh: I give it a book's title and it prints the card "
        "numbers of everyone who's borrowed it, going by the loans log.",
        lambda ev, ws: _borrowers(ws),
        write_files("Added tools/borrowers.sh.", {"tools/borrowers.sh": _BORROWERS_SH}),
        ("tools/borrowers.sh",),
    ),
    _change(
        "create-dvd-due-test",
        CREATE,
        "Please add a test that a DVD lent out on 28 March 2026 is due back on 4 April.",
        lambda ev, ws: tests_catch(
            ws, 13, "loans.py", LOANS_PY.replace('"dvd": 7', '"dvd": 6')
        ),  # DVDs lent for six days
        edits(
            "Added test_dvd_due to test_library.py.",
            (
                "test_library.py",
                '    def test_book_due(self) -> None:\n        self.assertEqual(due_date("book", '
                "date(2026, 3, 1)), date(2026, 3, 22))\n",
                _DVD_TEST,
            ),
        ),
        ("test_library.py",),
    ),
    _change(
        "toml-thursday-till-seven",
        FIX,
        "We're staying open till 7pm on Thursdays from now on.",
        lambda ev, ws: _thursday_till_seven(ws),
        edits("Done.", ("library.toml", 'thursday = "09:30-17:00"', 'thursday = "09:30-19:00"')),
        ("library.toml",),
    ),
    _change(
        "yaml-no-hold-texts",
        FIX,
        "Stop sending people a text when their reserved book is ready. An email is enough.",
        lambda ev, ws: _no_hold_texts(ws),
        edits("Done.", ("reminders.yaml", "by: [email, text]", "by: [email]")),
        ("reminders.yaml",),
    ),
    _change(
        "json-kiosk-contrast",
        FIX,
        "Some of our older members can't read the kiosk screen well. Put it in high contrast mode.",
        lambda ev, ws: _high_contrast(ws),
        edits("Done.", ("kiosk/shelves.json", '"high_contrast": false', '"high_contrast": true')),
        ("kiosk/shelves.json",),
    ),
    _change(
        "py-dvd-fine-50p",
        FIX,
        "late DVDs are 50p a day now, not a pound",
        lambda ev, ws: _dvd_fifty(ws),
        edits("Done.", ("loans.py", '"dvd": 1.00', '"dvd": 0.50')),
        ("loans.py",),
    ),
    _change(
        "sh-popular-top-five",
        FIX,
        "The script that lists our most popular books only shows the top three. Make it "
        "show five unless I ask for a different number.",
        lambda ev, ws: _top_five(ws),
        edits("Done.", ("tools/popular.sh", 'TOP="${1:-3}"', 'TOP="${1:-5}"')),
        ("tools/popular.sh",),
    ),
    _change(
        "fix-due-today-overdue",
        FIX,
        "Today's desk report has Wolf Hall in the overdue list, but it's due back today. It "
        "isn't late until tomorrow! Can you fix that?",
        _not_late_on_due_day,
        edits("Fixed.", ("catalogue.py", "if item.due <= today]", "if item.due < today]")),
        ("catalogue.py", "desk.py"),
        files=library_with({"catalogue.py": CATALOGUE_DUE_DAY}),
    ),
    _change(
        "error-kiosk-shelf",
        ERROR,
        f"The kiosk stopped halfway through this morning:\n\n{_NODE_ERROR}\n\n"
        "Nobody touched the code, only the list of books. Any idea?",
        _kiosk_back,
        edits("Fixed.", ("kiosk/shelves.json", '"shelf": "c2"', '"shelf": "C2"')),
        ("kiosk/shelves.json", "kiosk/search.js", "kiosk/main.js"),
        files=library_with({"kiosk/shelves.json": SHELVES_LOWER_CODE}),
    ),
    _change(
        "error-audio-book",
        ERROR,
        f"python3 desk.py has been broken since Sam added the new stock:\n\n{_KIND_ERROR}\n\n"
        "Can you have a look and fix it?",
        _desk_back,
        edits("Fixed.", ("catalogue.py", '"audio book"', '"audiobook"')),
        ("catalogue.py",),
        files=library_with({"catalogue.py": CATALOGUE_KIND_SPACE}),
    ),
    _change(
        "renewals-up-to-three",
        MULTI,
        "Members can renew a loan three times now instead of two. The kiosk tells people how "
        "many renewals they get, so that needs to change as well.",
        lambda ev, ws: _renewals_three(ws),
        edits(
            "Done.",
            ("loans.py", "MAX_RENEWALS = 2", "MAX_RENEWALS = 3"),
            ("kiosk/shelves.json", '"max_renewals": 2', '"max_renewals": 3'),
        ),
        ("loans.py", "kiosk/shelves.json"),
        max_turns=10,
    ),
    _change(
        "magazines-on-loan",
        MULTI,
        "We're starting to lend magazines. They go out for a week, and they're 10p a day "
        "when they come back late, with the same cap as everything else.",
        lambda ev, ws: _magazines(ws),
        edits(
            "Magazines added.",
            (
                "catalogue.py",
                'KINDS = ("book", "dvd", "audiobook")',
                'KINDS = ("book", "dvd", "audiobook", "magazine")',
            ),
            ("loans.py", '"audiobook": 14}', '"audiobook": 14, "magazine": 7}'),
            ("loans.py", '"audiobook": 0.20}', '"audiobook": 0.20, "magazine": 0.10}'),
        ),
        ("catalogue.py", "loans.py", "README.md"),
        max_turns=12,
    ),
)

EIGHTH: tuple[Task, ...] = (*EIGHTH_ASK_TASKS, *EIGHTH_CHANGE_TASKS)

__all__ = ["CATALOGUE_DUE_DAY", "CATALOGUE_KIND_SPACE", "EIGHTH", "SHELVES_LOWER_CODE"]
