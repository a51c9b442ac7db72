"""The fresh set's tasks that change files: create, one-line fix, fix from an error
message, and a change across files.

Each check reads the folder afterwards (the file parsed as its format, a command run on
it), never only the answer; a task that gives a bug puts it into one file of the shop.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import tomllib
from pathlib import Path

import yaml

from bench._local_shop import (
    BUILD_UNBOUND,
    CLI_FILES,
    CONFIG_COMMA,
    COUPON_TYPO,
    DEV_JSON,
    ENV_FILES,
    FORMAT_PAREN,
    IMPORT_TYPO,
    INDEX_TYPO,
    LOW_STOCK_BUG,
    PROD_JSON,
    REMOVE_BUG,
    REPORT_ATTR,
    REPORT_TYPO,
    SHOP,
    SUMMARY_UNBOUND,
    TOML_NO_EQUALS,
    shop_with,
)
from bench._local_shop_py import PRICING_PY, REPORT_PY, SETTINGS_TOML
from bench._local_shop_web import (
    BACKUP_SH,
    CART_JS,
    CONFIG_JSON,
    DEPLOY_YAML,
    FORMAT_JS,
    INDEX_JS,
    LIB_SH,
    PACKAGE_JSON,
)
from bench._local_task import (
    Check,
    Events,
    Solve,
    Task,
    edits,
    json_of,
    passes,
    run,
    same_but,
    text,
    toml_of,
    write_files,
    yaml_of,
)

CREATE = "create"
FIX = "one-line fix"
ERROR = "fix from an error message"
MULTI = "multi-file change"


def _untouched(ws: Path, files: dict[str, str], but: tuple[str, ...]) -> bool:
    """Whether every file of *files* but those in *but* is as it was."""
    return all(text(ws, p) == body for p, body in files.items() if p not in but)


def _task(
    name: str,
    kind: str,
    prompt: str,
    check: Check,
    solve: Solve,
    writes: tuple[str, ...],
    files: dict[str, str] = SHOP,
    max_turns: int = 8,
) -> Task:
    def guarded(ev: Events, ws: Path) -> bool:
        # the task's own check, and no other file of the shop changed
        return _untouched(ws, files, writes) and check(ev, ws)

    return Task(name, prompt, files, guarded, writes, max_turns, kind, solve, ())


def _test_catches(ws: Path) -> bool:
    """Whether test_pricing.py passes on the shop's pricing.py and fails on one whose
    discount is wrong: a test that tests something."""
    if not passes(ws, "python3 -m unittest -q test_pricing"):
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        shutil.copy(ws / "test_pricing.py", copy)
        (copy / "pricing.py").write_text(
            PRICING_PY.replace("price * (100 - percent) / 100", "price * percent / 100")
        )
        return not passes(copy, "python3 -m unittest -q test_pricing")


CHANGE_TASKS: tuple[Task, ...] = (
    _task(
        "create-gitignore",
        CREATE,
        "Create a .gitignore that ignores __pycache__/ and node_modules/.",
        lambda ev, ws: (
            {"__pycache__/", "node_modules/"}
            <= {line.strip() for line in text(ws, ".gitignore").splitlines()}
        ),
        write_files("Created .gitignore.", {".gitignore": "__pycache__/\nnode_modules/\n"}),
        (".gitignore",),
    ),
    _task(
        "create-pricing-test",
        CREATE,
        "Create test_pricing.py with a unittest test that checks that "
        "apply_discount(80, 25) returns 60.",
        lambda ev, ws: _test_catches(ws),
        write_files(
            "Created test_pricing.py.",
            {
                "test_pricing.py": "import unittest\n\nfrom pricing import apply_discount\n\n\n"
                "class PricingTest(unittest.TestCase):\n    def test_discount(self):\n"
                "        self.assertEqual(apply_discount(80, 25), 60)\n"
            },
        ),
        ("test_pricing.py",),
    ),
    _task(
        "create-js-sum",
        CREATE,
        "Create src/sum.js that exports a function sum(numbers) returning the sum of an "
        "array of numbers (module.exports = { sum }).",
        lambda ev, ws: passes(
            ws,
            "node -e \"const {sum} = require('./src/sum'); "
            'if (sum([1, 2, 3.5]) !== 6.5 || sum([]) !== 0) process.exit(1)"',
        ),
        write_files(
            "Created src/sum.js.",
            {
                "src/sum.js": "function sum(numbers) {\n"
                "  return numbers.reduce((a, b) => a + b, 0);\n}\n\nmodule.exports = { sum };\n"
            },
        ),
        ("src/sum.js",),
    ),
    _task(
        "create-hello-script",
        CREATE,
        "Create scripts/hello.sh, a bash script that prints exactly: hello from the shop",
        lambda ev, ws: run(ws, "bash scripts/hello.sh") == (0, "hello from the shop\n"),
        write_files(
            "Created scripts/hello.sh.",
            {"scripts/hello.sh": "#!/usr/bin/env bash\necho 'hello from the shop'\n"},
        ),
        ("scripts/hello.sh",),
    ),
    _task(
        "create-ci-yaml",
        CREATE,
        'Create ci.yaml with a key python set to the string "3.11" and a key steps '
        "that lists lint and test, in that order.",
        lambda ev, ws: yaml_of(ws, "ci.yaml") == {"python": "3.11", "steps": ["lint", "test"]},
        write_files(
            "Created ci.yaml.", {"ci.yaml": 'python: "3.11"\nsteps:\n  - lint\n  - test\n'}
        ),
        ("ci.yaml",),
    ),
    _task(
        "fix-low-stock",
        FIX,
        "low_stock in inventory.py lists the items with plenty of stock instead of the ones "
        "running low. Fix it.",
        lambda ev, ws: passes(
            ws,
            "python3 -c 'import inventory as i; d = i.load_demo(); "
            'assert d.low_stock() == ["B-220"], d.low_stock(); '
            'assert d.low_stock(11) == ["A-100", "B-220"]\'',
        ),
        edits("Fixed.", ("inventory.py", "i.quantity > threshold", "i.quantity < threshold")),
        ("inventory.py",),
        files=shop_with({"inventory.py": LOW_STOCK_BUG}),
    ),
    _task(
        "fix-remove-from-cart",
        FIX,
        "removeFromCart in src/cart.js removes two lines of the cart instead of one. Fix it.",
        lambda ev, ws: passes(
            ws,
            "node -e \"const c = require('./src/cart'); const k = c.createCart(); "
            "for (const s of ['a', 'b', 'c']) c.addToCart(k, {sku: s, name: s, price: 1}); "
            "c.removeFromCart(k, 'a'); "
            "if (k.lines.map((l) => l.sku).join() !== 'b,c') process.exit(1)\"",
        ),
        edits("Fixed.", ("src/cart.js", "splice(index, 2)", "splice(index, 1)")),
        ("src/cart.js",),
        files=shop_with({"src/cart.js": REMOVE_BUG}),
    ),
    _task(
        "toml-debug-off",
        FIX,
        "Turn debug off in settings.toml.",
        lambda ev, ws: (
            toml_of(ws, "settings.toml").get("app")
            == {**tomllib.loads(SETTINGS_TOML)["app"], "debug": False}
            and same_but(toml_of(ws, "settings.toml"), tomllib.loads(SETTINGS_TOML), "app")
        ),
        edits("Done.", ("settings.toml", "debug = true", "debug = false")),
        ("settings.toml",),
    ),
    _task(
        "yaml-api-replicas",
        FIX,
        "Run three replicas of the api service: change deploy.yaml.",
        lambda ev, ws: _replicas(ws) == (3, 1),
        edits("Done.", ("deploy.yaml", "replicas: 2", "replicas: 3")),
        ("deploy.yaml",),
    ),
    _task(
        "json-timeout",
        FIX,
        "Set timeout_seconds in config.json to 30.",
        lambda ev, ws: (
            isinstance(got := json_of(ws, "config.json"), dict)
            and got == {**json.loads(CONFIG_JSON), "timeout_seconds": 30}
        ),
        edits("Done.", ("config.json", '"timeout_seconds": 12', '"timeout_seconds": 30')),
        ("config.json",),
    ),
    _task(
        "sh-keep-30-days",
        FIX,
        "Make scripts/backup.sh keep backups for 30 days instead of 14.",
        lambda ev, ws: (
            "KEEP_DAYS=30" in text(ws, "scripts/backup.sh")
            and "14" not in text(ws, "scripts/backup.sh")
            and passes(ws, "bash -n scripts/backup.sh")
        ),
        edits("Done.", ("scripts/backup.sh", "KEEP_DAYS=14", "KEEP_DAYS=30")),
        ("scripts/backup.sh",),
    ),
    _task(
        "package-version-bump",
        FIX,
        "Bump the version in package.json to 1.3.0.",
        lambda ev, ws: (
            isinstance(got := json_of(ws, "package.json"), dict)
            and got == {**json.loads(PACKAGE_JSON), "version": "1.3.0"}
        ),
        edits("Done.", ("package.json", '"version": "1.2.4"', '"version": "1.3.0"')),
        ("package.json",),
    ),
    _task(
        "error-name-totl",
        ERROR,
        "Running `python3 report.py` fails with:\n\n"
        "NameError: name 'totl' is not defined\n\nFix it.",
        lambda ev, ws: "total value: 612.00" in run(ws, "python3 report.py")[1],
        edits("Fixed.", ("report.py", "{totl:.2f}", "{total:.2f}")),
        ("report.py",),
        files=shop_with({"report.py": REPORT_TYPO}),
    ),
    _task(
        "error-import-cli",
        ERROR,
        "`python3 stock.py --low` fails with:\n\n"
        "ImportError: cannot import name 'parse_args' from 'cli'\n\nFix it.",
        lambda ev, ws: (
            run(ws, "python3 stock.py --low")[0] == 0
            and "B-220" in run(ws, "python3 stock.py --low")[1]
        ),
        edits(
            "Fixed.",
            ("stock.py", "import describe, parse_args", "import describe, parse_arguments"),
            ("stock.py", "args = parse_args(argv)", "args = parse_arguments(argv)"),
        ),
        ("stock.py", "cli.py"),
        files=CLI_FILES,
    ),
    _task(
        "error-js-not-a-function",
        ERROR,
        "`node src/index.js` fails with:\n\nTypeError: formatprice is not a function\n\nFix it.",
        lambda ev, ws: "total: 48.15 €" in run(ws, "node src/index.js")[1],
        edits("Fixed.", ("src/index.js", "formatprice(cartTotal", "formatPrice(cartTotal")),
        ("src/index.js",),
        files=shop_with({"src/index.js": INDEX_TYPO}),
    ),
    _task(
        "error-json-comma",
        ERROR,
        "Loading config.json fails with:\n\n"
        "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 13 column 7\n\n"
        "Fix the file.",
        lambda ev, ws: json_of(ws, "config.json") == json.loads(CONFIG_JSON),
        edits("Fixed.", ("config.json", '"retries": 7\n', '"retries": 7,\n')),
        ("config.json",),
        files=shop_with({"config.json": CONFIG_COMMA}),
    ),
    _task(
        "error-unbound-variable",
        ERROR,
        "`bash scripts/build.sh` fails with:\n\n"
        "scripts/build.sh: line 10: OUTDIR: unbound variable\n\nFix the script.",
        lambda ev, ws: (
            passes(ws, "bash scripts/build.sh") and "files: 3" in text(ws, "dist/manifest.txt")
        ),
        edits("Fixed.", ("scripts/build.sh", 'mkdir -p "$OUTDIR"', 'mkdir -p "$OUT_DIR"')),
        ("scripts/build.sh",),
        files=shop_with({"scripts/build.sh": BUILD_UNBOUND}),
    ),
    _task(
        "rename-round-money",
        MULTI,
        "Rename the function round_money to round_cents, in pricing.py and in report.py.",
        lambda ev, ws: (
            "round_money" not in text(ws, "pricing.py") + text(ws, "report.py")
            and passes(ws, "python3 -c 'from pricing import round_cents'")
            and "total value: 612.00" in run(ws, "python3 report.py")[1]
        ),
        edits(
            "Renamed.",
            *[("pricing.py", "round_money", "round_cents")] * PRICING_PY.count("round_money"),
            *[("report.py", "round_money", "round_cents")] * REPORT_PY.count("round_money"),
        ),
        ("pricing.py", "report.py"),
        max_turns=12,
    ),
    _task(
        "rename-slugify",
        MULTI,
        "Rename slugify to toSlug in src/format.js and src/index.js.",
        lambda ev, ws: (
            "slugify" not in text(ws, "src/format.js") + text(ws, "src/index.js")
            and "order: spring-tea-order" in run(ws, "node src/index.js")[1]
        ),
        edits(
            "Renamed.",
            *[("src/format.js", "slugify", "toSlug")] * FORMAT_JS.count("slugify"),
            *[("src/index.js", "slugify", "toSlug")] * INDEX_JS.count("slugify"),
        ),
        ("src/format.js", "src/index.js"),
        max_turns=12,
    ),
    _task(
        "tax-rate-both",
        MULTI,
        "The tax rate goes up from 0.2 to 0.23. Change it in pricing.py and in settings.toml.",
        lambda ev, ws: (
            toml_of(ws, "settings.toml").get("tax", {})
            == {
                "rate": 0.23,
                "included_in_prices": False,
            }
            and passes(ws, "python3 -c 'import pricing; assert pricing.TAX_RATE == 0.23'")
        ),
        edits(
            "Done.",
            ("pricing.py", "TAX_RATE = 0.2", "TAX_RATE = 0.23"),
            ("settings.toml", "rate = 0.2", "rate = 0.23"),
        ),
        ("pricing.py", "settings.toml"),
        max_turns=10,
    ),
    _task(
        "currency-both-envs",
        MULTI,
        'Add "currency": "EUR" at the top level of config/dev.json and config/prod.json.',
        lambda ev, ws: (
            json_of(ws, "config/dev.json") == {**json.loads(DEV_JSON), "currency": "EUR"}
            and json_of(ws, "config/prod.json") == {**json.loads(PROD_JSON), "currency": "EUR"}
        ),
        edits(
            "Done.",
            ("config/dev.json", '"debug": true\n', '"debug": true,\n  "currency": "EUR"\n'),
            ("config/prod.json", '"debug": false\n', '"debug": false,\n  "currency": "EUR"\n'),
        ),
        ("config/dev.json", "config/prod.json"),
        files=ENV_FILES,
        max_turns=10,
    ),
)


def _replicas(ws: Path) -> tuple[object, object]:
    got = yaml_of(ws, "deploy.yaml")
    if not isinstance(got, dict):
        return (None, None)
    services = got.get("services", {})
    return (services.get("api", {}).get("replicas"), services.get("worker", {}).get("replicas"))


def _config_but(ws: Path, change: dict[str, object]) -> bool:
    """Whether config.json parses and is the shop's but for *change* (a nested patch)."""

    def patched(base: object, patch: object) -> object:
        if not isinstance(base, dict) or not isinstance(patch, dict):
            return patch
        return {**base, **{k: patched(base.get(k), v) for k, v in patch.items()}}

    return json_of(ws, "config.json") == patched(json.loads(CONFIG_JSON), change)


