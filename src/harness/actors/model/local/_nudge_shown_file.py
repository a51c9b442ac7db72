"""The nudge rule for a new file shown and not written (``shown-file``): asked to create
a file it names, the model writes the file's text in a code block of its reply ("Here is
the content of the `sum.js` file:") and no call. The block, as the reply writes it, is
written as the call."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import Nudge
from harness.actors.model.local._turn import EDIT_TOOLS, Turn
from harness.words import PROGRAM, asks_to_write

__all__ = ["ShownFile", "shown_file"]

# a code block of a reply: the word after its fence, and its lines (a block left open at
# the end of the reply counts to there)
_BLOCK = re.compile(r"^[ \t]*```([^\n`]*)\n(.*?)(?:^[ \t]*```|\Z)", re.M | re.S)
# the words a code block's fence names a language by, each with the kind of file it is
_KINDS: dict[str, str] = {
    **dict.fromkeys(("python", "py", "python3"), "python"),
    **dict.fromkeys(("javascript", "js", "node", "mjs", "cjs"), "javascript"),
    **dict.fromkeys(("typescript", "ts"), "typescript"),
    **dict.fromkeys(("bash", "sh", "shell", "zsh"), "shell"),
    **dict.fromkeys(("console", "shell-session", "sh-session"), "session"),
    **dict.fromkeys(("json", "jsonc"), "json"),
    **dict.fromkeys(("yaml", "yml"), "yaml"),
    "toml": "toml",
    **dict.fromkeys(("markdown", "md"), "markdown"),
    **dict.fromkeys(("makefile", "make"), "makefile"),
    **dict.fromkeys(("ini", "editorconfig", "cfg", "conf"), "ini"),
    **dict.fromkeys(("html", "css", "sql", "ruby", "rb", "go", "rust", "java", "c"), "other"),
}
# the kind of a file by its name's ending (a name with no ending: by its whole name)
_FILE_KINDS: dict[str, str] = {
    **dict.fromkeys(("py",), "python"),
    **dict.fromkeys(("js", "mjs", "cjs"), "javascript"),
    "ts": "typescript",
    **dict.fromkeys(("sh", "bash"), "shell"),
    "json": "json",
    **dict.fromkeys(("yaml", "yml"), "yaml"),
    "toml": "toml",
    "md": "markdown",
    **dict.fromkeys(("makefile", "gnumakefile"), "makefile"),
    **dict.fromkeys(("editorconfig", "ini", "cfg"), "ini"),
}


def _kind(path: str) -> str | None:
    """The kind of file *path* names, or ``None`` when its name does not say (a ``.txt``,
    an ``.nvmrc``, a ``.gitignore``: any text)."""
    name = path.rsplit("/", 1)[-1].casefold()
    return _FILE_KINDS.get(name.rsplit(".", 1)[-1] if "." in name else name)


def _fits(tag: str, path: str) -> bool:
    """Whether a block whose fence says *tag* can be the text of *path*: no word, a word
    of no kind harness knows (``plaintext``, ``text``), or the word of the file's own
    kind; for a file whose name gives no kind (``.env.example``), ``bash`` or ``ini``
    too. A ``bash`` block for a ``.py`` file is a command, not the file, and a
    ``console`` block is a terminal's session."""
    said = _KINDS.get(tag.strip().split(" ", 1)[0].casefold())
    if said is None:
        return True
    kind = _kind(path)
    return said == kind or (kind is None and said in ("shell", "ini"))


def _is_call(text: str) -> bool:
    """Whether a block's text is a tool call written out (the call parser's to read)."""
    return "<tool_call>" in text or re.match(r'\s*\{\s*"name"\s*:', text) is not None


# a line of a terminal: a shell's prompt, or a program and what it is given
_COMMAND = re.compile(rf"\s*(?:\$\s|{PROGRAM})")
# a line that runs or makes a file: a program, or a shell's own words for making one
_MAKES = re.compile(rf"\s*(?:\$\s+)?(?:{PROGRAM}|\./|(?:cat|echo|printf|touch|chmod|tee)\b)")


def _commands(text: str, name: str) -> bool:
    """Whether a block's *text* is commands to type, not a file's text: each of its lines
    a command (``python -m unittest discover``), or a line of it runs or makes the file
    named *name* (``bash scripts/hello.sh``, ``cat > scripts/hello.sh <<EOF``). A comment
    that names the file (``# .editorconfig for the project``) is part of the file."""
    lines = [line for line in text.splitlines() if line.strip()]
    if all(_COMMAND.match(line) for line in lines):
        return True
    return any(name in line and _MAKES.match(line) for line in lines)


def shown_file(turn: Turn) -> tuple[str, str] | None:
    """The file *turn*'s prompt asks to have written and the text the reply shows for it:
    the one code block of the reply that can be that file's text: its fence names the
    file's kind or none (:func:`_fits`), it is not a call written out, and not commands
    to type (:func:`_commands`: how to run or make the file, not its text). ``None``
    when no block or more than one can be, or when the prompt names no file to write."""
    path = asks_to_write(turn.prompt)
    if path is None:
        return None
    path = path.removeprefix("./")
    name = path.rsplit("/", 1)[-1]
    shown = [
        m.group(2)
        for m in _BLOCK.finditer(turn.reply)
        if m.group(2).strip()
        and _fits(m.group(1), path)
        and not _is_call(m.group(2))
        and not _commands(m.group(2), name)
    ]
    if len(shown) != 1:
        return None
    text = shown[0].rstrip("\n") + "\n"
    return path, text


class ShownFile:
    """A reply, in a task that asks for a file it names to be written, with no write or
    edit of that file tried yet, that shows the file's text in a code block instead of
    writing it (:func:`shown_file`). Writes that text, as the block writes it, as the
    call: the file the reply offers as done is made, and goes through the permission
    rules as any write does.

    Measured (bench local-tasks, half A, ``create-js-sum``): asked to "Create src/sum.js
    that exports a function sum(numbers) …", the 1.5B model listed the steps it would
    take, showed the module in a ``javascript`` block, and stopped; asked for its
    announced step, it read the missing file, then ran ``npm test`` and ``npm install``,
    and ended by showing the block again. Nothing was written."""

    name: ClassVar[str] = "shown-file"

    def check(self, turn: Turn) -> Nudge | None:
        if "write_file" not in turn.tools:
            return None
        shown = shown_file(turn)
        if shown is None:
            return None
        path, text = shown
        name = path.rsplit("/", 1)[-1]
        for step in turn.steps:
            if step.name in EDIT_TOOLS and (step.path or "").rsplit("/", 1)[-1] == name:
                return None  # written or tried: what came of it is the other rules'
        return Nudge(
            f"The reply shows the text of {path} and does not write it: write it with "
            "write_file, as the reply shows it.",
            "write_file",
            arguments={"path": path, "content": text},
        )
