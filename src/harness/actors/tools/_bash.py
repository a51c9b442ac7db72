"""What a shell command does, read with a real bash grammar (tree-sitter-bash).

Permission rules must not be fooled by spelling: ``(rm x)``, ``{ rm x; }``,
``if true; then rm x; fi``, ``time rm x``, ``rm<TAB>x`` and ``r\\<newline>m x``
all start with something other than ``rm``. :func:`analyse` parses a command and
returns every simple command anywhere in it (subshells, groups, loops,
conditionals, command substitutions, function bodies, ``bash -c`` / ``sh -c`` /
``eval`` strings, ``trap`` actions, ``mapfile -C`` callbacks, the commands wrappers
such as ``xargs``, ``env`` or ``script -c`` run), what it cannot be sure of, and
whether it writes files. :func:`shape` is the flat form an allow rule is compared
with: simple commands joined by operators, nothing else.

The rule for what is uncertain: a command whose name the grammar cannot reduce to
one literal word (an expansion, a glob such as ``/bin/r?``, a brace expansion), and
every construct that runs code held in a string the line does not show: ``eval
$x``, a script read by ``sh`` or ``source``, ``BASH_ENV`` / ``ENV`` /
``PROMPT_COMMAND`` / ``PS4`` assignments, ``alias``, ``hash -p``, ``enable -f``,
``bind -x``, ``fc``, an interpreter's inline code (``python -c``), and arithmetic
that evaluates a variable this same line sets to text (bash runs the command
substitutions in an array subscript it evaluates: ``x='a[$(rm v)]'; echo $((x))``).
Where the payload is a literal (``trap 'rm v' EXIT``, ``bash -c -- 'rm v'``) it is
parsed and checked like the rest instead.

:func:`read_only` is plan mode's stricter reading: only known readers, no writing
option, no redirection to a file, and none of the constructs through which bash
evaluates text (arithmetic on any variable, ``-v`` tests, ``${x@P}``, ``printf -v``,
``declare -i`` ...).

The grammar loads on first use (tree-sitter is a tenth of a second to import).
"""

from __future__ import annotations

import bisect
import functools
import posixpath
import re
from typing import Any

import attrs

__all__ = ["Analysis", "Segment", "Shape", "analyse", "read_only", "shape"]

