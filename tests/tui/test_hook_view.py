"""The run's timeline shows a hook that decided something, in one line, and stays quiet
about one that decided nothing."""

from __future__ import annotations

from harness.conversation import events as ev
from tests.tui.test_view import SID, make


def test_a_hook_that_decided_is_one_line_and_one_that_did_not_is_none() -> None:
    view, console, _ = make()
    view.handle(ev.HookStarted(session_id=SID, event="PreToolUse", hook="./guard.sh"))
    view.handle(
        ev.HookFinished(
            session_id=SID,
            event="PreToolUse",
            hook="./guard.sh",
            source=".claude/settings.json",
            decision="deny",
            reason="rm -rf\x1b[2J is not allowed",
            ms=12.4,
            exit_code=2,
        )
    )
    view.handle(ev.HookFinished(session_id=SID, event="PostToolUse", hook="./fmt.sh", ms=3))
    view.close()
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "hook PreToolUse ./guard.sh: deny (12 ms): rm -rf" in out
    assert "\x1b[2J" not in out
    assert "fmt.sh" not in out
