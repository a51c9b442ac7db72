"""The cost of one permission decision for a shell command, on a realistic mix.

``Permissions.decide("run_cmd", ...)`` with a deny rule and an allow rule, in auto mode
(deny rules checked against every simple command, uncertain commands found) and in plan
mode (the strict read-only reading on top), over commands of four kinds: simple, piped,
wrapped and denied. Two baselines are measured in the same run, in alternation with
each decision: the tree-sitter-bash parse of the same command alone (the floor of any
reading of it), and the decision for a read-only tool (``read_file``), which parses
nothing. Figures are medians of the time per command across the mix, each decision
made with an empty cache of parsed commands (a command seen for the first time).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench._timing import paired
from harness.actors.tools import Permissions, builtin_table
from harness.actors.tools.bash import analyse

MIX: dict[str, list[str]] = {
    "simple": ["ls -la", "git status --short", "pytest -q tests/test_a.py", "cat README.md"],
    "piped": [
        "cat a.txt | grep -n foo | wc -l",
        "git log --oneline -20 | head -5",
        "find . -name '*.py' | sort | head",
        "make 2>&1 | tail -20",
    ],
    "wrapped": [
        "timeout 60 make test",
        "env CI=1 npm run build",
        "find . -name '*.pyc' -exec echo {} +",
        "bash -c 'cd src && ls'",
    ],
    "denied": [
        "rm -rf build",
        "(cd x && rm -f y)",
        "echo done; r\\\nm -f x",
        "trap 'rm -f x' EXIT",
    ],
}
RUNS = 300


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs"


def _each(commands: list[str], fn: Callable[[str], object]) -> Callable[[], None]:
    def go() -> None:
        for c in commands:
            fn(c)

    return go


def run() -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-permissions-") as tmp:
        home, ws = Path(tmp) / "home", Path(tmp) / "ws"
        home.mkdir()
        ws.mkdir()
        rules = {"allow": ["run_cmd(git *)", "run_cmd(ls*)"], "deny": ["run_cmd(rm *)"]}
        (home / "permissions.json").write_text(json.dumps(rules))
        perms = Permissions(builtin_table(), workspace=ws, home=home, mode="auto")

        import tree_sitter_language_pack as tslp

        parser = tslp.get_parser("bash")

        def parse(command: str) -> object:
            return parser.parse(command.encode())

        def decide(command: str) -> object:
            analyse.cache_clear()  # a command seen for the first time, as a model's are
            return perms.decide("run_cmd", {"command": command})

        def read_tool(_command: str) -> object:
            return perms.decide("read_file", {"path": "README.md"})

        every = [c for commands in MIX.values() for c in commands]
        floor, lookup, _ = paired(_each(every, read_tool), _each(every, parse), RUNS)
        rows.append(("read_file decision (baseline)", _us(floor / len(every)), "parses nothing"))
        rows.append(("tree-sitter parse alone (baseline)", _us(lookup / len(every)), ""))
        for mode in ("auto", "plan"):
            perms.set_mode(mode)
            for kind, commands in MIX.items():
                n = len(commands)
                base, spent, ratio = paired(_each(commands, parse), _each(commands, decide), RUNS)
                _, _, versus_tool = paired(_each(commands, read_tool), _each(commands, decide), 50)
                rows.append(
                    (
                        f"run_cmd decision, {mode} mode, {kind}",
                        _us(spent / n),
                        f"{ratio:.1f}x its parse ({_us(base / n)}), "
                        f"{versus_tool:.1f}x a read_file decision",
                    )
                )
    return rows