# Programs that run their arguments as another command. The command they run is
# found by trying every later word as its start (so options are skipped without
# knowing each program's options), and a literal argument that looks like a command
# line is parsed too (``script -c 'rm x'``, ``su -c``, ``ssh host 'rm x'``, ``watch``):
# deny rules see more, never less. A wrapper is always uncertain.
_WRAPPERS = frozenset(
    {
        "builtin",
        "busybox",
        "catchsegv",
        "cgexec",
        "chpst",
        "chroot",
        "chrt",
        "command",
        "coproc",
        "dbus-run-session",
        "doas",
        "eatmydata",
        "entr",
        "env",
        "exec",
        "fakeroot",
        "faketime",
        "firejail",
        "flock",
        "ionice",
        "linux32",
        "linux64",
        "ltrace",
        "nice",
        "nohup",
        "nsenter",
        "numactl",
        "parallel",
        "pkexec",
        "prlimit",
        "proot",
        "proxychains",
        "proxychains4",
        "runcon",
        "runuser",
        "schroot",
        "screen",
        "script",
        "setarch",
        "setpriv",
        "setsid",
        "sg",
        "ssh",
        "stdbuf",
        "strace",
        "su",
        "sudo",
        "systemd-run",
        "taskset",
        "time",
        "timeout",
        "tmux",
        "toybox",
        "torsocks",
        "unbuffer",
        "unshare",
        "valgrind",
        "watch",
        "xargs",
        "xvfb-run",
    }
)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "rbash"})
_SOURCES = frozenset({"source", ".", "eval"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Interpreters' options that take a program as text: python -c, perl -e ...
_INLINE_CODE: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "node": frozenset({"-e", "-p", "--eval", "--print"}),
    "nodejs": frozenset({"-e", "-p", "--eval", "--print"}),
    "php": frozenset({"-r"}),
    "lua": frozenset({"-e"}),
    "osascript": frozenset({"-e"}),
}
_EDITORS = frozenset({"vi", "vim", "nvim", "ex", "view", "gvim", "vimdiff"})
for _editor in _EDITORS:
    _INLINE_CODE[_editor] = frozenset({"-c", "--cmd", "-S"})
_INLINE_CODE["emacs"] = frozenset({"--eval", "-l", "--load", "-f", "--funcall"})
_INLINE_CODE["gdb"] = frozenset({"-ex", "--eval-command", "-x", "--command"})
# Options whose value is a command line the program runs: it is parsed like one.
_RUNS_OPTION: dict[str, frozenset[str]] = {
    "tar": frozenset(
        {
            "--to-command",
            "--use-compress-program",
            "-I",
            "--info-script",
            "--new-volume-script",
            "-F",
            "--rsh-command",
            "--rmt-command",
            "--checkpoint-action",
        }
    ),
    "rsync": frozenset({"-e", "--rsh", "--rsync-path"}),
    "sort": frozenset({"--compress-program"}),
    "rg": frozenset({"--pre"}),
    "man": frozenset({"-P", "--pager", "-p", "--preprocessor"}),
    "zip": frozenset({"-TT", "--unzip-command"}),
}
_PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_AWK_RUNS = re.compile(r"system\s*\(|\||\bgetline\b")
# sed: an `e` command (`1e cmd`, `/x/e`), or an `e` among a s///'s flags.
_SED_RUNS = re.compile(r"(^|[;{}\n0-9$/,!])\s*e(\s|;|$)|s(.).*?(?<!\\)\3.*?(?<!\\)\3[gpiImM0-9w]*e")
_GIT_SAFE_KEYS = re.compile(
    r"^(user\.(name|email)|color\.[\w.]+|core\.quotepath|advice\.[\w.]+|init\.defaultbranch"
    r"|log\.\w+|format\.pretty|column\.ui|safe\.directory|commit\.gpgsign|tag\.gpgsign)$"
)
_SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/opt/", "/snap/", "/nix/")
# Programs that make files another command on the line could then run.
_CREATORS = frozenset(
    {"ln", "cp", "mv", "install", "tee", "chmod", "curl", "wget", "dd", "rsync", "tar", "unzip"}
)
# Variables through which bash (or the dynamic loader) runs code from elsewhere.
_CODE_VARS = frozenset(
    {
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "BASH_LOADABLES_PATH",
        "LD_PRELOAD",
        "LD_AUDIT",
        "LD_LIBRARY_PATH",
        "BASH_CMDS",  # BASH_CMDS[ls]=/bin/rm is hash -p
        "BASH_ALIASES",  # BASH_ALIASES[ls]=rm is alias
    }
)
# Variables programs run as a command line: their literal value is parsed like one.
_COMMAND_VARS = frozenset(
    {
        "PAGER",
        "GIT_PAGER",
        "MANPAGER",
        "SYSTEMD_PAGER",
        "EDITOR",
        "VISUAL",
        "FCEDIT",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "SUDO_EDITOR",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_EXTERNAL_DIFF",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
    }
)
# Builtins whose arguments name variables they set (or, for let, evaluate).
_NAME_TAKERS = frozenset(
    {
        "read",
        "mapfile",
        "readarray",
        "printf",
        "getopts",
        "wait",
        "let",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "unset",
    }
)
_DECLARE = frozenset({"declare", "typeset", "local", "export", "readonly"})
# Variables bash itself keeps numeric; a line that never sets them cannot make them code.
_NUMERIC_SPECIALS = frozenset(
    {"RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS"}
)
# A prefix assignment plan mode lets a reader run with (locale, time zone, layout).
_SAFE_ENV = re.compile(r"^(LANG|LANGUAGE|LC_[A-Z]+|TZ|COLUMNS|LINES|NO_COLOR|TERM)$")
_NAME = re.compile(r"(?<![\w#])[A-Za-z_]\w*")
_IDENT = re.compile(r"^[A-Za-z_]\w*(\[.*\])?$")
_INTEGER = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9A-Za-z@_]+)?)$")
_SUBSTITUTION = re.compile(r"\$\((?!\()|`")  # $(…) or `…`, not $((…))
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
# Marks a value bash evaluates that came from a command's output, not a variable.
_OUTPUT = "$(...)"

