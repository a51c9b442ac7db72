"""A Makefile's recipe lines start with a tab: lines a write or edit indented with spaces
are given one, and the result says so.

make reads a recipe line indented with spaces as no recipe at all ("missing separator.
Stop."), and a model writing a file as text indents with spaces: measured (bench
local-tasks, the fresh set's third batch, half A), the 1.5B model asked for a Makefile
whose test target runs the tests wrote ``test:`` and ``    python3 -m unittest``, saw
"created Makefile", and said it was done; ``make test`` failed. Space-indented lines in a
rule's block are never right there, so they are mended as editors for Makefiles do, not
refused: the model cannot see the difference it would be asked to make.
"""

from __future__ import annotations

import re

__all__ = ["is_makefile", "tab_recipes"]

# a rule's first line: targets, a colon that is no assignment (":=", "::="), prerequisites
_RULE = re.compile(r"^[^\s#=][^=]*?::?(?![=:])")
# make's conditionals and includes: they do not end a rule's recipe
_DIRECTIVE = re.compile(r"^(ifeq|ifneq|ifdef|ifndef|else|endif|include|-include)\b")


def is_makefile(shown: str) -> bool:
    """Whether the file at *shown* is one make reads (``Makefile``, ``GNUmakefile``,
    ``*.mk``)."""
    name = shown.rsplit("/", 1)[-1]
    return name in ("Makefile", "makefile", "GNUmakefile") or name.endswith(".mk")


def tab_recipes(text: str) -> tuple[str, int]:
    """*text* with each recipe line indented with spaces indented with a tab instead, and
    how many lines that changed. A line continuing the one before it (``\\``), lines of a
    ``define`` block, and a file that sets its own ``.RECIPEPREFIX`` are left alone."""
    if ".RECIPEPREFIX" in text:
        return text, 0
    lines = text.split("\n")
    in_rule = in_define = False
    mended = 0
    for i, line in enumerate(lines):
        continued = i > 0 and lines[i - 1].endswith("\\")
        if in_define:
            in_define = not line.strip().startswith("endef")
            continue
        if line.startswith("define ") or line.strip() == "define":
            in_define, in_rule = True, False
            continue
        if not line.strip() or line.startswith("\t") or continued:
            continue
        if line[0] == " ":
            if in_rule:
                lines[i] = "\t" + line.lstrip(" \t")
                mended += 1
            continue
        if _DIRECTIVE.match(line) or line.startswith("#"):
            continue
        in_rule = _RULE.match(line) is not None
    return "\n".join(lines), mended
