"""The manual (README.md and docs/*.md) names only what exists, and names everything a
user can reach.

Both directions, for the tools the model is offered, the command line's flags and the
environment variables harness reads. (Slash commands are checked against their one
declaration in the terminal's tests.) The README is the front page; the manual is the
README and the pages of docs/ read together.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import attrs

from harness.actors.search import SOURCES
from harness.actors.shell import ShellConfig
from harness.actors.tools import builtin_table
from harness.cli._batch import build_batch_parser
from harness.cli._mcp import build_mcp_parser
from harness.cli._parser import build_parser
from harness.cli._trust import build_trust_parser
from harness.hooks import build_hooks_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README = "\n\n".join(p.read_text(encoding="utf-8") for p in PAGES)
SOURCE = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "src").rglob("*.py")))

# Variables harness sets for its own processes, or that only tests and developers use.
INTERNAL_VARIABLES = {
    "HARNESS_IPC_FD",  # a worker's end of its channel
    "HARNESS_MAX_FRAME",  # the frame limit a worker is started with
    "HARNESS_WORKER_NAME",  # who a worker is
    "HARNESS_WORKER_TAG",  # marks a worker's whole process tree for the sweep
    "HARNESS_SHELL_SESSION",  # marks a command's processes inside the shell worker
    "HARNESS_WORKERS",  # replace worker modules: for testing other worker builds
    "HARNESS_TOOLS_NO_RG",  # force the Python search fallback (tests)
    "HARNESS_MCP_TIME_SCALE",  # shorten the MCP bridge's reconnect waits (tests)
    "HARNESS_BATCH_RUN",  # the batch run a Ray worker works for (its node's task server)
    "HARNESS_CONTEXT_TIME_SCALE",  # shorten the context features' bounds (tests)
    "HARNESS_FORK_WARM",  # leave a session's fork server warm out (tests)
}
# Flags of other programs (aider's in the README's comparison), of example prompts, and of
# the embedded model's own command (python -m harness.actors.model.local), that the manual
# shows.
# flags of other programs the manual names (git, aider, sort, tar)
FOREIGN_FLAGS = {
    "--short",
    "--verbose",
    "--portable",
    "--message",
    "--watch-files",
    "--compress-program",
    "--to-command",
    "--strict",  # a hook script's own flag, in docs/hooks.md's example
    "--check",  # node's, which checks a JavaScript file an edit changed (docs/usage.md)
}


def _expand_braces(text: str) -> set[str]:
    """``HARNESS_MODEL_{CONNECT,IDLE}_TIMEOUT`` -> both names."""
    out: set[str] = set()
    for head, alts, tail in re.findall(r"([A-Z_]+)\{([A-Z_,]+)\}([A-Z_]*)", text):
        out.update(f"{head}{alt}{tail}" for alt in alts.split(","))
    return out


def _variables_in_code() -> set[str]:
    names = set(
        re.findall(r'"((?:HARNESS|OLLAMA|OPENAI|ANTHROPIC|GEMINI)_[A-Z0-9_]*[A-Z0-9])"', SOURCE)
    )
    names |= _expand_braces(SOURCE)
    names |= {"HARNESS_SHELL_" + f.name.upper() for f in attrs.fields(ShellConfig)}
    names |= {f"HARNESS_SEARCH_{s.upper()}_URL" for s in SOURCES if s != "searxng"}
    return names


def _variables_in_readme() -> set[str]:
    return set(
        re.findall(
            r"`((?:HARNESS|OLLAMA|OPENAI|ANTHROPIC|GEMINI|GOOGLE)_[A-Z0-9_]+)(?:=[^`]*)?`", README
        )
    ) | _expand_braces(README)


def test_every_variable_the_readme_names_is_read() -> None:
    code = _variables_in_code() | {"GOOGLE_API_KEY"}
    missing = sorted(v for v in _variables_in_readme() if v not in code and v not in SOURCE)
    assert not missing, f"the manual names variables nothing reads: {missing}"


def test_every_harness_variable_is_in_the_readme() -> None:
    readme = _variables_in_readme()
    missing = sorted(
        v
        for v in _variables_in_code()
        if v.startswith("HARNESS_") and v not in INTERNAL_VARIABLES and v not in readme
    )
    assert not missing, f"variables harness reads that the manual does not name: {missing}"


def _flags() -> set[str]:
    out: set[str] = set()
    parsers = [
        build_parser(),
        build_batch_parser(),
        build_trust_parser(),
        build_hooks_parser(),
        build_mcp_parser(),
    ]
    for parser in parsers:
        for action in parser._actions:  # argparse has no public list of its options
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())  # harness hooks list|test, mcp login
            if isinstance(action, argparse._HelpAction):
                continue
            out.update(s for s in action.option_strings if s.startswith("--"))
    return out


def test_every_flag_is_in_the_readme() -> None:
    missing = sorted(f for f in _flags() if f"`{f}" not in README and f"{f} " not in README)
    assert not missing, f"flags the manual does not name: {missing}"


def test_every_flag_the_readme_names_exists() -> None:
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", README))
    unknown = sorted(named - _flags() - FOREIGN_FLAGS - {"--help"})
    assert not unknown, f"the manual names flags harness does not have: {unknown}"


def test_every_tool_is_in_the_readme() -> None:
    names = list(builtin_table().names())
    assert len(names) > 15
    missing = [n for n in names if f"`{n}" not in README]
    assert not missing, f"tools the manual does not name: {missing}"


def test_every_tool_the_readme_lists_exists() -> None:
    table = set(builtin_table().names())
    rows = re.findall(r"^\| `([a-z_]+)\(", README, flags=re.M)
    assert len(rows) > 5
    unknown = sorted(set(rows) - table)
    assert not unknown, f"the manual lists tools that do not exist: {unknown}"


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors for a page's headings."""
    heads = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_the_manual_has_its_pages_and_its_links_resolve() -> None:
    names = {p.name for p in PAGES}
    for page in ("usage.md", "configuration.md", "security.md", "providers.md", "mcp.md",
                 "subagents.md", "search.md", "batch.md", "api.md", "ARCHITECTURE.md"):  # fmt: skip
        assert page in names, page
    broken = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target, anchor in re.findall(r"\]\(([^)#\s:]*)(?:#([^)\s]*))?\)", text):
            path = (page.parent / target).resolve() if target else page
            if not path.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{page.name}: {target}#{anchor}")
    assert not broken, f"links to what does not exist: {broken}"


def test_the_front_page_is_a_front_page() -> None:
    front = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = front.splitlines()
    assert 150 <= len(lines) <= 250, len(lines)
    first_screen = "\n".join(lines[:60])
    assert "docs/screenshot.svg" in first_screen
    assert "make run" in first_screen
    assert "cd ~/myproject && harness" in first_screen
