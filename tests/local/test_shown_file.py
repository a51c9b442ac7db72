"""A new file asked for and not written: the reply shows the file's text in a code block
and makes no call, and that text is written as the call (the ``shown-file`` rule), run
with the real write tool on real folders and the files checked by what runs them (node,
bash); or the reply says it wrote the file, or will, and the write is asked for (the
``file-not-written`` rule)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from harness.actors.model import SMALL_MODEL, parse_reply
from harness.actors.model.local._guide import TAKEN_PREFIX, Guide
from harness.actors.model.local._nudge import nudge_for
from harness.actors.model.local._turn import turn_of
from harness.actors.tools._files import write_file
from harness.actors.tools._jail import Workspace
from harness.actors.tools._search import search_text
from harness.messages.local import LocalModelProgress
from harness.messages.model import TextDelta

from ._chains import TOOLS, history, write
from .test_stop_at_announcement import Scripted, _call, _run

SUM = """module.exports = {
  sum: function(numbers) {
    return numbers.reduce((acc, num) => acc + num, 0);
  }
};
"""
# the first reply of the run this rule was written for (bench local-tasks, create-js-sum)
STEPS = """To create the `src/sum.js` file with the specified content, I will follow these steps:

1. Open the `src` directory in the workspace.
2. Create a new file named `sum.js`.
3. Write the content of the file as specified.

Here is the content of the `sum.js` file:

```javascript
{text}```

After creating the file, I will check the content to ensure it matches the expected output.
"""
SUM_PROMPT = (
    "Create src/sum.js that exports a function sum(numbers) returning the sum of an array "
    "of numbers (module.exports = { sum })."
)
HELLO_PROMPT = "Create scripts/hello.sh, a bash script that prints exactly: hello from the shop"


def _asked(prompt: str, reply: str, steps: list[tuple[str, dict[str, object], str]] | None = None):
    """The rule and the call the profile's rules write for *reply* to *prompt*."""
    turn = turn_of(tuple(history(prompt, steps or [])), reply, TOOLS)
    said = nudge_for(turn, SMALL_MODEL.nudges)
    if said is None or said.arguments is None:
        return None
    return said.rule, dict(said.arguments)


def test_a_module_shown_is_written_and_node_loads_it(tmp_path: Path) -> None:
    write(tmp_path, {"src/cart.js": "module.exports = {};\n"})
    asked = _asked(SUM_PROMPT, STEPS.format(text=SUM))
    assert asked == ("shown-file", {"path": "src/sum.js", "content": SUM})
    assert write_file(Workspace(tmp_path), asked[1]).output.startswith("created src/sum.js")
    script = "console.log(require('./src/sum.js').sum([1, 2, 3.5]))"
    ran = subprocess.run(["node", "-e", script], cwd=tmp_path, capture_output=True, text=True)
    assert json.loads(ran.stdout) == 6.5, ran.stderr


def test_a_script_shown_with_how_to_run_it_is_the_script_and_bash_runs_it(tmp_path: Path) -> None:
    script = '#!/bin/bash\necho "hello from the shop"\n'
    reply = (
        "Here is the script:\n\n```bash\n" + script + "```\n\n"
        "Run it with:\n\n```bash\nbash scripts/hello.sh\n```\n"
    )
    asked = _asked(HELLO_PROMPT, reply)
    assert asked == ("shown-file", {"path": "scripts/hello.sh", "content": script})
    assert write_file(Workspace(tmp_path), asked[1]).output.startswith("created")
    ran = subprocess.run(["bash", "scripts/hello.sh"], cwd=tmp_path, capture_output=True, text=True)
    assert ran.stdout == "hello from the shop\n"


def test_a_block_that_cannot_be_the_file_is_left_to_the_other_rules() -> None:
    for reply in (
        # how to make it or run it, not its text: it names the file
        "```bash\ncat > scripts/hello.sh <<EOF\necho hello from the shop\nEOF\n```",
        "```\n./scripts/hello.sh\n```",
        "```bash\n$ chmod +x scripts/hello.sh\n$ ./scripts/hello.sh\n```",
        # a block of another kind than the file's
        '```python\nprint("hello from the shop")\n```',
        "```console\n$ echo hello from the shop\n```",
        # two blocks that could each be it: which one is not the rule's to choose
        '```bash\necho "hello from the shop"\n```\n\nor\n\n```bash\nprintf "hello"\n```',
        # a call written in a block is the call parser's
        '```json\n{"name": "write_file", "arguments": {"path": "x"}}\n```',
        # no block at all
        "I will create scripts/hello.sh.",
    ):
        asked = _asked(HELLO_PROMPT, reply)
        assert asked is None or asked[0] != "shown-file", reply
    # a question, or a change to a file that is there: no file to write
    block = '```bash\necho "hello from the shop"\n```'
    for prompt in ("What does scripts/hello.sh print?", "Fix the echo in scripts/hello.sh."):
        asked = _asked(prompt, block)
        assert asked is None or asked[0] != "shown-file", prompt


