"""A fifth batch of the fresh set (``BENCH_SET=fifth``): 20 tasks written after the
eleventh round's rules and before any run of them, in the words a person at the shop would
use: what they want, seldom the file or the key that holds it.

Ten ask (how many database connections, how long a payment retry waits, which queue the
worker takes, how many units a reorder brings; which function rounds to cents, which files
use the demo stock; a clearance price and an order count the programs print; a shipping
rate and a CI workflow that are nowhere) and ten change (a list of the warehouses and a
page of commands, written; a mail host, a log format, a database version, a price, a tax
flag; a misspelt module and a misspelt name pasted as they came; one log level kept in two
files).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import yaml

from bench._local_fresh_ask import READ, REFUSE, RUN, SEARCH, _absent, _found, _ran, _t
from bench._local_fresh_change import CREATE, ERROR, FIX, MULTI, _settings_but, _task
from bench._local_shop import shop_with
from bench._local_shop_py import REPORT_PY, SETTINGS_TOML
from bench._local_shop_web import CONFIG_JSON, DEPLOY_YAML, INDEX_JS
from bench._local_task import (
    Events,
    Task,
    edits,
    json_of,
    run,
    text,
    toml_of,
    write_files,
    yaml_of,
)

MODULE_TYPO = REPORT_PY.replace("from inventory import", "from inventroy import")
CATALOG_TYPO = INDEX_JS.replace("addToCart(cart, catalogue[2]);", "addToCart(cart, catalog[2]);")

_REFERENCE_ERROR = """\
/shop/src/index.js:18
  addToCart(cart, catalog[2]);
                  ^

ReferenceError: catalog is not defined"""


FIFTH_ASK_TASKS: tuple[Task, ...] = (
    _t(
        "ask-db-connections",
        READ,
        "How many database connections can the back office keep open at once?",
        _found(r"(?<![\d.])8(?!\d|\.\d)"),
        "8 (pool_size in settings.toml).",
        "search_text",
    ),
    _t(
        "ask-payment-wait",
        READ,
        "After a payment call fails, how long does the checkout wait before it tries again?",
        _found(r"(?<![\d.])250(?!\d|\.\d)"),
        "250 ms (backoff_ms of the payment service in config.json).",
        "search_text",
    ),
    _t(
        "ask-worker-queue",
        READ,
        "Which queue does the staging worker take its jobs from?",
        _found(r"\borders\b"),
        "The orders queue (the worker's command in deploy.yaml).",
        "read_file:deploy.yaml",
    ),
    _t(
        "ask-reorder-units",
        READ,
        "When we reorder stock, how many units come in one go?",
        _found(r"(?<![\d.])25(?!\d|\.\d)"),
        "25 units (reorder_batch in settings.toml).",
        "search_text",
    ),
    _t(
        "def-cents-rounding",
        SEARCH,
        "Which function rounds an amount to whole cents, and in which file is it?",
        _found(r"round_money", r"pricing\.py"),
        "round_money, in pricing.py.",
        "search_text",
    ),
    _t(
        "usage-load-demo",
        SEARCH,
        "Besides inventory.py, which files use load_demo?",
        _found(r"report\.py", r"test_inventory\.py"),
        "report.py and test_inventory.py.",
        "search_text",
    ),
    _t(
        "run-clearance-kettle",
        RUN,
        "What does a kettle cost at clearance? The stock report prints it.",
        _ran("17.15", command="python3 report.py"),
        "17.15 EUR.",
        "run_cmd:report.py",
    ),
    _t(
        "run-orders-on-file",
        RUN,
        "How many orders are on file? Let the summary script count them.",
        _ran("7", command="bash scripts/summary.sh"),
        "7 orders.",
        "run_cmd:scripts/summary.sh",
    ),
    _t(
        "missing-shipping-rate",
        REFUSE,
        "What does shipping cost for an order under 50 euros?",
        _absent(),
        "Nothing in the folder sets a shipping cost: no file mentions shipping.",
        "search_text",
    ),
    _t(
        "missing-ci-pythons",
        REFUSE,
        "Which Python versions does our CI workflow test against?",
        _absent("3.1"),
        "There is no CI workflow in the folder (no .github or CI file).",
        "list_dir",
    ),
)


def _warehouses_listed(ws: Path) -> bool:
    """Whether data/warehouses.txt lists lisbon and porto, one a line, and nothing else."""
    lines = [line.strip().lower() for line in text(ws, "data/warehouses.txt").splitlines()]
    return sorted(line for line in lines if line) == ["lisbon", "porto"]


def _running_page(ws: Path) -> bool:
    """Whether RUNNING.md names the report's command and the tests' command."""
    page = text(ws, "RUNNING.md")
    return "python3 report.py" in page and "unittest" in page


def _log_format_text(ws: Path) -> bool:
    """Whether config.json parses and is the shop's but for a plain-text log format."""
    got = json_of(ws, "config.json")
    if not isinstance(got, dict) or not isinstance(got.get("log"), dict):
        return False
    fmt = got["log"].get("format")
    want = json.loads(CONFIG_JSON)
    want["log"]["format"] = fmt
    return fmt in ("text", "plain") and got == want


def _postgres_16_4(ws: Path) -> bool:
    """Whether deploy.yaml parses and is the shop's but for the db's postgres:16.4."""
    want = yaml.safe_load(DEPLOY_YAML)
    want["services"]["db"]["image"] = "postgres:16.4"
    return yaml_of(ws, "deploy.yaml") == want


def _tea_five(ws: Path) -> bool:
    """Whether the sample order prices green tea at 5: its line and total say so."""
    code, out = run(ws, "node src/index.js")
    return code == 0 and "20.00 €" in out and "total: 49.95" in out