# Programs that only read, for plan mode. An allow list: a program missing here is
# treated as a writer. Each is listed with the options that would make it write or
# run something else; those make the command a writer too. A long option also counts
# when abbreviated (``--out=F`` is ``--output=F`` to GNU getopt).
_READERS: dict[str, frozenset[str]] = {
    name: frozenset()
    for name in [
        "basename",
        "cat",
        "cmp",
        "column",
        "cut",
        "df",
        "diff",
        "dirname",
        "du",
        "echo",
        "false",
        "fold",
        "free",
        "grep",
        "egrep",
        "fgrep",
        "head",
        "hexdump",
        "id",
        "ls",
        "md5sum",
        "nl",
        "nproc",
        "od",
        "printenv",
        "ps",
        "pwd",
        "readlink",
        "realpath",
        "rev",
        "seq",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "sleep",
        "stat",
        "tail",
        "tr",
        "true",
        "type",
        "uname",
        "uptime",
        "wc",
        "which",
        "whoami",
        "jq",
        ":",
    ]
}
# printf -v and test -v evaluate an array subscript in the name they are given.
_READERS["printf"] = frozenset({"-v"})
_READERS["test"] = frozenset({"-v", "-R"})
_READERS["["] = frozenset({"-v", "-R"})
_READERS["sort"] = frozenset(
    {"-o", "--output", "--compress-program", "-T", "--temporary-directory"}
)
_READERS["rg"] = frozenset({"--pre"})
_READERS["find"] = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_SAFE_TARGETS = frozenset({"/dev/null"})
# Deeper than this the tree is not followed (and the command is uncertain): Python's
# own stack must not be what ends the walk.
_MAX_NESTING = 150
# Leaves whose text bash expands: one still holding $( or a backquote was misread.
_TEXT_LEAVES = frozenset({"word", "regex", "string_content", "extglob_pattern"})
# Where a backslash-newline is not a line continuation.
_LITERAL_SPANS = frozenset({"raw_string", "comment", "heredoc_body", "ansi_c_string"})


@attrs.frozen
class Segment:
    """One simple command in a flat command line: its words (as written, quotes
    kept) and its redirections."""

    words: tuple[str, ...]
    redirects: tuple[str, ...] = ()


@attrs.frozen
class Shape:
    """A command line as simple commands joined by operators (``&&``, ``|``, ``;`` ...).

    ``ops`` has one operator between each pair of segments, plus a trailing ``&``
    when the last one runs in the background.
    """

    segments: tuple[Segment, ...]
    ops: tuple[str, ...]


@attrs.frozen
class Analysis:
    """Everything a command runs, as far as the grammar can tell.

    Attributes:
        commands: each simple command's words (quotes removed), anywhere in the tree,
            and for wrappers (``xargs rm``, ``env X=1 rm``, ``/bin/rm``) the command
            they run as well.
        uncertain: why the grammar cannot know every command (``eval $x``, ``sh``
            reading a script, a computed or globbed command name, a parse error).
        writes: a redirection to a file (other than ``/dev/null``).
        evaluates: the places where bash evaluates text as code even though every
            command is known (arithmetic on a variable, ``-v`` tests, ``${x@P}``,
            ``printf -v``): harmless unless a value holds a command substitution, so
            only plan mode's :func:`read_only` refuses them.
    """

    commands: tuple[str, ...]
    uncertain: tuple[str, ...]
    writes: bool
    evaluates: tuple[str, ...] = ()


@functools.cache
def _parser() -> Any:
    import tree_sitter_language_pack as tslp

    return tslp.get_parser("bash")


def _parse(command: str) -> Any:
    return _parser().parse(command.encode("utf-8", "surrogatepass")).root_node


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def _short(node: Any, width: int = 40) -> str:
    """A node's text for a message, cut to *width* characters."""
    text = _text(node)
    return repr(text if len(text) <= width else text[:width] + "…")


