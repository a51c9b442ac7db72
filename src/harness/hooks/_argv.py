"""How a hook command is started with as few processes as its meaning allows.

``/bin/sh -c COMMAND`` (dash) forks once more to run a program, so a hook that is one
program call costs two processes. :func:`hook_argv` skips the shell for a command of plain
words; :func:`shell_argv` has the shell ``exec`` the program of a single simple command
(``"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh``, the form Claude Code's documentation
uses), so it replaces the shell instead of running beside it.


A command qualifies when every character is a letter, a digit, a space or one of
``_ . / : , + @ % = -`` (no quoting, expansion, redirection, globbing, comment or
separator), its first word is no assignment and no shell builtin or keyword (``exit``,
``echo``, ``true``, ``cd`` ... keep the shell's own meaning), and that word names an
executable file: a path (against the hook's folder) or a name found on an absolute
``PATH``. Anything else, or any doubt, is ``None``: the shell runs it.
"""

from __future__ import annotations

import os
import re

__all__ = ["hook_argv", "shell_argv"]

_PLAIN = re.compile(r"[A-Za-z0-9_./:,+@%= -]+")
# What makes a command more than one simple command, or gives it a redirection, even
# inside quotes (a quoted ``|`` merely keeps the shell from exec-ing: it is never wrong).
_COMPOUND = re.compile(r"[;&|<>(){}`\n\r]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Builtins and reserved words of dash and bash: the shell gives these its own meaning
# even where a program of the same name exists (/usr/bin/echo, /usr/bin/true ...).
_WORDS = """
    . : [ [[ alias bg bind break builtin caller case cd chdir command compgen
    complete compopt continue coproc declare dirs disown do done echo elif else enable esac
    eval exec exit export false fc fg fi for function getopts hash help history if in jobs
    kill let local logout mapfile popd printf pushd pwd read readarray readonly return select
    set shift shopt source suspend test then time times trap true type typeset ulimit umask
    unalias unset until wait while
"""
_SHELL_WORDS = frozenset(_WORDS.split())


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def hook_argv(command: str, cwd: str, path: str | None) -> tuple[str, list[str]] | None:
    """The program to execute for *command* and its argv (the first word as written, as
    the shell passes it), without a shell; or ``None``.

    Args:
        command: the hook's command line.
        cwd: the folder it runs in (a relative program path is found there).
        path: the ``PATH`` of its environment (``None``: unset, the shell's default
            applies, so the shell runs it).
    """
    if not _PLAIN.fullmatch(command):
        return None
    words = command.split()
    if not words or words[0] in _SHELL_WORDS or "=" in words[0]:
        return None
    program = words[0]
    if "/" in program:
        found = os.path.join(cwd, program)
        return (found, words) if _executable(found) else None
    if not path:
        return None
    for folder in path.split(os.pathsep):
        if not os.path.isabs(folder):
            return None  # an empty or relative entry depends on the folder: the shell's call
        found = os.path.join(folder, program)
        if _executable(found):
            return found, words
    return None


def shell_argv(command: str) -> list[str]:
    """The shell's argv for *command*: ``exec`` put before a single simple command whose
    first word is no builtin, keyword or assignment (its meaning unchanged: it was the
    shell's last command, and now it is the shell), else the command as it is."""
    words = command.split()
    first = words[0].strip("\"'") if words else ""
    if (
        not first
        or _COMPOUND.search(command)
        or first in _SHELL_WORDS
        or first.startswith(("!", "#"))
        or _ASSIGNMENT.match(words[0])
    ):
        return ["/bin/sh", "-c", command]
    return ["/bin/sh", "-c", "exec " + command]
