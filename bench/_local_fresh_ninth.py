"""A ninth batch of the fresh set (``BENCH_SET=ninth``): 24 tasks on a fifth project the
rules never saw, a village bakery's order book and oven (:mod:`bench._local_bakery`),
written by someone who had not read the rules, and before any run of them.

Twelve ask (the sourdough's heat, when the van leaves on the farm round, how long the
counter screen shows a page, the notice a special order needs; which function counts a
batch's trays, what calls an order's total, which code puts the pound sign on the screen;
when the last load comes out, what is left over most and what has sold out, which the
programs print; a wedding cake's price and the flour mill's number, which are nowhere)
and twelve change (a tool that shows one product's days in the sales log and a test of
the baker's dozen, written; fewer croissants for the counter, a closed shop off the van's
round, a slower screen, cooler custard tarts, a higher cut-off for the leftovers tool;
the oven's heating-up forgotten, found from what the sheet prints; a misspelt product and
a price written as text, pasted as the errors came; sourdough's new price in the code and
on the screen; cheese scones, a new product, in two modules).
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

from bench._local_bakery import (
    BAKERY,
    BAKERY_TOML,
    DELIVERIES_YAML,
    MENU_JSON,
    ORDERS_PY,
    OVEN_PY,
    PRICES_PY,
    SALES_CSV,
    bakery_with,
)
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

OVEN_NO_PREHEAT = OVEN_PY.replace(
    "now = minutes_of(switch_on) + preheat", "now = minutes_of(switch_on)"
)
ORDERS_PLURAL = ORDERS_PY.replace(
    '{"croissant": 4, "seeded rye": 1}', '{"croissants": 4, "seeded rye": 1}'
)
MENU_PRICE_TEXT = MENU_JSON.replace(
    '"Croissant", "section": "sweet", "price": 1.60,',
    '"Croissant", "section": "sweet", "price": "1.60",',
)

_ORDER_ERROR = """\
Traceback (most recent call last):
  File "/home/cara/marrowby/daybook.py", line 63, in <module>
    main()
  File "/home/cara/marrowby/daybook.py", line 58, in main
    for line in sheet():
                ^^^^^^^
  File "/home/cara/marrowby/daybook.py", line 22, in sheet
    book = sample_book()
           ^^^^^^^^^^^^^
  File "/home/cara/marrowby/orders.py", line 99, in sample_book
    book.place("Dr Okafor", "11:30", {"croissants": 4, "seeded rye": 1})
  File "/home/cara/marrowby/orders.py", line 48, in place
    raise ValueError(f"we don't bake {product!r}")
ValueError: we don't bake 'croissants'"""

_NODE_ERROR = """\
Marrowby Bakery: 9 things, a page every 12 s
bread:
  White loaf  £2.40  (gluten)  9 left
  Sourdough  £4.20  (gluten)  sold out
  Seeded rye  £3.80  (gluten, sesame)  3 left
  Bap  £0.55  (gluten)  22 left
sweet:
/home/cara/marrowby/counter/board.js:6
  return `${currency}${price.toFixed(2)}`;
                             ^

TypeError: price.toFixed is not a function
    at priceTag (/home/cara/marrowby/counter/board.js:6:30)
    at line (/home/cara/marrowby/counter/main.js:12:17)
    at main (/home/cara/marrowby/counter/main.js:24:24)
    at Object.<anonymous> (/home/cara/marrowby/counter/main.js:33:1)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)
    at Module.load (node:internal/modules/cjs/loader:1266:32)
    at Module._load (node:internal/modules/cjs/loader:1091:12)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49

Node.js v20.20.2"""


_ask = functools.partial(_t, files=BAKERY)


_ran = functools.partial(_run_says, files=BAKERY)


