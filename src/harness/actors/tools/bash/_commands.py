"""Each simple command a line runs, and what the program it names runs in turn:
wrappers (``xargs``, ``env``), shells reading a string, ``find -exec``, callbacks,
builtins that redefine commands, git's code-running options, interpreters' inline code."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from harness.actors.tools.bash._nodes import (
    command_words,
    is_pattern,
    long_or_short,
    node_text,
    option_values,
    quoted_short,
)
from harness.actors.tools.bash._syntax import SyntaxWalk
from harness.actors.tools.bash._vocabulary import (
    AWK_RUNS,
    AWKS,
    CREATORS,
    DECLARE,
    EDITORS,
    FIND_EXEC,
    GIT_SAFE_KEYS,
    INLINE_CODE,
    NAME_TAKERS,
    OUTPUT,
    PYTHON,
    RUNS_OPTION,
    SAFE_ENV,
    SED_RUNS,
    SHELLS,
    SOURCES,
    SYSTEM_DIRS,
    WRAPPERS,
)


class Walker(SyntaxWalk):
    """The whole walk: bash's constructs, and each simple command with what the
    program it names runs (wrappers, shells, ``find -exec``, callbacks, git, interpreters)."""

    # ------------------------------------------------------------- one command

    def command(self, node: Any) -> None:
        for child in node.children:
            if child.type == "variable_assignment" and child.child_count:
                name = node_text(child.children[0])
                if not SAFE_ENV.match(name):
                    self.evaluates.append(f"{name}=… changes how the command runs")
        words, nodes = command_words(node)
        if not words:
            return
        if words[0] is None:
            self.uncertain.append(f"the command name {quoted_short(nodes[0])} is computed")
            return
        self.run(words, nodes)

    def run(self, words: list[str | None], nodes: list[Any]) -> None:
        literal = [w if w is not None else node_text(n) for w, n in zip(words, nodes, strict=True)]
        name = literal[0]
        if name != "[" and is_pattern(nodes[0]):
            self.uncertain.append(f"the command name {quoted_short(nodes[0])} is a pattern")
            return
        base = posixpath.basename(name) or name
        if "/" in name and not name.startswith(SYSTEM_DIRS):
            self.runs_local.append(name)
        if base in CREATORS:
            self.creates = True
        self.commands.append(" ".join(literal))
        if base != name:
            self.commands.append(" ".join([base, *literal[1:]]))
        if base in NAME_TAKERS:
            self.builtin_names(base, words, nodes)
        if base in WRAPPERS:
            self.wrapper(base, words, nodes)
        elif base in SHELLS:
            self.shell(words, base)
        elif base in SOURCES:
            if base == "eval" and all(w is not None for w in words[1:]):
                self.walk_source(" ".join(str(w) for w in words[1:]))
            else:
                self.uncertain.append(f"{base} runs code the command line does not show")
        elif base == "find":
            self.find(words, nodes)
        elif base in ("trap", "mapfile", "readarray", "compgen", "complete"):
            self.callbacks(base, words)
        elif base in ("alias", "hash", "enable", "bind", "fc"):
            self.redefines(base, words)
        elif base in AWKS or base in ("sed", "gsed"):
            self.script(base, literal)
        elif base == "git":
            self.git(words)
        elif base in ("test", "["):
            for i, w in enumerate(words[:-1]):
                if w in ("-v", "-R"):
                    self.evaluates.append(f"a {w} test evaluates an array subscript")
                    self.test_operand(nodes[i + 1], f"test {w}")
        else:
            self.interpreter(base, words)

    def builtin_names(self, base: str, words: list[str | None], nodes: list[Any]) -> None:
        args = list(zip(words[1:], nodes[1:], strict=True))
        if base == "let":
            for w, n in args:
                self.arithmetic(w if w is not None else node_text(n), "let")
            return
        if base == "printf":
            targets = option_values(words, "v")
            if targets:
                self.evaluates.append("printf -v assigns through a name bash evaluates")
            for t in targets:
                if t is None:
                    self.untrusted.add(OUTPUT)
                else:
                    self.names_text(t, "printf -v")
            return
        if base in DECLARE or base == "unset":
            self.names([n for w, n in args if not (w or "x").startswith(("-", "+"))], base)
            return
        # read, mapfile, readarray, getopts, wait: every word may name a variable
        for w, _ in args:
            if w is None:
                self.untrusted.add(OUTPUT)
            elif not w.startswith("-"):
                self.names_text(w, base)
            else:
                self.untrusted.add(w.lstrip("-")[1:] or "_")

    def wrapper(self, base: str, words: list[str | None], nodes: list[Any]) -> None:
        self.uncertain.append(f"{base} runs another command")
        for i in range(1, len(words)):
            w = words[i]
            if w is None or w.startswith("-"):
                continue
            m = re.match(r"^([A-Za-z_]\w*)=(.*)$", w, re.DOTALL)
            if m:  # env NAME=value
                self.check_variable(m.group(1), m.group(2))
                continue
            self.run(words[i:], nodes[i:])
            if any(ch in w for ch in " \t\n;|&<>()$`"):
                self.walk_source(w)  # a command line handed over as one string

    def shell(self, words: list[str | None], base: str) -> None:
        """``bash [options] -c SCRIPT [name args]``: the script is the first word after
        the options, wherever ``-c`` stood among them."""
        i, command_string = 1, False
        while i < len(words):
            w = words[i]
            if w is None:
                self.uncertain.append(f"{base} is given a computed option")
                return
            if w in ("--", "-"):
                i += 1
                break
            if w.startswith("--"):
                if w in ("--rcfile", "--init-file", "--login"):
                    self.uncertain.append(f"{base} {w} runs startup files")
                i += 2 if w in ("--rcfile", "--init-file") else 1
                continue
            if len(w) > 1 and w[0] in "-+":
                letters = w[1:]
                command_string = command_string or "c" in letters
                if any(ch in letters for ch in "ils"):
                    self.uncertain.append(f"{base} {w} reads commands the line does not show")
                i += 2 if ("o" in letters or "O" in letters) else 1
                continue
            break
        rest = words[i:]
        if not command_string:
            self.uncertain.append(f"{base} runs a script the command line does not show")
        elif not rest or rest[0] is None:
            self.uncertain.append(f"{base} -c runs a computed string")
        else:
            self.walk_source(rest[0])

    def find(self, words: list[str | None], nodes: list[Any]) -> None:
        for i, w in enumerate(words):
            if w in FIND_EXEC:
                end = i + 1
                while end < len(words) and words[end] not in (";", "+"):
                    end += 1
                if end > i + 1:
                    self.run(words[i + 1 : end], nodes[i + 1 : end])

    def callbacks(self, base: str, words: list[str | None]) -> None:
        """Builtins that keep a command as text and run it later: ``trap ACTION SIG``,
        ``mapfile -C CALLBACK``, ``compgen -C CMD`` / ``-W WORDS`` (expanded)."""
        if base == "trap":
            args = [w for w in words[1:] if w != "--"]
            if not args or (args[0] or "").startswith("-"):
                return  # trap -p, trap -l: only print
            payloads = [args[0]]
        elif base in ("mapfile", "readarray"):
            payloads = option_values(words, "C")
        else:
            payloads = option_values(words, "C")
            for wordlist in option_values(words, "W"):
                if wordlist is None:
                    self.uncertain.append(f"{base} -W expands a computed word list")
                else:
                    self.walk_source(": " + wordlist)
        for payload in payloads:
            if payload is None:
                self.uncertain.append(f"{base} runs a computed command")
            else:
                self.walk_source(payload)

    def redefines(self, base: str, words: list[str | None]) -> None:
        """Builtins that change what a name runs, or run text from elsewhere."""
        opts = "".join((w or "-?")[1:] for w in words[1:] if w is None or w.startswith("-"))
        if base == "alias":
            if any(w is None or "=" in w for w in words[1:]):
                self.uncertain.append("alias makes a name run another command")
        elif base == "hash":
            if "p" in opts or "?" in opts:
                self.uncertain.append("hash -p makes a name run another program")
        elif base == "enable":
            if "f" in opts or "?" in opts:
                self.uncertain.append("enable -f loads a builtin from a shared library")
        elif base == "bind":
            if "x" in opts or "?" in opts:
                self.uncertain.append("bind -x runs a command the line does not show")
        elif "l" not in opts or any(ch in opts for ch in "es?"):
            self.uncertain.append("fc runs commands from the history")

    def script(self, base: str, literal: list[str]) -> None:
        """awk's ``system()`` and pipes, and sed's ``e`` command and ``s///e`` flag, run
        shell commands held in the program text."""
        pattern = AWK_RUNS if base in AWKS else SED_RUNS
        if any(pattern.search(w) for w in literal[1:]):
            self.uncertain.append(f"the {base} program runs shell commands")

    def git(self, words: list[str | None]) -> None:
        """git runs what its configuration names (aliases with ``!``, pagers, editors,
        ``core.fsmonitor``, ``diff.external`` ...): a ``-c`` setting is uncertain unless
        it is one that runs nothing."""
        for i, w in enumerate(words[1:], 1):
            if w is None:
                continue
            if w in ("-c", "--config-env"):
                value = words[i + 1] if i + 1 < len(words) else None
            elif w.startswith(("--config-env=", "--exec-path=")) or w == "--exec-path":
                value = None
            elif w.startswith("-c") and len(w) > 2:
                value = w[2:]
            else:
                continue
            key = (value or "").split("=", 1)[0].lower()
            if value is None or not GIT_SAFE_KEYS.match(key):
                self.uncertain.append(f"git {w} may name a program for git to run")
                return

    def interpreter(self, base: str, words: list[str | None]) -> None:
        """An interpreter's or editor's code given as text (``python -c``, ``vim -c``,
        ``vim +cmd``), up to the script it runs; and the options of other programs that
        take a command line (``tar --to-command``, ``rsync -e``, ``man -P``)."""
        runs = RUNS_OPTION.get(base)
        if runs is not None:
            for value in long_or_short(words, runs):
                if value is None:
                    self.uncertain.append(f"{base} is given a computed command to run")
                else:
                    self.walk_source(value.removeprefix("exec="))
            return
        flags = INLINE_CODE.get("python" if PYTHON.match(base) else base)
        if flags is None:
            return
        editor = base in EDITORS
        for w in words[1:]:
            if w is None:
                continue
            # a short flag may sit in a cluster: `python -Sc CODE`, `perl -ne CODE`
            short = (
                w.startswith("-")
                and not w.startswith("--")
                and any(len(f) == 2 and f[1] in w[1:] for f in flags)
            )
            if w.split("=", 1)[0] in flags or short or (editor and w.startswith("+")):
                self.uncertain.append(f"{base} runs code given as text")
                return
            if (not w.startswith("-") or w == "-m") and not editor:
                return  # the script or module; what follows are its arguments
        if not editor:
            # no script: a REPL, which runs whatever send_input types into it
            self.uncertain.append(f"{base} reads code from its input")
