"""The nudge rules for a new file asked for and not written: shown in a code block of the
reply instead (``shown-file``: "Here is the content of the `sum.js` file:" and no call;
the block, as the reply writes it, is written as the call), or said to be written, or
about to be, with no call (``file-not-written``: the write is asked for)."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import CODE_BLOCK, Nudge, block
from harness.actors.model.local._nudge_changes import OFFERS
from harness.actors.model.local._turn import EDIT_TOOLS, Turn
from harness.failing import PROGRAM
from harness.words import asks_to_write

__all__ = ["FileNotWritten", "ShownFile", "shown_file"]

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
    **{kind: kind for kind in ("html", "css", "sql", "go", "java", "c")},
    **dict.fromkeys(("ruby", "rb"), "ruby"),
    **dict.fromkeys(("rust", "rs"), "rust"),
}
# the kind of a file by its name's ending (a name with no ending: by its whole name)
_FILE_KINDS: dict[str, str] = {
    "py": "python",
    **dict.fromkeys(("js", "mjs", "cjs"), "javascript"),
    "ts": "typescript",
    **dict.fromkeys(("sh", "bash"), "shell"),
    "json": "json",
    **dict.fromkeys(("yaml", "yml"), "yaml"),
    "toml": "toml",
    "md": "markdown",
    **dict.fromkeys(("makefile", "gnumakefile"), "makefile"),
    **dict.fromkeys(("editorconfig", "ini", "cfg"), "ini"),
    **{kind: kind for kind in ("html", "css", "sql", "go", "java", "c")},
    "rb": "ruby",
    "rs": "rust",
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


def _tried(turn: Turn, path: str) -> bool:
    """Whether a write or edit of a file named as *path* is among *turn*'s calls, made
    or tried (a write refused, by the user or a rule, is not to be asked again)."""
    name = path.rsplit("/", 1)[-1]
    return any(
        step.name in EDIT_TOOLS and (step.path or "").rsplit("/", 1)[-1] == name
        for step in turn.steps
    )


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
        for m in CODE_BLOCK.finditer(turn.reply)
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
        if _tried(turn, path):
            return None  # written or tried: what came of it is the other rules'
        return Nudge(
            f"The reply shows the text of {path} and does not write it: write it with "
            "write_file, as the reply shows it.",
            "write_file",
            arguments={"path": path, "content": text},
        )


# a reply that says the file cannot or should not be written: what it needs is not there
# ("apply_discount does not exist, so there is nothing to test")
_WONT = re.compile(
    r"\b(?:cannot|can't|can ?not|unable to|won't|will not|should not|shouldn't)\b"
    r"|\b(?:does not|doesn't|do not|don't) (?:exist|have|define)\b|\bno such\b",
    re.I,
)


class FileNotWritten:
    """A reply, in a task that asks for a file it names to be written, with no write or
    edit of any file tried, that ends the turn saying it wrote the file or will, or
    saying what it does: the write is asked for, bound to ``write_file``. A reply that
    asks a question, offers, or says the file cannot be written (what it needs is not
    there) is left alone; one that shows the file's text is ``shown-file``'s.

    Measured (bench local-tasks, half A): after a search (the ``look-before-write`` of
    its first reading, for ``apply_discount``), asked for ``test_pricing.py``, the 1.5B
    model answered "I created a new file `test_pricing.py` …, wrote a unittest test …
    and ran the tests" with no call (a claim no rule read: a file created is no change
    of one); after the search for "our warehouses", "I created a file named
    `warehouses.txt` … with the contents "lisbon" and "porto"", and no call; asked for a
    script that goes by the loans log, it wrote "I will add a script
    `tools/borrowers.sh` that …" and stopped."""

    name: ClassVar[str] = "file-not-written"

    def check(self, turn: Turn) -> Nudge | None:
        if "write_file" not in turn.tools:
            return None
        path = asks_to_write(turn.prompt)
        if path is None or any(step.name in EDIT_TOOLS for step in turn.steps):
            return None  # a write of any file, or tried: the ending tells a misnamed one
        path = path.removeprefix("./")
        if turn.reply.rstrip().endswith("?") or _WONT.search(turn.reply):
            return None
        if OFFERS.search(turn.reply):  # "If you want, I can write it too."
            return None
        return Nudge(
            f"No call has written {path} yet. Write it now: call write_file with the path "
            f"{path} and the file's whole text. Write " + block("write_file"),
            "write_file",
        )