def test_a_block_of_commands_beside_the_file_is_not_the_file(tmp_path: Path) -> None:
    test = (
        "import unittest\n\n\nclass T(unittest.TestCase):\n"
        "    def test_one(self):\n        self.assertEqual(1, 1)\n"
    )
    reply = (
        f"Here's the code for the unittest:\n\n```python\n{test}```\n\n"
        "Then, I will run the following command:\n\n```\npython -m unittest discover\n```\n"
    )
    prompt = "Could you put a unittest for litres_for in a new test_schedule.py?"
    # after look-before-write's search, as the guide writes it before any reply
    looked = "schedule.py:14:def litres_for(crop: str, area_m2: float, moisture: int) -> float:"
    asked = _asked(prompt, reply, [("search_text", {"pattern": "litres_for"}, looked)])
    assert asked == ("shown-file", {"path": "test_schedule.py", "content": test})
    assert write_file(Workspace(tmp_path), asked[1]).output.startswith("created")
    ran = subprocess.run(
        ["python3", "-m", "unittest", "-q", "test_schedule"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    # a comment that names the file is the file's own
    config = "# .editorconfig of the project\n[*.py]\nindent_size = 4\n"
    prompt = "Add an .editorconfig so editors indent Python with 4 spaces."
    asked = _asked(prompt, f"Here is the content:\n\n```ini\n{config}```")
    assert asked == ("shown-file", {"path": ".editorconfig", "content": config})


def test_a_file_of_no_known_kind_takes_a_plain_or_shell_block() -> None:
    prompt = "Create .env.example with two lines: DATABASE_URL= and LOG_LEVEL=info"
    text = "DATABASE_URL=\nLOG_LEVEL=info\n"
    for fence in ("", "plaintext", "bash", "ini"):
        asked = _asked(prompt, f"Here it is:\n\n```{fence}\n{text}```")
        assert asked == ("shown-file", {"path": ".env.example", "content": text}), fence
    asked = _asked(prompt, f"```python\n{text}```")
    assert asked is None or asked[0] != "shown-file"


def test_once_the_file_was_written_or_tried_the_block_is_not_written_again(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    arguments: dict[str, object] = {"path": "src/sum.js", "content": SUM}
    tried = [("write_file", arguments, write_file(ws, dict(arguments)).output)]
    asked = _asked(SUM_PROMPT, STEPS.format(text=SUM), tried)
    assert asked is None or asked[0] != "shown-file"
    # a write refused (the user said no): what came of it is the other rules'
    refused = [("write_file", arguments, "denied by the user")]
    asked = _asked(SUM_PROMPT, STEPS.format(text=SUM), refused)
    assert asked is None or asked[0] != "shown-file"


async def test_the_guide_writes_the_file_after_the_reply_that_shows_it() -> None:
    reply = STEPS.format(text=SUM)
    script = Scripted([reply])
    out = await _run(Guide(), _call(SUM_PROMPT), script)
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        TAKEN_PREFIX + "shown-file"
    ]
    assert len(script.asked) == 1  # written, no generation asked
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole.startswith(reply)
    written = parse_reply(whole, {}).calls  # as the conversation reads it: one call
    assert [(c.name, c.arguments) for c in written] == [
        ("write_file", {"path": "src/sum.js", "content": SUM})
    ]


def test_a_file_said_written_or_about_to_be_is_asked_for(tmp_path: Path) -> None:
    write(tmp_path, {"pricing.py": "def apply_discount(price, percent):\n    return price\n"})
    prompt = "Create test_pricing.py with a unittest test that apply_discount(80, 25) returns 60."
    looked = search_text(Workspace(tmp_path), {"pattern": "apply_discount"}).output
    steps: list[tuple[str, dict[str, object], str]] = [
        ("search_text", {"pattern": "apply_discount"}, looked)
    ]
    for reply in (
        # the reply of the run this rule was written for (bench local-tasks, half A)
        "I created a new file `test_pricing.py` in the project folder, wrote a unittest test "
        "for `apply_discount`, and ran the tests to ensure it passed.",
        "I will add the test to test_pricing.py.",
        "",
    ):
        turn = turn_of(tuple(history(prompt, steps)), reply, TOOLS)
        said = nudge_for(turn, SMALL_MODEL.nudges)
        assert said is not None, reply
        assert (said.rule, said.tool, said.arguments) == ("file-not-written", "write_file", None)
        assert "test_pricing.py" in said.text
    for reply in (
        "Which folder should the test go in?",
        "apply_discount does not exist, so there is nothing to test.",
        "If you want, I can write the test as well.",
    ):
        turn = turn_of(tuple(history(prompt, steps)), reply, TOOLS)
        said = nudge_for(turn, SMALL_MODEL.nudges)
        assert said is None or said.rule != "file-not-written", reply
    # written, or tried and refused: not asked again
    made = ("write_file", {"path": "test_pricing.py", "content": "import unittest\n"})
    for result in (write_file(Workspace(tmp_path), dict(made[1])).output, "denied by the user"):
        turn = turn_of(tuple(history(prompt, [*steps, (*made, result)])), "Done.", TOOLS)
        said = nudge_for(turn, SMALL_MODEL.nudges)
        assert said is None or said.rule != "file-not-written", result
