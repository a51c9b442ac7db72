"""The JavaScript, JSON, YAML, shell and CSV files of the fresh task set's shop (see
:mod:`bench._local_shop`)."""

from __future__ import annotations

CART_JS = """\
'use strict';

// A shopping cart kept in memory: a list of lines {sku, name, price, qty}.

const COUPONS = { SPRING10: 10, WELCOME5: 5 };

function createCart() {
  return { lines: [], coupon: null };
}

function addToCart(cart, item, qty = 1) {
  const line = cart.lines.find((l) => l.sku === item.sku);
  if (line) {
    line.qty += qty;
  } else {
    cart.lines.push({ sku: item.sku, name: item.name, price: item.price, qty });
  }
  return cart;
}

function removeFromCart(cart, sku) {
  const index = cart.lines.findIndex((l) => l.sku === sku);
  if (index !== -1) {
    cart.lines.splice(index, 1);
  }
  return cart;
}

function applyCoupon(cart, code) {
  if (!(code in COUPONS)) {
    throw new Error(`unknown coupon ${code}`);
  }
  cart.coupon = { code, percent: COUPONS[code] };
  return cart;
}

function cartTotal(cart) {
  const gross = cart.lines.reduce((sum, l) => sum + l.price * l.qty, 0);
  const off = cart.coupon ? (gross * cart.coupon.percent) / 100 : 0;
  return Math.round((gross - off) * 100) / 100;
}

module.exports = { COUPONS, createCart, addToCart, removeFromCart, applyCoupon, cartTotal };
"""

FORMAT_JS = """\
'use strict';

// Text for receipts and order pages.

const SYMBOL = '€';

function pad(text, width) {
  let out = String(text);
  while (out.length < width) {
    out = ' ' + out;
  }
  return out;
}

function formatPrice(amount) {
  return `${amount.toFixed(2)} ${SYMBOL}`;
}

function slugify(title) {
  return title
    .toLowerCase()
    .trim()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function formatLine(line) {
  const price = formatPrice(line.price * line.qty);
  return `${pad(line.qty, 3)} x ${line.name.padEnd(12)} ${pad(price, 10)}`;
}

module.exports = { pad, formatPrice, slugify, formatLine };
"""

INDEX_JS = """\
'use strict';

// Print a sample order: node src/index.js

const { createCart, addToCart, applyCoupon, cartTotal } = require('./cart');
const { formatLine, formatPrice, slugify } = require('./format');

const catalogue = [
  { sku: 'tea-01', name: 'Green tea', price: 4.5 },
  { sku: 'cup-02', name: 'Tea cup', price: 7.25 },
  { sku: 'pot-03', name: 'Tea pot', price: 21.0 },
];

function main() {
  const cart = createCart();
  addToCart(cart, catalogue[0], 4);
  addToCart(cart, catalogue[1], 2);
  addToCart(cart, catalogue[2]);
  applyCoupon(cart, 'SPRING10');
  for (const line of cart.lines) {
    console.log(formatLine(line));
  }
  console.log(`order: ${slugify('Spring Tea Order')}`);
  console.log(`total: ${formatPrice(cartTotal(cart))}`);
}

main();
"""

PACKAGE_JSON = """\
{
  "name": "shop-cart",
  "version": "1.2.4",
  "description": "The cart and receipts of the shop's web front",
  "main": "src/index.js",
  "license": "MIT",
  "private": true,
  "engines": {
    "node": ">=18.17"
  },
  "scripts": {
    "start": "node src/index.js",
    "test": "node --test test/",
    "lint": "eslint src"
  },
  "dependencies": {
    "express": "^4.19.2",
    "nanoid": "^3.3.7"
  },
  "devDependencies": {
    "eslint": "^8.57.0",
    "prettier": "^3.2.5"
  },
  "prettier": {
    "singleQuote": true,
    "printWidth": 100
  },
  "repository": {
    "type": "git",
    "url": "https://git.shop.example/web/cart.git"
  }
}
"""

CONFIG_JSON = """\
{
  "service": "checkout",
  "environment": "staging",
  "timeout_seconds": 12,
  "log": {
    "level": "info",
    "format": "json"
  },
  "services": {
    "payment": {
      "url": "https://pay.shop.example/api",
      "retries": 7,
      "backoff_ms": 250
    },
    "email": {
      "url": "https://mail.shop.example/send",
      "retries": 2,
      "backoff_ms": 1000
    },
    "stock": {
      "url": "http://127.0.0.1:9412/stock",
      "retries": 3,
      "backoff_ms": 100
    }
  },
  "features": {
    "gift_wrap": true,
    "express_delivery": false,
    "coupons": ["SPRING10", "WELCOME5"]
  },
  "limits": {
    "max_lines": 50,
    "max_quantity": 20
  }
}
"""

