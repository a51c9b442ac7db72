"""The terminal says when a run ended without doing what its model said (the honest
ending), on a real pty against the scripted model over loopback."""

from __future__ import annotations

import pytest

from tests.scripted import ScriptedModel, reply
from tests.tui._term import squeezed

pytestmark = pytest.mark.slow


def test_a_changed_file_handed_over_and_none_on_disk_is_shown_as_not_done(term_for, dirs) -> None:  # type: ignore[no-untyped-def]
    ws, _ = dirs
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    answer = (
        "Here's the updated `calc.py` file:\n\n```python\ndef add(a, b):\n    return a + b\n```\n"
    )
    with ScriptedModel([reply(answer)]) as model:
        t = term_for(model)
        t.line("Fix add in calc.py.")
        out = t.expect(r"no\s+call\s+changed\s+files\s+in\s+this\s+run")
        assert squeezed(
            "✗ the model gave a changed file in its answer (\"Here's the updated `calc.py` "
            'file:"), but no call changed files in this run'
        ) in squeezed(out)
        t.expect("❯")
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
