"""The real interactive harness on a real pty, against the scripted model over loopback."""

from __future__ import annotations

import json
import os
import re
import signal

import pytest

from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow


def test_answer_status_unknown_command_hostile_text_then_ctrl_c_and_esc_cancel(term_for) -> None:  # type: ignore[no-untyped-def]
    """One terminal: an answer drawn as markdown, /status, a worker killed while idle,
    hostile text; then a run cancelled with Ctrl+C (with a message and a command typed
    during it) and one with Esc, each followed by a prompt that works."""
    answer = (
        "Here is **bold** text.\n\n```python\nprint('hi')\n```\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\nEnd."
    )
    hostile = (
        "safe \x1b]0;pwned\x07text \x1b[2J\x1b[31mred\x1b[0m "
        "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ end"
    )
    script = [
        reply(answer, chunk=3, usage=(120, 30)),
        reply("A title"),
        reply(hostile, chunk=5),
        reply("first part " * 5 + "\n\n" + "never shown", chunk=8, stall=30),
        reply("Second answer."),
        reply("partial " * 4, chunk=8, stall=30),
        reply("Third answer."),
        reply("Fourth answer."),
        reply("slow " * 4, chunk=8, stall=30),
        reply("Fifth answer."),
    ]
    with ScriptedModel(script) as model:
        t = term_for(model)
        t.line("say hello")
        out = t.expect(r"120 in · 30 out")
        assert "Here is bold text." in out
        assert "print('hi')" in out
        assert "**" not in out
        assert "```" not in out
        t.expect("❯")
        assert model.requests[0]["messages"][-1]["content"] == "say hello"

        t.line("/stauts")
        t.expect("did you mean /status")
        t.line("/status")
        out = t.expect(r"permission mode \w+")
        assert "worker" in out
        assert "restarts" in out
        for name in ("model", "tools"):
            assert f"{name} " in out
        assert "provider openai · model scripted" in out

        # a worker killed while idle comes back, with one quiet line
        pid = int(re.search(r"\btools\s+(\d+)\s", out).group(1))  # type: ignore[union-attr]
        os.kill(pid, signal.SIGKILL)
        out = t.expect(r"tools worker restarted[^\n]*")
        assert "Traceback" not in out

        before = len(t.raw)
        t.line("go")
        t.expect(" end")
        t.expect("❯")
        raw = t.raw[before:]
        for seq in ("\x1b]0;", "\x1b[2J", "\x1b]8;", "\x07"):
            assert seq not in raw, repr(seq)
        assert "safe" in raw
        assert "link" in raw

        # Ctrl+C mid-stream cancels, and the next prompt works
        t.line("long one")
        t.expect("first pa")  # the model stalls after its first piece
        t.line("also mind the tests")  # typed during a run: joins it through the inbox
        t.expect("added to the running task: also mind the tests")
        t.line("/skills")  # a command typed during a run waits for its end
        t.expect("after this answer: /skills")
        t.send("\x03")
        out = t.expect("cancelled")
        assert "never shown" not in out
        t.expect("built-in")  # the queued /skills ran once the run had ended
        t.expect("❯")
        t.line("next")
        t.expect("Second answer\\.")
        t.expect("❯")
        t.line("go")
        t.expect("partial")
        t.send("\x1b")  # Esc cancels as well
        t.expect("cancelled")
        t.expect("❯")
        t.line("last")
        t.expect("Third answer\\.")
        t.expect("❯")

        # A SIGINT (kill -INT, or Ctrl+C while harness is not reading keys) is a Ctrl+C:
        # at the prompt it asks for a second one, during a run it cancels the run, and
        # no KeyboardInterrupt is left to break the next run
        t._wait_for_keys()  # the prompt is up (its keys raw)
        os.kill(t.child.pid, signal.SIGINT)
        t.expect(r"Ctrl\+C again, or Ctrl\+D, to exit")
        t.line("after the signal")
        out = t.expect("Fourth answer\\.")
        assert "Traceback" not in out
        t.expect("❯")
        t.line("slow")
        t.expect("slow slo")  # the model's, not the line typed
        os.kill(t.child.pid, signal.SIGINT)
        out = t.expect("cancelled")
        t.expect("❯")
        t.line("after the run")
        out += t.expect("Fifth answer\\.")
        assert "Traceback" not in out


def test_first_run_without_any_provider(term_for, dirs) -> None:  # type: ignore[no-untyped-def]
    # No Ollama answers, no embedded model is installed, nothing was chosen before:
    # one clear sentence and the way out, and the terminal still works.
    t = term_for(None)
    out = t.expect("/connect")
    t.line("/help")
    out += t.expect("/exit")
    t.line("hello")
    out += t.expect("❯")
    assert "Traceback" not in t.raw
    assert "/connect" in out

    # /connect a hosted provider: its key is asked for without echo and saved 0600,
    # and the choice is remembered for this folder
    t.line("/connect anthropic claude-test")
    t.expect("anthropic API key")
    t.line("sk-ant-very-secret")
    t.expect("key saved to")
    t.expect("provider anthropic, model claude-test")
    t.expect("❯")  # the session on the new choice is open (a Ctrl+C before is a SIGINT)
    assert "sk-ant-very-secret" not in t.raw
    ws, home = dirs
    keys = home / "providers.json"
    assert json.loads(keys.read_text())["anthropic"]["api_key"] == "sk-ant-very-secret"
    assert keys.stat().st_mode & 0o777 == 0o600
    prefs = json.loads((home / "tui.json").read_text())["workspaces"][str(ws.resolve())]
    assert prefs["provider"] == "anthropic"
    assert prefs["model"] == "claude-test"


