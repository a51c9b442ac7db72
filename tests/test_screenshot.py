"""The README's picture is a session the code draws today: rendered again, it is the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def test_the_screenshot_is_what_a_session_draws_now() -> None:
    p = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "screenshot.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    svg = (ROOT / "docs" / "screenshot.svg").read_text(encoding="utf-8")
    for seen in ("wants to run", "edit_file", "Allow?", "/undo", "return a + b"):
        assert seen.replace(" ", "&#160;") in svg or seen in svg, seen