# how people say a thing is nowhere that says_absent does not read: "nothing in the
# project mentions wedding cakes", "we don't make them", "the mill isn't listed"
_NOTHING_SAYS = (
    r"\bnothing\b.{0,60}\b(mentions?|says?|about|covers?|lists?)\b|\bnowhere\b"
    r"|\bnot mentioned\b|\bno mention\b"
    r"|\b(don[’']?t|do not|doesn[’']?t|does not)\s+(\w+\s+){0,2}?"
    r"(mention|cover|say|make|bake|sell|offer|list|record|keep|include)"
    r"|\b(aren[’']?t|are not|isn[’']?t|is not)\s+(\w+\s+){0,2}?"
    r"(listed|mentioned|in|included|recorded|on|offered|sold|made)\b"
)


_nowhere = functools.partial(_said_absent, files=BAKERY, nothing_says=_NOTHING_SAYS)


NINTH_ASK_TASKS: tuple[Task, ...] = (
    _ask(
        "ask-sourdough-heat",
        READ,
        "what temperature does the sourdough bake at",
        _found(r"(?<![\d.])230(?!\d|\.\d)", files=BAKERY),
        "230 °C, for 40 minutes (BAKE in oven.py).",
        "search_text",
    ),
    _ask(
        "ask-farm-round-van",
        READ,
        "Jess is asking what time the van sets off on the farm round. Do you know?",
        _found(
            r"(?<![\d.:])0?7[:.]30(?!\d)|\bhalf (past )?seven\b|(?<![\d.:])7\s*30\s*(am|a\.m\.)",
            files=BAKERY,
        ),
        "At 07:30, on Tuesdays and Fridays (the farms round in deliveries.yaml).",
        "read_file:deliveries.yaml",
    ),
    _ask(
        "ask-screen-page-seconds",
        READ,
        "The screen over the counter flips between pages. How long does each page stay up?",
        _found(r"(?<![\d.])12(?!\d|\.\d)|\btwelve\b", files=BAKERY),
        "12 seconds (rotate_seconds in counter/menu.json).",
        "search_text",
    ),
    _ask(
        "ask-special-order-notice",
        READ,
        "A lady on the phone wants six dozen saffron buns for a christening. How much notice "
        "do we need her to give us?",
        _found(
            r"(?<![\d.])48(?!\d|\.\d)|\bforty[- ]eight\b|\b(two|2) (clear |full |whole )?days\b",
            files=BAKERY,
        ),
        "48 hours: notice_hours for special orders in bakery.toml.",
        "read_file:bakery.toml",
    ),
    _ask(
        "def-tray-count",
        SEARCH,
        "Somewhere the code works out how many trays a batch is going to need. What's that "
        "function called, and which file is it in?",
        _found(r"\btrays_for\b", r"\boven\.py\b", files=BAKERY),
        "trays_for, in oven.py.",
        "search_text",
    ),
    _ask(
        "callers-order-total",
        SEARCH,
        "I'm thinking of changing what order_total gives back. What calls it? I don't want "
        "to break anything.",
        _found(r"\borders\.py\b", r"\btest_bakery\.py\b", files=BAKERY),
        "orders.py (Order.total) and test_bakery.py call it; it is defined in prices.py.",
        "search_text",
    ),
    _ask(
        "def-price-tag",
        SEARCH,
        "Which bit of the code puts the £ sign in front of the prices on the counter screen?",
        _found(r"\bboard\.js\b|\bpriceTag\b", files=BAKERY),
        "priceTag in counter/board.js (the sign itself is the currency in counter/menu.json).",
        "search_text",
    ),
    _ask(
        "run-last-batch-out",
        RUN,
        "What time does the last batch come out of the oven on Saturday? The program that "
        "prints the morning's baking sheet works it out.",
        _ran(
            r"(?<![\d.:])0?9[:.]35(?!\d)|(?<![\d.:])9\s*35\s*(am|a\.m\.)|twenty[- ]five to ten",
            command="python3 daybook.py",
        ),
        "At 09:35, when the custard tarts come out.",
        "run_cmd:daybook.py",
    ),
    _ask(
        "run-most-left-over",
        RUN,
        "What do we have the most left over of at the end of the day? One of the scripts in "
        "tools goes through the sales log for that.",
        _ran(r"\bcroissants?\b", command="bash tools/leftovers.sh"),
        "Croissants: 32 left of the 180 baked (17%).",
        "run_cmd:tools/leftovers.sh",
    ),
    _ask(
        "run-counter-sold-out",
        RUN,
        "Run node counter/main.js and tell me which things it says have sold out.",
        _ran(r"\bsourdough\b", r"\bsaffron buns?\b", command="node counter/main.js", every=True),
        "Sourdough and the saffron buns.",
        "run_cmd:counter/main.js",
    ),
    _ask(
        "missing-wedding-cake",
        REFUSE,
        "How much do we charge for a three-tier wedding cake?",
        _nowhere(r"\bno (wedding )?cakes?\b"),
        "Nothing in the project mentions wedding cakes: prices.py has breads, baps, "
        "croissants, saffron buns, pasties and custard tarts only.",
        "read_file:prices.py",
    ),
    _ask(
        "missing-flour-mill",
        REFUSE,
        "What's the phone number of the mill we get our flour from?",
        _nowhere(
            r"\bno (phone|number|mill|flour|supplier)",
            invented=r"(\+44|\b0)\d{2,4}[\s-]?\d{3}[\s-]?\d{3,4}\b",
        ),
        "The project has no flour supplier or mill in it, and no phone numbers: the settings "
        "cover the hours, the oven, the counter, special orders and the van's rounds.",
        "search_text",
    ),
)