def _settings_but(ws: Path, table: str, key: str, value: object) -> bool:
    """Whether settings.toml parses and is the shop's but for *key* of *table*."""
    want = tomllib.loads(SETTINGS_TOML)
    want[table] = {**want[table], key: value}
    return toml_of(ws, "settings.toml") == want


def _deploy_but(ws: Path, service: str, env: dict[str, str]) -> bool:
    """Whether deploy.yaml parses and is the shop's but for *service*'s environment."""
    want = yaml.safe_load(DEPLOY_YAML)
    want["services"][service]["environment"].update(env)
    return yaml_of(ws, "deploy.yaml") == want


#: Written on 2026-12-04, after every nudge rule of that day (see ``LATER_ASK_TASKS``).
LATER_CHANGE_TASKS: tuple[Task, ...] = (
    _task(
        "json-email-retries",
        FIX,
        "Set the email service's retries in config.json to 4.",
        lambda ev, ws: _config_but(ws, {"services": {"email": {"retries": 4}}}),
        edits("Done.", ("config.json", '"retries": 2,', '"retries": 4,')),
        ("config.json",),
    ),
    _task(
        "toml-pool-size",
        FIX,
        "Raise the database pool_size in settings.toml to 16.",
        lambda ev, ws: _settings_but(ws, "database", "pool_size", 16),
        edits("Done.", ("settings.toml", "pool_size = 8", "pool_size = 16")),
        ("settings.toml",),
    ),
    _task(
        "yaml-worker-log-level",
        FIX,
        "Set LOG_LEVEL of the worker service in deploy.yaml to info.",
        lambda ev, ws: _deploy_but(ws, "worker", {"LOG_LEVEL": "info"}),
        edits("Done.", ("deploy.yaml", "LOG_LEVEL: warning", "LOG_LEVEL: info")),
        ("deploy.yaml",),
    ),
    _task(
        "js-summer-coupon",
        FIX,
        "Add a coupon SUMMER20 worth 20 percent to COUPONS in src/cart.js.",
        lambda ev, ws: passes(
            ws,
            "node -e \"const {COUPONS} = require('./src/cart'); "
            "if (COUPONS.SUMMER20 !== 20 || COUPONS.SPRING10 !== 10 || COUPONS.WELCOME5 !== 5) "
            'process.exit(1)"',
        ),
        edits("Added.", ("src/cart.js", "WELCOME5: 5 }", "WELCOME5: 5, SUMMER20: 20 }")),
        ("src/cart.js",),
    ),
    _task(
        "error-unknown-coupon",
        ERROR,
        "`node src/index.js` fails with:\n\nError: unknown coupon SPRNG10\n\nFix it.",
        lambda ev, ws: "total: 48.15" in run(ws, "node src/index.js")[1],
        edits("Fixed.", ("src/index.js", "'SPRNG10'", "'SPRING10'")),
        ("src/index.js",),
        files=shop_with({"src/index.js": COUPON_TYPO}),
    ),
    _task(
        "error-import-round",
        ERROR,
        "`python3 report.py` fails with:\n\n"
        "ImportError: cannot import name 'round_mony' from 'pricing'\n\nFix it.",
        lambda ev, ws: "total value: 612.00" in run(ws, "python3 report.py")[1],
        edits("Fixed.", ("report.py", "round_mony,", "round_money,")),
        ("report.py",),
        files=shop_with({"report.py": IMPORT_TYPO}),
    ),
    _task(
        "error-toml-key",
        ERROR,
        "Loading settings.toml fails with:\n\n"
        "tomllib.TOMLDecodeError: Expected '=' after a key in a key/value pair "
        "(at line 12, column 9)\n\nFix the file.",
        lambda ev, ws: toml_of(ws, "settings.toml") == tomllib.loads(SETTINGS_TOML),
        edits("Fixed.", ("settings.toml", "workers 3", "workers = 3")),
        ("settings.toml",),
        files=shop_with({"settings.toml": TOML_NO_EQUALS}),
    ),
    _task(
        "create-env-example",
        CREATE,
        "Create .env.example with two lines: DATABASE_URL= and LOG_LEVEL=info",
        lambda ev, ws: (
            [line.strip() for line in text(ws, ".env.example").splitlines() if line.strip()]
            == ["DATABASE_URL=", "LOG_LEVEL=info"]
        ),
        write_files("Created .env.example.", {".env.example": "DATABASE_URL=\nLOG_LEVEL=info\n"}),
        (".env.example",),
    ),
    _task(
        "create-coupons-json",
        CREATE,
        "Create data/coupons.json: a JSON object mapping SPRING10 to 10 and WELCOME5 to 5.",
        lambda ev, ws: json_of(ws, "data/coupons.json") == {"SPRING10": 10, "WELCOME5": 5},
        write_files(
            "Created data/coupons.json.",
            {"data/coupons.json": '{\n  "SPRING10": 10,\n  "WELCOME5": 5\n}\n'},
        ),
        ("data/coupons.json",),
    ),
    _task(
        "rename-cart-total",
        MULTI,
        "Rename cartTotal to orderTotal in src/cart.js and src/index.js.",
        lambda ev, ws: (
            "cartTotal" not in text(ws, "src/cart.js") + text(ws, "src/index.js")
            and "orderTotal" in text(ws, "src/cart.js")
            and "total: 48.15" in run(ws, "node src/index.js")[1]
        ),
        edits(
            "Renamed.",
            *[("src/cart.js", "cartTotal", "orderTotal")] * CART_JS.count("cartTotal"),
            *[("src/index.js", "cartTotal", "orderTotal")] * INDEX_JS.count("cartTotal"),
        ),
        ("src/cart.js", "src/index.js"),
        max_turns=12,
    ),
    _task(
        "port-both-files",
        MULTI,
        "The back office's web server moves from port 9412 to 9500: change it in "
        "settings.toml and in the stock service's url in config.json.",
        lambda ev, ws: (
            _settings_but(ws, "server", "port", 9500)
            and _config_but(ws, {"services": {"stock": {"url": "http://127.0.0.1:9500/stock"}}})
        ),
        edits(
            "Done.",
            ("settings.toml", "port = 9412", "port = 9500"),
            ("config.json", ":9412/stock", ":9500/stock"),
        ),
        ("settings.toml", "config.json"),
        max_turns=10,
    ),
    # the second batch, written after the first had been run and its half-A failures
    # answered
    _task(
        "yaml-api-image",
        FIX,
        "Make the api service in deploy.yaml run image version 4.3.0.",
        lambda ev, ws: _deploy_image(ws) == "registry.shop.example/shop/api:4.3.0",
        edits("Done.", ("deploy.yaml", "shop/api:4.2.0", "shop/api:4.3.0")),
        ("deploy.yaml",),
    ),
    _task(
        "json-express-on",
        FIX,
        "Turn express_delivery on in config.json.",
        lambda ev, ws: _config_but(ws, {"features": {"express_delivery": True}}),
        edits("Done.", ("config.json", '"express_delivery": false', '"express_delivery": true')),
        ("config.json",),
    ),
    _task(
        "py-threshold-five",
        FIX,
        "Items should count as low on stock below 5 units by default: change inventory.py.",
        lambda ev, ws: passes(
            ws,
            "python3 -c 'import inventory as i; assert i.LOW_STOCK_THRESHOLD == 5; "
            'assert i.load_demo().low_stock() == ["B-220"]\'',
        ),
        edits("Done.", ("inventory.py", "LOW_STOCK_THRESHOLD = 4", "LOW_STOCK_THRESHOLD = 5")),
        ("inventory.py",),
    ),
    _task(
        "error-summary-unbound",
        ERROR,
        "`bash scripts/summary.sh` fails with:\n\n"
        "scripts/summary.sh: line 7: FIEL: unbound variable\n\nFix the script.",
        lambda ev, ws: "revenue: 398.40" in run(ws, "bash scripts/summary.sh")[1],
        edits("Fixed.", ("scripts/summary.sh", '"$FIEL"', '"$FILE"')),
        ("scripts/summary.sh",),
        files=shop_with({"scripts/summary.sh": SUMMARY_UNBOUND}),
    ),
    _task(
        "create-count-script",
        CREATE,
        "Create scripts/count.sh, a bash script that prints how many orders data/orders.csv "
        "holds (its lines but the header).",
        lambda ev, ws: (
            run(ws, "bash scripts/count.sh") == (0, "7\n")
            or run(ws, "bash scripts/count.sh")[1].strip() == "7"
        ),
        write_files(
            "Created scripts/count.sh.",
            {"scripts/count.sh": "#!/usr/bin/env bash\ntail -n +2 data/orders.csv | wc -l\n"},
        ),
        ("scripts/count.sh",),
    ),
    _task(
        "rename-rotate-logs",
        MULTI,
        "Rename the shell function rotate_logs to rotate_log_files in scripts/lib.sh and "
        "scripts/backup.sh.",
        # nothing runs these scripts here: the files must be the rename and nothing else
        lambda ev, ws: (
            text(ws, "scripts/lib.sh") == LIB_SH.replace("rotate_logs", "rotate_log_files")
            and text(ws, "scripts/backup.sh")
            == BACKUP_SH.replace("rotate_logs", "rotate_log_files")
        ),
        edits(
            "Renamed.",
            *[("scripts/lib.sh", "rotate_logs", "rotate_log_files")] * LIB_SH.count("rotate_logs"),
            ("scripts/backup.sh", "rotate_logs", "rotate_log_files"),
        ),
        ("scripts/lib.sh", "scripts/backup.sh"),
        max_turns=12,
    ),
    _task(
        "debug-logs-both",
        MULTI,
        'Set the log level to "debug" in settings.toml (log_level) and in config.json (log.level).',
        lambda ev, ws: (
            _settings_but(ws, "app", "log_level", "debug")
            and _config_but(ws, {"log": {"level": "debug"}})
        ),
        edits(
            "Done.",
            ("settings.toml", 'log_level = "info"', 'log_level = "debug"'),
            ("config.json", '"level": "info"', '"level": "debug"'),
        ),
        ("settings.toml", "config.json"),
        max_turns=10,
    ),
)


