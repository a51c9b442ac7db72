"""The text tool-call parser: the tagged form, and the entry point that picks a reading.

Text-protocol models write ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
with file bodies in ``<content>`` / ``<old_content>`` / ``<new_content>`` tags beside the
JSON (:mod:`._bodytags`). Each call's JSON is read by the repair engine
(:mod:`._callobject`), which fixes only what is unambiguous and says what it fixed; a
missing ``</tool_call>`` or body close tag is added here, at the end of a *complete* reply
only: a reply cut off by the token limit or a dropped stream is refused, because closing it
would invent arguments.

:func:`parse_reply` reads the tagged form whenever the reply has a ``<tool_call>``
anywhere; only when it has none does it try the forms small models write without the tag
(:mod:`._lenient`: fences, bare objects, tool tags), so an ordinary code block in an answer
stays an answer.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import attrs

from harness.actors.model._bodytags import BODY_RE, body_param
from harness.actors.model._callobject import call_keys, decode_object, normalize_call
from harness.actors.model._lenient import bare_calls, fenced_calls, tool_tag_calls
from harness.actors.model._parsed import ParsedCall, ParsedReply, join_repairs, tidy

__all__ = ["parse_reply", "strip_think"]

_OPEN = "<tool_call>"
_CLOSE = "</tool_call>"
# An opener counts only when a call follows it; "<tool_call>" in prose stays prose.
_OPENER_RE = re.compile(r"<tool_call>(?=\s*(?:\{|```))")

# Where a <think> block may start, and the regions it may not start inside: a
# call's JSON or a fenced block can hold the text "<think>" as data.
_THINK_SCAN_RE = re.compile(r"<think>|<tool_call>(?=\s*(?:\{|```))|^[ \t]*```", re.M)


def strip_think(text: str) -> str:
    """*text* without ``<think>…</think>`` blocks (an unclosed one runs to the end).

    A ``<think>`` inside a ``<tool_call>`` block or a fenced block is data, not
    thinking, and stays.
    """
    if "<think>" not in text:
        return text
    out: list[str] = []
    pos = 0
    while (m := _THINK_SCAN_RE.search(text, pos)) is not None:
        out.append(text[pos : m.start()])
        found = m.group()
        if found == "<think>":
            end = text.find("</think>", m.end())
            pos = len(text) if end == -1 else end + len("</think>")
            continue
        closer = _CLOSE if found.startswith("<tool_call>") else "```"
        end = text.find(closer, m.end())
        pos = len(text) if end == -1 else end + len(closer)
        out.append(text[m.start() : pos])
    out.append(text[pos:])
    return "".join(out)


def _read_block(
    block: str, *, complete: bool, params_of: dict[str, Collection[str]] | None
) -> ParsedCall:
    """Read the inside of one ``<tool_call>`` block (JSON, then body tags)."""
    inner = block.strip()
    fenced = re.match(r"```[\w-]*[ \t]*\n?(.*?)(?:```|\Z)", inner, re.S)
    if fenced:
        inner = fenced.group(1)
    value, _end, repairs, error = decode_object(
        _json_part(inner), complete=complete, keys=call_keys(params_of)
    )
    if error is not None:
        guess = re.search(r'"(?:name|tool_name)"\s*:\s*"([^"]*)"', inner)
        return ParsedCall(guess.group(1) if guess else "", None, parse_error=error)
    name, args, more, error = normalize_call(value)
    repairs += more
    if error is not None or args is None:
        return ParsedCall(name, None, parse_error=error, repaired=join_repairs(repairs))
    rest = _json_part_rest(inner)
    params = params_of.get(name) if params_of else None
    for m in BODY_RE.finditer(rest):
        tag, body, close = m.group(1), m.group(2), m.group(3)
        if not close:
            if not complete:
                return ParsedCall(
                    name, None, parse_error=f"the reply was cut off inside <{tag}>; not repaired"
                )
            repairs.append(f"closed the <{tag}> tag")
        args[body_param(tag, params)] = body
    return ParsedCall(name, args, repaired=join_repairs(repairs))


def _json_part(inner: str) -> str:
    m = BODY_RE.search(inner)
    return inner[: m.start()] if m else inner


def _json_part_rest(inner: str) -> str:
    m = BODY_RE.search(inner)
    return inner[m.start() :] if m else ""


def _tagged_calls(
    text: str, *, complete: bool, params_of: dict[str, Collection[str]] | None
) -> ParsedReply:
    calls: list[ParsedCall] = []
    kept: list[str] = []
    pos = 0
    openers = [m.start() for m in _OPENER_RE.finditer(text)]
    for i, start in enumerate(openers):
        if start < pos:
            continue
        kept.append(text[pos:start])
        body_start = start + len(_OPEN)
        close = text.find(_CLOSE, body_start)
        nxt = openers[i + 1] if i + 1 < len(openers) else len(text)
        if close == -1 or close > nxt:
            # No close tag before the next call (or the end): the block runs up to there.
            block, pos = text[body_start:nxt], nxt
            call = _read_block(block, complete=complete or nxt < len(text), params_of=params_of)
            if call.arguments is not None:
                fixed = "added the missing </tool_call>"
                call = attrs.evolve(
                    call, repaired=join_repairs([*filter(None, [call.repaired]), fixed])
                )
        else:
            block, pos = text[body_start:close], close + len(_CLOSE)
            call = _read_block(block, complete=True, params_of=params_of)
        calls.append(call)
    kept.append(text[pos:])
    return ParsedReply(tidy("".join(kept)), tuple(calls))


def parse_reply(
    text: str,
    known_tools: Collection[str] | dict[str, Collection[str]],
    *,
    complete: bool = True,
) -> ParsedReply:
    """Split a whole text-protocol reply into its prose and its tool calls.

    Args:
        text: the reply as the model wrote it (``<think>`` blocks are dropped).
        known_tools: the tools offered, by name; a mapping from name to parameter names
            lets body tags feed a parameter named differently (``old_string``).
        complete: ``False`` when the reply stopped early (finish reason ``length``, or a
            stream that broke off): nothing is then closed on the model's behalf.
    """
    params_of: dict[str, Collection[str]] = (
        dict(known_tools) if isinstance(known_tools, dict) else {n: () for n in known_tools}
    )
    visible = strip_think(text)
    if _OPENER_RE.search(visible):
        return _tagged_calls(visible, complete=complete, params_of=params_of)
    known = set(params_of)
    fenced = fenced_calls(visible, known, complete=complete, params_of=params_of)
    if fenced.calls:
        return fenced
    bare = bare_calls(visible, known, complete=complete, params_of=params_of)
    if bare.calls:
        return bare
    return tool_tag_calls(visible, params_of)