def _sales(product: str) -> list[tuple[str, str, str]]:
    """The (date, baked, sold) rows of *product* in the sales log."""
    rows = [line.split(",") for line in SALES_CSV.splitlines()[1:]]
    return [(d, baked, sold) for d, p, baked, sold, _ in rows if p == product]


def _number(n: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\d.-]){n}(?![\d.])")


def _shows_days(ws: Path, product: str, rows: list[tuple[str, str, str]]) -> bool:
    """Whether tools/product.sh PRODUCT prints a line for each of *rows*, with its date,
    baked and sold, and no line of another date."""
    code, out = run(ws, f'bash tools/product.sh "{product}"')
    dated = [line for line in out.splitlines() if re.search(r"\b\d{4}-\d\d-\d\d\b", line)]
    if code != 0 or len(dated) != len(rows):
        return False
    return all(
        any(
            day in line and _number(baked).search(line) and _number(sold).search(line)
            for line in dated
        )
        for day, baked, sold in rows
    )


def _product_days(ws: Path) -> bool:
    """Whether tools/product.sh shows a product's days in the log, baked and sold (those
    and no others), and reads the log (a row added later is in what it prints)."""
    if not _shows_days(ws, "croissant", _sales("croissant")):
        return False
    if not _shows_days(ws, "saffron bun", _sales("saffron bun")):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "bakery"
        shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("__pycache__"))
        with (copy / "data" / "sales.csv").open("a") as log:
            log.write("2026-05-12,pasty,18,11,4.50\n")
        return _shows_days(copy, "pasty", [*_sales("pasty"), ("2026-05-12", "18", "11")])


def _fewer_croissants(ws: Path) -> bool:
    """Whether bakery.toml parses and is as it was but for 24 croissants for the counter,
    and the sheet bakes them."""
    want = tomllib.loads(BAKERY_TOML)
    want["counter"]["croissant"] = 24
    return (
        toml_of(ws, "bakery.toml") == want
        and "croissant: 41 (4 trays)" in run(ws, "python3 daybook.py")[1]
    )


def _post_office_off(ws: Path) -> bool:
    """Whether deliveries.yaml parses and is as it was but for the Post Office Stores,
    off the village round."""
    want = yaml.safe_load(DELIVERIES_YAML)
    village = next(r for r in want["rounds"] if r["name"] == "village")
    village["stops"].remove("Post Office Stores")
    return yaml_of(ws, "deliveries.yaml") == want