def _deploy_image(ws: Path) -> object:
    """The api service's image in deploy.yaml, when the rest is the shop's."""
    got = yaml_of(ws, "deploy.yaml")
    want = yaml.safe_load(DEPLOY_YAML)
    if not isinstance(got, dict) or "api" not in got.get("services", {}):
        return None
    image = got["services"]["api"].get("image")
    got["services"]["api"]["image"] = want["services"]["api"]["image"]
    return image if got == want else None


def _warehouse_added(ws: Path) -> bool:
    """Whether settings.toml parses and is the shop's but for a third warehouse, faro."""
    got = toml_of(ws, "settings.toml")
    want = tomllib.loads(SETTINGS_TOML)
    if not isinstance(got, dict) or not isinstance(got.get("stock"), dict):
        return False
    places = got["stock"].get("warehouses")
    if not isinstance(places, list) or [str(p).lower() for p in places] != [
        "lisbon",
        "porto",
        "faro",
    ]:
        return False
    want["stock"]["warehouses"] = places
    return got == want


def _redis_memory(ws: Path) -> bool:
    """Whether deploy.yaml parses and is the shop's but for the cache's 512mb."""
    want = yaml.safe_load(DEPLOY_YAML)
    want["services"]["cache"]["command"] = ["redis-server", "--maxmemory", "512mb"]
    return yaml_of(ws, "deploy.yaml") == want


