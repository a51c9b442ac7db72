"""The forms a small model writes a call in when it leaves out ``<tool_call>``.

:func:`._toolparse.parse_reply` turns to these only when the reply has no ``<tool_call>``
anywhere, so an ordinary code block in an answer stays an answer. Tried in this order:

- a fenced block (```` ```tool_call ```` / ```` ```tool_code ````, or ```` ```json ```` / a
  bare fence holding a known tool), with the body tags written inside the fence or right
  after it (what Gemma writes); a ```` ```tool_code ```` fence may hold a Python-style call,
  ``read_file(path="a.py")``, whose arguments are literals (nothing is ever run);
- a bare ``{"name": ...}`` object on its own lines naming a known tool, with its body tags
  right after it;
- a line that is a tag named after a known tool, ``<run_cmd>python3 hello.py</run_cmd>``
  (the text is the tool's first parameter) or ``<run_cmd command="python3 hello.py">``
  (the attributes are its arguments).

Each call's JSON is read by the repair engine (:mod:`._callobject`), as in a
``<tool_call>`` block.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection, Iterator
from typing import Any

import attrs

from harness.actors.model._bodytags import BODY_RE, body_param
from harness.actors.model._callobject import call_keys, decode_object, normalize_call
from harness.actors.model._parsed import ParsedCall, ParsedReply, join_repairs, tidy

__all__ = ["bare_calls", "closed_fenced_call", "fenced_calls", "tool_tag_calls"]

# Fence languages that mark a call, whatever the block holds.
_CALL_FENCES = ("tool_call", "tool_code", "tool", "function_call")
_FENCE_OPEN = re.compile(r"^[ \t]*```([\w-]*)[ \t]*\n", re.M)
_FENCE_CLOSE = re.compile(r"^[ \t]*```[ \t]*$", re.M)


@attrs.frozen
class _Fence:
    start: int  # where its opening line starts
    lang: str
    body: str
    closed: bool
    end: int  # just past its closing line (the text's end when unclosed)


def _in_body(text: str, start: int, end: int) -> bool:
    """Whether a body tag opened between *start* and *end* of *text* is still open there."""
    tags = list(BODY_RE.finditer(text, start, end))
    return bool(tags) and not tags[-1].group(3)


def _fences(text: str) -> Iterator[_Fence]:
    """The fenced blocks of *text*, in order. A fence line inside a body tag the block
    has opened and not closed is the file's own (a README's code block), not the
    block's end."""
    pos = 0
    while (opening := _FENCE_OPEN.search(text, pos)) is not None:
        start = opening.end()
        at = start
        while (closing := _FENCE_CLOSE.search(text, at)) is not None:
            if not _in_body(text, start, closing.start()):
                break
            at = closing.end()
        if closing is None:
            yield _Fence(opening.start(), opening.group(1), text[start:], False, len(text))
            return
        yield _Fence(
            opening.start(), opening.group(1), text[start : closing.start()], True, closing.end()
        )
        pos = closing.end()


_CALL_START = re.compile(r'\s*\{\s*"name"')


def closed_fenced_call(text: str) -> bool:
    """Whether *text* holds a fenced block that opens with a call's ``{"name"`` and is
    closed: where a model writing a call in a fence is done (a fence line inside a body
    tag the call opened is the file's own, and the call goes on)."""
    return any(f.closed and _CALL_START.match(f.body) for f in _fences(text))


