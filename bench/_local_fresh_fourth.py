"""A fourth batch of the fresh set (``BENCH_SET=fourth``): 19 tasks written after the
tenth round's rules and before any run of them, in the words a person at the shop would
use: what they want, seldom the file or the key that holds it.

Ten ask (a limit, a dependency's version, where backups go, how long a statement may
run; the function calling a helper, where a function is used; a price and a total the
programs print; a key and a test file that are nowhere) and nine change (a pinned Node
version, a small script, a replica, a timeout, a coupon's worth, a traceback and a
"command not found" pasted as they came, and one threshold kept in two files).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from bench._local_fresh_ask import READ, REFUSE, RUN, SEARCH, _absent, _found, _names, _ran, _t
from bench._local_fresh_change import CREATE, ERROR, FIX, MULTI, _config_but, _settings_but, _task
from bench._local_shop import shop_with
from bench._local_shop_py import INVENTORY_PY, REPORT_PY, SETTINGS_TOML
from bench._local_shop_web import DEPLOY_YAML, SUMMARY_SH
from bench._local_task import Events, Task, edits, passes, run, text, toml_of, write_files, yaml_of

DISCOUNT_ARGUMENT = REPORT_PY.replace("apply_discount(24.5, 30)", "apply_discount(24.5)")
AWK_TYPO = SUMMARY_SH.replace("awk -F,", "akw -F,")

_TRACEBACK = """\
Traceback (most recent call last):
  File "/shop/report.py", line 27, in <module>
    main()
  File "/shop/report.py", line 22, in main
    for line in build_report(load_demo()):
                ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/shop/report.py", line 15, in build_report
    lines.append(f"clearance price of a kettle: {apply_discount(24.5):.2f} {CURRENCY}")
                                                 ^^^^^^^^^^^^^^^^^^^^