DEPLOY_YAML = """\
# How the shop runs in staging (docker compose).
version: "3.9"

services:
  api:
    image: registry.shop.example/shop/api:4.2.0
    replicas: 2
    ports:
      - "8080:8080"
    environment:
      LOG_LEVEL: info
      DATABASE_URL: postgresql://shop@db/shop
    depends_on:
      - db

  worker:
    image: registry.shop.example/shop/worker:2.14.3
    replicas: 1
    command: ["python", "-m", "worker", "--queue", "orders"]
    environment:
      LOG_LEVEL: warning

  db:
    image: postgres:16.2
    volumes:
      - dbdata:/var/lib/postgresql/data
    environment:
      POSTGRES_USER: shop
      POSTGRES_DB: shop

  cache:
    image: redis:7.2-alpine
    command: ["redis-server", "--maxmemory", "256mb"]

volumes:
  dbdata: {}
"""

LIB_SH = """\
#!/usr/bin/env bash
# Helpers the shop's scripts source: logging and log rotation.

log() {
  printf '[%s] %s\\n' "$(date +%H:%M:%S)" "$*"
}

die() {
  log "error: $*" >&2
  exit 1
}

rotate_logs() {
  # keep five old copies of a log file: name.1 (newest) to name.5
  local file="$1"
  [ -f "$file" ] || return 0
  for i in 4 3 2 1; do
    if [ -f "$file.$i" ]; then
      mv "$file.$i" "$file.$((i + 1))"
    fi
  done
  mv "$file" "$file.1"
  : > "$file"
}

require() {
  command -v "$1" > /dev/null || die "$1 is not installed"
}
"""

BACKUP_SH = """\
#!/usr/bin/env bash
# Nightly backup of the shop's database and uploads.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/lib.sh"

KEEP_DAYS=14
BACKUP_ROOT="${BACKUP_ROOT:-/var/backups/shop}"
UPLOADS="${UPLOADS:-/srv/shop/uploads}"
STAMP="$(date +%Y%m%d-%H%M)"

dump_database() {
  log "dumping the database"
  pg_dump "$DATABASE_URL" | gzip > "$BACKUP_ROOT/db-$STAMP.sql.gz"
}

archive_uploads() {
  log "archiving uploads"
  tar -czf "$BACKUP_ROOT/uploads-$STAMP.tar.gz" -C "$UPLOADS" .
}

prune_old() {
  log "removing backups older than $KEEP_DAYS days"
  find "$BACKUP_ROOT" -name '*.gz' -mtime "+$KEEP_DAYS" -delete
}

main() {
  require pg_dump
  mkdir -p "$BACKUP_ROOT"
  dump_database
  archive_uploads
  rotate_logs "$BACKUP_ROOT/backup.log"
  prune_old
  log "backup done"
}

main "$@"
"""

SUMMARY_SH = """\
#!/usr/bin/env bash
# Sum up data/orders.csv: how many orders, and the revenue of the paid ones.
set -euo pipefail

FILE="${1:-data/orders.csv}"

if [ ! -f "$FILE" ]; then
  echo "no orders file at $FILE" >&2
  exit 1
fi

awk -F, '
  NR == 1 { next }                       # the header
  { orders += 1 }
  $4 == "paid" { revenue += $3; paid += 1 }
  $4 == "refunded" { refunded += 1 }
  END {
    printf "orders: %d\\n", orders
    printf "paid: %d\\n", paid
    printf "refunded: %d\\n", refunded
    printf "revenue: %.2f\\n", revenue
  }
' "$FILE"
"""

ORDERS_CSV = """\
id,customer,amount,status
1001,ana,48.15,paid
1002,bruno,120.00,paid
1003,carla,15.50,refunded
1004,diogo,89.90,paid
1005,eva,33.20,pending
1006,filipe,140.35,paid
1007,gil,22.00,refunded
"""

BUILD_SH = """\
#!/usr/bin/env bash
# Build the web front: copy the sources into dist/ and write a manifest.
set -euo pipefail

SRC_DIR="src"
OUT_DIR="dist"
VERSION="$(sed -n 's/.*"version": "\\(.*\\)".*/\\1/p' package.json)"

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"

count=0
for file in "$SRC_DIR"/*.js; do
  cp "$file" "$OUT_DIR/"
  count=$((count + 1))
done

{
  echo "version: $VERSION"
  echo "files: $count"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$OUT_DIR/manifest.txt"

echo "built $count files into $OUT_DIR (version $VERSION)"
"""