_BULK = (
    "from pricing import apply_discount, bulk_price, with_tax\n"
    "assert bulk_price(1.0, 19) == 19.0, bulk_price(1.0, 19)\n"
    "assert bulk_price(1.0, 20) == 19.0, bulk_price(1.0, 20)\n"
    "assert bulk_price(2.0, 10) == 20.0, bulk_price(2.0, 10)\n"
    "assert with_tax(10) == 12.0 and apply_discount(80, 25) == 60\n"
)
_LOW_STOCK = re.compile(r"\blow_stock\b")


def _renamed_low_stock(ws: Path) -> bool:
    """Whether low_stock is below_threshold in the three Python files that had it, and
    the tests and the report still run."""
    files = ("inventory.py", "report.py", "test_inventory.py")
    return (
        not any(_LOW_STOCK.search(text(ws, f)) for f in files)
        and "def below_threshold" in text(ws, "inventory.py")
        and passes(ws, "python3 -m unittest -q")
        and "low stock: B-220" in run(ws, "python3 report.py")[1]
    )


_NODE_SYNTAX = """\
/shop/src/format.js:16
  return `${amount.toFixed(2} ${SYMBOL}`;
                           ^

SyntaxError: missing ) after argument list
    at wrapSafe (node:internal/modules/cjs/loader:1464:18)
    at Module._compile (node:internal/modules/cjs/loader:1495:20)"""

