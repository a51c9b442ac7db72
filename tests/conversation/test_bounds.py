"""``HARNESS_CONTEXT_TIME_SCALE``: the factor on the context features' bounds, 1 unless
set sensibly."""

from __future__ import annotations

import pytest

from harness.conversation.context import EMBED_TIMEOUT, bound


@pytest.mark.parametrize(
    ("value", "seconds"),
    [(None, 4.0), ("0.25", 1.0), ("1", 4.0), ("0", 4.0), ("-1", 4.0), ("3", 4.0), ("x", 4.0)],
)
def test_only_a_factor_above_0_and_at_most_1_is_taken(value: str | None, seconds: float) -> None:
    environ = {} if value is None else {"HARNESS_CONTEXT_TIME_SCALE": value}
    assert EMBED_TIMEOUT == 4.0
    assert bound(EMBED_TIMEOUT, environ) == seconds
