"""Commands and agents kept as files, in the real terminal: ``/help`` and completion list
them marked project or user, typing one runs its ``!`` lines through the approval prompt
and sends its prompt, a built-in's name is refused, ``/agents`` lists the definitions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from harness.cli.tui._completion import HarnessCompleter
from harness.cli.tui._dispatch import COMMANDS
from harness.cli.tui._filecmds import command_set
from tests.scripted import ScriptedModel, reply
from tests.tui._term import Term, squeezed

pytestmark = pytest.mark.slow


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _commands(ws: Path, home: Path) -> None:
    _write(
        ws / ".claude/commands/greet.md",
        "---\ndescription: Greet someone\nargument-hint: [name]\n---\n"
        "Say hello to $1. Files here: !`ls`\nAlso !`touch made.txt`\n",
    )
    _write(ws / ".claude/commands/git/log.md", "Summarise the log\n")
    _write(ws / ".harness/commands/help.md", "---\ndescription: mine\n---\nnot mine\n")
    _write(home / "commands/tidy.md", "---\ndescription: Tidy up\n---\nTidy $ARGUMENTS\n")
    _write(ws / "a.txt", "a\n")


def test_file_commands_complete_like_built_in_ones(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    _commands(ws, home)
    commands, problems = command_set(COMMANDS, ws, home)
    completer = HarnessCompleter(ws, commands)
    offered = list(completer.get_completions(Document("/"), CompleteEvent()))
    got = {c.text: c.display_meta_text for c in offered}
    shown = {c.text: c.display_text for c in offered}
    assert got["/greet"] == "Greet someone (project)"
    assert shown["/greet"] == "/greet [name]"  # its argument-hint beside its name
    assert shown["/log"] == "/log"
    assert got["/log"] == "Summarise the log (project:git)"
    assert got["/git:log"] == "Summarise the log (project:git)"
    assert got["/tidy"] == "Tidy up (user)"
    assert got["/help"].startswith("list the commands")
    assert any("help.md: refused: /help is a built-in command" in p for p in problems)


def test_typing_a_file_command_runs_it_and_agents_lists_the_definitions(
    dirs: tuple[Path, Path], term_for: Callable[..., Term]
) -> None:
    ws, home = dirs
    _commands(ws, home)
    _write(
        ws / ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews code\ntools: Read, TodoWrite\n"
        "model: sonnet\n---\nReview.\n",
    )
    _write(ws / ".claude/agents/broken.md", "---\nname: broken\n---\nno description\n")
    with ScriptedModel([reply("Hello, Ada.")]) as model:
        t = term_for(model)
        t.line("/help")
        shown = t.expect(r"/tidy.*\n")
        assert "/greet [name]" in shown
        assert "Greet someone (project)" in shown
        assert "Tidy up (user)" in shown
        t.line("/greet Ada")
        # each ! line asks in ask mode, like the model's own run_cmd
        t.expect("wants to run run_cmd")
        t.expect("Allow?")
        t.send("y")
        t.expect("touch made.txt")
        t.expect("Allow?")
        t.send("n")
        t.expect("Hello, Ada.")
        t.expect("❯")
        # /agents lists the definitions, in the same terminal
        t.line("/agents")
        out = squeezed(t.expect("no sub-agents"))
    assert squeezed("reviewer  Reviews code  (project; read_file; the session's model)") in out
    assert squeezed("unknown tool TodoWrite") in out
    assert squeezed("broken.md: skipped: no description") in out
    # the run's request (a title request may follow it)
    prompt = model.requests[0]["messages"][-1]["content"]
    assert prompt.startswith("Say hello to Ada. Files here: a.txt")
    assert "[!touch made.txt was not run: denied by the user]" in prompt
    assert not (ws / "made.txt").exists()
