from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from harness.cli.tui._commands import CommandError, is_command, on_off
from harness.cli.tui._completion import HarnessCompleter
from harness.cli.tui._dispatch import COMMANDS

parse_command = COMMANDS.parse

ISSUE_COMMANDS = [
    "help",
    "connect",
    "model",
    "status",
    "undo",
    "autocommit",
    "automode",
    "planmode",
    "deepthink",
    "think",
    "perms",
    "mcp",
    "mcp__",
    "agents",
    "hooks",
    "skills",
    "memory",
    "title",
    "autotitle",
    "sessions",
    "resume",
    "load",
    "save",
    "export",
    "compact",
    "clear",
    "expand",
    "diagnostics",
    "exit",
    "rewind",
    "fork",
]


def test_every_command_the_issue_names_is_in_the_table() -> None:
    assert sorted(c.name for c in COMMANDS) == sorted(ISSUE_COMMANDS)


def test_parse_with_quoted_arguments() -> None:
    p = parse_command('/title "my session"')
    assert p.command.name == "title"
    assert p.args == ("my session",)
    assert parse_command("/quit").command.name == "exit"


@pytest.mark.parametrize(
    ("line", "hint"),
    [("/stauts", "/status"), ("/exprot json", "/export"), ("/mod", "/model"), ("/zzzz", "/help")],
)
def test_unknown_command_suggests(line: str, hint: str) -> None:
    with pytest.raises(CommandError, match=hint):
        parse_command(line)


def test_unbalanced_quotes_is_a_clear_error() -> None:
    with pytest.raises(CommandError, match="/title"):
        parse_command('/title "open')


def test_paths_are_not_commands() -> None:
    assert is_command("/help")
    assert not is_command("/etc/hosts is broken")
    assert not is_command("fix /help text")


def test_on_off() -> None:
    assert on_off(("on",), False) is True
    assert on_off((), True) is False
    with pytest.raises(CommandError):
        on_off(("maybe",), True)


def complete(c: HarnessCompleter, text: str) -> list[str]:
    return [x.text for x in c.get_completions(Document(text), CompleteEvent())]


def test_completion_commands_arguments_and_files(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "setup.py").write_text("")
    (tmp_path / ".git").mkdir()
    c = HarnessCompleter(
        tmp_path,
        COMMANDS,
        {
            "@models": lambda: ["qwen2.5-coder", "llama3"],
            "@sessions": lambda: ["fix the parser", "abc123"],
            "@skills": lambda: ["git-commit", "code-review"],
            "@providers": lambda: ["ollama", "openai", "local"],
        },
    )
    assert complete(c, "/sta") == ["/status"]
    assert "/think" in complete(c, "/th")
    assert complete(c, "/model q") == ["qwen2.5-coder"]
    assert complete(c, "/resume f") == ['"fix the parser"']
    assert complete(c, "/skills g") == ["git-commit"]
    assert complete(c, "/connect o") == ["ollama", "openai"]
    assert complete(c, "/connect ollama l") == ["llama3"]
    assert complete(c, "/export ") == ["json", "md"]
    assert complete(c, "look at @s") == ["@setup.py", "@src/"]
    assert complete(c, "look at @src/m") == ["@src/main.py"]
    assert complete(c, "@.") == []  # .git is never offered
    assert complete(c, "@../") == []  # never outside the workspace


def test_a_failing_source_completes_nothing(tmp_path: Path) -> None:
    def boom() -> list[str]:
        raise RuntimeError("daemon down")

    assert complete(HarnessCompleter(tmp_path, COMMANDS, {"@models": boom}), "/model ") == []