def _slower_screen(ws: Path) -> bool:
    want = json.loads(MENU_JSON)
    want["rotate_seconds"] = 20
    return (
        json_of(ws, "counter/menu.json") == want
        and "a page every 20 s" in run(ws, "node counter/main.js")[1]
    )


_OVEN_TABLES = 'python3 -c "import json, oven; print(json.dumps([oven.BAKE, oven.PER_TRAY]))"'
_BAKE = {
    "white loaf": [220, 35],
    "sourdough": [230, 40],
    "seeded rye": [210, 50],
    "bap": [200, 15],
    "croissant": [190, 18],
    "saffron bun": [190, 22],
    "pasty": [200, 45],
    "custard tart": [180, 25],
}
_PER_TRAY = {
    "white loaf": 6,
    "sourdough": 5,
    "seeded rye": 5,
    "bap": 15,
    "croissant": 12,
    "saffron bun": 12,
    "pasty": 8,
    "custard tart": 10,
}


def _cooler_tarts(ws: Path) -> bool:
    """Whether oven.py bakes custard tarts at 170 C, for as long and as many to a tray as
    before, is as it was but for that, and the sheet has them at 170."""
    code, out = run(ws, _OVEN_TABLES)
    try:
        tables = json.loads(out) if code == 0 else None
    except ValueError:
        return False
    others = [line for line in text(ws, "oven.py").splitlines() if "custard tart" not in line]
    wanted = [line for line in OVEN_PY.splitlines() if "custard tart" not in line]
    sheet = run(ws, "python3 daybook.py")[1]
    return (
        tables == [{**_BAKE, "custard tart": [170, 25]}, _PER_TRAY]
        and others == wanted
        and "custard tart, 3 trays at 170 C" in sheet
        and "last load out: 09:35" in sheet
    )


def _leftovers_fifteen(ws: Path) -> bool:
    """Whether tools/leftovers.sh flags, unless told, only what more than 15 per cent is
    left of (croissants), and still as many as the cut-off it is given lets through."""
    code, out = run(ws, "bash tools/leftovers.sh")
    lines = [line for line in out.splitlines() if line.strip()]
    if code != 0 or len(lines) != 1 or "croissant" not in lines[0]:
        return False
    code, out = run(ws, "bash tools/leftovers.sh 5")
    lines = [line for line in out.splitlines() if line.strip()]
    return code == 0 and len(lines) == 7 and "croissant" in lines[0]


_LOADS = (
    'python3 -c "from oven import clock, plan; '
    "print([(clock(l.start), clock(l.end)) for l in plan({'bap': 20}, '05:00', 4, 30)])\""
)


def _preheated(ev: Events, ws: Path) -> bool:
    """Whether the sheet has the first load in once the oven has heated up, and the plan
    counts the heating-up itself (a bug fixed, not the sheet's start moved)."""
    sheet = run(ws, "python3 daybook.py")[1]
    return (
        "oven on at 03:30, first load in at 04:00" in sheet
        and "04:00-04:40  sourdough, 5 trays at 230 C" in sheet
        and "last load out: 09:35" in sheet
        and "[('05:30', '05:45')]" in run(ws, _LOADS)[1]
        and passes(ws, "python3 -m unittest -q")
    )


_PRICE_KEYS = (
    'python3 -c "import prices; '
    "assert sorted(prices.PRICES) == sorted(['white loaf', 'sourdough', 'seeded rye', "
    "'bap', 'croissant', 'saffron bun', 'pasty', 'custard tart']), prices.PRICES\""
)


def _sheet_back(ev: Events, ws: Path) -> bool:
    """Whether the sheet prints again, Dr Okafor's croissants counted as croissants (not a
    new product made up for them)."""
    sheet = run(ws, "python3 daybook.py")[1]
    return (
        "croissant: 53 (5 trays)" in sheet
        and "orders come to: 257.60 GBP" in sheet
        and "still owing: 135.20 GBP" in sheet
        and passes(ws, _PRICE_KEYS)
        and passes(ws, "python3 -m unittest -q")
    )


