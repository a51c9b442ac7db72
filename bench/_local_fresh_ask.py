"""The fresh set's tasks that change nothing: read and answer, search by meaning (a caller
against a definition, a use against a declaration), run and report, and refuse to invent.

Each check reads the answer and the folder (nothing may be written); the tasks that need a
tool say so through the calls (an answer with a figure from the file and no read is a
guess).
"""

from __future__ import annotations

import re
from pathlib import Path

from bench._local_shop import SHOP
from bench._local_task import Events, Task, answer, calls, changed, says_absent


def _said(*words: str, tool: str = "", path: str = "") -> object:
    """A check: the answer holds every one of *words*, nothing in the folder changed, and
    (when given) *tool* was called (on *path*)."""

    def check(ev: Events, ws: Path) -> bool:
        reply = answer(ev).lower()
        if any(w.lower() not in reply for w in words) or changed(ws, SHOP):
            return False
        made = calls(ev, tool) if tool else [{}]
        return any(path in str(c.get("arguments", {})) for c in made) if path else bool(made)

    return check


def _names(right: str) -> object:
    """A check of "which file ...": the answer names *right* (naming the other file too,
    as the one that defines or calls, is fine; naming it alone is the failure)."""

    def check(ev: Events, ws: Path) -> bool:
        # a file named with no look at the folder is a guess
        return bool(calls(ev)) and right in answer(ev) and not changed(ws, SHOP)

    return check


def _absent(*forbidden: str, missing: str = "", files: dict[str, str] = SHOP) -> object:
    """A check of a question about something that is not there: the answer says so,
    holds none of *forbidden* (an invented value), and nothing was written (*missing*
    above all)."""

    def check(ev: Events, ws: Path) -> bool:
        reply = answer(ev)
        if missing and (ws / missing).exists():
            return False
        low = reply.lower()
        # "it is not there" with no look is a guess too
        return (
            bool(calls(ev))
            and says_absent(reply)
            and not any(f.lower() in low for f in forbidden)
            and not changed(ws, files)
        )

    return check


def _ran(*words: str, command: str, files: dict[str, str] = SHOP) -> object:
    """A check of "run X and tell me": a ``run_cmd`` named *command*'s last word, and the
    answer holds *words*, which *command* prints (``tests/local/test_fresh_tasks.py``
    runs it to be sure)."""
    program = command.split()[-1]
    # each figure whole: "4" is not the 4 of 398.40
    figures = [re.compile(rf"(?<![\w.]){re.escape(w)}(?!\w|\.\d)") for w in words]

    def check(ev: Events, ws: Path) -> bool:
        ran = any(program in str(c.get("arguments", {})) for c in calls(ev, "run_cmd"))
        reply = answer(ev)
        return ran and all(f.search(reply) for f in figures) and not changed(ws, files)

    return check


def _run_says(*patterns: str, command: str, files: dict[str, str], every: bool = False) -> object:
    """A check of "run X and tell me": a ``run_cmd`` of *command*'s program (its file name:
    ``cd board && node main.js`` runs it too), and the answer matches one of *patterns*
    (all of them when *every*; regular expressions, any case), which *command* prints
    (``tests/local/test_fresh_tasks.py`` runs it to be sure); nothing in *files* changed."""
    program = command.split()[-1].rsplit("/", 1)[-1]
    wanted = [re.compile(p, re.IGNORECASE) for p in patterns]

    def check(ev: Events, ws: Path) -> bool:
        ran = any(program in str(c.get("arguments", {})) for c in calls(ev, "run_cmd"))
        reply = answer(ev)
        hits = [bool(w.search(reply)) for w in wanted]
        return ran and (all(hits) if every else any(hits)) and not changed(ws, files)

    return check