def _joined(command: str) -> str:
    """*command* with its line continuations (backslash-newline) taken out, as bash
    reads it: tree-sitter takes one for a space, bash for nothing (``r\\<nl>m`` is
    ``rm``). Those inside single quotes, comments and here-documents stay."""
    if "\\\n" not in command:
        return command
    data = command.encode("utf-8", "surrogatepass")
    keep: list[tuple[int, int]] = []  # spans where the pair is literal
    leaves: list[tuple[int, int]] = []
    stack = [_parse(command)]
    while stack:
        node = stack.pop()
        if node.type in _LITERAL_SPANS:
            keep.append((node.start_byte, node.end_byte))
        elif node.child_count == 0:
            leaves.append((node.start_byte, node.end_byte))
        else:
            stack.extend(node.children)
    leaves.sort()
    starts = [s for s, _ in leaves]
    cuts: list[int] = []
    at = data.find(b"\\\n")
    while at != -1:
        if not any(s <= at < e for s, e in keep):
            i = bisect.bisect_right(starts, at) - 1
            first = leaves[i][0] if i >= 0 and leaves[i][0] <= at < leaves[i][1] else at
            run = at
            while run > first and data[run - 1] == 0x5C:
                run -= 1
            if (at - run) % 2 == 0:  # not itself escaped by a backslash before it
                cuts.append(at)
        at = data.find(b"\\\n", at + 1)
    out, prev = [], 0
    for cut in cuts:
        out.append(data[prev:cut])
        prev = cut + 2
    out.append(data[prev:])
    return b"".join(out).decode("utf-8", "surrogatepass")


