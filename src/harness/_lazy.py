"""A package face whose names are imported on first use (PEP 562's module ``__getattr__``).

A package's ``__init__`` names what it offers; a name whose module is heavy to import, or
is not needed by every command, is looked up here the first time it is used, then kept in
the package, so the lookup happens once. Type checkers read the names from the package's
``if TYPE_CHECKING:`` imports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_names"]


def lazy_names(package: str, where: Mapping[str, str]) -> Callable[[str], object]:
    """The module ``__getattr__`` of *package*: each name of *where* is imported from the
    module it maps to when first used; any other name is an ``AttributeError``, as for a
    plain module."""

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # looked up once
        return value

    return __getattr__