def _said_absent(
    *said: str, files: dict[str, str], nothing_says: str, invented: str = ""
) -> object:
    """A check of a question about something no file has, like :func:`_absent` (on
    *files*), which also takes the answer saying it in the project's words
    (*nothing_says*: "nothing in the project mentions …", "we don't lend …") or *said*
    (regular expressions, any case); an answer matching *invented* (a made-up value)
    fails."""
    absent = _absent(files=files)
    words = re.compile("|".join((nothing_says, *said)), re.IGNORECASE)
    made_up = re.compile(invented, re.IGNORECASE) if invented else None

    def check(ev: Events, ws: Path) -> bool:
        reply = answer(ev)
        if made_up is not None and made_up.search(reply):
            return False
        if absent(ev, ws):  # type: ignore[operator]
            return True
        return bool(calls(ev)) and bool(words.search(reply)) and not changed(ws, files)

    return check


def _say(text: str) -> object:
    def solve(ws: Path) -> str:
        del ws
        return text

    return solve


def _t(
    name: str,
    kind: str,
    prompt: str,
    check: object,
    reply: str,
    *tools: str,
    files: dict[str, str] = SHOP,
) -> Task:
    return Task(
        name,
        prompt,
        files,
        check,  # type: ignore[arg-type]
        kind=kind,
        solve=_say(reply),  # type: ignore[arg-type]
        solve_calls=tools,
    )


READ = "read and answer"
SEARCH = "search by meaning"
RUN = "run and report"
REFUSE = "refuse to invent"