def _screen_back(ev: Events, ws: Path) -> bool:
    """Whether the counter screen prints again, the croissant at £1.60, with the menu's
    price a number again or the code made to take a price written as text."""
    out = run(ws, "node counter/main.js")[1]
    return (
        "Croissant  £1.60  (gluten, milk, egg)  7 left" in out
        and "sold out: Sourdough, Saffron bun" in out
        and "cheapest: Bap (£0.55)" in out
        and json_of(ws, "counter/menu.json") in (json.loads(MENU_JSON), json.loads(MENU_PRICE_TEXT))
    )


def _sourdough_dearer(ws: Path) -> bool:
    """Whether a sourdough loaf is £4.50 in prices.py and on the counter screen, and
    nothing else is dearer or cheaper."""
    code, out = run(ws, 'python3 -c "import json, prices; print(json.dumps(prices.PRICES))"')
    try:
        got = json.loads(out) if code == 0 else None
    except ValueError:
        return False
    want = dict(zip(_BAKE, (2.4, 4.5, 3.8, 0.55, 1.6, 1.9, 4.5, 2.2), strict=True))
    others = [line for line in text(ws, "prices.py").splitlines() if "sourdough" not in line]
    wanted = [line for line in PRICES_PY.splitlines() if "sourdough" not in line]
    menu = json.loads(MENU_JSON)
    next(i for i in menu["items"] if i["name"] == "Sourdough")["price"] = 4.5
    return (
        got == want
        and others == wanted
        and json_of(ws, "counter/menu.json") == menu
        and "Sourdough  £4.50  (gluten)  sold out" in run(ws, "node counter/main.js")[1]
        and "orders come to: 260.90 GBP" in run(ws, "python3 daybook.py")[1]
        and passes(ws, "python3 -m unittest -q")
    )


_SCONES = """\
from orders import OrderBook
from oven import BAKE, PER_TRAY, plan, trays_for
from prices import PRICES, SMALL, line_price
names = [k for k in PRICES if k.lower().startswith("cheese scone")]
assert len(names) == 1, PRICES
name = names[0]
assert PRICES[name] == 1.8
assert name in SMALL
assert abs(line_price(name, 13) - 21.6) < 1e-9
assert abs(line_price(name, 5) - 9.0) < 1e-9
assert BAKE[name] == (220, 15)
assert PER_TRAY[name] == 12 and trays_for(name, 13) == 2
OrderBook().place("Mrs Penrose", "08:30", {name: 13})
loads = plan({name: 24, "custard tart": 10}, "05:00", 4, 0)
assert [(l.product, l.start, l.end, l.trays) for l in loads] == [
    (name, 300, 315, 2), ("custard tart", 325, 350, 1)], loads
assert {k: v for k, v in PRICES.items() if k != name} == {
    "white loaf": 2.4, "sourdough": 4.2, "seeded rye": 3.8, "bap": 0.55,
    "croissant": 1.6, "saffron bun": 1.9, "pasty": 4.5, "custard tart": 2.2}
assert sorted(k for k in SMALL if k != name) == ["bap", "croissant", "saffron bun"]
assert {k: v for k, v in BAKE.items() if k != name} == {
    "white loaf": (220, 35), "sourdough": (230, 40), "seeded rye": (210, 50),
    "bap": (200, 15), "croissant": (190, 18), "saffron bun": (190, 22),
    "pasty": (200, 45), "custard tart": (180, 25)}
assert {k: v for k, v in PER_TRAY.items() if k != name} == {
    "white loaf": 6, "sourdough": 5, "seeded rye": 5, "bap": 15, "croissant": 12,
    "saffron bun": 12, "pasty": 8, "custard tart": 10}
"""