def _unescape_word(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            i += 1
            if text[i] == "\n":
                i += 1
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _unescape_double(text: str) -> str:
    """The inside of a double-quoted string: a backslash escapes only ``$ ` " \\``
    and a newline (which it removes)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _unquote(node: Any) -> str | None:
    """The literal value of a word, or ``None`` when it depends on an expansion."""
    kind = node.type
    if kind in ("word", "number", "command_name", "file_descriptor", "variable_name"):
        if kind == "command_name":
            return _unquote(node.children[0]) if node.child_count == 1 else None
        return _unescape_word(_text(node))
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "string":
        parts = [c for c in node.children if c.is_named]
        if any(c.type != "string_content" for c in parts):
            return None
        return _unescape_double("".join(_text(c) for c in parts))
    if kind == "concatenation":
        pieces = [_unquote(c) for c in node.children]
        if any(p is None for p in pieces):
            return None
        return "".join(p for p in pieces if p is not None)
    return None


def _is_pattern(node: Any) -> bool:
    """Whether an unquoted part of *node* is a glob or a brace expansion, so that bash
    may turn it into another word (``/bin/r?``, ``/usr/bin/[r]m``, ``{/bin/rm,x}``)."""
    if node.type in ("raw_string", "string", "ansi_c_string"):
        return False
    if node.child_count:
        return any(_is_pattern(c) for c in node.children)
    if node.type != "word":
        return False
    text, i = _text(node), 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "*?[":
            return True
        if ch == "{" and ("," in text[i:] or ".." in text[i:]):
            return True
        i += 1
    return False


def _words(cmd: Any) -> tuple[list[str | None], list[Any]]:
    """A ``command`` node's words (``None`` for one that depends on an expansion)
    and the nodes that are its arguments and name."""
    words: list[str | None] = []
    nodes: list[Any] = []
    for child in cmd.children:
        if child.type in ("variable_assignment", "comment") or "redirect" in child.type:
            continue
        if child.is_named:
            words.append(_unquote(child))
            nodes.append(child)
    return words, nodes


def _long_or_short(words: list[str | None], options: frozenset[str]) -> list[str | None]:
    """The values given to *options* (``--opt=V``, ``--opt V``, ``--op=V`` abbreviated,
    ``-XV``, ``-X V``) in a word list that starts with the command's name."""
    out: list[str | None] = []
    for i, w in enumerate(words[1:], 1):
        if w is None:
            continue
        key, eq, value = w.partition("=")
        if key.startswith("--") and len(key) > 2:
            if any(o.startswith(key) for o in options if o.startswith("--")):
                out.append(value if eq else (words[i + 1] if i + 1 < len(words) else None))
        else:
            for o in options:
                if not o.startswith("--") and w.startswith(o):
                    rest = w[len(o) :]
                    out.append(rest if rest else (words[i + 1] if i + 1 < len(words) else None))
    return out


def _option_value(words: list[str | None], letters: str) -> list[str | None]:
    """The values given to the short options *letters* (``-C cb``, ``-Ccb``, ``-tC cb``),
    in a word list that starts with the command's name."""
    out: list[str | None] = []
    i = 1
    while i < len(words):
        w = words[i]
        if w == "--":
            break
        if w is not None and w.startswith("-") and len(w) > 1 and not w.startswith("--"):
            for j, ch in enumerate(w[1:], 1):
                if ch in letters:
                    rest = w[j + 1 :]
                    if rest:
                        out.append(rest)
                    else:
                        out.append(words[i + 1] if i + 1 < len(words) else None)
                        i += 1
                    break
        i += 1
    return out


class _Walker:
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
        joined = _joined(source)
        self.walk(_parse(joined))
        if joined != source:
            self.walk(_parse(source))  # both readings: deny rules see more, never less
        self.depth -= 1

    def walk(self, node: Any, level: int = 0) -> None:
        if level > _MAX_NESTING:
            self.uncertain.append("commands nested too deep to follow")
            return
        kind = node.type
        if kind == "ERROR" or node.is_missing:
            self.uncertain.append("the command does not parse as bash")
        elif kind == "word" and "\n" in _text(node):
            # bash ends a command at an unquoted newline; tree-sitter-bash sometimes reads
            # one into a word (`echo x<newline>\rm v` as one command): it misread the line
            self.uncertain.append("the grammar misreads a line break in this command")
        elif kind in _TEXT_LEAVES and _SUBSTITUTION.search(_text(node)):
            # tree-sitter-bash leaves some substitutions as text (`${x:-`rm v`}`); bash
            # runs them, so the text is read again
            text = _text(node)
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
            self.arithmetic(_text(node), "arithmetic")
        elif kind == "c_style_for_statement":
            head = "".join(_text(c) for c in node.children if c.type != "do_group")
            self.arithmetic(head, "a for (( )) loop")
        elif kind == "subscript":
            index = node.child_by_field_name("index")
            if index is not None and _text(index) not in ("@", "*"):
                self.arithmetic(_text(index), "an array subscript")
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
        value = None if dest is None else _unquote(dest)
        if dest is not None and dest.type == "number" and any(op.endswith("&") for op in ops):
            return  # 2>&1: a descriptor, not a file
        if value not in _SAFE_TARGETS:
            self.writes = True

    def heredoc(self, node: Any) -> None:
        """A here-document whose delimiter is unquoted is expanded like a double-quoted
        string: its command substitutions run. tree-sitter-bash leaves some of them as
        plain text (backquotes, ``<<-``), so the body is read again as such a string."""
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        if start is None or body is None or any(ch in _text(start) for ch in "'\"\\"):
            return
        text = _text(body)
        if "$" in text or "`" in text:
            # a backslash escapes the same characters in both, but `"` only in the string
            self.walk_source(': "' + text.replace('"', '\\"') + '"')

    # ------------------------------------------------------- text bash evaluates

    def arithmetic(self, text: str, where: str) -> None:
        """*text* is evaluated as arithmetic: each name in it is looked up and its value
        evaluated in turn, command substitutions in a subscript included."""
        names = set(_NAME.findall(text))
        if _SUBSTITUTION.search(text):
            names.add(_OUTPUT)
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
        var = _text(name) if name is not None else ""
        if "@" in tokens:
            self.evaluates.append("a ${x@...} transformation expands its value again")
            if "P" in tokens and var:
                self.evaluated.add(var)
        if ":" in tokens:  # ${x:offset:length}: both are arithmetic
            i = tokens.index(":")
            self.arithmetic("".join(_text(c) for c in node.children[i + 1 : -1]), "${x:n}")
        if var and any(t in tokens for t in ("=", ":=")):
            self.untrusted.add(var)

    def assignment(self, node: Any) -> None:
        target = node.children[0] if node.child_count else None
        if target is not None and target.type == "subscript":
            target = target.children[0]
        name = _text(target) if target is not None else ""
        value_node = node.children[-1] if node.child_count >= 3 else None
        value = None if value_node is None else _unquote(value_node)
        self.check_variable(name, value, node.child_count < 3)
        numeric = value_node is not None and (
            value_node.type == "arithmetic_expansion"
            or (value is not None and _INTEGER.match(value) is not None)
        )
        if not numeric and node.child_count >= 3:
            self.untrusted.add(name)

    def check_variable(self, name: str, value: str | None, empty: bool = False) -> None:
        """An assignment of *value* (``None``: computed) to *name*, anywhere on the line."""
        if name == "PATH" and not empty:
            self.runs_local.append("PATH=")
            self.evaluates.append("PATH= may make a name run a program from the workspace")
        if name in _CODE_VARS or name.startswith("BASH_FUNC_"):
            if not empty:
                self.uncertain.append(f"{name}= makes bash run code the command line does not show")
        elif name in _COMMAND_VARS:
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
            v.type != "number" and not _INTEGER.match(_unquote(v) or "x") for v in values
        ):
            self.untrusted.add(_text(var))

    def names(self, args: list[Any], builtin: str) -> None:
        """Arguments of a builtin that name variables (``read x``, ``unset 'a[$(…)]'``,
        ``printf -v x``): each is set to text, and a subscript in one is evaluated."""
        for arg in args:
            value = _unquote(arg)
            if value is None:
                self.untrusted.add(_OUTPUT)  # a computed name: anything may be set
                continue
            name, eq, rest = value.partition("=")
            if _IDENT.match(name) or "[" in name:
                base = name.split("[", 1)[0]
                self.untrusted.add(base)
                self.check_variable(base, rest if eq else None, not eq)
                if "[" in name:
                    self.evaluate_literal(name, f"{builtin}'s subscript")
                    self.evaluates.append(f"{builtin} evaluates an array subscript")

    def test(self, node: Any) -> None:
        first = node.children[0].type if node.child_count else ""
        if first == "((":
            self.arithmetic(_text(node)[2:-2], "arithmetic")
            return
        stack = list(node.children)
        while stack:
            n = stack.pop()
            if n.type == "unary_expression":
                op = n.children[0] if n.child_count else None
                if op is not None and _text(op) in ("-v", "-R"):
                    self.evaluates.append(f"a {_text(op)} test evaluates an array subscript")
                    for operand in n.children[1:]:
                        self.test_operand(operand, "[[ -v ]]")
            elif n.type == "binary_expression":
                ops = [c for c in n.children if c.type == "test_operator"]
                if ops and _text(ops[0]) in _ARITH_TESTS:
                    for operand in n.children:
                        if operand.type != "test_operator":
                            self.test_operand(operand, "[[ -eq ]]")
            stack.extend(n.children)

    def test_operand(self, operand: Any, where: str) -> None:
        value = _unquote(operand)
        if value is not None:
            self.evaluate_literal(value, where)
            if not _INTEGER.match(value):
                self.arithmetic(value, where)
        else:
            self.arithmetic(_text(operand), where)

    def declaration(self, node: Any) -> None:
        keyword = _text(node.children[0]) if node.child_count else "declare"
        args = [c for c in node.children[1:] if c.is_named and c.type != "variable_assignment"]
        options = "".join(
            (_unquote(a) or "")[1:] for a in args if (_unquote(a) or "").startswith(("-", "+"))
        )
        names = [a for a in args if not (_unquote(a) or "x").startswith(("-", "+"))]
        self.names(names, keyword)
        if "i" in options or "n" in options:
            self.evaluated |= {(_unquote(a) or _OUTPUT).split("[", 1)[0] for a in names}
        if any(ch in options for ch in "aAni"):
            self.evaluates.append(f"{keyword} -{options} may evaluate what it is given")
        for child in node.children:
            if child.type != "variable_assignment":
                continue
            if "i" in options or "n" in options:
                # an integer's every value is arithmetic; a nameref's value is a name
                # (with a subscript) bash evaluates each time it is used
                self.evaluated.add(_text(child.children[0]).split("[", 1)[0])
            if child.children and child.children[0].type == "subscript":
                self.evaluates.append(f"{keyword} evaluates an array subscript")
            value = child.children[-1] if child.child_count >= 3 else None
            if value is not None and value.type == "array":
                self.evaluates.append(f"{keyword} sets an array")
            if ("i" in options or "n" in options) and value is not None:
                self.test_operand(value, f"{keyword} -{options}")
            if "n" in options and value is not None:
                # a nameref: what is assigned through it lands in the variable it names
                self.names_text(_unquote(value) or _OUTPUT, f"{keyword} -n")

    # ------------------------------------------------------------- one command

    def command(self, node: Any) -> None:
        for child in node.children:
            if child.type == "variable_assignment" and child.child_count:
                name = _text(child.children[0])
                if not _SAFE_ENV.match(name):
                    self.evaluates.append(f"{name}=… changes how the command runs")
        words, nodes = _words(node)
        if not words:
            return
        if words[0] is None:
            self.uncertain.append(f"the command name {_short(nodes[0])} is computed")
            return
        self.run(words, nodes)

    def run(self, words: list[str | None], nodes: list[Any]) -> None:
        literal = [w if w is not None else _text(n) for w, n in zip(words, nodes, strict=True)]
        name = literal[0]
        if name != "[" and _is_pattern(nodes[0]):
            self.uncertain.append(f"the command name {_short(nodes[0])} is a pattern")
            return
        base = posixpath.basename(name) or name
        if "/" in name and not name.startswith(_SYSTEM_DIRS):
            self.runs_local.append(name)
        if base in _CREATORS:
            self.creates = True
        self.commands.append(" ".join(literal))
        if base != name:
            self.commands.append(" ".join([base, *literal[1:]]))
        if base in _NAME_TAKERS:
            self.builtin_names(base, words, nodes)
        if base in _WRAPPERS:
            self.wrapper(base, words, nodes)
        elif base in _SHELLS:
            self.shell(words, base)
        elif base in _SOURCES:
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
        elif base in _AWKS or base in ("sed", "gsed"):
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
                self.arithmetic(w if w is not None else _text(n), "let")
            return
        if base == "printf":
            targets = _option_value(words, "v")
            if targets:
                self.evaluates.append("printf -v assigns through a name bash evaluates")
            for t in targets:
                if t is None:
                    self.untrusted.add(_OUTPUT)
                else:
                    self.names_text(t, "printf -v")
            return
        if base in _DECLARE or base == "unset":
            self.names([n for w, n in args if not (w or "x").startswith(("-", "+"))], base)
            return
        # read, mapfile, readarray, getopts, wait: every word may name a variable
        for w, _ in args:
            if w is None:
                self.untrusted.add(_OUTPUT)
            elif not w.startswith("-"):
                self.names_text(w, base)
            else:
                self.untrusted.add(w.lstrip("-")[1:] or "_")

    def names_text(self, text: str, where: str) -> None:
        """*text* names a variable a builtin sets to text nobody can see here."""
        base = text.split("[", 1)[0]
        self.untrusted.add(base)
        self.check_variable(base, None)
        if "[" in text:
            self.evaluate_literal(text, where)

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
            if w in _FIND_EXEC:
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
            payloads = _option_value(words, "C")
        else:
            payloads = _option_value(words, "C")
            for wordlist in _option_value(words, "W"):
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
        pattern = _AWK_RUNS if base in _AWKS else _SED_RUNS
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
            if value is None or not _GIT_SAFE_KEYS.match(key):
                self.uncertain.append(f"git {w} may name a program for git to run")
                return

    def interpreter(self, base: str, words: list[str | None]) -> None:
        """An interpreter's or editor's code given as text (``python -c``, ``vim -c``,
        ``vim +cmd``), up to the script it runs; and the options of other programs that
        take a command line (``tar --to-command``, ``rsync -e``, ``man -P``)."""
        runs = _RUNS_OPTION.get(base)
        if runs is not None:
            for value in _long_or_short(words, runs):
                if value is None:
                    self.uncertain.append(f"{base} is given a computed command to run")
                else:
                    self.walk_source(value.removeprefix("exec="))
            return
        flags = _INLINE_CODE.get("python" if _PYTHON.match(base) else base)
        if flags is None:
            return
        editor = base in _EDITORS
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


