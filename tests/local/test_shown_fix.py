"""A fix shown and not made (the ``shown-fix`` rule): the reply writes back a file it read
with a line or two changed, and the edit of those lines is written as the call; run with
the real read and edit tools on real files, and the files checked by what reads them
(Python's TOML parser, node)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

from harness.actors.model import SMALL_MODEL, parse_reply
from harness.actors.model.local._guide import TAKEN_PREFIX, Guide
from harness.actors.model.local._nudge import nudge_for
from harness.actors.model.local._turn import turn_of
from harness.actors.tools._dispatch import read_file
from harness.actors.tools._files import edit_file
from harness.actors.tools._jail import Workspace
from harness.messages.local import LocalModelProgress
from harness.messages.model import TextDelta

from ._chains import TOOLS, history, write
from .test_stop_at_announcement import Scripted, _call, _run

SETTINGS = """# Settings of the shop's back office.

[server]
host = "127.0.0.1"
port = 9412
workers 3
request_timeout = 45

[stock]
low_stock_threshold = 4
"""
CART = """'use strict';

function addToCart(cart, item) {
  cart.lines.push(item);
  return cart;
}

function removeFromCart(cart, sku) {
  const index = cart.lines.findIndex((l) => l.sku === sku);
  if (index !== -1) {
    cart.lines.splice(index, 2);
  }
  return cart;
}

module.exports = { addToCart, removeFromCart };
"""


def _toml_error(root: Path) -> str:
    """Python's own error for the broken settings, as the user pastes it."""
    try:
        tomllib.loads((root / "settings.toml").read_text())
    except tomllib.TOMLDecodeError as e:
        return f"tomllib.TOMLDecodeError: {e}"
    raise AssertionError("settings.toml parses")


def _asked(root: Path, prompt: str, path: str, reply: str) -> tuple[str, dict[str, object]] | None:
    """The rule and the call the profile's rules write for *reply*, after the real read
    of *path* for *prompt*."""
    read = read_file(Workspace(root), {"path": path}).output
    turn = turn_of(tuple(history(prompt, [("read_file", {"path": path}, read)])), reply, TOOLS)
    said = nudge_for(turn, SMALL_MODEL.nudges)
    if said is None or said.arguments is None:
        return None
    return said.rule, dict(said.arguments)


def _fenced(text: str, kind: str = "") -> str:
    return f"```{kind}\n{text}```"


def test_a_fixed_settings_file_shown_is_the_edit_and_then_it_parses(tmp_path: Path) -> None:
    write(tmp_path, {"settings.toml": SETTINGS})
    prompt = f"Loading settings.toml fails with:\n\n{_toml_error(tmp_path)}\n\nFix the file."
    fixed = SETTINGS.replace("workers 3", "workers = 3")
    reply = "The key needs an equals sign. Here is the corrected file:\n\n" + _fenced(fixed, "toml")
    asked = _asked(tmp_path, prompt, "settings.toml", reply)
    assert asked == (
        "shown-fix",
        {"path": "settings.toml", "old_text": "workers 3", "new_text": "workers = 3"},
    )
    edit_file(Workspace(tmp_path), asked[1])
    assert tomllib.loads((tmp_path / "settings.toml").read_text())["server"]["workers"] == 3


def test_a_function_shown_fixed_is_the_edit_of_its_line_and_node_runs_it(tmp_path: Path) -> None:
    write(tmp_path, {"src/cart.js": CART})
    prompt = "removeFromCart in src/cart.js removes two lines of the cart instead of one. Fix it."
    # the block is the function alone, the line it changes three lines into it
    function = CART[CART.index("function removeFromCart") : CART.index("module.exports")]
    reply = "Change the 2 to 1:\n\n" + _fenced(function.replace("index, 2", "index, 1"), "js")
    asked = _asked(tmp_path, prompt, "src/cart.js", reply)
    assert asked == (
        "shown-fix",
        {
            "path": "src/cart.js",
            "old_text": "    cart.lines.splice(index, 2);",
            "new_text": "    cart.lines.splice(index, 1);",
        },
    )
    edit_file(Workspace(tmp_path), asked[1])
    script = (
        "const c = require('./src/cart.js');"
        "const cart = {lines: [{sku: 'a'}, {sku: 'b'}, {sku: 'c'}]};"
        "console.log(JSON.stringify(c.removeFromCart(cart, 'a').lines.map((l) => l.sku)));"
    )
    ran = subprocess.run(["node", "-e", script], cwd=tmp_path, capture_output=True, text=True)
    assert json.loads(ran.stdout) == ["b", "c"], ran.stderr