def _warnings_only(ws: Path) -> bool:
    """Whether the api in deploy.yaml and the checkout in config.json log at warning
    level (``warning`` or ``warn``, either case), and the rest of both is as it was."""
    deploy = yaml_of(ws, "deploy.yaml")
    config = json_of(ws, "config.json")
    if not isinstance(deploy, dict) or not isinstance(config, dict):
        return False
    try:
        api_level = deploy["services"]["api"]["environment"]["LOG_LEVEL"]
        checkout_level = config["log"]["level"]
    except (KeyError, TypeError):
        return False
    levels = {str(api_level).lower(), str(checkout_level).lower()}
    want_deploy = yaml.safe_load(DEPLOY_YAML)
    want_deploy["services"]["api"]["environment"]["LOG_LEVEL"] = api_level
    want_config = json.loads(CONFIG_JSON)
    want_config["log"]["level"] = checkout_level
    return levels <= {"warning", "warn"} and deploy == want_deploy and config == want_config


def _tax_included(ws: Path) -> bool:
    """Whether settings.toml says prices include tax, and the rest is as it was."""
    want = tomllib.loads(SETTINGS_TOML)
    want["tax"]["included_in_prices"] = True
    return toml_of(ws, "settings.toml") == want


def _report_back(ev: Events, ws: Path) -> bool:
    """Whether the stock report runs again, whole."""
    return "total value: 612.00" in run(ws, "python3 report.py")[1]


def _order_back(ev: Events, ws: Path) -> bool:
    """Whether the sample order runs again, with the tea pot in it."""
    out = run(ws, "node src/index.js")[1]
    return "Tea pot" in out and "total: 48.15" in out


FIFTH_CHANGE_TASKS: tuple[Task, ...] = (
    _task(
        "create-warehouse-list",
        CREATE,
        "Make a file data/warehouses.txt that lists our warehouses, one per line.",
        lambda ev, ws: _warehouses_listed(ws),
        write_files("Wrote data/warehouses.txt.", {"data/warehouses.txt": "lisbon\nporto\n"}),
        ("data/warehouses.txt",),
    ),
    _task(
        "create-running-page",
        CREATE,
        "Write RUNNING.md for newcomers: how to print the stock report and how to run the "
        "Python tests, one command each.",
        lambda ev, ws: _running_page(ws),
        write_files(
            "Wrote RUNNING.md.",
            {"RUNNING.md": "# Running\n\n- `python3 report.py`\n- `python3 -m unittest`\n"},
        ),
        ("RUNNING.md",),
    ),
    _task(
        "toml-mail-host",
        FIX,
        "Our mail goes out through smtp.mailhub.example from now on.",
        lambda ev, ws: _settings_but(ws, "mail", "smtp_host", "smtp.mailhub.example"),
        edits(
            "Done.",
            (
                "settings.toml",
                'smtp_host = "smtp.shop.example"',
                'smtp_host = "smtp.mailhub.example"',
            ),
        ),
        ("settings.toml",),
    ),
    _task(
        "json-log-plain",
        FIX,
        "The checkout should write its logs as plain text rather than JSON.",
        lambda ev, ws: _log_format_text(ws),
        edits("Done.", ("config.json", '"format": "json"', '"format": "text"')),
        ("config.json",),
    ),
    _task(
        "yaml-postgres-patch",
        FIX,
        "Move the staging database to Postgres 16.4.",
        lambda ev, ws: _postgres_16_4(ws),
        edits("Done.", ("deploy.yaml", "image: postgres:16.2", "image: postgres:16.4")),
        ("deploy.yaml",),
    ),
    _task(
        "js-green-tea-five",
        FIX,
        "Green tea costs 5 now in the sample order.",
        lambda ev, ws: _tea_five(ws),
        edits(
            "Done.",
            ("src/index.js", "name: 'Green tea', price: 4.5 }", "name: 'Green tea', price: 5 }"),
        ),
        ("src/index.js",),
    ),
    _task(
        "toml-tax-included",
        FIX,
        "Our prices already include tax; the back office's settings say they don't.",
        lambda ev, ws: _tax_included(ws),
        edits(
            "Done.", ("settings.toml", "included_in_prices = false", "included_in_prices = true")
        ),
        ("settings.toml",),
    ),
    _task(
        "error-module-typo",
        ERROR,
        "python3 report.py stopped working:\n\nModuleNotFoundError: No module named "
        "'inventroy'\n\nCan you sort it out?",
        _report_back,
        edits("Fixed.", ("report.py", "from inventroy import", "from inventory import")),
        ("report.py",),
        files=shop_with({"report.py": MODULE_TYPO}),
    ),
    _task(
        "error-js-catalog",
        ERROR,
        f"The sample order crashes:\n\n{_REFERENCE_ERROR}\n\nCan you fix it?",
        _order_back,
        edits("Fixed.", ("src/index.js", "catalog[2]", "catalogue[2]")),
        ("src/index.js",),
        files=shop_with({"src/index.js": CATALOG_TYPO}),
    ),
    _task(
        "warnings-only-staging",
        MULTI,
        "In staging, log only warnings and worse: the api service in deploy.yaml and the "
        "checkout in config.json.",
        lambda ev, ws: _warnings_only(ws),
        edits(
            "Done.",
            (
                "deploy.yaml",
                "LOG_LEVEL: info\n      DATABASE_URL",
                "LOG_LEVEL: warning\n      DATABASE_URL",
            ),
            ("config.json", '"level": "info"', '"level": "warning"'),
        ),
        ("deploy.yaml", "config.json"),
    ),
)

FIFTH: tuple[Task, ...] = (*FIFTH_ASK_TASKS, *FIFTH_CHANGE_TASKS)

__all__ = ["CATALOG_TYPO", "FIFTH", "MODULE_TYPO"]
