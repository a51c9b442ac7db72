"""A write or edit says what it left broken: a file that does not parse (Python, JSON,
TOML; JavaScript, shell and YAML where the change broke a file that parsed), a name a
Python file uses that nothing defines or imports (with the file defining it and the
import that brings it), a test file's own copy of what it tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.actors.tools._readfile import line_hash
from tests.tools.conftest import Call

PRICING = "def apply_discount(price, pct):\n    return price * (100 - pct) / 100\n\nRATE = 0.2\n"


def _tagged(n: int, line: str) -> str:
    """A line of a note, as read_file shows it."""
    return f"\n{n}:{line_hash(line)}|{line}"


# a module using what Python gives and what it binds itself, in every kind of scope
GOOD = '''"""A report."""

from __future__ import annotations

import os
from pathlib import Path as P

try:
    import tomllib
except ImportError:
    tomllib = None

COUNT = 0
LIMIT: int = 3


def bump() -> int:
    global COUNT, LATER
    COUNT += 1
    LATER = COUNT
    return COUNT


class Report:
    kind = "stock"
    width = len(kind)

    def lines(self, rows: list[str]) -> list[str]:
        def pad(r: str) -> str:
            return r.ljust(self.width + LIMIT)

        return [pad(r) for r in rows if r] + [f"{__name__}: {os.sep}{P(__file__).name}"]


def later() -> int:
    return LATER + len(str(tomllib)) + bump() + sum(x for x in range(3))
'''


def test_a_new_file_using_a_name_it_does_not_import(ws: Path, call: Call) -> None:
    (ws / "pricing.py").write_text(PRICING)
    body = (
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_it(self):\n"
        "        self.assertEqual(apply_discount(80, 25), 60)\n"
    )
    out = call("write_file", path="test_pricing.py", content=body)
    assert out.ok
    assert (ws / "test_pricing.py").read_text() == body  # written all the same
    assert out.output == (
        "created test_pricing.py (6 lines)\n"
        "note: apply_discount is used in test_pricing.py but not defined or imported there "
        "(pricing.py:1 defines it: from pricing import apply_discount)"
    )
    fixed = "from pricing import apply_discount\n" + body
    assert "note:" not in call("write_file", path="test_pricing.py", content=fixed).output


def test_a_name_defined_nowhere_and_one_in_a_package(ws: Path, call: Call) -> None:
    (ws / "src" / "shop").mkdir(parents=True)
    (ws / "src" / "shop" / "tax.py").write_text("RATE: float = 0.2\n")
    out = call("write_file", path="main.py", content="print(RATE, totl)\n")
    assert out.output.splitlines()[1:] == [
        "note: RATE is used in main.py but not defined or imported there "
        "(src/shop/tax.py:1 defines it: from shop.tax import RATE)",
        "note: totl is used in main.py but not defined or imported there",
    ]


def test_an_edit_says_only_what_it_brought(ws: Path, call: Call) -> None:
    (ws / "report.py").write_text("total = 3\nprint(f'{total}')\nprint(old_missing)\n")
    out = call("edit_file", path="report.py", old_text="{total}", new_text="{totl}")
    assert out.ok
    assert out.output.endswith(
        "\nnote: totl is used in report.py but not defined or imported there"
    )
    assert "old_missing is used" not in out.output  # undefined before: not its doing
    out = call("edit_file", path="report.py", old_text="{totl}", new_text="{total}")
    assert "note:" not in out.output


def test_a_change_that_breaks_the_parse(ws: Path, call: Call) -> None:
    (ws / "a.py").write_text("def f(x):\n    return x\n")
    out = call("edit_file", path="a.py", old_text="def f(x):", new_text="def f(x:")
    assert out.ok
    assert out.output.endswith(
        "\nnote: a.py does not parse: line 1: '(' was never closed" + _tagged(1, "def f(x:")
    )
    # a change that leaves it broken is told it is still broken; a fix, nothing
    out = call("edit_file", path="a.py", old_text="return x", new_text="return x + 1")
    assert "\nnote: a.py still does not parse: line 1: '(' was never closed\n" in out.output
    out = call("edit_file", path="a.py", old_text="def f(x:", new_text="def f(x):")
    assert "note:" not in out.output
    assert "does not parse" in call("write_file", path="b.py", content="if:\n").output


def test_json_and_toml_that_do_not_parse(ws: Path, call: Call) -> None:
    (ws / "config.json").write_text('{\n  "retries": 7\n  "backoff_ms": 250\n}\n')
    out = call("edit_file", path="config.json", old_text=": 7\n", new_text=": 8\n")
    assert out.output.endswith(
        "\nnote: config.json still does not parse: line 3 column 3: Expecting ',' delimiter"
        ' (line 2 lacks the comma at its end: "retries": 8,)'
        + _tagged(2, '  "retries": 8')
        + _tagged(3, '  "backoff_ms": 250')
    )
    # an edit that changes nothing says the file is still broken too
    out = call("edit_file", path="config.json", old_text=": 8\n", new_text=": 8\n")
    assert out.output.startswith(
        "config.json unchanged (the edits change nothing: new_text is the lines as they "
        "should read, not as they are)\n"
        "note: config.json still does not parse: line 3 column 3"
    )
    # a refused edit of a file that does not parse says where it breaks
    out = call("edit_file", path="config.json", old_text="nowhere", new_text="x")
    assert not out.ok
    assert out.output.endswith(
        "\nnote: config.json does not parse: line 3 column 3: Expecting ',' delimiter"
        ' (line 2 lacks the comma at its end: "retries": 8,)'
        + _tagged(2, '  "retries": 8')
        + _tagged(3, '  "backoff_ms": 250')
    )
    # the note's line copied with its tag is the file's line; the tag is not written
    shown = out.output.splitlines()[-2]
    out = call("edit_file", path="config.json", old_text=shown, new_text=shown + ",")
    assert out.ok, out.output
    assert "note: the edit: read_file's N:HH| tags taken off new_text's lines" not in out.output
    assert "note:" not in out.output
    assert (ws / "config.json").read_text() == '{\n  "retries": 8,\n  "backoff_ms": 250\n}\n'
    # a comma missing inside a line, or after an opening bracket: no line to name
    out = call("write_file", path="inline.json", content='{"a": 1 "b": 2}\n')
    assert out.output.endswith("Expecting ',' delimiter" + _tagged(1, '{"a": 1 "b": 2}'))
    out = call("write_file", path="list.json", content="[\n  1\n  2\n]\n")
    assert "(line 2 lacks the comma at its end: 1,)" in out.output
    # a comma that ends the last member or element (JSON has no trailing comma)
    out = call(
        "write_file", path="screen.json", content='{\n  "notices": [\n    "phones",\n  ]\n}\n'
    )
    assert out.output.endswith(
        'Expecting value (line 3 ends with a comma that nothing follows: "phones")'
        + _tagged(3, '    "phones",')
        + _tagged(4, "  ]")
    )
    out = call("write_file", path="o.json", content='{\n  "a": 1,\n\n}\n')
    assert '(line 2 ends with a comma that nothing follows: "a": 1)' in out.output
    out = call("write_file", path="gap.json", content="[1, ]\n")
    assert "nothing follows" not in out.output
    out = call("write_file", path="settings.toml", content="[app]\nport = \n")
    assert out.output.endswith(
        "note: settings.toml does not parse: Invalid value (at line 2, column 8)"
        + _tagged(1, "[app]")
        + _tagged(2, "port = ")
    )
    # JSON read with comments allowed (tsconfig, editors' settings) is not plain JSON
    commented = '{\n  // strict\n  "strict": true\n}\n'
    for path in ("tsconfig.json", ".vscode/settings.json"):
        assert "note:" not in call("write_file", path=path, content=commented).output


TIDEBOARD = (
    "'use strict';\n\nconst PERIOD = 745;\n\nfunction pad2(n) {\n"
    "  return String(n).padStart(2, '0');\n}\n\nmodule.exports = { PERIOD, pad2 };\n"
)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_a_change_broke(ws: Path, call: Call) -> None:
    (ws / "board").mkdir()
    (ws / "board" / "tideboard.js").write_text(TIDEBOARD)
    # a second declaration: node refuses to load the file, though every line is valid
    out = call(
        "edit_file",
        path="board/tideboard.js",
        old_text="const PERIOD = 745;\n",
        new_text="const PERIOD = 745;\nconst PERIOD = 12 * 60 + 25;\n",
    )
    assert out.ok
    broke = "line 4: SyntaxError: Identifier 'PERIOD' has already been declared"
    assert out.output.endswith(
        f"\nnote: board/tideboard.js does not parse: {broke}"
        + _tagged(3, "const PERIOD = 745;")
        + _tagged(4, "const PERIOD = 12 * 60 + 25;")
    )
    assert out.data["broke"] == broke
    # the fix says nothing, and brings nothing for the ending to read
    out = call(
        "edit_file",
        path="board/tideboard.js",
        old_text="const PERIOD = 12 * 60 + 25;\n",
        new_text="",
    )
    assert "note:" not in out.output
    assert "broke" not in out.data
    assert "unparsed" not in out.data
    # an ES module (it imports) is read as one; a .mjs always, a .cjs never
    module = "import { readFileSync } from 'node:fs';\nexport const a = 1;\n"
    (ws / "m.js").write_text(module)
    out = call("edit_file", path="m.js", old_text="= 1;", new_text="= (1;")
    assert "note: m.js does not parse: line 2: SyntaxError: Unexpected token ';'" in out.output
    (ws / "c.cjs").write_text(module)
    assert "note:" not in call("edit_file", path="c.cjs", old_text="= 1", new_text="= 2").output


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_dialect_that_did_not_parse_before_is_not_said(ws: Path, call: Call) -> None:
    # JSX in a .js file: node cannot read it, so a change to it says nothing
    (ws / "App.js").write_text("export default function App() {\n  return <p>hi</p>;\n}\n")
    out = call("edit_file", path="App.js", old_text="<p>hi</p>", new_text="<p>hello</p>")
    assert out.ok
    assert "note:" not in out.output
    assert "broke" not in out.data
    # (the ending still learns that it does not parse: a file this run broke stays so)
    assert out.data["unparsed"].startswith("line 2: SyntaxError: Unexpected token '<'")
    # a new file is no change of a file that parsed: nothing is said of it
    out = call("write_file", path="new.js", content="const a = (1;\n")
    assert "note:" not in out.output
    assert "broke" not in out.data
    # a Helm template is no YAML PyYAML reads, before or after
    (ws / "chart.yaml").write_text("replicas: {{ .Values.replicas }}\nname: {{ .Release }}\n")
    out = call("edit_file", path="chart.yaml", old_text="name: {{", new_text="name:  {{")
    assert "note:" not in out.output


def test_shell_and_yaml_a_change_broke(ws: Path, call: Call) -> None:
    (ws / "backup.sh").write_text("#!/bin/bash\nif [ -d out ]; then\n  echo ok\nfi\n")
    out = call("edit_file", path="backup.sh", old_text="fi\n", new_text="")
    assert out.ok
    assert "\nnote: backup.sh does not parse: line 4: syntax error: unexpected end of file" in (
        out.output
    )
    # a script with no suffix is known by its first line
    (ws / "deploy").write_text("#!/usr/bin/env bash\necho $(date)\n")
    out = call("edit_file", path="deploy", old_text="$(date)", new_text="$(date")
    assert "note: deploy does not parse: line 3: unexpected EOF while looking for matching" in (
        out.output
    )
    (ws / "alerts.yaml").write_text("tank:\n  warn_after_hours: 2\n  notify: ops\n")
    out = call("edit_file", path="alerts.yaml", old_text="  notify: ops", new_text=" notify: ops")
    assert out.output.endswith(
        "\nnote: alerts.yaml does not parse: line 3 column 2: did not find expected key"
        + _tagged(2, "  warn_after_hours: 2")
        + _tagged(3, " notify: ops")
    )
    assert out.data["broke"] == "line 3 column 2: did not find expected key"


def test_the_checking_programs_run_nothing_the_environment_names(
    ws: Path, call: Call, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bash sources BASH_ENV and node requires NODE_OPTIONS' modules before reading any
    # text: the checks start them with PATH alone, so neither runs
    ran = tmp_path / "ran"
    (tmp_path / "env.sh").write_text(f"touch {ran}\n")
    (tmp_path / "env.js").write_text(f"require('fs').writeFileSync('{ran}', '')\n")
    monkeypatch.setenv("BASH_ENV", str(tmp_path / "env.sh"))
    monkeypatch.setenv("NODE_OPTIONS", f"--require={tmp_path / 'env.js'}")
    (ws / "a.sh").write_text("echo a\n")
    out = call("edit_file", path="a.sh", old_text="echo a", new_text="echo $(a")
    assert "note: a.sh does not parse" in out.output
    if shutil.which("node"):
        (ws / "a.js").write_text("const a = 1;\n")
        out = call("edit_file", path="a.js", old_text="= 1;", new_text="= (1;")
        assert "note: a.js does not parse" in out.output
    assert not ran.exists()


CONFIG = (
    '{\n  "services": {\n    "payment": {\n      "retries": 7\n      "backoff_ms": 250\n'
    '    },\n    "email": {\n      "retries": 2,\n      "backoff_ms": 1000\n    }\n  }\n}\n'
)


def test_a_deletion_that_leaves_the_file_broken_is_not_written(ws: Path, call: Call) -> None:
    """The edit seen wrecking a JSON file: old text running past the lines meant, new
    text only those lines; each such edit deleted the section it carried along."""
    (ws / "config.json").write_text(CONFIG)
    carried = '      "backoff_ms": 250\n    },\n    "email": {\n      "retries": 2,\n'
    out = call("edit_file", path="config.json", old_text=carried, new_text=carried[:24])
    assert not out.ok
    assert out.output.startswith(
        "not written: this change only deletes lines of config.json (6-8, from '},'), and "
        "would leave it not parsing: line 5 column 7: Expecting ',' delimiter"
        ' (line 4 lacks the comma at its end: "retries": 7,)'
    )
    assert "give as old_text only the lines to change" in out.output
    assert (ws / "config.json").read_text() == CONFIG
    # the whole file written back without its lines: the same, said for a write
    half = "".join(CONFIG.splitlines(keepends=True)[:6])
    out = call("write_file", path="config.json", content=half)
    assert not out.ok
    assert out.output.startswith("not written: this change only deletes lines of config.json")
    assert out.output.endswith("Write the whole file as it should read, every line")
    assert (ws / "config.json").read_text() == CONFIG
    # the fix is written; so is a deletion that leaves the file parsing, and one of a
    # file of no format checked here, and a change that adds as well as deletes
    out = call("edit_file", path="config.json", old_text="7\n", new_text="7,\n")
    assert out.ok
    assert "note:" not in out.output
    email = '    },\n    "email": {\n      "retries": 2,\n      "backoff_ms": 1000\n'
    assert call("edit_file", path="config.json", old_text=email, new_text="").ok
    assert json.loads((ws / "config.json").read_text()) == {
        "services": {"payment": {"retries": 7, "backoff_ms": 250}}
    }
    (ws / "notes.txt").write_text("a\nb\nc\n")
    assert call("edit_file", path="notes.txt", old_text="b\nc\n", new_text="b\n").ok
    (ws / "a.py").write_text("def f():\n    return 1\n")
    out = call("edit_file", path="a.py", old_text="    return 1\n", new_text="    pass\n")
    assert out.ok
    out = call("edit_file", path="a.py", old_text="def f():\n    pass\n", new_text="def f():\n")
    assert not out.ok
    assert "(2, from 'pass')" in out.output


def test_what_python_gives_and_binds_is_no_note(ws: Path, call: Call) -> None:
    assert "note:" not in call("write_file", path="good.py", content=GOOD).output
    # a star import may bind anything (from a module that is there: one that is not is said)
    (ws / "pricing.py").write_text(PRICING)
    starred = "from pricing import *\nprint(apply_discount(1, 2), anything)\n"
    assert "note:" not in call("write_file", path="star.py", content=starred).output
    # not Python: not checked
    assert "note:" not in call("write_file", path="notes.txt", content="print(x)\n").output
    assert "note:" not in call("write_file", path="x.js", content="f(:\n").output


def test_a_rename_is_said_once(ws: Path, call: Call) -> None:
    (ws / "main.py").write_text("from util import helper\n\nprint(helper(21))\n")
    out = call("edit_file", path="main.py", old_text="import helper", new_text="import compute")
    assert "helper (this edit renamed it to compute) is still used" in out.output
    assert "helper is used in" not in out.output


def test_a_test_file_defining_its_own_copy_of_what_it_tests(ws: Path, call: Call) -> None:
    (ws / "pricing.py").write_text(PRICING)
    body = (
        "import unittest\n\n\ndef apply_discount(price, pct):\n    return 60\n\n\n"
        "class T(unittest.TestCase):\n    def test_it(self):\n"
        "        self.assertEqual(apply_discount(80, 25), 60)\n"
    )
    out = call("write_file", path="tests/test_pricing.py", content=body)
    assert out.output.endswith(
        "\nnote: tests/test_pricing.py defines its own apply_discount, so its tests check "
        "that copy, not pricing.py's (pricing.py:1); import it instead: "
        "from pricing import apply_discount"
    )
    # a helper of its own, or a module that is not a test: no note
    helper = body.replace("apply_discount", "discounted")
    assert "note:" not in call("write_file", path="test_other.py", content=helper).output
    assert "note:" not in call("write_file", path="shop.py", content=body).output


def test_an_import_of_a_module_that_is_nowhere(ws: Path, call: Call) -> None:
    # measured (bench local-tasks, half A): the 1.5B model's test of a day pass
    (ws / "fees.py").write_text(
        "def day_pass(kind):\n    return 36 if kind == 'electric' else 20\n"
    )
    (ws / "fleet.py").write_text("BIKES = []\n")
    (ws / "test_old.py").write_text("")
    body = (
        "import unittest\nimport json\nimport yaml\n"
        "from project.electric_bike import calculate_day_pass_cost\n\n\n"
        "class T(unittest.TestCase):\n    def test_it(self):\n"
        "        self.assertEqual(calculate_day_pass_cost('electric'), 36)\n"
    )
    out = call("write_file", path="test_fees.py", content=body)
    assert out.ok
    # the standard library and what Python here imports (PyYAML) are no note; the
    # workspace's modules are named, its tests not
    assert out.output.splitlines()[1:] == [
        "note: test_fees.py imports project.electric_bike, which is no module of this "
        "workspace and none Python here can import (the workspace's modules: fees, fleet)"
    ]
    fixed = body.replace("project.electric_bike", "fees").replace(
        "calculate_day_pass_cost", "day_pass"
    )
    assert "note:" not in call("write_file", path="test_fees.py", content=fixed).output


def test_a_name_a_module_of_the_workspace_does_not_define(ws: Path, call: Call) -> None:
    (ws / "src" / "shop").mkdir(parents=True)
    (ws / "src" / "shop" / "tax.py").write_text(
        "from __future__ import annotations\n\nimport math\n\nRATE: float = 0.2\n\n\n"
        "def with_tax(price):\n    return math.floor(price * (1 + RATE))\n\n\n"
        "if __name__ == '__main__':\n    LOCAL = 1\n"
    )
    (ws / "src" / "shop" / "__init__.py").write_text("")
    (ws / "src" / "shop" / "cart.py").write_text("")
    body = (
        "from shop.tax import with_tax, plus_tax, math, LOCAL\n"
        "from shop import cart, tax\n"
        "print(with_tax(3), plus_tax(3), math.pi, LOCAL, cart, tax)\n"
    )
    out = call("write_file", path="main.py", content=body)
    # an import the module makes, a name bound on a branch, and a submodule are there;
    # the names shown are the module's own
    assert out.output.splitlines()[1:] == [
        "note: main.py imports plus_tax from shop.tax, but src/shop/tax.py does not define "
        "plus_tax (it defines LOCAL, RATE, with_tax)"
    ]
    # an import that was there before the change is not the change's to say
    out = call("edit_file", path="main.py", old_text="print(", new_text="print(1, ")
    assert "note:" not in out.output


def test_a_search_result_written_as_a_file_is_said(ws: Path, call: Call) -> None:
    # measured (bench local-tasks): asked for RUNNING.md after a search, the 1.5B model
    # wrote the search's lines as the page
    (ws / "README.md").write_text("# Shop\n\n- `python3 report.py` prints the stock report.\n")
    (ws / "report.py").write_text('"""Print the stock report: python3 report.py"""\n')
    found = call("search_text", pattern="stock report").output
    hits = [line for line in found.splitlines() if line.startswith(("README.md:", "report.py:"))]
    assert len(hits) == 2
    out = call("write_file", path="RUNNING.md", content="\n".join(hits) + "\n")
    assert out.ok  # written all the same
    assert out.output.splitlines()[1:] == [
        f"note: RUNNING.md holds 2 lines of a search's result as it was printed ({hits[0]!r}), "
        "not text of its own: write what the file should say"
    ]
    # a page in its own words, times that look like hits, a line not as the file has it
    for text in (
        "# Running\n\nPrint the stock report: `python3 report.py`\n",
        "08:30:00 open\nREADME.md:3:something else\nREADME.md:99:past the end\n",
    ):
        assert "note:" not in call("write_file", path="NOTES.md", content=text).output
        (ws / "NOTES.md").unlink()


def test_the_checks_read_nothing_outside_the_workspace(ws: Path, call: Call) -> None:
    # a file outside, reached by ../ or by a symlink in the workspace: a note that
    # compared a line with it, or named what it defines, would tell what it holds
    outside = ws.parent / "secret.py"
    outside.write_text("API_KEY_NAME = 'x'\n\n\ndef hidden_helper():\n    pass\n")
    (ws / "linked.py").symlink_to(outside)
    text = "../secret.py:1:API_KEY_NAME = 'x'\nlinked.py:1:API_KEY_NAME = 'x'\n"
    assert "note:" not in call("write_file", path="NOTES.md", content=text).output
    out = call("write_file", path="main.py", content="from linked import nothing_here\n")
    assert "hidden_helper" not in out.output
    assert "API_KEY_NAME" not in out.output
    assert "imports linked, which is no module of this workspace" in out.output
