"""The command line is parsed before anything starts: ``--version`` and ``--help``
import only the command line, and each command's own command line is its own."""

from __future__ import annotations

import subprocess
import sys

import pytest

from harness.keys import ENV_KEYS

# What a run needs and the command line alone does not: the message vocabulary (attrs,
# cattrs), trio, the supervisor, the conversation, the settings file and the keys.
HEAVY = (
    "attrs",
    "cattrs",
    "trio",
    "harness.ipc",
    "harness.messages",
    "harness.supervisor",
    "harness.conversation",
    "harness.settings",
    "harness.keys",
    "harness._forkstart",
    # argparse finds the terminal's width through shutil, which imports the compression
    # modules; the command line gives the width itself
    "shutil",
    "lzma",
    "bz2",
)

_MODULES_AFTER = """
import sys
from harness.__main__ import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("modules:", *sorted(sys.modules))
"""


def _harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _loaded_after(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("modules:")
    loaded = set(last.split()[1:])
    assert "harness.cli" in loaded  # the check sees the command line's own imports
    return loaded


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_only_the_command_line(flag: str) -> None:
    assert sorted(_loaded_after(flag).intersection(HEAVY)) == []


def test_batch_help_imports_no_engine() -> None:
    """``harness batch --help`` reads its command line alone: the engines (trio) and
    the message vocabulary load once a batch runs."""
    loaded = _loaded_after("batch", "--help")
    assert "harness.cli._batch" in loaded
    engines = ("attrs", "cattrs", "trio", "harness.messages", "harness.batch._batch")
    assert sorted(loaded.intersection(engines)) == []


def test_a_usage_error_says_what_was_wrong() -> None:
    # (and starts no fork server: test_fork_server checks that)
    done = _harness("--no-such-flag")
    assert done.returncode == 2
    assert "unrecognized arguments: --no-such-flag" in done.stderr


def test_help_names_the_ways_in_and_the_variables_read() -> None:
    done = _harness("--help")
    assert done.returncode == 0
    text = done.stdout
    assert "harness batch TASKS.jsonl" in text
    assert "harness trust" in text
    assert "the interactive terminal" in text
    for names in ENV_KEYS.values():
        for name in names:
            assert name in text
    for name in ("HARNESS_HOME", "HARNESS_PROVIDER", "HARNESS_EMBEDDED", "OLLAMA_BASE_URL"):
        assert name in text


@pytest.mark.parametrize("command", ["batch", "trust"])
def test_a_command_with_its_own_command_line_parses_it(command: str) -> None:
    done = _harness(command, "--help")
    assert done.returncode == 0
    assert done.stdout.startswith(f"usage: harness {command}")