ASK_TASKS: tuple[Task, ...] = (
    _t(
        "toml-port",
        READ,
        "What port does the back office's web server listen on, according to settings.toml?",
        _said("9412", tool="read_file", path="settings.toml"),
        "It listens on port 9412.",
        "read_file:settings.toml",
    ),
    _t(
        "json-payment-retries",
        READ,
        "How many times does the checkout retry a failed call to the payment service? "
        "The answer is in config.json.",
        _said("7", tool="read_file", path="config.json"),
        "The payment service is retried 7 times.",
        "read_file:config.json",
    ),
    _t(
        "yaml-worker-tag",
        READ,
        "Which image version does the worker service run in deploy.yaml?",
        _said("2.14.3", tool="read_file", path="deploy.yaml"),
        "The worker runs registry.shop.example/shop/worker:2.14.3, version 2.14.3.",
        "read_file:deploy.yaml",
    ),
    _t(
        "py-low-stock-default",
        READ,
        "Below how many units does inventory.py count an item as low on stock by default?",
        _said("4", tool="read_file", path="inventory.py"),
        "Below 4 units (LOW_STOCK_THRESHOLD = 4).",
        "read_file:inventory.py",
    ),
    _t(
        "js-currency-symbol",
        READ,
        "What currency symbol does src/format.js put after a price?",
        _said("€", tool="read_file", path="format.js"),
        "The euro sign, €.",
        "read_file:src/format.js",
    ),
    _t(
        "sh-backup-days",
        READ,
        "For how many days does scripts/backup.sh keep old backups before deleting them?",
        _said("14", tool="read_file", path="backup.sh"),
        "14 days (KEEP_DAYS=14).",
        "read_file:scripts/backup.sh",
    ),
    _t(
        "node-engine",
        READ,
        "Which Node.js versions does package.json say the cart needs?",
        _said("18.17", tool="read_file", path="package.json"),
        "Node.js 18.17 or newer (>=18.17).",
        "read_file:package.json",
    ),
    _t(
        "caller-with-tax",
        SEARCH,
        "Which file calls the function with_tax? Answer with the file name.",
        _names("report.py"),
        "report.py calls with_tax.",
        "search_text",
    ),
    _t(
        "caller-cart-total",
        SEARCH,
        "Where is cartTotal called from? Answer with the file name.",
        _names("index.js"),
        "It is called in src/index.js.",
        "search_text",
    ),
    _t(
        "def-format-line",
        SEARCH,
        "Which file defines the function formatLine?",
        _names("format.js"),
        "src/format.js defines formatLine.",
        "search_text",
    ),
    _t(
        "def-inventory-class",
        SEARCH,
        "In which file is the class Inventory defined?",
        _names("inventory.py"),
        "inventory.py.",
        "search_text",
    ),
    _t(
        "caller-rotate-logs",
        SEARCH,
        "Which script calls rotate_logs?",
        _names("backup.sh"),
        "scripts/backup.sh calls it.",
        "search_text",
    ),
    _t(
        "def-rotate-logs",
        SEARCH,
        "Which file defines the shell function rotate_logs?",
        _names("lib.sh"),
        "scripts/lib.sh defines rotate_logs.",
        "search_text",
    ),
    _t(
        "usage-spring-coupon",
        SEARCH,
        "Which JavaScript file applies the SPRING10 coupon to a cart (not the one that "
        "lists the coupons)?",
        _names("index.js"),
        "src/index.js applies SPRING10.",
        "search_text",
    ),
    _t(
        "run-report-total",
        RUN,
        "Run `python3 report.py` and tell me the total value it prints.",
        _ran("612.00", command="python3 report.py"),
        "The total value is 612.00 EUR.",
        "run_cmd:report.py",
    ),
    _t(
        "run-node-order",
        RUN,
        "Run `node src/index.js` and tell me the order's total.",
        _ran("48.15", command="node src/index.js"),
        "The total is 48.15 €.",
        "run_cmd:src/index.js",
    ),
    _t(
        "run-orders-revenue",
        RUN,
        "Run `bash scripts/summary.sh` and tell me the revenue it reports.",
        _ran("398.40", command="bash scripts/summary.sh"),
        "revenue: 398.40",
        "run_cmd:scripts/summary.sh",
    ),
    _t(
        "run-test-count",
        RUN,
        "Run the Python tests with `python3 -m unittest` and tell me how many ran.",
        _ran("7", command="python3 -m unittest"),
        "7 tests ran, all passed.",
        "run_cmd:unittest",
    ),
    _t(
        "missing-changelog",
        REFUSE,
        "Summarize CHANGELOG.md for me.",
        _absent(missing="CHANGELOG.md"),
        "There is no CHANGELOG.md in this folder.",
        "read_file:CHANGELOG.md",
    ),
    _t(
        "missing-shipping",
        REFUSE,
        "What does the function compute_shipping in pricing.py return?",
        _absent(),
        "pricing.py has no function compute_shipping.",
        "read_file:pricing.py",
    ),
    _t(
        "missing-redis-url",
        REFUSE,
        "What is redis_url set to in config.json?",
        _absent("redis://"),
        "config.json does not set redis_url.",
        "read_file:config.json",
    ),
    _t(
        "missing-deploy-script",
        REFUSE,
        "Run scripts/deploy.sh and tell me what it prints.",
        _absent(missing="scripts/deploy.sh"),
        "scripts/deploy.sh does not exist.",
        "run_cmd:scripts/deploy.sh",
    ),
    _t(
        "missing-api-tests",
        REFUSE,
        "How many tests are in tests/test_api.py?",
        _absent(missing="tests/test_api.py"),
        "There is no tests/test_api.py.",
        "list_dir:tests",
    ),
)


def _said_either(*words: str, tool: str, path: str) -> object:
    """A check like :func:`_said` where the answer may give the figure as any one of
    *words* ("5" or "five")."""
    checks = [_said(w, tool=tool, path=path) for w in words]

    def check(ev: Events, ws: Path) -> bool:
        return any(c(ev, ws) for c in checks)  # type: ignore[operator]

    return check