#: Written with THIRD_ASK_TASKS (see there): the prompts name no file where a person
#: would not ("the mail server's port", "the checkout config"), or paste an error as it
#: came.
THIRD_CHANGE_TASKS: tuple[Task, ...] = (
    _task(
        "toml-smtp-465",
        FIX,
        "Switch the mail server port to 465.",
        lambda ev, ws: _settings_but(ws, "mail", "smtp_port", 465),
        edits("Done.", ("settings.toml", "smtp_port = 587", "smtp_port = 465")),
        ("settings.toml",),
    ),
    _task(
        "json-gift-wrap-off",
        FIX,
        "Turn gift wrapping off in the checkout config.",
        lambda ev, ws: _config_but(ws, {"features": {"gift_wrap": False}}),
        edits("Done.", ("config.json", '"gift_wrap": true', '"gift_wrap": false')),
        ("config.json",),
    ),
    _task(
        "yaml-redis-512",
        FIX,
        "Give the redis cache 512mb of memory instead of 256mb.",
        lambda ev, ws: _redis_memory(ws),
        edits("Done.", ("deploy.yaml", '"256mb"', '"512mb"')),
        ("deploy.yaml",),
    ),
    _task(
        "py-bulk-twenty",
        FIX,
        "Bulk prices should start at 20 units, not 10.",
        lambda ev, ws: passes(ws, f"python3 -c '{_BULK}'"),
        edits("Done.", ("pricing.py", "if count >= 10:", "if count >= 20:")),
        ("pricing.py",),
    ),
    _task(
        "error-attribute",
        ERROR,
        "python3 report.py crashes with\n\n"
        "AttributeError: 'Inventory' object has no attribute 'lowstock'. "
        "Did you mean: 'low_stock'?\n\nPlease fix.",
        lambda ev, ws: "low stock: B-220" in run(ws, "python3 report.py")[1],
        edits("Fixed.", ("report.py", "inv.lowstock()", "inv.low_stock()")),
        ("report.py",),
        files=shop_with({"report.py": REPORT_ATTR}),
    ),
    _task(
        "error-js-syntax",
        ERROR,
        f"I get this when I run node src/index.js:\n\n{_NODE_SYNTAX}\n\nCan you fix it?",
        lambda ev, ws: "total: 48.15" in run(ws, "node src/index.js")[1],
        edits("Fixed.", ("src/format.js", "toFixed(2}", "toFixed(2)}")),
        ("src/format.js",),
        files=shop_with({"src/format.js": FORMAT_PAREN}),
    ),
    _task(
        "create-makefile",
        CREATE,
        "Create a Makefile whose test target runs python3 -m unittest.",
        lambda ev, ws: "unittest" in text(ws, "Makefile") and passes(ws, "make -s test"),
        write_files("Created the Makefile.", {"Makefile": "test:\n\tpython3 -m unittest\n"}),
        ("Makefile",),
    ),
    _task(
        "toml-warehouse-faro",
        FIX,
        "We opened a warehouse in Faro. Add it to the back office's settings.",
        lambda ev, ws: _warehouse_added(ws),
        edits("Added.", ("settings.toml", '"porto"]', '"porto", "faro"]')),
        ("settings.toml",),
    ),
    _task(
        "rename-low-stock",
        MULTI,
        "Rename the method low_stock to below_threshold everywhere it is used.",
        lambda ev, ws: _renamed_low_stock(ws),
        edits(
            "Renamed.",
            ("inventory.py", "def low_stock", "def below_threshold"),
            ("report.py", "inv.low_stock()", "inv.below_threshold()"),
            ("test_inventory.py", "self.inv.low_stock()", "self.inv.below_threshold()"),
        ),
        ("inventory.py", "report.py", "test_inventory.py"),
        max_turns=12,
    ),
)