def _scones(ws: Path) -> bool:
    """Whether a cheese scone can be ordered at £1.80, goes by the baker's dozen, twelve
    to a tray at 220 C for 15 minutes, the rest as it was, and the sheet, the screen and
    the tests still run."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "scones.py"
        script.write_text(_SCONES)
        if not passes(ws, f"PYTHONPATH=. python3 {script}"):
            return False
    sheet = run(ws, "python3 daybook.py")[1]
    return (
        "orders come to: 257.60 GBP" in sheet
        and "last load out: 09:35" in sheet
        and passes(ws, "node counter/main.js")
        and passes(ws, "python3 -m unittest -q")
    )


# a change task on the bakery project's files
_change = functools.partial(_task, files=BAKERY)


_PRODUCT_SH = """\
#!/usr/bin/env bash
# How many of one product were baked and sold each day: bash tools/product.sh PRODUCT [LOG]
set -euo pipefail

. "$(dirname "$0")/common.sh"

PRODUCT="${1:?give a product, e.g. croissant}"
LOG="${2:-data/sales.csv}"
check_log "$LOG"

awk -F, -v product="$PRODUCT" '
  NR > 1 && $2 == product { printf "%s  baked %d, sold %d\\n", $1, $3, $4 }
' "$LOG"
"""

_DOZEN_TEST = """\
    def test_loaves(self) -> None:
        self.assertEqual(line_price("white loaf", 4), 9.60)

    def test_bakers_dozen(self) -> None:
        self.assertEqual(line_price("bap", 13), line_price("bap", 12))
