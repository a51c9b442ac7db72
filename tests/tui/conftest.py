"""Fixtures of the terminal tests that drive harness through a real pty."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.scripted import ScriptedModel
from tests.tui._term import Term, spawn


@pytest.fixture
def term_for(
    dirs: tuple[Path, Path],
) -> Iterator[Callable[..., Term]]:
    """Start harness in a pty against a scripted model (or none), at its first prompt;
    every terminal started is closed after the test."""
    terms: list[Term] = []

    def make(model: ScriptedModel | None, args: list[str] | None = None) -> Term:
        ws, home = dirs
        t = spawn(ws, home, base_url=model.base_url if model else None, args=args)
        terms.append(t)
        t.expect("❯")
        return t

    yield make
    for t in terms:
        t.close()