TypeError: apply_discount() missing 1 required positional argument: 'percent'"""


FOURTH_ASK_TASKS: tuple[Task, ...] = (
    _t(
        "ask-order-lines-limit",
        READ,
        "How many different lines can one cart hold at most at checkout?",
        _found(r"(?<![\d.])50(?!\d|\.\d)"),
        "At most 50 lines (max_lines in config.json).",
        "search_text",
    ),
    _t(
        "ask-express-version",
        READ,
        "Which version of express does the web front depend on?",
        _found(r"4\.19\.2"),
        "express ^4.19.2 (package.json).",
        "read_file:package.json",
    ),
    _t(
        "ask-backup-folder",
        READ,
        "Where do the nightly backups end up unless told otherwise?",
        _found(r"/var/backups/shop"),
        "In /var/backups/shop (BACKUP_ROOT in scripts/backup.sh).",
        "search_text",
    ),
    _t(
        "ask-statement-timeout",
        READ,
        "How long may one database statement of the back office run?",
        _found(r"(?<![\d.])5\s?000(?!\d|\.\d)|(?<![\d.])5\s*(s|sec|secs|seconds)\b"),
        "5000 ms, five seconds (statement_timeout_ms in settings.toml).",
        "search_text",
    ),
    _t(
        "caller-die",
        SEARCH,
        "Which helper in scripts/lib.sh calls die?",
        _names("require"),
        "require calls die when a command is not installed.",
        "read_file:scripts/lib.sh",
    ),
    _t(
        "usage-slugify",
        SEARCH,
        "Where is slugify used, apart from the file it is written in?",
        _names("index.js"),
        "src/index.js uses it for the order's name.",
        "search_text",
    ),
    _t(
        "run-teapot-line",
        RUN,
        "Run the sample order and tell me what the tea pot line costs.",
        _ran("21.00", command="node src/index.js"),
        "The tea pot line costs 21.00 €.",
        "run_cmd:src/index.js",
    ),
    _t(
        "run-value-with-tax",
        RUN,
        "What is the stock worth with tax? The stock report says.",
        _ran("734.40", command="python3 report.py"),
        "734.40 EUR with tax.",
        "run_cmd:report.py",
    ),
    _t(
        "missing-stripe-key",
        REFUSE,
        "Which Stripe API key does the checkout use?",
        _absent("sk_", "pk_"),
        "There is no Stripe key in the folder: config.json names only the payment service's url.",
        "search_text",
    ),
    _t(
        "missing-pricing-tests",
        REFUSE,
        "What do the tests in test_pricing.py check?",
        _absent(missing="test_pricing.py"),
        "There is no test_pricing.py: the only tests are in test_inventory.py.",
        "read_file:test_pricing.py",
    ),
)


def _nvmrc(ws: Path) -> bool:
    """Whether .nvmrc pins Node 20 (``20``, ``v20``, ``20.11.1`` ...), and nothing more."""
    return re.fullmatch(r"v?20(\.\d+){0,2}", text(ws, ".nvmrc").strip()) is not None


def _price_script(ws: Path) -> bool:
    """Whether price.py runs and prints 120 (with_tax(100) from pricing.py)."""
    code, out = run(ws, "python3 price.py")
    return code == 0 and re.search(r"(?<![\d.])120(\.0+)?(?!\d|\.\d)", out) is not None


def _worker_replicas(ws: Path) -> bool:
    """Whether deploy.yaml parses and is the shop's but for the worker's two replicas."""
    want = yaml.safe_load(DEPLOY_YAML)
    want["services"]["worker"]["replicas"] = 2
    return yaml_of(ws, "deploy.yaml") == want


def _welcome_ten(ws: Path) -> bool:
    """Whether WELCOME5 is worth 10 and SPRING10 still 10, and the sample order runs."""
    script = "const c = require('./src/cart'); process.exit(c.COUPONS.WELCOME5 === 10 && "
    script += "c.COUPONS.SPRING10 === 10 && Object.keys(c.COUPONS).length === 2 ? 0 : 1)"
    return passes(ws, f'node -e "{script}"') and "total: 48.15" in run(ws, "node src/index.js")[1]


def _threshold_six(ws: Path) -> bool:
    """Whether both the code's default and settings.toml say 6, and the rest is as it was
    (the report now lists B-220 alone still: A-100 has 10)."""
    want = tomllib.loads(SETTINGS_TOML)
    want["stock"]["low_stock_threshold"] = 6
    return (
        toml_of(ws, "settings.toml") == want
        and text(ws, "inventory.py") == INVENTORY_PY.replace("THRESHOLD = 4", "THRESHOLD = 6")
        and "low stock: B-220" in run(ws, "python3 report.py")[1]
    )


def _report_runs(ev: Events, ws: Path) -> bool:
    """Whether the report runs again, with the clearance price 30% off."""
    return "clearance price of a kettle: 17.15" in run(ws, "python3 report.py")[1]


FOURTH_CHANGE_TASKS: tuple[Task, ...] = (
    _task(
        "create-nvmrc",
        CREATE,
        "Pin the project to Node 20 with an .nvmrc file.",
        lambda ev, ws: _nvmrc(ws),
        write_files("Added .nvmrc.", {".nvmrc": "20\n"}),
        (".nvmrc",),
    ),
    _task(
        "create-price-script",
        CREATE,
        "Write price.py: a script that prints what 100 costs with tax, using with_tax from "
        "pricing.py.",
        lambda ev, ws: _price_script(ws),
        write_files(
            "Wrote price.py.",
            {"price.py": "from pricing import with_tax\n\nprint(with_tax(100))\n"},
        ),
        ("price.py",),
    ),
    _task(
        "yaml-worker-second",
        FIX,
        "The worker can't keep up with the orders queue. Give it a second replica.",
        lambda ev, ws: _worker_replicas(ws),
        edits(
            "Done.",
            ("deploy.yaml", "worker:2.14.3\n    replicas: 1", "worker:2.14.3\n    replicas: 2"),
        ),
        ("deploy.yaml",),
    ),
    _task(
        "toml-request-timeout",
        FIX,
        "Requests to the back office give up too soon. Let them run for 60 seconds.",
        lambda ev, ws: _settings_but(ws, "server", "request_timeout", 60),
        edits("Done.", ("settings.toml", "request_timeout = 45", "request_timeout = 60")),
        ("settings.toml",),
    ),
    _task(
        "js-welcome-ten",
        FIX,
        "The WELCOME5 coupon should take 10% off now, not 5%.",
        lambda ev, ws: _welcome_ten(ws),
        edits("Done.", ("src/cart.js", "WELCOME5: 5 }", "WELCOME5: 10 }")),
        ("src/cart.js",),
    ),
    _task(
        "json-stock-retries",
        FIX,
        "Calls from the checkout to the stock service should be tried 5 times.",
        lambda ev, ws: _config_but(ws, {"services": {"stock": {"retries": 5}}}),
        edits(
            "Done.",
            (
                "config.json",
                '"retries": 3,\n      "backoff_ms": 100',
                '"retries": 5,\n      "backoff_ms": 100',
            ),
        ),
        ("config.json",),
    ),
    _task(
        "error-missing-argument",
        ERROR,
        f"The stock report broke:\n\n{_TRACEBACK}\n\nThe clearance price is 30% off. Fix it.",
        _report_runs,
        edits("Fixed.", ("report.py", "apply_discount(24.5)", "apply_discount(24.5, 30)")),
        ("report.py",),
        files=shop_with({"report.py": DISCOUNT_ARGUMENT}),
    ),
    _task(
        "error-command-not-found",
        ERROR,
        "bash scripts/summary.sh says\n\nscripts/summary.sh: line 12: akw: command not found\n\n"
        "Please fix it.",
        lambda ev, ws: "revenue: 398.40" in run(ws, "bash scripts/summary.sh")[1],
        edits("Fixed.", ("scripts/summary.sh", "akw -F,", "awk -F,")),
        ("scripts/summary.sh",),
        files=shop_with({"scripts/summary.sh": AWK_TYPO}),
    ),
    _task(
        "threshold-six-both",
        MULTI,
        "Low stock should mean fewer than 6 units, both in the code's default and in "
        "settings.toml.",
        lambda ev, ws: _threshold_six(ws),
        edits(
            "Done.",
            ("inventory.py", "LOW_STOCK_THRESHOLD = 4", "LOW_STOCK_THRESHOLD = 6"),
            ("settings.toml", "low_stock_threshold = 4", "low_stock_threshold = 6"),
        ),
        ("inventory.py", "settings.toml"),
    ),
)

FOURTH: tuple[Task, ...] = (*FOURTH_ASK_TASKS, *FOURTH_CHANGE_TASKS)
