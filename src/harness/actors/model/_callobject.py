"""One call's JSON object, read leniently: the repair engine.

Small models write a call's JSON wrong in a few known ways. The engine fixes only what is
unambiguous and says what it fixed (each reading's list of repairs):

- unclosed brackets at the end of a *complete* reply; a reply cut off by the token limit
  or a dropped stream is refused, because closing it would invent arguments;
- quotes inside a string value that the model did not escape
  (``{"content": "print("hi")"}``), when exactly one reading of them is valid JSON; when
  two readings are, the call is refused as ambiguous;
- parameters put beside ``name`` instead of inside ``arguments``;
- ``tool_name`` for ``name``; a call nested under a ``tool_call`` (or ``function``) key;
  ``arguments`` given as a JSON string, or as ``parameters``.

Where in a reply a call's object is found is the parser's business (:mod:`._toolparse`);
the streaming filter asks :func:`normalize_call` whether an object it held back names a
tool.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from typing import Any

__all__ = ["call_keys", "decode_object", "normalize_call"]


def _close_brackets(src: str) -> str | None:
    """*src* with its open ``{``/``[`` closed, or ``None`` when that is not safe
    (it ends inside a string, or a bracket closes what it did not open)."""
    stack: list[str] = []
    in_str = False
    esc = False
    for ch in src:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and (not stack or stack.pop() != ch):
            return None
    if in_str or not stack:
        return None
    body = src.rstrip()
    if body.endswith((",", ":")):
        return None
    return body + "".join(reversed(stack))


_CALL_KEYS = ("name", "tool_name", "arguments", "parameters", "tool_call", "function")


def call_keys(params_of: dict[str, Collection[str]] | None) -> frozenset[str]:
    """The keys a call may hold: its own, and every offered tool's parameter names."""
    return frozenset(_CALL_KEYS).union(*(params_of or {}).values())


def decode_object(
    src: str, *, complete: bool, keys: Collection[str] = ()
) -> tuple[Any, int, list[str], str | None]:
    """Decode the JSON value at the start of *src* (leading blanks allowed).

    Returns (value, end index, repairs, error). A value that runs to the end of *src*
    unclosed is closed only when the reply is *complete*.
    """
    start = len(src) - len(src.lstrip())
    try:
        value, end = json.JSONDecoder().raw_decode(src, start)
        return value, end, [], None
    except json.JSONDecodeError as exc:
        error = f"invalid JSON: {exc.msg} at char {exc.pos - start}"
    closed = _close_brackets(src[start:])
    if closed is None:
        return _unescaped_quotes(src, start, error, keys)
    if not complete:
        return None, len(src), [], "the reply was cut off inside the call; not repaired"
    try:
        value = json.loads(closed)
    except json.JSONDecodeError:
        return None, len(src), [], error
    return value, len(src), ["closed unclosed brackets"], None


# Past this many quotes that could each open or close a string, a reply is not read.
_MAX_UNSURE_QUOTES = 10
_LENIENT = json.JSONDecoder(strict=False)  # raw newlines inside strings


# A key as calls write them: a bare name after ``{`` or ``,``, then a colon and, for a
# string value, its opening quote.
_KEY_RE = re.compile(r'[{,]\s*(?P<a>")(?P<key>[A-Za-z_][\w.-]*)(?P<b>")\s*:\s*(?P<c>")?')


def _unescaped_quotes(
    src: str, start: int, error: str, keys: Collection[str]
) -> tuple[Any, int, list[str], str | None]:
    """Read the JSON value at *start* in *src* when quotes inside its strings were not
    escaped (``{"content": "print("hi")"}``), if exactly one reading of them decodes.

    A known key (*keys*: the call's own keys and the tools' parameter names) is taken as
    written, and so is the quote that opens its string value. A quote with neither an
    opening context before it (``[ , :``) nor a closing one after it (``: , } ]``) can only
    be inside a string. Every
    other quote could be either: each way of reading those is tried, and the call is read
    only when all the readings that decode give the same value.
    """
    stop = max(src.rfind("}"), src.rfind("]")) + 1
    seg = src[start:stop]
    quotes = [i for i, ch in enumerate(seg) if ch == '"' and _backslashes_before(seg, i) % 2 == 0]
    index = {pos: k for k, pos in enumerate(quotes)}
    structural = {
        index[m.start(g)]
        for m in _KEY_RE.finditer(seg)
        if m.group("key") in keys
        for g in ("a", "b", "c")
        if m.start(g) >= 0
    }
    unsure: list[int] = []
    inner: set[int] = set()
    for k, pos in enumerate(quotes):
        if k in structural:
            continue
        before = seg[:pos].rstrip()[-1:]
        after = seg[pos + 1 :].lstrip()[:1]
        if before in ("[", ",", ":") or after in (":", ",", "}", "]"):
            unsure.append(k)
        else:
            inner.add(k)
    if not inner or len(unsure) > _MAX_UNSURE_QUOTES:
        return None, len(src), [], error
    readings: dict[str, tuple[Any, int]] = {}
    for mask in range(1 << len(unsure)):
        escaped = inner | {q for bit, q in enumerate(unsure) if mask >> bit & 1}
        text, shift = _escape_at(seg, [quotes[k] for k in sorted(escaped)])
        try:
            value, end = _LENIENT.raw_decode(text)
        except (json.JSONDecodeError, RecursionError):
            continue
        readings[json.dumps(value, sort_keys=True)] = (value, start + shift(end))
    if len(readings) != 1:
        if readings:
            error += "; quotes inside a string are not escaped and can be read two ways"
        return None, len(src), [], error
    value, end = next(iter(readings.values()))
    return value, end, ["escaped quotes inside a string value"], None


def _backslashes_before(text: str, pos: int) -> int:
    return pos - len(text[:pos].rstrip("\\"))


def _escape_at(text: str, positions: list[int]) -> tuple[str, Callable[[int], int]]:
    """*text* with a backslash put before each of *positions* (ascending), and a function
    mapping an index of the new text back to *text*."""
    out: list[str] = []
    last = 0
    for pos in positions:
        out.append(text[last:pos])
        out.append("\\")
        last = pos
    out.append(text[last:])

    def shift(new_index: int) -> int:
        added = 0
        for pos in positions:
            if pos + added >= new_index:
                break
            added += 1
        return new_index - added

    return "".join(out), shift


def normalize_call(obj: Any) -> tuple[str, dict[str, Any] | None, list[str], str | None]:
    """Read a decoded object as a call: (name, arguments, repairs, error)."""
    repairs: list[str] = []
    if not isinstance(obj, dict):
        return "", None, repairs, "a tool call must be a JSON object"
    for wrapper in ("tool_call", "function"):
        inner = obj.get(wrapper)
        if isinstance(inner, dict) and ("name" in inner or "tool_name" in inner):
            extra = set(obj) - {wrapper, "type", "id"}
            if not extra:
                obj = inner
                repairs.append(f"unwrapped the call nested under {wrapper!r}")
                break
    obj = dict(obj)
    if "name" not in obj and "tool_name" in obj:
        obj["name"] = obj.pop("tool_name")
        repairs.append("read 'tool_name' as 'name'")
    name = obj.pop("name", None)
    if not isinstance(name, str) or not name:
        return "", None, repairs, "the call has no tool name"
    obj.pop("id", None)
    obj.pop("type", None)
    args: Any
    if "arguments" in obj:
        args = obj.pop("arguments")
    elif "parameters" in obj:
        args = obj.pop("parameters")
        repairs.append("read 'parameters' as 'arguments'")
    else:
        args = dict(obj)
        if obj:
            repairs.append("moved parameters given beside 'name' into 'arguments'")
        obj = {}
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
            repairs.append("decoded arguments given as a JSON string")
        except json.JSONDecodeError as exc:
            return name, None, repairs, f"arguments are a string that is not JSON: {exc.msg}"
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return name, None, repairs, "arguments must be a JSON object"
    if obj:
        return name, None, repairs, f"unexpected keys beside arguments: {sorted(obj)}"
    return name, args, repairs, None