@functools.lru_cache(maxsize=256)
def analyse(command: str) -> Analysis:
    """Every simple command in *command*, what is uncertain, and whether it writes.

    Remembered for the last 256 commands: one decision reads a command once per deny
    rule, once for the allow rules and once for plan mode, and the result is frozen.
    """
    walker = _Walker()
    walker.walk_source(command)
    uncertain = list(walker.uncertain)
    if walker.runs_local and (walker.creates or walker.writes):
        uncertain.append(
            f"{walker.runs_local[0]!r} may run a file this same command line makes "
            "(a link to another program, a script)"
        )
    risky = walker.evaluated & (walker.untrusted | {_OUTPUT, "$1"})
    if walker.evaluated and _OUTPUT in walker.untrusted:
        risky.add(_OUTPUT)
    risky -= _NUMERIC_SPECIALS - walker.untrusted
    if risky:
        which = sorted(risky)[0]
        what = {_OUTPUT: "a command's output", "$1": "a parameter"}.get(which, f"${which}")
        uncertain.append(
            f"bash evaluates {what} as code (arithmetic, a subscript or a prompt), and a "
            "value set on this line may hold a command substitution"
        )
    return Analysis(
        commands=tuple(walker.commands),
        uncertain=tuple(dict.fromkeys(uncertain)),
        writes=walker.writes,
        evaluates=tuple(dict.fromkeys(walker.evaluates)),
    )