def test_a_line_on_other_lines_too_is_given_the_lines_before_it(tmp_path: Path) -> None:
    twice = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 2\n    return x\n"
    write(tmp_path, {"calc.py": twice})
    prompt = "In calc.py, b should return x + 1."
    reply = _fenced("def b():\n    x = 2\n    return x + 1\n", "python")
    asked = _asked(tmp_path, prompt, "calc.py", reply)
    assert asked is not None
    assert asked[1] == {
        "path": "calc.py",
        "old_text": "    x = 2\n    return x",
        "new_text": "    x = 2\n    return x + 1",
    }
    edit_file(Workspace(tmp_path), asked[1])
    assert (tmp_path / "calc.py").read_text() == twice.replace(
        "x = 2\n    return x", "x = 2\n    return x + 1"
    )


def test_a_block_that_is_no_small_fix_where_the_request_points_is_left_to_the_other_rules(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"settings.toml": SETTINGS, "src/cart.js": CART})
    prompt = f"Loading settings.toml fails with:\n\n{_toml_error(tmp_path)}\n\nFix the file."
    for block in (
        # a line far from the one the error names (line 6): a change nobody asked for
        SETTINGS.replace("low_stock_threshold = 4", "low_stock_threshold = 5"),
        # a figure neither the line nor the request holds: the model's own value
        SETTINGS.replace("workers 3", "workers = 4"),
        # three lines changed: a rewrite, not a fix
        SETTINGS.replace("workers 3", "workers = 3")
        .replace("9412", "9413")
        .replace("= 45", "= 46"),
        # a line added, or one left out
        SETTINGS.replace("workers 3", "workers = 3\nthreads = 2"),
        SETTINGS.replace("workers 3\n", ""),
        # a line replaced by another
        SETTINGS.replace("workers 3", "[database]"),
        # the same file, spaced otherwise
        SETTINGS.replace("port = 9412", "port = 9412   "),
    ):
        asked = _asked(tmp_path, prompt, "settings.toml", _fenced(block, "toml"))
        assert asked is None or asked[0] != "shown-fix", block
    fixed = _fenced(SETTINGS.replace("workers 3", "workers = 3"))
    # a question, not a request for a change
    asked = _asked(tmp_path, "Why does settings.toml fail to load?", "settings.toml", fixed)
    assert asked is None or asked[0] != "shown-fix"
    # a call written in a block is the call parser's
    call = '<tool_call>{"name": "write_file", "arguments": {"path": "settings.toml"}}'
    asked = _asked(tmp_path, prompt, "settings.toml", _fenced(call + "\n" + SETTINGS))
    assert asked is None or asked[0] != "shown-fix"
    # once a file changed, what the reply shows is no longer the file as read
    read = read_file(Workspace(tmp_path), {"path": "settings.toml"}).output
    edit = {"path": "settings.toml", "old_text": "port = 9412", "new_text": "port = 9413"}
    edited = edit_file(Workspace(tmp_path), dict(edit)).output
    steps = [("read_file", {"path": "settings.toml"}, read), ("edit_file", edit, edited)]
    turn = turn_of(tuple(history(prompt, steps)), fixed, TOOLS)
    said = nudge_for(turn, SMALL_MODEL.nudges)
    assert said is None or said.rule != "shown-fix"


async def test_the_guide_writes_the_edit_after_the_reply_that_shows_it(tmp_path: Path) -> None:
    write(tmp_path, {"settings.toml": SETTINGS})
    prompt = f"Loading settings.toml fails with:\n\n{_toml_error(tmp_path)}\n\nFix the file."
    read = read_file(Workspace(tmp_path), {"path": "settings.toml"}).output
    call = _call(prompt, *history(prompt, [("read_file", {"path": "settings.toml"}, read)])[1:])
    reply = "Here is the file with the equals sign:\n\n" + _fenced(
        SETTINGS.replace("workers 3", "workers = 3"), "toml"
    )
    script = Scripted([reply])
    out = await _run(Guide(), call, script)
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        TAKEN_PREFIX + "shown-fix"
    ]
    assert len(script.asked) == 1  # written, no generation asked
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole.startswith(reply)
    written = parse_reply(whole, {}).calls  # as the conversation reads it: one call
    assert [(c.name, c.arguments) for c in written] == [
        (
            "edit_file",
            {"path": "settings.toml", "old_text": "workers 3", "new_text": "workers = 3"},
        )
    ]
