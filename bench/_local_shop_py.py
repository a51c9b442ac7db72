"""The Python and TOML files of the fresh task set's shop (see :mod:`bench._local_shop`)."""

from __future__ import annotations

INVENTORY_PY = '''\
"""Stock levels for the shop's warehouse."""

from __future__ import annotations

from dataclasses import dataclass, field

LOW_STOCK_THRESHOLD = 4


@dataclass
class Item:
    sku: str
    name: str
    price: float
    quantity: int = 0


@dataclass
class Inventory:
    items: dict[str, Item] = field(default_factory=dict)

    def add_item(self, sku: str, name: str, price: float, quantity: int = 0) -> Item:
        if sku in self.items:
            self.items[sku].quantity += quantity
        else:
            self.items[sku] = Item(sku, name, price, quantity)
        return self.items[sku]

    def remove_item(self, sku: str, quantity: int) -> None:
        item = self.items[sku]
        if quantity > item.quantity:
            raise ValueError(f"only {item.quantity} of {sku} in stock")
        item.quantity -= quantity

    def total_value(self) -> float:
        return sum(i.price * i.quantity for i in self.items.values())

    def low_stock(self, threshold: int = LOW_STOCK_THRESHOLD) -> list[str]:
        """The SKUs with fewer than *threshold* units left."""
        return sorted(sku for sku, i in self.items.items() if i.quantity < threshold)


def load_demo() -> Inventory:
    inv = Inventory()
    inv.add_item("A-100", "kettle", 24.5, 10)
    inv.add_item("B-220", "toaster", 39.0, 3)
    inv.add_item("C-310", "mug", 6.25, 40)
    return inv
'''

PRICING_PY = '''\
"""Prices, discounts and tax."""

from __future__ import annotations

TAX_RATE = 0.2
CURRENCY = "EUR"


def round_money(amount: float) -> float:
    """Round to whole cents, halves away from zero."""
    cents = int(abs(amount) * 100 + 0.5)
    return cents / 100 if amount >= 0 else -cents / 100


def apply_discount(price: float, percent: float) -> float:
    """The price after a discount of *percent* (0 to 100)."""
    if not 0 <= percent <= 100:
        raise ValueError("percent must be between 0 and 100")
    return round_money(price * (100 - percent) / 100)


def with_tax(price: float, rate: float = TAX_RATE) -> float:
    """The price with tax added."""
    return round_money(price * (1 + rate))


def bulk_price(unit: float, count: int) -> float:
    """The price of *count* units: ten or more get 5% off."""
    total = unit * count
    if count >= 10:
        total = apply_discount(total, 5)
    return round_money(total)


def price_table(prices: dict[str, float]) -> list[tuple[str, float, float]]:
    """Each name with its price and its price with tax, cheapest first."""
    rows = [(name, price, with_tax(price)) for name, price in prices.items()]
    return sorted(rows, key=lambda row: row[1])
'''

REPORT_PY = '''\
"""Print the stock report: python3 report.py"""

from inventory import Inventory, load_demo
from pricing import CURRENCY, apply_discount, round_money, with_tax


def build_report(inv: Inventory) -> list[str]:
    lines = []
    for sku, item in sorted(inv.items.items()):
        value = round_money(item.price * item.quantity)
        lines.append(f"{sku:8} {item.name:10} {item.quantity:4} {value:10.2f} {CURRENCY}")
    total = round_money(inv.total_value())
    lines.append(f"total value: {total:.2f} {CURRENCY}")
    lines.append(f"with tax: {with_tax(total):.2f} {CURRENCY}")
    lines.append(f"clearance price of a kettle: {apply_discount(24.5, 30):.2f} {CURRENCY}")
    low = inv.low_stock()
    lines.append("low stock: " + (", ".join(low) if low else "none"))
    return lines


def main() -> None:
    for line in build_report(load_demo()):
        print(line)


if __name__ == "__main__":
    main()
'''

TEST_INVENTORY_PY = """\
import unittest

from inventory import Inventory, load_demo


class InventoryTest(unittest.TestCase):
    def setUp(self) -> None:
        self.inv = load_demo()

    def test_add_new_item(self) -> None:
        self.inv.add_item("D-400", "teapot", 18.0, 2)
        self.assertEqual(self.inv.items["D-400"].quantity, 2)

    def test_add_existing_item(self) -> None:
        self.inv.add_item("C-310", "mug", 6.25, 5)
        self.assertEqual(self.inv.items["C-310"].quantity, 45)

    def test_remove_item(self) -> None:
        self.inv.remove_item("A-100", 4)
        self.assertEqual(self.inv.items["A-100"].quantity, 6)

    def test_remove_too_many(self) -> None:
        with self.assertRaises(ValueError):
            self.inv.remove_item("B-220", 9)

    def test_total_value(self) -> None:
        self.assertAlmostEqual(self.inv.total_value(), 612.0)

    def test_low_stock(self) -> None:
        self.assertEqual(self.inv.low_stock(), ["B-220"])

    def test_empty_inventory(self) -> None:
        self.assertEqual(Inventory().total_value(), 0)


if __name__ == "__main__":
    unittest.main()
"""

SETTINGS_TOML = """\
# Settings of the shop's back office. Read at start-up; restart to apply.

[app]
name = "backoffice"
debug = true
log_level = "info"
timezone = "Europe/Lisbon"

[server]
host = "127.0.0.1"
port = 9412
workers = 3
request_timeout = 45

[database]
url = "postgresql://shop@localhost/shop"
pool_size = 8
statement_timeout_ms = 5000

[stock]
low_stock_threshold = 4
reorder_batch = 25
warehouses = ["lisbon", "porto"]

[tax]
rate = 0.2
included_in_prices = false

[mail]
sender = "orders@shop.example"
smtp_host = "smtp.shop.example"
smtp_port = 587
"""
