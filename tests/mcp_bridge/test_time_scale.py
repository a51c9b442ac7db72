"""``HARNESS_MCP_TIME_SCALE``: the factor on a bridge's own waits, 1 unless set sensibly."""

from __future__ import annotations

import pytest

from harness.actors.mcp._waits import time_scale


@pytest.mark.parametrize(
    ("value", "scale"),
    [(None, 1.0), ("0.2", 0.2), ("1", 1.0), ("0", 1.0), ("-1", 1.0), ("3", 1.0), ("x", 1.0)],
)
def test_only_a_factor_above_0_and_at_most_1_is_taken(value: str | None, scale: float) -> None:
    environ = {} if value is None else {"HARNESS_MCP_TIME_SCALE": value}
    assert time_scale(environ) == scale