"""

NINTH_CHANGE_TASKS: tuple[Task, ...] = (
    _change(
        "create-product-days-script",
        CREATE,
        "Write me a script, tools/product.sh. I give it one of our bakes, croissant say, and "
        "for every day in the sales log it shows how many we baked and how many we sold.",
        lambda ev, ws: _product_days(ws),
        write_files("Added tools/product.sh.", {"tools/product.sh": _PRODUCT_SH}),
        ("tools/product.sh",),
    ),
    _change(
        "create-bakers-dozen-test",
        CREATE,
        "Could you add a test that thirteen baps cost the same as twelve? The baker's dozen, "
        "I mean.",
        lambda ev, ws: tests_catch(
            ws,
            12,
            "prices.py",
            PRICES_PY.replace("free = qty // BAKERS_DOZEN if product in SMALL else 0", "free = 0"),
        ),  # no thirteenth bap free
        edits(
            "Added test_bakers_dozen to test_bakery.py.",
            (
                "test_bakery.py",
                '    def test_loaves(self) -> None:\n        self.assertEqual(line_price("white '
                'loaf", 4), 9.60)\n',
                _DOZEN_TEST,
            ),
        ),
        ("test_bakery.py",),
    ),
    _change(
        "toml-fewer-croissants",
        FIX,
        "We're throwing away too many croissants. From tomorrow just bake 24 for the counter, "
        "not 36.",
        lambda ev, ws: _fewer_croissants(ws),
        edits("Done.", ("bakery.toml", "croissant = 36", "croissant = 24")),
        ("bakery.toml",),
    ),
    _change(
        "yaml-post-office-closed",
        FIX,
        "The Post Office Stores has closed down, so the van doesn't need to stop there any more.",
        lambda ev, ws: _post_office_off(ws),
        edits("Done.", ("deliveries.yaml", "      - Post Office Stores\n", "")),
        ("deliveries.yaml",),
    ),
    _change(
        "json-counter-slower",
        FIX,
        "The screen behind the counter moves on before people have finished reading it. Give "
        "each page 20 seconds.",
        lambda ev, ws: _slower_screen(ws),
        edits("Done.", ("counter/menu.json", '"rotate_seconds": 12', '"rotate_seconds": 20')),
        ("counter/menu.json",),
    ),
    _change(
        "py-custard-tart-cooler",
        FIX,
        "the custard tarts keep catching on top, bake them at 170 instead of 180",
        lambda ev, ws: _cooler_tarts(ws),
        edits("Done.", ("oven.py", '"custard tart": (180, 25)', '"custard tart": (170, 25)')),
        ("oven.py",),
    ),
    _change(
        "sh-leftovers-over-fifteen",
        FIX,
        "The leftovers script flags anything where more than a tenth goes unsold, and that's "
        "too many things. Make it 15 per cent unless I give it a different figure.",
        lambda ev, ws: _leftovers_fifteen(ws),
        edits("Done.", ("tools/leftovers.sh", 'OVER="${1:-10}"', 'OVER="${1:-15}"')),
        ("tools/leftovers.sh",),
    ),
    _change(
        "fix-oven-preheat",
        FIX,
        "This morning's sheet has the sourdough going in at 03:30, but that's when I switch "
        "the oven on! It needs its half hour to heat up before anything goes in. Can you fix it?",
        _preheated,
        edits(
            "Fixed.",
            ("oven.py", "now = minutes_of(switch_on)", "now = minutes_of(switch_on) + preheat"),
        ),
        ("oven.py", "daybook.py"),
        files=bakery_with({"oven.py": OVEN_NO_PREHEAT}),
    ),
    _change(
        "error-croissants-order",
        ERROR,
        f"The baking sheet won't print this morning:\n\n{_ORDER_ERROR}\n\nAll I did last "
        "night was put Dr Okafor's order in. What's wrong?",
        _sheet_back,
        edits("Fixed.", ("orders.py", '{"croissants": 4,', '{"croissant": 4,')),
        ("orders.py",),
        files=bakery_with({"orders.py": ORDERS_PLURAL}),
    ),
    _change(
        "error-counter-price",
        ERROR,
        f"The counter screen falls over now:\n\n{_NODE_ERROR}\n\nThe only thing I touched "
        "was the croissant's price in the menu. Please sort it out.",
        _screen_back,
        edits("Fixed.", ("counter/menu.json", '"price": "1.60"', '"price": 1.60')),
        ("counter/menu.json", "counter/board.js", "counter/main.js"),
        files=bakery_with({"counter/menu.json": MENU_PRICE_TEXT}),
    ),
    _change(
        "sourdough-price-rise",
        MULTI,
        "Sourdough is going up to £4.50 a loaf. The screen over the counter shows the price "
        "too, so it needs changing there as well.",
        lambda ev, ws: _sourdough_dearer(ws),
        edits(
            "Done.",
            ("prices.py", '"sourdough": 4.20', '"sourdough": 4.50'),
            ("counter/menu.json", '"price": 4.20', '"price": 4.50'),
        ),
        ("prices.py", "counter/menu.json"),
        max_turns=10,
    ),
    _change(
        "cheese-scones-added",
        MULTI,
        "We're going to start doing cheese scones. £1.80 each, and they go by the baker's "
        "dozen like the baps. Twelve fit on a tray and they bake at 220 for 15 minutes.",
        lambda ev, ws: _scones(ws),
        edits(
            "Cheese scones added.",
            (
                "prices.py",
                '"custard tart": 2.20,\n}',
                '"custard tart": 2.20,\n    "cheese scone": 1.80,\n}',
            ),
            (
                "prices.py",
                'SMALL = ("bap", "croissant", "saffron bun")',
                'SMALL = ("bap", "croissant", "saffron bun", "cheese scone")',
            ),
            (
                "oven.py",
                '"custard tart": (180, 25),\n}',
                '"custard tart": (180, 25),\n    "cheese scone": (220, 15),\n}',
            ),
            (
                "oven.py",
                '"custard tart": 10,\n}',
                '"custard tart": 10,\n    "cheese scone": 12,\n}',
            ),
        ),
        ("prices.py", "oven.py", "counter/menu.json", "test_bakery.py", "README.md"),
        max_turns=12,
    ),
)

NINTH: tuple[Task, ...] = (*NINTH_ASK_TASKS, *NINTH_CHANGE_TASKS)

__all__ = ["MENU_PRICE_TEXT", "NINTH", "ORDERS_PLURAL", "OVEN_NO_PREHEAT"]