def _python_call(body: str, known: Collection[str]) -> tuple[str, dict[str, Any]] | None:
    """A ```` ```tool_code ```` body written as Python, ``read_file(path="a.py")`` (also
    inside ``print(...)`` or as ``default_api.read_file(...)``), with literal keyword
    arguments; ``None`` for anything else. Nothing is ever run."""
    try:
        node = ast.parse(body.strip(), mode="eval").body
    except SyntaxError:
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and len(node.args) == 1
        and not node.keywords
    ):
        node = node.args[0]
    if not isinstance(node, ast.Call) or node.args:
        return None
    func = node.func
    name = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )
    if name not in known:
        return None
    args: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            return None
        try:
            args[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            return None
    return name, args


_BODY_AFTER_RE = re.compile(r"[ \t]*\n?[ \t]*(?=<(?:content|old_content|new_content)>)")


@attrs.define
class _FenceCall:
    name: str
    args: dict[str, Any] | None
    error: str | None
    repairs: list[str]
    body_tags_from: int  # where body tags may start inside the fence


def _read_fence(
    body: str, lang: str, known: Collection[str], *, complete: bool, keys: Collection[str]
) -> _FenceCall | None:
    """The call a fence holds, or ``None`` when the fence is not a call."""
    call_fence = lang in _CALL_FENCES
    repairs = [f"read a ```{lang or 'plain'} fenced block as a call"]
    if not body.lstrip().startswith("{"):
        python = _python_call(body, known) if call_fence else None
        if python is None:
            return None
        return _FenceCall(python[0], python[1], None, [*repairs, "read a Python-style call"], 0)
    value, json_end, more, error = decode_object(body, complete=complete, keys=keys)
    if error is not None:
        return _FenceCall("", None, error, [], 0) if call_fence else None
    name, args, more2, err = normalize_call(value)
    if name not in known and not call_fence:
        return None
    return _FenceCall(name, args, err, [*repairs, *more, *more2], json_end)


def fenced_calls(
    text: str, known: Collection[str], *, complete: bool, params_of: dict[str, Collection[str]]
) -> ParsedReply:
    """*text* split into prose and the calls its fenced blocks hold: a call fence
    (```` ```tool_call ```` and the like) whatever it holds, a ```` ```json ```` or bare
    fence only when it names a *known* tool."""
    calls: list[ParsedCall] = []
    kept: list[str] = []
    pos = 0
    for fence in _fences(text):
        lang = fence.lang.lower()
        if fence.start < pos or (lang not in _CALL_FENCES and lang not in ("json", "")):
            continue
        body, closed, end = fence.body, fence.closed, fence.end
        fc = _read_fence(body, lang, known, complete=complete, keys=call_keys(params_of))
        if fc is None:
            continue
        if fc.args is not None and not closed:
            if complete:
                fc.repairs.append("closed the unclosed fence")
            else:
                fc.args, fc.error = None, "the reply was cut off inside the fence; not repaired"
        if fc.args is not None:
            params = params_of.get(fc.name)
            for b in BODY_RE.finditer(body[fc.body_tags_from :]):
                fc.args[body_param(b.group(1), params)] = b.group(2)
            if closed:
                end, error = _bodies_after(text, end, fc.args, fc.repairs, params, complete)
                if error is not None:
                    fc.args, fc.error = None, error
        calls.append(
            ParsedCall(fc.name, fc.args, parse_error=fc.error, repaired=join_repairs(fc.repairs))
        )
        kept.append(text[pos : fence.start])
        pos = end
    kept.append(text[pos:])
    return ParsedReply(tidy("".join(kept)), tuple(calls))


def _bodies_after(
    text: str,
    end: int,
    args: dict[str, Any],
    repairs: list[str],
    params: Collection[str] | None,
    complete: bool,
) -> tuple[int, str | None]:
    """Read the body tags right after a call written outside a ``<tool_call>`` block (a
    fence: Gemma writes them there; a bare object: the 1.5B Qwen does) into *args*;
    returns where the call's text ends, and an error when the reply was cut off inside
    one."""
    while (after := _BODY_AFTER_RE.match(text, end)) is not None:
        b = BODY_RE.match(text, after.end())
        if b is None:
            break
        tag, value, close = b.group(1), b.group(2), b.group(3)
        end = b.end()
        if not close:
            if not complete:
                return end, f"the reply was cut off inside <{tag}>; not repaired"
            repairs.append(f"closed the <{tag}> tag")
        args[body_param(tag, params)] = value
        repairs.append(f"read the <{tag}> block after the call")
    return end, None


_BARE_RE = re.compile(r'^[ \t]*\{\s*"(?:name|tool_name|tool_call|function)"\s*:', re.M)


def bare_calls(
    text: str, known: Collection[str], *, complete: bool, params_of: dict[str, Collection[str]]
) -> ParsedReply:
    """*text* split into prose and the ``{"name": ...}`` objects that start a line, end
    one (or go on with a body tag) and name a *known* tool (an object with prose after it
    on its line is quoted)."""
    calls: list[ParsedCall] = []
    kept: list[str] = []
    pos = 0
    for m in _BARE_RE.finditer(text):
        if m.start() < pos:
            continue
        value, end, repairs, error = decode_object(
            text[m.start() :], complete=complete, keys=call_keys(params_of)
        )
        end += m.start()
        if error is not None:
            continue
        line_end = text.find("\n", end)
        tail = text[end : len(text) if line_end == -1 else line_end]
        if tail.strip() and _BODY_AFTER_RE.match(text, end) is None:
            continue  # prose continues on the same line: this object is quoted, not called
        name, args, more, err = normalize_call(value)
        if name not in known:
            continue
        repairs = ["read a bare JSON object as a call", *repairs, *more]
        if args is not None:
            end, cut = _bodies_after(text, end, args, repairs, params_of.get(name), complete)
            if cut is not None:
                args, err = None, cut
        calls.append(ParsedCall(name, args, parse_error=err, repaired=join_repairs(repairs)))
        kept.append(text[pos : m.start()])
        pos = end
    kept.append(text[pos:])
    return ParsedReply(tidy("".join(kept)), tuple(calls))


# a line that is a tag named after a tool: <run_cmd>python3 hello.py</run_cmd>, or
# <run_cmd command="python3 hello.py" timeout="120"> (attributes, closed or not)
_TOOL_TAG_RE = re.compile(
    r'^[ \t]*<([A-Za-z][\w.-]*)((?:[ \t]+[\w-]+="[^"\n]*")*)[ \t]*(/?)>([^\n<]*)(</\1>)?[ \t]*$',
    re.M,
)
_ATTR_RE = re.compile(r'([\w-]+)="([^"\n]*)"')


def _attr_value(text: str) -> Any:
    """An attribute's value: a number or a flag as such (``timeout="120"``), else text."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, int | float | bool) else text


def tool_tag_calls(text: str, params_of: dict[str, Collection[str]]) -> ParsedReply:
    """Calls written as a line that is a tag named after a known tool: either
    ``<run_cmd>python3 hello.py</run_cmd>``, whose text is the tool's first parameter (or
    its arguments, as a JSON object), or ``<run_cmd command="python3 hello.py">``, whose
    attributes are its arguments. Measured: the 1.5B model answered "run hello.py and
    report its output" with such a line alone, as its whole reply, in both forms."""
    calls: list[ParsedCall] = []
    kept: list[str] = []
    pos = 0
    for m in _TOOL_TAG_RE.finditer(text):
        name, attrs, value = m.group(1), m.group(2), m.group(4).strip()
        closed = bool(m.group(3) or m.group(5))
        params = list(params_of.get(name, ()))
        if name not in params_of or (not params and value):
            continue
        args: dict[str, Any] | None = None
        if attrs:
            if value:
                continue  # attributes and text: which is which is a guess
            args = {k: _attr_value(v) for k, v in _ATTR_RE.findall(attrs)}
        elif not closed:
            continue  # "<run_cmd>python3 hello.py" and no more: prose, or cut off
        elif value.startswith("{"):
            try:
                loaded = json.loads(value)
            except ValueError:
                loaded = None
            args = loaded if isinstance(loaded, dict) else None
        if args is None:
            if params and not value:
                continue
            args = {params[0]: value} if params else {}
        calls.append(ParsedCall(name, args, repaired=f"read a <{name}> tag as a call"))
        kept.append(text[pos : m.start()])
        pos = m.end()
    kept.append(text[pos:])
    return ParsedReply(tidy("".join(kept)), tuple(calls))
