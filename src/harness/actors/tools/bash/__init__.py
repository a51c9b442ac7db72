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

from harness.actors.tools.bash._analysis import Analysis, Segment, Shape, analyse, read_only, shape

__all__ = ["Analysis", "Segment", "Shape", "analyse", "read_only", "shape"]
