"""Commands the README promises, in the real terminal on a pty: /perms reload, the
/connect pickers and status, a resumed session's recap, and titles never made of markup."""

from __future__ import annotations

import json

import pytest

from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow

# what a model of the text protocol answered the title request with
MARKUP_TITLE = '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.md"}}'


def test_connect_without_arguments_picks_a_provider_then_a_model(term_for) -> None:  # type: ignore[no-untyped-def]
    with ScriptedModel([reply("from model two")], models=("one", "two")) as model:
        t = term_for(model)
        t.line("/connect")
        out = t.expect(r"provider \(number, Enter cancels\)")
        assert "ollama" in out
        assert "needs a running Ollama" in out
        assert "anthropic" in out
        assert "needs an API key" in out
        assert "openai" in out
        assert "ready: key set" in out
        assert "local" in out
        t.line("2")  # openai: its key is known, so no key is asked for
        # its models are listed before anything switches
        out = t.expect(r"model \(number, Enter cancels\)")
        assert "one" in out
        assert "two" in out
        t.line("2")
        t.expect(r"provider openai, model two")
        t.line("hello")
        t.expect("from model two")
        assert model.requests[-1]["model"] == "two"


def test_diagnostics_perms_reload_connect_status_then_resume_and_a_title_of_the_users_words(  # type: ignore[no-untyped-def]
    term_for, dirs
) -> None:
    """One terminal: the commands that only show or read, then a new session resumed
    with its recap, and its title made of the user's words, not of markup."""
    ws, _ = dirs
    (ws / "a.txt").write_text("x\n")
    (ws / "notes.md").write_text("hi\n")
    script = [
        reply("", call("read_file", path="a.txt"), usage=(321, 7)),
        reply("Read.", usage=(400, 3)),
        reply("A title"),
        # after /clear, a new session
        reply("", call("read_file", path="notes.md")),
        reply("The notes say hi.\nSecond line of the answer."),
        reply(MARKUP_TITLE),
        reply("Still here."),
    ]
    with ScriptedModel(script) as model:
        t = term_for(model)
        t.line("/diagnostics")
        t.expect("nothing measured yet")

        # /perms reload reads a file edited by hand
        t.line("/perms")
        out = t.expect("deny:")
        assert "run_cmd(make lint)" not in out
        t.expect("❯")
        (ws / ".permissions.json").write_text(
            json.dumps({"allow": ["run_cmd(make lint)"], "deny": ["run_cmd()"]})
        )
        t.line("/perms reload")
        t.expect("permission rules read again")
        out = t.expect("empty")  # the refused rule is named
        assert "run_cmd()" in out
        t.line("/perms list")
        t.expect(r"run_cmd\(make lint\)")

        # /connect status lists what every provider still needs
        t.line("/connect status")
        t.expect("connected: 1 models available")
        out = t.expect(r"local\s+[^\n]*\n")
        assert "ollama     needs a running Ollama: none answers at http://127.0.0.1:9" in out
        assert "openai     ready: key set" in out
        assert "anthropic  needs an API key (ANTHROPIC_API_KEY" in out
        assert "gemini     needs an API key (GEMINI_API_KEY or GOOGLE_API_KEY" in out
        assert "local      switched off (HARNESS_EMBEDDED)" in out

        # /diagnostics shows the last rounds and calls
        t.line("read a")
        t.expect("Read\\.")
        t.expect("❯")
        t.line("/diagnostics")
        out = t.expect(r"read_file\s+✓[^\n]*\n")
        assert "model rounds" in out
        assert "first token" in out
        rows = [ln.split() for ln in out.splitlines() if ln.strip().startswith(("1 ", "2 "))]
        assert [r[:2] + r[3:5] for r in rows] == [
            ["1", "scripted", "321", "7"],
            ["2", "scripted", "400", "3"],
        ]

        # a resumed session shows the earlier conversation; its title is the user's words
        t.line("/clear")
        t.expect("new session")
        t.line("read the notes please")
        t.expect("Second line of the answer")
        t.expect("❯")
        t.line("/title")
        t.expect("title: read the notes please")
        assert "read the notes please" in model.requests[5]["messages"][-1]["content"]
        t.line("/clear")
        t.expect("new session")
        t.line("/resume")
        out = t.expect(r"session \(number, Enter cancels\)")
        assert "read the notes please" in out
        assert "tool_call" not in out
        t.line("1")
        out = t.expect(r"resumed session \S+ \(\d+ messages\)")
        out = t.expect("Second line of the answer")
        assert "earlier in this session" in out
        assert "❯ read the notes please" in out
        assert "· read_file notes.md" in out
        assert "The notes say hi." in out
        t.line("and now?")
        t.expect("Still here\\.")
        sent = model.requests[-1]["messages"]  # the earlier conversation goes to the model
        assert any(m.get("content") == "read the notes please" for m in sent)
