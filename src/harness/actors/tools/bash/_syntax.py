"""The walk over bash's own constructs: what a line assigns, evaluates as
arithmetic, expands, redirects, tests and declares. Each simple command it meets
goes to :meth:`SyntaxWalk.command`, which :class:`~._commands.Walker` gives."""

from __future__ import annotations

import re
from typing import Any

from harness.actors.tools.bash._nodes import node_text, parse_tree, unquote, without_continuations
from harness.actors.tools.bash._vocabulary import (
    ARITH_TESTS,
    CODE_VARS,
    COMMAND_VARS,
    IDENT,
    INTEGER,
    MAX_NESTING,
    OUTPUT,
    SAFE_TARGETS,
    SUBSTITUTION,
    TEXT_LEAVES,
    VARIABLE_NAME,
)


class SyntaxWalk:
    def __init__(self) -> None:
        self.commands: list[str] = []
        self.uncertain: list[str] = []
        self.evaluates: list[str] = []
        self.writes = False
        self.depth = 0
        # names whose values bash evaluates (arithmetic, subscripts, ${x@P}), and names
        # this line sets to something other than a number
        self.evaluated: set[str] = set()
        self.untrusted: set[str] = set()
        # programs run by a path outside the system's folders (or through a PATH set on
        # the line), and whether the line makes files (a link to rm named ./ls ...)
        self.runs_local: list[str] = []
        self.creates = False

    # ------------------------------------------------------------------ the tree

    def walk_source(self, source: str) -> None:
        if self.depth > 8:
            self.uncertain.append("commands nested too deep to follow")
            return
        self.depth += 1
        joined = without_continuations(source)
        self.walk(parse_tree(joined))
        if joined != source:
            self.walk(parse_tree(source))  # both readings: deny rules see more, never less
        self.depth -= 1

    def walk(self, node: Any, level: int = 0) -> None:
        if level > MAX_NESTING:
            self.uncertain.append("commands nested too deep to follow")
            return
        kind = node.type
        if kind == "ERROR" or node.is_missing:
            self.uncertain.append("the command does not parse as bash")
        elif kind == "word" and "\n" in node_text(node):
            # bash ends a command at an unquoted newline; tree-sitter-bash sometimes reads
            # one into a word (`echo x<newline>\rm v` as one command): it misread the line
            self.uncertain.append("the grammar misreads a line break in this command")
        elif kind in TEXT_LEAVES and SUBSTITUTION.search(node_text(node)):
            # tree-sitter-bash leaves some substitutions as text (`${x:-`rm v`}`); bash
            # runs them, so the text is read again
            text = node_text(node)
            self.walk_source(f': "{text}"' if kind == "string_content" else ": " + text)
        elif kind == "command":
            self.command(node)
        elif kind == "declaration_command":
            self.declaration(node)
        elif kind == "unset_command":
            self.names([c for c in node.children if c.is_named], "unset")
        elif kind == "test_command":
            self.test(node)
        elif kind == "arithmetic_expansion":
            self.arithmetic(node_text(node), "arithmetic")
        elif kind == "c_style_for_statement":
            head = "".join(node_text(c) for c in node.children if c.type != "do_group")
            self.arithmetic(head, "a for (( )) loop")
        elif kind == "subscript":
            index = node.child_by_field_name("index")
            if index is not None and node_text(index) not in ("@", "*"):
                self.arithmetic(node_text(index), "an array subscript")
        elif kind == "expansion":
            self.expansion(node)
        elif kind == "variable_assignment":
            self.assignment(node)
        elif kind == "for_statement":
            self.loop(node)
        elif kind == "file_redirect":
            self.redirect(node)
        elif kind == "heredoc_redirect":
            self.heredoc(node)
        for child in node.children:
            self.walk(child, level + 1)

    def redirect(self, node: Any) -> None:
        ops = [c.type for c in node.children if not c.is_named]
        if not any(">" in op for op in ops):
            return
        dest = node.child_by_field_name("destination")
        value = None if dest is None else unquote(dest)
        if dest is not None and dest.type == "number" and any(op.endswith("&") for op in ops):
            return  # 2>&1: a descriptor, not a file
        if value not in SAFE_TARGETS:
            self.writes = True

    def heredoc(self, node: Any) -> None:
        """A here-document whose delimiter is unquoted is expanded like a double-quoted
        string: its command substitutions run. tree-sitter-bash leaves some of them as
        plain text (backquotes, ``<<-``), so the body is read again as such a string."""
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        if start is None or body is None or any(ch in node_text(start) for ch in "'\"\\"):
            return
        text = node_text(body)
        if "$" in text or "`" in text:
            # a backslash escapes the same characters in both, but `"` only in the string
            self.walk_source(': "' + text.replace('"', '\\"') + '"')

    def command(self, node: Any) -> None:
        """One simple command; :class:`~harness.actors.tools.bash._commands.Walker` reads it."""
        raise NotImplementedError

    # ------------------------------------------------------- text bash evaluates

    def arithmetic(self, text: str, where: str) -> None:
        """*text* is evaluated as arithmetic: each name in it is looked up and its value
        evaluated in turn, command substitutions in a subscript included."""
        names = set(VARIABLE_NAME.findall(text))
        if SUBSTITUTION.search(text):
            names.add(OUTPUT)
        if re.search(r"\$[0-9@*_-]|\$\{[0-9@*_-]", text):
            names.add("$1")  # a positional or special parameter: any text at all
        if names:
            self.evaluated |= names
            self.evaluates.append(f"{where} evaluates the value of a variable as code")

    def evaluate_literal(self, text: str, where: str) -> None:
        """A literal string bash evaluates (a quoted subscript, ``compgen -W``): its
        command substitutions run, so they are parsed like the rest of the line."""
        if "$" in text or "`" in text:
            self.walk_source(": " + text)
        if "[" in text:
            self.arithmetic(text[text.index("[") :], where)

    def expansion(self, node: Any) -> None:
        tokens = [c.type for c in node.children]
        name = node.child_by_field_name("name") or next(
            (c for c in node.children if c.type == "variable_name"), None
        )
        var = node_text(name) if name is not None else ""
        if "@" in tokens:
            self.evaluates.append("a ${x@...} transformation expands its value again")
            if "P" in tokens and var:
                self.evaluated.add(var)
        if ":" in tokens:  # ${x:offset:length}: both are arithmetic
            i = tokens.index(":")
            self.arithmetic("".join(node_text(c) for c in node.children[i + 1 : -1]), "${x:n}")
        if var and any(t in tokens for t in ("=", ":=")):
            self.untrusted.add(var)

    def assignment(self, node: Any) -> None:
        target = node.children[0] if node.child_count else None
        if target is not None and target.type == "subscript":
            target = target.children[0]
        name = node_text(target) if target is not None else ""
        value_node = node.children[-1] if node.child_count >= 3 else None
        value = None if value_node is None else unquote(value_node)
        self.check_variable(name, value, node.child_count < 3)
        numeric = value_node is not None and (
            value_node.type == "arithmetic_expansion"
            or (value is not None and INTEGER.match(value) is not None)
        )
        if not numeric and node.child_count >= 3:
            self.untrusted.add(name)

    def check_variable(self, name: str, value: str | None, empty: bool = False) -> None:
        """An assignment of *value* (``None``: computed) to *name*, anywhere on the line."""
        if name == "PATH" and not empty:
            self.runs_local.append("PATH=")
            self.evaluates.append("PATH= may make a name run a program from the workspace")
        if name in CODE_VARS or name.startswith("BASH_FUNC_"):
            if not empty:
                self.uncertain.append(f"{name}= makes bash run code the command line does not show")
        elif name in COMMAND_VARS:
            if value is None:
                self.uncertain.append(f"{name} is set to a computed command")
            elif value:
                self.walk_source(value)

    def loop(self, node: Any) -> None:
        var = node.child_by_field_name("variable")
        if var is None:
            return
        values = node.children_by_field_name("value")
        if not values or any(
            v.type != "number" and not INTEGER.match(unquote(v) or "x") for v in values
        ):
            self.untrusted.add(node_text(var))

    def names(self, args: list[Any], builtin: str) -> None:
        """Arguments of a builtin that name variables (``read x``, ``unset 'a[$(…)]'``,
        ``printf -v x``): each is set to text, and a subscript in one is evaluated."""
        for arg in args:
            value = unquote(arg)
            if value is None:
                self.untrusted.add(OUTPUT)  # a computed name: anything may be set
                continue
            name, eq, rest = value.partition("=")
            if IDENT.match(name) or "[" in name:
                base = name.split("[", 1)[0]
                self.untrusted.add(base)
                self.check_variable(base, rest if eq else None, not eq)
                if "[" in name:
                    self.evaluate_literal(name, f"{builtin}'s subscript")
                    self.evaluates.append(f"{builtin} evaluates an array subscript")

    def test(self, node: Any) -> None:
        first = node.children[0].type if node.child_count else ""
        if first == "((":
            self.arithmetic(node_text(node)[2:-2], "arithmetic")
            return
        stack = list(node.children)
        while stack:
            n = stack.pop()
            if n.type == "unary_expression":
                op = n.children[0] if n.child_count else None
                if op is not None and node_text(op) in ("-v", "-R"):
                    self.evaluates.append(f"a {node_text(op)} test evaluates an array subscript")
                    for operand in n.children[1:]:
                        self.test_operand(operand, "[[ -v ]]")
            elif n.type == "binary_expression":
                ops = [c for c in n.children if c.type == "test_operator"]
                if ops and node_text(ops[0]) in ARITH_TESTS:
                    for operand in n.children:
                        if operand.type != "test_operator":
                            self.test_operand(operand, "[[ -eq ]]")
            stack.extend(n.children)

    def test_operand(self, operand: Any, where: str) -> None:
        value = unquote(operand)
        if value is not None:
            self.evaluate_literal(value, where)
            if not INTEGER.match(value):
                self.arithmetic(value, where)
        else:
            self.arithmetic(node_text(operand), where)

    def declaration(self, node: Any) -> None:
        keyword = node_text(node.children[0]) if node.child_count else "declare"
        args = [c for c in node.children[1:] if c.is_named and c.type != "variable_assignment"]
        options = "".join(
            (unquote(a) or "")[1:] for a in args if (unquote(a) or "").startswith(("-", "+"))
        )
        names = [a for a in args if not (unquote(a) or "x").startswith(("-", "+"))]
        self.names(names, keyword)
        if "i" in options or "n" in options:
            self.evaluated |= {(unquote(a) or OUTPUT).split("[", 1)[0] for a in names}
        if any(ch in options for ch in "aAni"):
            self.evaluates.append(f"{keyword} -{options} may evaluate what it is given")
        for child in node.children:
            if child.type != "variable_assignment":
                continue
            if "i" in options or "n" in options:
                # an integer's every value is arithmetic; a nameref's value is a name
                # (with a subscript) bash evaluates each time it is used
                self.evaluated.add(node_text(child.children[0]).split("[", 1)[0])
            if child.children and child.children[0].type == "subscript":
                self.evaluates.append(f"{keyword} evaluates an array subscript")
            value = child.children[-1] if child.child_count >= 3 else None
            if value is not None and value.type == "array":
                self.evaluates.append(f"{keyword} sets an array")
            if ("i" in options or "n" in options) and value is not None:
                self.test_operand(value, f"{keyword} -{options}")
            if "n" in options and value is not None:
                # a nameref: what is assigned through it lands in the variable it names
                self.names_text(unquote(value) or OUTPUT, f"{keyword} -n")

    def names_text(self, text: str, where: str) -> None:
        """*text* names a variable a builtin sets to text nobody can see here."""
        base = text.split("[", 1)[0]
        self.untrusted.add(base)
        self.check_variable(base, None)
        if "[" in text:
            self.evaluate_literal(text, where)
