"""Render docs/screenshot.svg, the README's picture of a session, from a real session.

::

    python scripts/screenshot.py          # write docs/screenshot.svg
    python scripts/screenshot.py --check  # exit 1 when docs/screenshot.svg is out of date

The session is real: harness's own workers read, edit and run in a folder made for the
picture, the permission gate asks, and ``/undo`` reverts. Only the model is scripted (the
tests' loopback server, ``tests.scripted``), and what the terminal draws comes from the
terminal's own pieces (the header, the prompt line, ``RunView``, the approval block, the
``/undo`` line) on a rich console that records. Times are the one thing that changes from
run to run, so the view's clock is fixed and each tool call and run is drawn with a set
duration: the same code gives the same picture, and a test checks that it still does.
"""

from __future__ import annotations

import argparse
import difflib
import io
import sys
import tempfile
from pathlib import Path

import attrs
import trio
from rich.console import Console
from rich.text import Text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.scripted, when run as a script

from tests.scripted import ScriptedModel, call, reply  # noqa: E402

from harness._version import __version__  # noqa: E402
from harness.api import ApprovalRequest, Decision, open_session  # noqa: E402
from harness.cli.tui._approval import approval_renderable  # noqa: E402
from harness.cli.tui._view import RunView  # noqa: E402
from harness.conversation import events as ev  # noqa: E402

OUT = ROOT / "docs" / "screenshot.svg"
WIDTH = 88

CALC = '''def add(a, b):
    """The sum of a and b."""
    return a - b


def mul(a, b):
    return a * b
'''

PROMPT = "add() in calc.py gives the wrong answer. Fix it and check."
SCRIPT = [
    reply("", call("read_file", path="calc.py"), usage=(1850, 18)),
    reply(
        "`add` subtracts. Fixing it:",
        call("edit_file", path="calc.py", old_text="return a - b", new_text="return a + b"),
        usage=(1990, 41),
    ),
    reply(
        "",
        call("run_cmd", command="python3 -c 'from calc import add; print(add(2, 3))'"),
        usage=(2080, 30),
    ),
    reply(
        "Fixed: `add` in **calc.py** returned `a - b`; it now returns `a + b`, "
        "and `add(2, 3)` prints 5.",
        usage=(2150, 33),
    ),
]
# Seconds drawn for each tool call, and for the whole run.
TOOL_SECONDS = {"read_file": 0.04, "edit_file": 0.12, "run_cmd": 0.38}
RUN_SECONDS = 6.4


def _fixed_times(event: ev.ConversationEvent) -> ev.ConversationEvent:
    if isinstance(event, ev.ToolCallFinished):
        return attrs.evolve(event, duration=TOOL_SECONDS.get(event.name, 0.01))
    if isinstance(event, ev.Result):
        return attrs.evolve(event, duration=RUN_SECONDS)
    return event


async def _session(console: Console, folder: Path) -> None:
    workspace, home = folder / "myproject", folder / "home"
    workspace.mkdir()
    home.mkdir()
    (workspace / "calc.py").write_text(CALC)
    view = RunView(console, live=False, clock=lambda: 0.0, provider="openai", model="scripted")

    async def approve(request: ApprovalRequest) -> Decision:
        # what the terminal does: the block, then the key the user pressed
        console.print(approval_renderable(request, width=console.width))
        console.print(Text("  → approved", style="green"))
        return "yes"

    def prompt(line: str) -> None:
        console.print(Text.assemble(("❯ ", "bold cyan"), line))

    console.print(
        Text.assemble(("harness ", "bold cyan"), (__version__, "cyan"), ("  ~/myproject", "dim"))
    )
    with ScriptedModel(SCRIPT) as model:
        async with open_session(
            workspace=str(workspace),
            home=str(home),
            provider="openai",
            model="scripted",
            base_url=model.base_url,
            approver=approve,
        ) as session:
            prompt(PROMPT)
            async for event in session.stream(PROMPT):
                view.handle(_fixed_times(event))
            view.close()
            prompt("/undo")
            undone = await session.undo()
            console.print(Text(undone.message, style="green" if undone.ok else "yellow"))
            for path in undone.paths:
                console.print(Text(f"  {path}", style="dim"))
    if "return a - b" not in (workspace / "calc.py").read_text():
        raise RuntimeError("/undo did not bring the old calc.py back")


def render() -> str:
    """The SVG of a fresh session."""
    console = Console(
        file=io.StringIO(),
        record=True,
        width=WIDTH,
        color_system="truecolor",
        force_terminal=True,
        highlight=False,
        _environ={},
    )
    with tempfile.TemporaryDirectory(prefix="harness-screenshot-") as tmp:
        trio.run(_session, console, Path(tmp))
    return console.export_svg(title="harness")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    svg = render()
    if not args.check:
        OUT.write_text(svg, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
        return 0
    old = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    if old == svg:
        return 0
    diff = difflib.unified_diff(old.splitlines(), svg.splitlines(), "committed", "now", n=1)
    print("\n".join(list(diff)[:40]))
    print(f"{OUT.relative_to(ROOT)} is out of date: run python scripts/screenshot.py")
    return 1


if __name__ == "__main__":
    sys.exit(main())
