"""The command line of ``harness`` itself: every flag, its help and the epilog.

``harness batch``, ``harness trust`` and ``harness mcp`` have command lines of their
own; :mod:`harness.cli._main` dispatches to them, and to this parser for the rest.
"""

from __future__ import annotations

import argparse
import os
import sys

from harness._version import __version__
from harness.words import PERMISSION_MODES, PROVIDERS

__all__ = ["build_parser"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _temperature(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value <= 2.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2, got {value:g}")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


_EPILOG = """\
environment (also read from $HARNESS_HOME/.env; the environment wins):
  HARNESS_HOME                  where harness keeps its state (default ~/.harness)
  HARNESS_PROVIDER, HARNESS_MODEL, OLLAMA_MODEL
                                the provider and model when the command line names none
  OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY), OLLAMA_API_KEY
                                provider keys, taken out of the environment at start
  OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GEMINI_BASE_URL, OLLAMA_BASE_URL
                                provider URLs (Ollama: http://localhost:11434)
  HARNESS_EMBEDDED=off          never use the embedded model
  HARNESS_LOCAL_MODEL, HARNESS_LOCAL_THREADS, HARNESS_LOCAL_CONTEXT, HARNESS_LOCAL_GRAMMAR,
  HARNESS_LOCAL_NUDGE, HARNESS_MODEL_CACHE
                                the embedded model: which to load at once, its threads,
                                its context, its switches, where its files are kept
  HARNESS_CONTEXT_WINDOW, HARNESS_MAX_OUTPUT
                                tokens: 8192, or per model: qwen2.5-coder:7b=32768,8192
  HARNESS_MODEL_CONNECT_TIMEOUT, HARNESS_MODEL_FIRST_BYTE_TIMEOUT, HARNESS_MODEL_IDLE_TIMEOUT
                                seconds the model may take
  HARNESS_SYSTEM_PROMPT_FILE    a file whose text replaces the built-in system prompt
  HARNESS_KEEP_THINKING=1, HARNESS_SHOW_THINKING=1
                                keep the model's thinking; show it in the terminal
  HARNESS_WORKING_MEMORY=1      after each run, a model request updates the session's
                                working memory (its goal, decisions, tasks)
  HARNESS_HISTORY_EMBEDDING_MODEL
                                send the older turns most like the prompt, not all of them
  HARNESS_AUTOCOMMIT=0          AI changes are not committed by default
  HARNESS_SHELL_*               live commands: limits, timeouts, sandbox, terminal size
  HARNESS_SEARCH_*, HARNESS_FETCH_*, SEARXNG_URL
                                web search sources, limits and timeouts
  HARNESS_TOOLS_NO_RG=1         search files without ripgrep
  HARNESS_WORKERS               a JSON object of worker name: module, to run other builds

exit status: 0 completed, 1 not completed, 2 usage error, 3 provider error,
4 limit reached, 130 interrupted
"""


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` finds it (``COLUMNS``,
    then stdout's terminal, else 80), without importing shutil: it imports the
    compression modules, a good part of what ``--version`` and ``--help`` cost."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, given the width so that it does not import shutil."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``harness``."""
    parser = argparse.ArgumentParser(
        prog="harness",
        description=(
            "A terminal AI coding agent. Run it in a project folder and ask.\n\n"
            "  harness                    the interactive terminal\n"
            "  harness -p TASK            one task, headless; the answer on stdout\n"
            "  harness batch TASKS.jsonl  a headless session per task (harness batch --help)\n"
            "  harness trust              see or approve this project's own configuration "
            "(harness trust --help)\n"
            "  harness hooks              list the hooks, or test one on a sample "
            "(harness hooks --help)\n"
            "  harness mcp login NAME     sign in to an MCP server that needs it "
            "(harness mcp --help)\n"
            "  harness prime              the embedded model reads its shared prompt once "
            "(make install runs it)\n"
            "  harness acp                serve an editor over the Agent Client Protocol (stdio)"
        ),
        epilog=_EPILOG,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    run = parser.add_argument_group("headless runs")
    run.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="TASK",
        help="run one task headless and exit ('-' reads it from stdin)",
    )
    run.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="text (the answer), json (one result object) or stream-json (one event a line)",
    )
    run.add_argument(
        "--verify",
        metavar="CMD",
        help="a shell command run when the model says it is done; failures go back to it",
    )
    run.add_argument(
        "--deepthink",
        action="store_true",
        default=None,
        help="run the task as five stages: plan, check, implement, review, verify",
    )
    run.add_argument(
        "--max-turns",
        type=_positive_int,
        metavar="N",
        help="model requests a run may make (default 50)",
    )
    model = parser.add_argument_group("the model")
    model.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="who answers (default: $HARNESS_PROVIDER, else a running Ollama that has a "
        "model, else the embedded model, local; with --base-url alone: ollama)",
    )
    model.add_argument(
        "--model",
        action="append",
        metavar="NAME",
        help="the model; repeat it (or separate with commas) for models to fail over to",
    )
    model.add_argument("--base-url", metavar="URL", help="the provider's URL")
    model.add_argument(
        "--tool-protocol",
        choices=("native", "text", "auto"),
        help="native tool calls, tool calls as text in the reply, or auto (default)",
    )
    model.add_argument(
        "--tools",
        metavar="LIST",
        help="offer only these built-in tools: names separated by commas, or 'small' for "
        "the short list the embedded model gets (default: all; small for local)",
    )
    model.add_argument(
        "--strict-writes",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write_file only creates files, and edit_file changes only files the model "
        "has read (default: on for local, off for the rest)",
    )
    model.add_argument(
        "--workspace-map",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="put the workspace's files, and what each defines, in the system prompt "
        "(default: off)",
    )
    model.add_argument(
        "--temperature",
        type=_temperature,
        metavar="T",
        help="sampling temperature, 0 to 2 (default: the provider's; 0, greedy, for local)",
    )
    model.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help="sampling seed, so a run can be repeated (where the provider supports one)",
    )
    perms = parser.add_argument_group("permissions")
    perms.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODES,
        help="ask before changes (default; headless without a terminal denies), auto, "
        "plan (no changes; submit a plan) or deny",
    )
    perms.add_argument(
        "--allow",
        action="append",
        metavar="RULE",
        default=[],
        help="allow rule, e.g. 'run_cmd(make test)'",
    )
    perms.add_argument(
        "--deny", action="append", metavar="RULE", default=[], help="deny rule, e.g. 'delete_path'"
    )
    perms.add_argument(
        "--sandbox",
        choices=("off", "workspace-write"),
        help="run shell commands under bubblewrap: the workspace writable, the rest read-only",
    )
    perms.add_argument(
        "--trust-project",
        action="store_true",
        help="trust this workspace's .mcp.json servers, .permissions.json allow rules and hooks "
        "as they are, for this run only (see: harness trust)",
    )
    parser.add_argument(
        "--mcp-config",
        action="append",
        metavar="FILE",
        default=[],
        help="an MCP configuration file beside .mcp.json and $HARNESS_HOME/mcp.json",
    )
    sess = parser.add_argument_group("sessions")
    sess.add_argument("--resume", metavar="ID|TITLE", help="resume a session of this workspace")
    sess.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="resume the latest session of this workspace",
    )
    sess.add_argument(
        "--fork-session",
        action="store_true",
        help="with --resume or --continue: go on in a copy under a new id (the original stays)",
    )
    sess.add_argument(
        "--rewind-to",
        metavar="N",
        type=_positive_int,
        help="with --resume or --continue: go back to before prompt N (numbered from 1 as "
        "/rewind shows them); without -p, only that",
    )
    sess.add_argument(
        "--rewind-only",
        choices=("conversation", "files"),
        help="with --rewind-to: restore only the conversation, or only the files",
    )
    sess.add_argument(
        "--no-session-persistence",
        dest="record",
        action="store_false",
        help="with -p: write no session log (nothing to resume later; batch tasks run so)",
    )
    sess.add_argument(
        "-C",
        "--workspace",
        metavar="DIR",
        help="the project folder (default: the current folder)",
    )
    return parser
