"""docs/ARCHITECTURE.md names only modules and message types that exist."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from harness.ipc import message_types

DOC = Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md"
TEXT = DOC.read_text(encoding="utf-8")
DOTTED = sorted(set(re.findall(r"`((?:harness|bench)(?:\.\w+)+)`", TEXT)))
MESSAGE_ROWS = re.findall(r"^\| `([a-z_]+\.[a-z_.]+)` \| `(\w+)` \|", TEXT, flags=re.M)


def _resolve(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            found = importlib.util.find_spec(module)
        except ModuleNotFoundError:
            found = None
        if found is None:
            continue
        obj: object = importlib.import_module(module)
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_the_doc_names_things() -> None:
    assert len(DOTTED) > 20
    assert len(MESSAGE_ROWS) > 10


@pytest.mark.parametrize("dotted", DOTTED)
def test_every_named_module_exists(dotted: str) -> None:
    assert _resolve(dotted), f"docs/ARCHITECTURE.md names {dotted}, which does not exist"


def test_every_named_message_type_exists() -> None:
    importlib.import_module("harness.messages")
    registry = message_types()
    for tag, cls_name in MESSAGE_ROWS:
        assert tag in registry, f"docs/ARCHITECTURE.md names message tag {tag!r}; none exists"
        assert registry[tag].__name__ == cls_name, (
            f"tag {tag!r} is {registry[tag].__name__}, the doc says {cls_name}"
        )
