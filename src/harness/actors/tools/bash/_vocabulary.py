"""What programs and bash constructs do, as tables the walk reads: wrappers that run
another command, shells, readers for plan mode, options that write or run code, and
the variables and patterns bash treats specially."""

from __future__ import annotations

import re

# Programs that run their arguments as another command. The command they run is
# found by trying every later word as its start (so options are skipped without
# knowing each program's options), and a literal argument that looks like a command
# line is parsed too (``script -c 'rm x'``, ``su -c``, ``ssh host 'rm x'``, ``watch``):
# deny rules see more, never less. A wrapper is always uncertain.
WRAPPERS = frozenset(
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
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "rbash"})
SOURCES = frozenset({"source", ".", "eval"})
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Interpreters' options that take a program as text: python -c, perl -e ...
INLINE_CODE: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "node": frozenset({"-e", "-p", "--eval", "--print"}),
    "nodejs": frozenset({"-e", "-p", "--eval", "--print"}),
    "php": frozenset({"-r"}),
    "lua": frozenset({"-e"}),
    "osascript": frozenset({"-e"}),
}
EDITORS = frozenset({"vi", "vim", "nvim", "ex", "view", "gvim", "vimdiff"})
for _editor in EDITORS:
    INLINE_CODE[_editor] = frozenset({"-c", "--cmd", "-S"})
INLINE_CODE["emacs"] = frozenset({"--eval", "-l", "--load", "-f", "--funcall"})
INLINE_CODE["gdb"] = frozenset({"-ex", "--eval-command", "-x", "--command"})
# Options whose value is a command line the program runs: it is parsed like one.
RUNS_OPTION: dict[str, frozenset[str]] = {
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
PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")
AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
AWK_RUNS = re.compile(r"system\s*\(|\||\bgetline\b")
# sed: an `e` command (`1e cmd`, `/x/e`), or an `e` among a s///'s flags.
SED_RUNS = re.compile(r"(^|[;{}\n0-9$/,!])\s*e(\s|;|$)|s(.).*?(?<!\\)\3.*?(?<!\\)\3[gpiImM0-9w]*e")
GIT_SAFE_KEYS = re.compile(
    r"^(user\.(name|email)|color\.[\w.]+|core\.quotepath|advice\.[\w.]+|init\.defaultbranch"
    r"|log\.\w+|format\.pretty|column\.ui|safe\.directory|commit\.gpgsign|tag\.gpgsign)$"
)
SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/opt/", "/snap/", "/nix/")
# Programs that make files another command on the line could then run.
CREATORS = frozenset(
    {"ln", "cp", "mv", "install", "tee", "chmod", "curl", "wget", "dd", "rsync", "tar", "unzip"}
)
# Variables through which bash (or the dynamic loader) runs code from elsewhere.
CODE_VARS = frozenset(
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
COMMAND_VARS = frozenset(
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
NAME_TAKERS = frozenset(
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
DECLARE = frozenset({"declare", "typeset", "local", "export", "readonly"})
# Variables bash itself keeps numeric; a line that never sets them cannot make them code.
NUMERIC_SPECIALS = frozenset(
    {"RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS"}
)
# A prefix assignment plan mode lets a reader run with (locale, time zone, layout).
SAFE_ENV = re.compile(r"^(LANG|LANGUAGE|LC_[A-Z]+|TZ|COLUMNS|LINES|NO_COLOR|TERM)$")
VARIABLE_NAME = re.compile(r"(?<![\w#])[A-Za-z_]\w*")
IDENT = re.compile(r"^[A-Za-z_]\w*(\[.*\])?$")
INTEGER = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9A-Za-z@_]+)?)$")
SUBSTITUTION = re.compile(r"\$\((?!\()|`")  # $(…) or `…`, not $((…))
ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
# Marks a value bash evaluates that came from a command's output, not a variable.
OUTPUT = "$(...)"

# Programs that only read, for plan mode. An allow list: a program missing here is
# treated as a writer. Each is listed with the options that would make it write or
# run something else; those make the command a writer too. A long option also counts
# when abbreviated (``--out=F`` is ``--output=F`` to GNU getopt).
READERS: dict[str, frozenset[str]] = {
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
READERS["printf"] = frozenset({"-v"})
READERS["test"] = frozenset({"-v", "-R"})
READERS["["] = frozenset({"-v", "-R"})
READERS["sort"] = frozenset({"-o", "--output", "--compress-program", "-T", "--temporary-directory"})
READERS["rg"] = frozenset({"--pre"})
READERS["find"] = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
SAFE_TARGETS = frozenset({"/dev/null"})
# Deeper than this the tree is not followed (and the command is uncertain): Python's
# own stack must not be what ends the walk.
MAX_NESTING = 150
# Leaves whose text bash expands: one still holding $( or a backquote was misread.
TEXT_LEAVES = frozenset({"word", "regex", "string_content", "extglob_pattern"})
# Where a backslash-newline is not a line continuation.
LITERAL_SPANS = frozenset({"raw_string", "comment", "heredoc_body", "ansi_c_string"})
