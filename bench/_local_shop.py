"""The folder of the fresh task set: a small shop's back office, as a team would keep it.

Python (stock and prices), JavaScript (a cart), shell (backups, a build), and JSON, TOML
and YAML settings. Every task of :mod:`bench._local_fresh` starts from :data:`SHOP`, some
with one file changed (a bug put in, a file taken out). Written for this set, after the
eleven tasks of the first set, sharing no file or wording with them.
"""

from __future__ import annotations

from bench._local_shop_py import (
    INVENTORY_PY,
    PRICING_PY,
    REPORT_PY,
    SETTINGS_TOML,
    TEST_INVENTORY_PY,
)
from bench._local_shop_web import (
    BACKUP_SH,
    BUILD_SH,
    CART_JS,
    CONFIG_JSON,
    DEPLOY_YAML,
    FORMAT_JS,
    INDEX_JS,
    LIB_SH,
    ORDERS_CSV,
    PACKAGE_JSON,
    SUMMARY_SH,
)

README_MD = """\
# Shop back office

The stock, prices and reports (Python), the cart of the web front (JavaScript), and the
scripts that back it all up.

- `python3 report.py` prints the stock report.
- `python3 -m unittest` runs the Python tests.
- `node src/index.js` prints a sample order.
- `bash scripts/summary.sh` sums up `data/orders.csv`.
- `bash scripts/build.sh` builds the web front into `dist/`.

Settings: `settings.toml` (back office), `config.json` (checkout), `deploy.yaml` (staging).
"""

SHOP: dict[str, str] = {
    "README.md": README_MD,
    "inventory.py": INVENTORY_PY,
    "pricing.py": PRICING_PY,
    "report.py": REPORT_PY,
    "test_inventory.py": TEST_INVENTORY_PY,
    "settings.toml": SETTINGS_TOML,
    "package.json": PACKAGE_JSON,
    "src/cart.js": CART_JS,
    "src/format.js": FORMAT_JS,
    "src/index.js": INDEX_JS,
    "config.json": CONFIG_JSON,
    "deploy.yaml": DEPLOY_YAML,
    "scripts/lib.sh": LIB_SH,
    "scripts/backup.sh": BACKUP_SH,
    "scripts/summary.sh": SUMMARY_SH,
    "scripts/build.sh": BUILD_SH,
    "data/orders.csv": ORDERS_CSV,
}
"""The shop, file by file: every task's folder starts as this."""


def shop_with(changes: dict[str, str | None]) -> dict[str, str]:
    """:data:`SHOP` with the files in *changes* replaced (``None``: taken out)."""
    out = dict(SHOP)
    for path, body in changes.items():
        if body is None:
            out.pop(path, None)
        else:
            out[path] = body
    return out


# What some tasks start from instead: one bug put in, or files added.
LOW_STOCK_BUG = INVENTORY_PY.replace("if i.quantity < threshold", "if i.quantity > threshold")
REMOVE_BUG = CART_JS.replace("splice(index, 1)", "splice(index, 2)")
REPORT_TYPO = REPORT_PY.replace('f"total value: {total:.2f}', 'f"total value: {totl:.2f}')
INDEX_TYPO = INDEX_JS.replace("formatPrice(cartTotal", "formatprice(cartTotal")
CONFIG_COMMA = CONFIG_JSON.replace('"retries": 7,', '"retries": 7')
BUILD_UNBOUND = BUILD_SH.replace('mkdir -p "$OUT_DIR"', 'mkdir -p "$OUTDIR"')
COUPON_TYPO = INDEX_JS.replace("applyCoupon(cart, 'SPRING10')", "applyCoupon(cart, 'SPRNG10')")
IMPORT_TYPO = REPORT_PY.replace(
    "apply_discount, round_money, with_tax", "apply_discount, round_mony, with_tax"
)
TOML_NO_EQUALS = SETTINGS_TOML.replace("workers = 3", "workers 3")
SUMMARY_UNBOUND = SUMMARY_SH.replace('if [ ! -f "$FILE" ]', 'if [ ! -f "$FIEL" ]')
REPORT_ATTR = REPORT_PY.replace("inv.low_stock()", "inv.lowstock()")
FORMAT_PAREN = FORMAT_JS.replace("amount.toFixed(2)}", "amount.toFixed(2}")
CLI_PY = '''\
"""The command line of the stock tool."""

import argparse


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(prog="stock", description="Show the shop's stock.")
    parser.add_argument("--sku", help="only this item")
    parser.add_argument("--low", action="store_true", help="only items low on stock")
    parser.add_argument("--threshold", type=int, default=4, help="what counts as low")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    return parser.parse_args(argv)


def describe(args):
    parts = []
    if args.sku:
        parts.append(f"sku {args.sku}")
    if args.low:
        parts.append(f"below {args.threshold} units")
    return ", ".join(parts) or "everything"
'''
STOCK_PY = '''\
"""Show the shop's stock: python3 stock.py [--low] [--sku SKU] [--format json]"""

import json

from cli import describe, parse_args
from inventory import load_demo


def main(argv=None):
    args = parse_args(argv)
    inv = load_demo()
    items = inv.items.values()
    if args.sku:
        items = [i for i in items if i.sku == args.sku]
    if args.low:
        items = [i for i in items if i.quantity < args.threshold]
    rows = [{"sku": i.sku, "name": i.name, "quantity": i.quantity} for i in items]
    print(f"showing {describe(args)}")
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(f"{row['sku']:8} {row['name']:10} {row['quantity']:4}")


if __name__ == "__main__":
    main()
'''
DEV_JSON = """\
{
  "environment": "dev",
  "base_url": "http://127.0.0.1:3000",
  "database": {
    "host": "127.0.0.1",
    "name": "shop_dev"
  },
  "debug": true
}
"""
PROD_JSON = """\
{
  "environment": "prod",
  "base_url": "https://shop.example",
  "database": {
    "host": "db.internal",
    "name": "shop"
  },
  "debug": false
}
"""
CLI_FILES = shop_with({"cli.py": CLI_PY, "stock.py": STOCK_PY})
ENV_FILES = shop_with({"config/dev.json": DEV_JSON, "config/prod.json": PROD_JSON})
