"""What a file command becomes when typed: its prompt with arguments, command output
and files filled in.

:func:`expand_command` reads the template once, left to right, and finds its
directives in the file's own text before any argument is put in:

- ``!`cmd` `` anywhere, or a line that starts with ``!cmd``: *cmd* is run through the
  *run_shell* the caller hands in (the session, which applies its permission rules
  and approval prompt: a project's command file is untrusted input) and its output
  takes the directive's place. A command the rules refuse is inlined as refused.
- ``@path``: the file's text, added after the prompt in a fenced block (the
  reference stays where it was written), when *path* is a file inside the workspace
  that the file tools may read (the workspace jail: no ``..`` out, no symlink out, no
  ``.env`` or ``.git``); ``@name`` that names no file is left as written (an e-mail
  address, a decorator).
- ``$ARGUMENTS`` (everything typed after the name) and ``$1`` … ``$9`` (the words,
  split as a shell would). Without any placeholder, typed arguments are added at the
  end, so nothing typed is lost.

Arguments, command output and file text are put in as text: none of them is read
again for directives, so a file or an argument holding ``!`rm -rf ~` `` runs nothing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable
from pathlib import Path

import attrs

from harness.custom._commands import FileCommand

__all__ = ["MAX_INLINE", "Expansion", "ShellRunner", "expand_command", "shell_allowed"]

#: Characters of one command's output, or one file, put into the prompt.
MAX_INLINE = 20_000

#: Runs one ``!`` command under the session's rules: ``(ran, text)``, where *text*
#: is the output when it ran and the reason when it did not.
ShellRunner = Callable[[str], Awaitable[tuple[bool, str]]]

_DIRECTIVE = re.compile(
    r"!`(?P<inline>[^`\n]+)`"  # !`git status`
    r"|^!(?P<line>[^\s\[=`].*)$"  # a line that is a command; not ![image](...)
    r"|(?<![\w@/.`])@(?P<file>[\w./~+-]+)",  # @src/app.py, not a@b.c nor `@x`
    re.MULTILINE,
)
_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9])(?![0-9])")


@attrs.frozen
class Expansion:
    """A typed file command, expanded.

    Attributes:
        prompt: what the model is asked.
        ran: the ``!`` commands run, in order.
        refused: ``(command, why)`` for each ``!`` command not run.
        files: the ``@`` files put in, workspace-relative.
        notes: what the user should know (a file not read and why, output cut).
    """

    prompt: str
    ran: tuple[str, ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    files: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unbalanced quote: the words as typed
        return args.split()


def _fill(text: str, args: str, words: list[str]) -> str:
    def one(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "ARGUMENTS":
            return args
        i = int(key) - 1
        return words[i] if i < len(words) else ""

    return _PLACEHOLDER.sub(one, text)


def shell_allowed(command: FileCommand, line: str) -> str:
    """Why *command*'s ``allowed-tools`` keeps its ``!`` line *line* from running, or
    ``""`` when it does not (no list, ``Bash``, or a ``Bash(prefix:*)`` it starts with).

    The list only narrows: what it lets through still goes to the session's rules.
    """
    if not command.allowed_tools:
        return ""
    patterns: list[str] = []
    for entry in command.allowed_tools:
        if entry in ("Bash", "run_cmd"):
            return ""
        m = re.match(r"^Bash\((.*)\)$", entry.strip(), re.DOTALL)
        if m:
            patterns.append(m.group(1).strip())
    for pat in patterns:
        if pat.endswith(":*"):
            prefix = pat[:-2].strip()
            if line == prefix or line.startswith(prefix + " "):
                return ""
        elif pat.endswith("*"):
            if line.startswith(pat[:-1]):
                return ""
        elif line == pat:
            return ""
    listed = ", ".join(command.allowed_tools)
    return f"its allowed-tools ({listed}) do not cover it"


def _cut(text: str, what: str, notes: list[str]) -> str:
    if len(text) <= MAX_INLINE:
        return text
    notes.append(f"{what} was cut to its first {MAX_INLINE} characters")
    return text[:MAX_INLINE] + f"\n[… {len(text) - MAX_INLINE} more characters not shown]"


def _read_file(workspace: Path, raw: str, notes: list[str]) -> tuple[str, str, bool] | None:
    """``(path, text, read)`` for *raw*, ``None`` when it names no file (left as
    written); a file that exists but may not be read gets a note, and its refusal as
    the text."""
    from harness.actors.tools import Workspace
    from harness.errors import ToolError

    path = raw.rstrip(".,;:!?)")
    if not path:
        return None
    candidate = Path(path).expanduser()
    full = candidate if candidate.is_absolute() else workspace / candidate
    if not (full.is_file() or full.is_symlink()):
        return None
    try:
        real = Workspace(workspace).resolve(str(candidate))
    except ToolError as exc:
        notes.append(f"@{path} not included: {exc}")
        return path, f"@{path} (not included: {exc})", False
    if not real.is_file():
        return None
    try:
        with real.open("rb") as fh:
            data = fh.read(MAX_INLINE * 4 + 1)
    except OSError as exc:
        notes.append(f"@{path} not included: {exc.strerror}")
        return path, f"@{path} (not included: {exc.strerror})", False
    text = data.decode("utf-8", errors="replace")
    return path, _cut(text, f"@{path}", notes), True


def _fenced(rel: str, text: str) -> str:
    # a fence longer than any run of backquotes in the text, so the text cannot end it
    runs = re.findall(r"`+", text)
    fence = "`" * max(3, 1 + max((len(r) for r in runs), default=0))
    return f"Contents of @{rel}:\n{fence}\n{text.rstrip(chr(10))}\n{fence}"


async def expand_command(
    command: FileCommand, args: str, workspace: Path | str, run_shell: ShellRunner
) -> Expansion:
    """*command* typed with *args*: the prompt it becomes.

    Args:
        command: the file command.
        args: everything typed after its name.
        workspace: the folder ``@`` paths are read in (through the jail).
        run_shell: runs each ``!`` command that ``allowed-tools`` lets through; the
            session's, which applies its permission rules.
    """
    ws = Path(workspace)
    args = args.strip()
    words = _words(args)
    body = command.body.strip("\n")
    out: list[str] = []
    ran: list[str] = []
    refused: list[tuple[str, str]] = []
    files: list[str] = []
    notes: list[str] = []
    attached: list[str] = []
    pos = 0
    for m in _DIRECTIVE.finditer(body):
        out.append(_fill(body[pos : m.start()], args, words))
        pos = m.end()
        if m.group("file") is not None:
            got = _read_file(ws, _fill(m.group("file"), args, words), notes)
            if got is None:
                out.append(_fill(m.group(0), args, words))
                continue
            rel, text, read = got
            if read:
                # the reference stays where it is, the text goes after the prompt, so
                # the sentence around it still reads
                out.append(f"@{rel}")
                if rel not in files:
                    files.append(rel)
                    attached.append(_fenced(rel, text))
            else:
                out.append(text)
            # a path cut short of trailing punctuation keeps that punctuation
            out.append(m.group("file")[len(rel) :])
            continue
        line = _fill((m.group("inline") or m.group("line")).strip(), args, words)
        why = shell_allowed(command, line)
        if why:
            refused.append((line, why))
            out.append(f"[!{line} was not run: {why}]")
            continue
        ok, text = await run_shell(line)
        if not ok:
            refused.append((line, text))
            out.append(f"[!{line} was not run: {text}]")
            continue
        ran.append(line)
        out.append(_cut(text.rstrip("\n"), f"the output of !{line}", notes))
    out.append(_fill(body[pos:], args, words))
    prompt = "".join(out).strip()
    if args and not _PLACEHOLDER.search(command.body):
        prompt += f"\n\nARGUMENTS: {args}"
    if attached:
        prompt += "\n\n" + "\n\n".join(attached)
    return Expansion(prompt, tuple(ran), tuple(refused), tuple(files), tuple(notes))