def test_multiline_history_completion_thinking_and_an_edit_asked_about(term_for, dirs) -> None:  # type: ignore[no-untyped-def]
    ws, home = dirs
    (ws / "notes.md").write_text("x")
    (ws / "a.txt").write_text("old line\n")
    edit = call("edit_file", path="a.txt", old_text="old line", new_text="NEW line")
    script = [
        reply("got both lines", thinking="hidden musing"),
        reply("A title"),  # the session's title, asked for after the first run
        reply("visible now", thinking="shown musing"),
        reply("", edit),
        reply("Edited."),
        reply("", edit),
        reply("Left alone."),
    ]
    with ScriptedModel(script) as model:
        t = term_for(model)
        t.send("line one")
        t.send("\n")  # Ctrl+J: a newline, not a submit
        t.line("line two @no")
        out = t.expect("got both lines")
        assert "hidden musing" not in out  # thinking is hidden by default
        t.expect("❯")
        assert model.requests[0]["messages"][-1]["content"] == "line one\nline two @no"
        assert "line one\n+line two @no" in (home / "history").read_text().replace("\n+", "\n+")
        model.wait_for_requests(2)  # the title's

        t.send("/thi")
        t.send("\t")  # completes to /think
        t.line(" on")
        t.expect("thinking shown")
        t.line("again")
        out = t.expect("visible now")
        assert "shown musing" in out
        t.expect("❯")
        t.send("look at @not")
        t.send("\t")  # completes the workspace path
        t.send("\x15")  # Ctrl+U: clear what was typed
        out = t.expect("notes.md")

        # an edit asks for approval with its diff; yes applies it, no denies it
        t.line("change it")
        out = t.expect(r"\[y\]es / \[N\]o / \[a\]lways")
        assert "wants to run edit_file a.txt" in out
        assert "+" in out.split("wants to run", 1)[1]  # the diff is shown first
        t.send("y")
        out = t.expect("Edited\\.")
        assert "approved" in out
        t.expect("❯")
        assert (ws / "a.txt").read_text() == "NEW line\n"
        t.line("/undo")
        t.expect("undid edit_file")
        assert (ws / "a.txt").read_text() == "old line\n"
        t.line("again")
        t.expect(r"\[y\]es / \[N\]o")
        t.send("n")
        out = t.expect("denied")
        t.expect("❯")
        assert (ws / "a.txt").read_text() == "old line\n"


def test_a_model_chosen_while_the_session_starts_is_used_and_a_cancelled_connect_changes_nothing(  # type: ignore[no-untyped-def]
    term_for,
) -> None:
    script = [reply("from the other model"), reply("A title"), reply("still here")]
    with ScriptedModel(script) as model:
        t = term_for(model)
        # typed as soon as the prompt shows, while start-up is still settling its choice
        t.line("/model other")
        t.expect(r"model other \(remembered")
        t.expect("❯")
        t.line("/status")
        out = t.expect(r"permission mode \w+")
        assert "provider openai · model other ·" in out
        t.line("hello")
        t.expect("from the other model")
        assert model.requests[-1]["model"] == "other"
        t.expect("❯")
        model.wait_for_requests(2)  # the title's

        # /connect cancelled at the key leaves the connection as it was
        t.line("/connect anthropic")
        t.expect("anthropic API key")
        t.line("")
        t.expect("no key given; the provider is unchanged")
        t.line("/connect status")
        out = t.expect(r"provider openai · model other[^\r\n]*[\r\n]")  # the whole line
        assert model.base_url in out
        t.expect("connected: 1 models available")
        t.expect("❯")
        t.line("/model scripted")
        t.expect("model scripted \\(remembered")
        t.line("hello")
        t.expect("still here")
        assert model.requests[-1]["model"] == "scripted"


def test_a_session_that_could_not_open_is_retried_after_a_new_choice(term_for) -> None:  # type: ignore[no-untyped-def]
    with ScriptedModel([reply("opened at last")]) as model:
        t = term_for(model, ["--resume", "no-such-session"])
        t.expect("could not start the session")
        t.line("hello")
        t.expect(r"no session: [^\n]*Try /connect")
        t.expect("❯")
        t.line("/model scripted")  # what the advice leads to: a new choice
        t.expect(r"model scripted \(remembered")
        t.expect("❯")
        t.line("hello")
        t.expect("opened at last")
