"""/rewind, Esc Esc and /fork in the real terminal, on a real pty, with a scripted model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.scripted import ScriptedModel, call, reply
from tests.tui._term import Term

#: every terminal here runs in auto mode: the edits to rewind need no approval
AUTO = ["--permission-mode", "auto"]


def users(model: ScriptedModel) -> list[str]:
    return [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "user"]


def test_esc_esc_rewinds_both_then_fork_leaves_the_original_and_both_are_listed(
    term_for: Callable[..., Term], dirs: tuple[Path, Path]
) -> None:
    """Esc Esc picks a prompt, shows the files and rewinds both; then /fork in the same
    terminal (each terminal is an interpreter's start-up)."""
    ws, _ = dirs
    with ScriptedModel(
        [
            reply("", call("write_file", path="a.txt", content="one\n")),
            reply("done one"),
            reply("A title"),
            reply("", call("write_file", path="b.txt", content="two\n")),
            reply("", call("edit_file", path="a.txt", old_text="one", new_text="ONE")),
            reply("done two"),
            reply("done three"),
            reply("in the fork"),
        ]
    ) as model:
        t = term_for(model, AUTO)
        t.line("first prompt")
        t.expect("done one")
        t.expect("❯")
        t.line("second prompt")
        t.expect("done two")
        t.expect("❯")
        assert (ws / "a.txt").read_text() == "ONE\n"
        t.send("\x1b\x1b")  # Esc Esc at the empty prompt
        t.expect("first prompt")
        t.expect("second prompt")
        t.line("2")
        out = t.expect("what to restore")
        assert "remove (made since) b.txt" in out
        assert "restore a.txt" in out
        t.line("1")
        t.expect("prompt 2 was: second prompt")
        t.expect("❯")
        assert (ws / "a.txt").read_text() == "one\n"
        assert not (ws / "b.txt").exists()
        t.line("third prompt")
        t.expect("done three")
        t.expect("❯")
        assert users(model) == ["first prompt", "third prompt"]

        # /fork before the third prompt: the fork goes on from the first alone
        t.line("/fork 2")
        out = t.expect(r"stays as it was \(/resume (\S+)\)")
        original = out.rsplit("/resume ", 1)[1].rstrip(")")
        t.expect("❯")
        t.line("fork prompt")
        t.expect("in the fork")
        t.expect("❯")
        assert users(model) == ["first prompt", "fork prompt"]
        t.line("/sessions")
        t.expect(original)  # the original is listed beside the fork, which is titled so
        t.line("/title")
        t.expect(r"title: .* \(fork\)")