def read_only(command: str) -> str | None:
    """``None`` when *command* only reads, by its parsed shape; else why it may write.

    Every program it runs must be a known reader used without its writing options,
    no output may be redirected to a file, and bash must not evaluate any text as
    code (:attr:`Analysis.evaluates`). Anything uncertain counts as a writer.
    """
    a = analyse(command)
    if a.uncertain:
        return a.uncertain[0]
    if a.writes:
        return "it redirects output to a file"
    if a.evaluates:
        return a.evaluates[0]
    for cmd in a.commands:
        words = cmd.split()
        name = words[0] if words else ""
        if name not in _READERS:
            return f"{name!r} is not a known read-only program"
        for w in words[1:]:
            if _writing_option(w, _READERS[name]):
                return f"{name} {w} may write or run something"
    return None


def _writing_option(word: str, bad: frozenset[str]) -> bool:
    key = word.split("=", 1)[0]
    if key in bad:
        return True
    if key.startswith("--") and len(key) > 2:
        # GNU getopt takes any unambiguous abbreviation: `--out=F`, `--compress-prog=sh`.
        return any(b.startswith(key) for b in bad if b.startswith("--"))
    if word.startswith("-") and not word.startswith("--") and word[1:].isalnum():
        # `-o` may hide in a cluster (`-ro`) or carry its value (`-oFILE`).
        return any(len(b) == 2 and b[1] in word[1:] for b in bad)
    return False