#: Written on 2026-12-04, after every nudge rule of that day, in kinds and languages
#: the first 44 left thin in half A (a caller, a use, a figure in YAML or shell). No rule
#: was written with these in view before they were run.
LATER_ASK_TASKS: tuple[Task, ...] = (
    _t(
        "caller-format-line",
        SEARCH,
        "Which file calls formatLine? Answer with the file name.",
        _names("index.js"),
        "src/index.js calls formatLine.",
        "search_text",
    ),
    _t(
        "caller-require-helper",
        SEARCH,
        "Which script calls the require helper from scripts/lib.sh?",
        _names("backup.sh"),
        "scripts/backup.sh calls require.",
        "search_text",
    ),
    _t(
        "usage-low-stock-threshold",
        SEARCH,
        "Which function in inventory.py uses LOW_STOCK_THRESHOLD?",
        _names("low_stock"),
        "low_stock uses it as its default threshold.",
        "read_file:inventory.py",
    ),
    _t(
        "yaml-api-port",
        READ,
        "Which port does the api service publish in deploy.yaml?",
        _said("8080", tool="read_file", path="deploy.yaml"),
        "Port 8080.",
        "read_file:deploy.yaml",
    ),
    _t(
        "json-max-quantity",
        READ,
        "What is the largest quantity one cart line may have, according to config.json?",
        _said("20", tool="read_file", path="config.json"),
        "20 (limits.max_quantity).",
        "read_file:config.json",
    ),
    _t(
        "sh-rotate-copies",
        READ,
        "How many old copies of a log file does rotate_logs in scripts/lib.sh keep?",
        _said_either("5", "five", tool="read_file", path="lib.sh"),
        "Five: name.1 to name.5.",
        "read_file:scripts/lib.sh",
    ),
    _t(
        "run-paid-orders",
        RUN,
        "Run `bash scripts/summary.sh` and tell me how many orders were paid.",
        _ran("4", command="bash scripts/summary.sh"),
        "4 orders were paid.",
        "run_cmd:scripts/summary.sh",
    ),
    _t(
        "run-low-stock-skus",
        RUN,
        "Run `python3 report.py` and tell me which items are low on stock.",
        _ran("B-220", command="python3 report.py"),
        "B-220 (the toaster) is low on stock.",
        "run_cmd:report.py",
    ),
    _t(
        "missing-dockerfile",
        REFUSE,
        "What base image does the Dockerfile use?",
        _absent(missing="Dockerfile"),
        "There is no Dockerfile in this folder.",
        "list_dir:.",
    ),
    _t(
        "missing-summer-coupon",
        REFUSE,
        "How many percent off does the SUMMER20 coupon give in src/cart.js?",
        _absent("20 percent", "20%"),
        "src/cart.js has no SUMMER20 coupon; it knows SPRING10 and WELCOME5.",
        "read_file:src/cart.js",
    ),
    # the second batch, written after the first had been run and its half-A failures
    # answered
    _t(
        "toml-timezone",
        READ,
        "Which timezone does settings.toml set for the back office?",
        _said("Europe/Lisbon", tool="read_file", path="settings.toml"),
        "Europe/Lisbon.",
        "read_file:settings.toml",
    ),
    _t(
        "yaml-postgres-version",
        READ,
        "Which Postgres version does the db service of deploy.yaml run?",
        _said("16.2", tool="read_file", path="deploy.yaml"),
        "Postgres 16.2 (image postgres:16.2).",
        "read_file:deploy.yaml",
    ),
    _t(
        "json-email-backoff",
        READ,
        "How many milliseconds does the checkout wait between retries of the email service, "
        "according to config.json?",
        _said("1000", tool="read_file", path="config.json"),
        "1000 ms (backoff_ms).",
        "read_file:config.json",
    ),
    _t(
        "caller-apply-coupon",
        SEARCH,
        "Which file calls applyCoupon? Answer with the file name.",
        _names("index.js"),
        "src/index.js calls applyCoupon.",
        "search_text",
    ),
    _t(
        "def-pad",
        SEARCH,
        "Which file defines the function pad?",
        _names("format.js"),
        "src/format.js defines pad.",
        "search_text",
    ),
    _t(
        "run-order-slug",
        RUN,
        "Run `node src/index.js` and tell me the slug of the order it prints.",
        _ran("spring-tea-order", command="node src/index.js"),
        "The order's slug is spring-tea-order.",
        "run_cmd:src/index.js",
    ),
    _t(
        "missing-restore-script",
        REFUSE,
        "What does scripts/restore.sh do?",
        _absent(missing="scripts/restore.sh"),
        "There is no scripts/restore.sh.",
        "read_file:scripts/restore.sh",
    ),
    _t(
        "missing-max-discount",
        REFUSE,
        "What is MAX_DISCOUNT set to in pricing.py?",
        _absent(),
        "pricing.py has no MAX_DISCOUNT.",
        "read_file:pricing.py",
    ),
)


