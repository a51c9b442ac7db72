"""The grammar of one tool call, built from the tool table, for llama.cpp's sampler.

It is switched on lazily: the model writes freely until it writes ``<tool_call>`` (or opens
a fenced block whose JSON starts with ``"name"``, or a bare ``{"name":`` object: the other
ways small models write a call, which the lenient parser reads too),
and from there every token must continue a valid call: a tool that exists, the JSON of that
tool's own parameters (the required ones, no invented ones), file bodies in their tags, and
the closing ``</tool_call>`` or fence, after which only the end of the turn is allowed. So a
call is never malformed, never names a missing tool, and the model never gets to write a
made-up tool result after it.

Optional parameters that are not strings (line ranges, timeouts, flags) are left out of the
grammar: a small model fills them with values that narrow the call to nothing useful, and
their defaults are what it needs. ``write_file``'s ``version`` is left out too (a small
model invents one, and the write is refused). When that leaves a tool's optional bodies as
the only way to give its work (``edit_file`` without its ``edits`` list), the bodies are
required: otherwise a bound call can close at ``{"path": "calc.py"}`` and do nothing. What
was measured is in ``docs/models.md``.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from typing import Any

from harness.actors.model._textproto import body_params
from harness.messages.model import ToolSchema

__all__ = ["TRIGGERS", "edit_call_grammar", "tool_call_grammar"]

# Whitespace between JSON tokens, as these models write it: none, one space, or
# pretty-printed and indented (a call inside a Markdown list is indented), with a blank
# line at most. The triggers take the same (as a regular expression), and no more. Two
# newlines a gap keep the blank lines in a row a bound call can hold (two gaps meet where
# an object ends: three) under the loop watch's BLANK_RUN, which would otherwise stop the
# call mid-JSON: 24 whitespace characters of any kind made a gap of 23 blank lines.
_WS = r"[ \t]{0,24}(?:\n[ \t]{0,24}){0,2}"
_SPACE = r'[ \t]{0,24} ( "\n" [ \t]{0,24} ){0,2}'

TRIGGERS = (
    r"(<tool_call>)",
    rf'(```(?:json|tool_call)?\n{_WS}\{{{_WS}"name")',
    rf'(\{{{_WS}"name"{_WS}:)',
)
"""The lazy grammar's triggers; the grammar applies from the first group. llama.cpp
searches each pattern anywhere in everything generated so far, after every token (a
pattern in ``^…$`` would be matched whole instead). So a pattern is only the opening it
looks for: wrapped in ``[\\s\\S]*?(…)[\\s\\S]*`` it tried every start and every length, and
a reply of 400 tokens spent 48 ms a token in the trigger search, 1 s at 1,700 (measured).
What a group matches must be the start of a call the grammar accepts: llama.cpp feeds it to
the grammar, and text the grammar refuses there is an exception no caller can catch, which
aborts the process (measured: an indented fence, ``   ```json\n   {``, killed the worker
with SIGABRT when the grammar took one space at most)."""


def _body_rules(name: str, close: str) -> dict[str, str]:
    """Rules for a body that ends at the first *close* tag (``</content>``), as the
    parser reads it: *name* matches any text that does not hold *close*.

    Before, a body was anything, and after a ``</content>`` the grammar kept both
    readings (end of body, or more body); a model that then wrote anything but the end
    of the call stayed in the body until a limit (measured: newlines up to the output
    limit). Written as the automaton that finds *close*: ``name-K`` reads on after the
    first K characters of it were seen (up to a character that breaks the match), and
    ``name-endK`` ends the body there, where the closing tag itself then follows. The
    tag's first character, ``<``, occurs once in it, so a ``<`` always starts over.
    """
    n = len(close)
    rules = {name: f'( [^<\\x00] | "<" {name}-1 )* ( "<" {name}-end1 )?'}
    for k in range(1, n):
        char = close[k]
        restart = f'"<" {name}-1'
        if k < n - 1:
            rules[f"{name}-{k}"] = f'[^{char}<\\x00] | {restart} | "{char}" {name}-{k + 1}'
            rules[f"{name}-end{k}"] = f'"<" {name}-end1 | "{char}" {name}-end{k + 1} | ""'
        else:  # the last character would close the tag
            rules[f"{name}-{k}"] = f"[^{char}<\\x00] | {restart}"
            rules[f"{name}-end{k}"] = f'"<" {name}-end1 | ""'
    return rules


def _body(conv: Any, tag: str) -> str:
    """The name of the rule for a *tag* body, added to *conv*'s rules."""
    name = "body-" + tag.replace("_", "-")  # GBNF names: letters, digits, dashes
    for rule, text in _body_rules(name, f"</{tag}>").items():
        conv._rules[rule] = text
    return name


# optional strings a small model cannot know and so invents (a version read_file gives)
_LEFT_OUT = frozenset({"version"})


def _literal(text: str) -> str:
    return json.dumps(text)


def tool_call_grammar(
    tools: Sequence[ToolSchema], *, tagged_only: bool = False, or_words: bool = False
) -> str:
    """GBNF for one ``<tool_call>…</tool_call>`` block calling one of *tools*; the empty
    string when there are none.

    The lazy grammar's root also takes the fenced and bare forms its triggers start. A
    grammar that binds a reply from its first token (the call a nudged model was asked
    for) takes the ``<tool_call>`` block only: the form the prompt teaches. *or_words*:
    bound from the first token too, a reply that is either such a call (in any of the
    three forms) or words, whose first character is neither blank nor the opening of a
    call (``<``, a fence, ``{``): what a model whose reply was empty is asked again under,
    so that it cannot be empty again."""
    if not tools:
        return ""
    llama_grammar: Any = importlib.import_module("llama_cpp.llama_grammar")
    conv: Any = llama_grammar.SchemaConverter(
        prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False
    )
    conv._rules["space"] = _SPACE
    calls: list[str] = []
    for i, tool in enumerate(tools):
        params = tool.parameters if isinstance(tool.parameters, dict) else {}
        raw = params.get("properties")
        props: dict[str, Any] = raw if isinstance(raw, dict) else {}
        tags = body_params(tool)
        required = [r for r in params.get("required") or () if r in props]
        offered = {
            k: v
            for k, v in props.items()
            if k not in tags
            and (k in required or (isinstance(v, dict) and v.get("type") == "string"))
            and (k in required or k not in _LEFT_OUT)
        }
        # the alternative the grammar leaves out (a list of edits) leaves the bodies as the
        # only way left to say what to do
        left_out = [k for k in props if k not in offered and k not in tags]
        bodies_needed = bool(tags) and bool(left_out) and not set(tags) & set(required)
        schema = {
            "type": "object",
            "properties": offered,
            "required": [r for r in required if r not in tags],
            "additionalProperties": False,
        }
        args = conv.visit(schema, f"args{i}")
        parts = [
            r'"{" space "\"name\"" space ":" space',
            _literal(json.dumps(tool.name)),
            r'space "," space "\"arguments\"" space ":" space',
            args,
            'space "}"',
        ]
        for param, tag in tags.items():
            body = _body(conv, tag)
            block = f'"\\n"? {_literal(f"<{tag}>")} "\\n"? {body} {_literal(f"</{tag}>")}'
            parts.append(block if param in required or bodies_needed else f"( {block} )?")
        calls.append(conv._add_rule(f"call{i}", " ".join(parts)))
    call = conv._add_rule("call", " | ".join(calls))
    tagged = f'"<tool_call>" space {call} "\\n"? "</tool_call>"'
    fenced = f'"```" ("json" | "tool_call")? "\\n" space {call} space "```"'
    if or_words:
        conv._rules["words"] = _WORDS
        conv._add_rule("root", f"{tagged} | {fenced} | {call} | words")
    else:
        conv._add_rule("root", tagged if tagged_only else f"{tagged} | {fenced} | {call}")
    return str(conv.format_grammar())


# words: a first character that is not blank and opens no call, then anything (a call
# written after words is read by the lenient parser as ever, unbound)
_WORDS = "[^ \\t\\r\\n<`{\\x00] [^\\x00]*"
NOT_GIVEN = (
    'root ::= "The files I looked at do not give " word (" " word)* "."\n'
    "word ::= [^0-9 \\t\\r\\n.\\x00]+"
)
"""The grammar of one sentence saying the files looked at do not give what was asked,
with no digit and no two spaces running: the answer asked for after a figure was made
up with nothing shown to answer from (:class:`~._nudge_figures.MadeUpFigure`). Asked in
words alone, the 1.5B model wrote the figure it had made up again; bound to words with
no digit, it wrote "The files say that the minibus is due its MOT on April" and then
spaces to the end of its tokens, where the digits it wanted were."""


# The longest run of lines an edit bound to a read file may replace, and the size of file
# whose runs are offered (past it, single lines): the grammar holds every run as a literal.
_RUN_LINES = 8
_RUNS_UP_TO = 200


def edit_call_grammar(
    path: str, lines: Sequence[str], *, picked: bool = False, starts: Sequence[int] = ()
) -> str:
    """GBNF for one ``edit_file`` call on *path* whose old text is a run of the file's
    *lines* (as read_file showed them) that occurs once in it; the empty string when no
    run does. *picked*: the lines are some of the file's, not all of them in order, so
    each is offered alone and without its newline. *starts*: the indexes of the lines a
    run may start on (default: any).

    For a nudged edit after a read: a small model asked for the edit writes an old text
    of its own that matches nothing. Bound to the file's own lines it can only pick what to
    replace.
    """
    text = "\n".join(lines) + "\n"
    longest = _RUN_LINES if not picked and len(lines) <= _RUNS_UP_TO else 1
    runs: list[str] = []
    for i in starts or range(len(lines)):
        for j in range(i + 1, min(len(lines), i + longest) + 1):
            # the last line without its newline: the file may not end with one (nor
            # may a line picked out of it)
            if not lines[i].strip() or not lines[j - 1].strip():
                continue  # runs start and end on a line with something on it
            run = "\n".join(lines[i:j]) + ("\n" if not picked and j < len(lines) else "")
            if text.count(run) == 1:
                runs.append(run)
    if not runs:
        return ""
    head = " space ".join(
        [
            '"<tool_call>"',
            r'"{"',
            r'"\"name\""',
            '":"',
            _literal(json.dumps("edit_file")),
            '","',
            r'"\"arguments\""',
            '":"',
            r'"{"',
            r'"\"path\""',
            '":"',
            _literal(json.dumps(path)),
            r'"}"',
            r'"}"',
        ]
    )
    return "\n".join(
        [
            f'root ::= {head} "\\n"? "<old_content>" "\\n"? old "</old_content>" "\\n"? '
            f'"<new_content>" "\\n"? body-new-content "</new_content>" "\\n"? "</tool_call>"',
            "old ::= " + " | ".join(_literal(r) for r in runs),
            *(f"{r} ::= {t}" for r, t in _body_rules("body-new-content", "</new_content>").items()),
            f"space ::= {_SPACE}",
        ]
    )