def _segment(node: Any) -> Segment | None:
    redirects: list[str] = []
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        for child in node.children:
            if child == body:
                continue
            if child.type != "file_redirect":
                return None
            redirects.append("".join(_text(c) for c in child.children))
        node = body
    if node is None or node.type != "command":
        return None
    return Segment(tuple(_text(c) for c in node.children if c.is_named), tuple(redirects))


def _flatten(node: Any, segments: list[Segment], ops: list[str]) -> bool:
    pending = False  # a segment was added with no operator after it yet
    for child in node.children:
        if not child.is_named:
            if child.type in ("&&", "||", "|", "|&", ";", "&", "\n"):
                ops.append(";" if child.type == "\n" else child.type)
                pending = False
                continue
            return False
        if child.type == "comment":
            continue
        if pending:
            ops.append(";")  # statements on separate lines
        if child.type in ("list", "pipeline"):
            if not _flatten(child, segments, ops):
                return False
        else:
            seg = _segment(child)
            if seg is None:
                return False
            segments.append(seg)
        pending = True
    return True


def shape(command: str) -> Shape | None:
    """*command* as simple commands joined by operators, or ``None`` when it has any
    other structure (subshells, groups, loops, substitutions, ``${...}``, a parse error).
    Line continuations are taken out first, as bash does."""
    command = _joined(command)
    if any(tok in command for tok in ("$(", "`", "${", "<(", ">(")):
        return None
    root = _parse(command)
    if root.has_error:
        return None
    segments: list[Segment] = []
    ops: list[str] = []
    if not _flatten(root, segments, ops) or not segments:
        return None
    return Shape(tuple(segments), tuple(ops))