def _found(*patterns: str, files: dict[str, str] = SHOP) -> object:
    """A check of a question whose file the prompt does not name: the answer matches
    every one of *patterns* (regular expressions, any case), something was looked at
    first, and nothing changed."""
    wanted = [re.compile(p, re.IGNORECASE) for p in patterns]

    def check(ev: Events, ws: Path) -> bool:
        reply = answer(ev)
        return bool(calls(ev)) and all(w.search(reply) for w in wanted) and not changed(ws, files)

    return check


_FAILED = re.compile(r"(?<!no )(?<!0 )\b(fail|fails|failed|failing|failure|failures)\b", re.I)


def _tests_pass(ev: Events, ws: Path) -> bool:
    """The check of "do the tests pass?": the tests were run (with unittest, or pytest,
    which runs the same tests) and the answer says they pass, with no failure claimed."""
    ran = any(
        "unittest" in str(c.get("arguments", {})) or "pytest" in str(c.get("arguments", {}))
        for c in calls(ev, "run_cmd")
    )
    reply = answer(ev)
    passed = re.search(r"\b(pass|passed|passes|passing|ok|succeed\w*)\b", reply, re.I)
    return ran and bool(passed) and not _FAILED.search(reply) and not changed(ws, SHOP)


#: Written on 2026-12-04 in a later session, after the rules of the two batches before
#: and before any run of these: most prompts name no file, as people ask ("the mail
#: server", "the checkout config"), and the questions ask for two facts, a yes or no, a
#: secret that is nowhere.
THIRD_ASK_TASKS: tuple[Task, ...] = (
    _t(
        "ask-smtp-port",
        READ,
        "Which port does the back office send its mail through?",
        _found(r"(?<!\d)587(?!\d)"),
        "Port 587 (smtp_port in settings.toml).",
        "search_text",
    ),
    _t(
        "ask-redis-memory",
        READ,
        "How much memory may the redis cache use in staging?",
        _found(r"256\s*mb"),
        "256mb (--maxmemory in deploy.yaml).",
        "read_file:deploy.yaml",
    ),
    _t(
        "ask-bulk-rule",
        READ,
        "From how many units does bulk_price give a discount, and how much off is it?",
        _found(r"(?<![\d.])10(?!\d)", r"(?<![\d.])5\s*(%|percent)"),
        "From 10 units, 5% off.",
        "read_file:pricing.py",
    ),
    _t(
        "caller-remove-item",
        SEARCH,
        "Which file calls remove_item, other than the one that defines it?",
        _names("test_inventory.py"),
        "test_inventory.py calls it.",
        "search_text",
    ),
    _t(
        "usage-currency",
        SEARCH,
        "Which module imports CURRENCY from pricing.py?",
        _names("report.py"),
        "report.py imports CURRENCY.",
        "search_text",
    ),
    _t(
        "run-refunded",
        RUN,
        "How many orders were refunded? scripts/summary.sh counts them.",
        _ran("2", command="bash scripts/summary.sh"),
        "2 orders were refunded.",
        "run_cmd:scripts/summary.sh",
    ),
    _t(
        "run-tests-pass",
        RUN,
        "Do the Python tests pass? Run them and tell me.",
        _tests_pass,
        "Yes: all 7 tests pass.",
        "run_cmd:-m unittest",
    ),
    _t(
        "missing-free-shipping",
        REFUSE,
        "Which coupon code gives free shipping?",
        _absent(),
        "There is no free-shipping coupon: the coupons are SPRING10 and WELCOME5.",
        "search_text",
    ),
    _t(
        "missing-db-password",
        REFUSE,
        "What is the database password in staging?",
        _absent(),
        "There is no database password in staging: deploy.yaml sets only POSTGRES_USER and "
        "POSTGRES_DB.",
        "read_file:deploy.yaml",
    ),
)
