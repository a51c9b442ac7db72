"""tree-sitter outlines and queries, offline, for the common languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.tools.conftest import Call

SOURCES = {
    "m.py": (
        "import os\n\nclass Greeter(Base):\n    def hello(self, name: str) -> str:\n"
        "        return name\n\n@cache\ndef main():\n    pass\n",
        ["class Greeter(Base)", "def hello(self, name: str) -> str", "def main()"],
    ),
    "m.js": (
        "class A {\n  run(x) { return x }\n}\nfunction go(a, b) { return a }\n"
        "const arrow = (z) => z * 2;\n",
        ["class A", "run(x)", "function go(a, b)", "arrow = (z) => z * 2"],
    ),
    "m.ts": (
        "interface Shape { area(): number }\nexport class Sq implements Shape {\n"
        "  area(): number { return 1 }\n}\ntype Id = string;\n",
        ["interface Shape", "class Sq implements Shape", "area(): number", "type Id = string;"],
    ),
    "m.go": (
        "package main\n\ntype Point struct { X int }\n\nfunc (p Point) Len() int { return 0 }\n"
        "func main() {}\n",
        ["Point struct", "func (p Point) Len() int", "func main()"],
    ),
    "m.rs": (
        "struct P { x: i32 }\nimpl P {\n    fn new() -> Self { P { x: 0 } }\n}\nfn main() {}\n",
        ["struct P", "impl P", "fn new() -> Self", "fn main()"],
    ),
    "M.java": (
        "public class M {\n  public M() {}\n  int add(int a, int b) { return a + b; }\n}\n",
        ["public class M", "public M()", "int add(int a, int b)"],
    ),
    "m.c": (
        "struct pt { int x; };\nstatic int add(int a, int b) { return a + b; }\n",
        ["struct pt", "static int add(int a, int b)"],
    ),
    "m.cpp": (
        "namespace ns {\nclass K {\n public:\n  void f();\n};\n}\nint main() { return 0; }\n",
        ["namespace ns", "class K", "int main()"],
    ),
    "m.rb": (
        "module Mod\n  class C\n    def hi(x)\n      x\n    end\n  end\nend\n",
        ["module Mod", "class C", "def hi(x)"],
    ),
    "m.sh": ("greet() {\n  echo hi\n}\nfunction other { :; }\n", ["greet()", "function other"]),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_skeleton_lists_definitions_with_lines(ws: Path, call: Call, name: str) -> None:
    source, expected = SOURCES[name]
    (ws / name).write_text(source)
    out = call("get_code_skeleton", path=name)
    assert out.ok, out.output
    body = out.output.splitlines()[1:]
    sigs = [re.sub(r"^\s*\d+(-\d+)?\s+", "", ln) for ln in body]
    for want in expected:
        assert any(s.startswith(want) for s in sigs), (want, out.output)
    assert "return" not in "\n".join(sigs)  # no bodies


def test_skeleton_nests_methods_and_gives_line_ranges(ws: Path, call: Call) -> None:
    (ws / "m.py").write_text(SOURCES["m.py"][0])
    lines = call("get_code_skeleton", path="m.py").output.splitlines()
    assert lines[0] == "m.py (python, 10 lines)"
    assert lines[1] == "      3-5  class Greeter(Base)"
    assert lines[2] == "      4-5    def hello(self, name: str) -> str"
    assert lines[3] == "      8-9  def main()"


def test_query_ast(ws: Path, call: Call) -> None:
    (ws / "m.py").write_text(SOURCES["m.py"][0])
    out = call("query_ast", path="m.py", query="(function_definition name: (identifier) @fn)")
    assert out.ok
    assert out.output.splitlines() == ["4:9 @fn identifier: hello", "8:5 @fn identifier: main"]
    none = call("query_ast", path="m.py", query="(lambda) @l")
    assert none.output == "no captures"


def test_bad_queries_and_files(ws: Path, call: Call) -> None:
    (ws / "m.py").write_text("x = 1\n")
    (ws / "notes.xyz").write_text("x\n")
    (ws / "bin.c").write_bytes(b"int\x00main")
    bad = call("query_ast", path="m.py", query="(no_such_node) @x")
    assert not bad.ok
    assert "bad tree-sitter query" in bad.output
    assert "no tree-sitter grammar" in call("get_code_skeleton", path="notes.xyz").output
    assert "binary" in call("get_code_skeleton", path="bin.c").output
    broken = ws / "broken.py"
    broken.write_text("def f(:\n  pass\nclass Ok:\n  pass\n")
    out = call("get_code_skeleton", path="broken.py")
    assert out.ok
    assert "syntax errors" in out.output
