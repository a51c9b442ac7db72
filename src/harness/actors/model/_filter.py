"""The streaming filter: what of a raw token stream a person should see.

Tokens arrive a few characters at a time. The filter turns them into text and thinking
deltas as they come, and keeps out of the displayed text what is not for display:
``<think>…</think>`` becomes thinking, ``<tool_call>…</tool_call>`` blocks vanish (once
the name of a known tool shows in one, :class:`~harness.messages.model.CallWriting` says
a call to it is being written), and
(under the text protocol, while no ``<tool_call>`` has been seen) a fenced block or a bare
``{"name": ...}`` object is held back until it is clear whether it is a call to a known tool.
It holds back only what it must: a partial tag at the end of a chunk, a candidate call.

At the end, :meth:`TextStreamFilter.finish` flushes what is held and returns the
authoritative reading of the whole reply from :func:`parse_reply`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection

from harness.actors.model._callobject import normalize_call
from harness.actors.model._parsed import ParsedReply
from harness.actors.model._toolparse import parse_reply
from harness.messages.model import CallWriting, TextDelta, ThinkingDelta

__all__ = ["TextStreamFilter"]

_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_CALL_OPEN, _CALL_CLOSE = "<tool_call>", "</tool_call>"
_TAGS = (_THINK_OPEN, _CALL_OPEN)
# A position where a line starts (after optional blanks) with a fence or a brace.
_LINE_TRIGGER = re.compile(r"(?:^|(?<=\n))[ \t]*[`{]")
_FENCE_OPEN = re.compile(r"[ \t]*```([\w-]*)[ \t]*\n")
_FENCE_MAYBE = re.compile(r"[ \t]*`{0,3}[\w-]*[ \t]*")
_FENCE_CLOSE = re.compile(r"^[ \t]*```[ \t]*(?:\n|\Z)", re.M)
_CALL_START = re.compile(r'\s*\{\s*"(?:name|tool_name|tool_call|function)"\s*:')
_CALL_LANGS = ("json", "tool_call", "")
_SPECIAL = re.compile(r"[<`{]")
# the name in the opening of a tagged call's JSON
_CALL_NAME = re.compile(r'"(?:name|tool_name|function)"\s*:\s*"([\w.-]+)"')
_NAME_WITHIN = 200  # characters of a call to look for its name in

Delta = TextDelta | ThinkingDelta | CallWriting


def _partial_suffix(buf: str, tokens: tuple[str, ...]) -> int:
    """Length of the longest end of *buf* that is a proper start of one of *tokens*."""
    best = 0
    for tok in tokens:
        for n in range(min(len(tok) - 1, len(buf)), best, -1):
            if buf.endswith(tok[:n]):
                best = n
                break
    return best


class TextStreamFilter:
    """Split a raw token stream into displayed text, thinking and (held) tool calls.

    Args:
        known_tools: names of the tools offered (or name -> parameter names).
        parse_calls: ``False`` under the native protocol: only ``<think>`` is filtered.
    """

    def __init__(
        self,
        known_tools: Collection[str] | dict[str, Collection[str]] = (),
        *,
        parse_calls: bool = True,
    ) -> None:
        self._known = known_tools
        self._names = set(known_tools)
        self._parse_calls = parse_calls
        self._raw: list[str] = []
        self._buf = ""
        self._mode = "text"
        self._hold = ""
        self._fence_lang = ""
        self._seen_call_tag = False
        self._at_line_start = True
        self._strip_nl = False  # drop one newline right after a think tag
        self._call_head: str | None = None  # a call's opening, until its name shows
        self._out: list[Delta] = []

    @property
    def raw(self) -> str:
        """Everything fed so far."""
        return "".join(self._raw)

    def feed(self, chunk: str) -> list[Delta]:
        """Take the next piece of the stream; return what may be shown now."""
        if not chunk:
            return []
        self._raw.append(chunk)
        if (
            self._mode == "text"
            and not self._buf
            and not self._strip_nl
            and not _SPECIAL.search(chunk)
            and not (chunk[-1] in " \t" and ("\n" in chunk or self._at_line_start))
        ):
            # The common case: a token with nothing to hold back goes straight out.
            self._at_line_start = chunk[-1] == "\n"
            return [TextDelta(chunk)]
        self._buf += chunk
        self._run(final=False)
        out, self._out = self._out, []
        return out

    def finish(self, *, complete: bool = True) -> tuple[list[Delta], ParsedReply]:
        """End the stream: flush what is held and read the whole reply.

        Args:
            complete: ``False`` when the reply stopped early (token limit, broken stream).
        """
        self._run(final=True)
        if self._mode == "think" and self._buf:
            self._emit_thinking(self._buf)
        elif self._mode in ("text", "fence_pass") and self._buf:
            self._emit_text(self._buf)
        elif self._mode in ("fence_hold", "bare_hold"):
            held = self._hold + self._buf
            if not parse_reply(held, self._known, complete=complete).calls:
                self._emit_text(held)
        self._buf, self._hold, self._mode = "", "", "text"
        out, self._out = self._out, []
        if not self._parse_calls:
            return out, ParsedReply("")
        return out, parse_reply(self.raw, self._known, complete=complete)

    # -- the state machine -------------------------------------------------------------

    def _emit_text(self, text: str) -> None:
        if not text:
            return
        self._at_line_start = text.endswith("\n")
        if self._out and isinstance(self._out[-1], TextDelta):
            self._out[-1] = TextDelta(self._out[-1].text + text)
        else:
            self._out.append(TextDelta(text))

    def _emit_thinking(self, text: str) -> None:
        if not text:
            return
        if self._out and isinstance(self._out[-1], ThinkingDelta):
            self._out[-1] = ThinkingDelta(self._out[-1].text + text)
        else:
            self._out.append(ThinkingDelta(text))

    def _run(self, *, final: bool) -> None:
        while self._buf:
            if self._strip_nl:
                self._strip_nl = False
                if self._buf.startswith("\n"):
                    self._buf = self._buf[1:]
                    continue
            step = getattr(self, f"_step_{self._mode}")
            if not step(final):
                return

    def _step_think(self, final: bool) -> bool:
        end = self._buf.find(_THINK_CLOSE)
        if end == -1:
            keep = 0 if final else _partial_suffix(self._buf, (_THINK_CLOSE,))
            self._emit_thinking(self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep :]
            return False
        self._emit_thinking(self._buf[:end])
        self._buf = self._buf[end + len(_THINK_CLOSE) :]
        self._mode, self._strip_nl = "text", True
        return True

    def _step_call(self, final: bool) -> bool:
        end = self._buf.find(_CALL_CLOSE)
        if end == -1:
            keep = _partial_suffix(self._buf, (_CALL_CLOSE,))
            self._name_call(self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep :]
            return False
        self._name_call(self._buf[:end])
        self._buf = self._buf[end + len(_CALL_CLOSE) :]
        self._mode = "text"
        self._call_head = None
        return True

    def _name_call(self, seen: str) -> None:
        """Say which tool the call being written calls, once its name shows."""
        if self._call_head is None:
            return
        self._call_head += seen
        found = _CALL_NAME.search(self._call_head)
        if found is not None and found.group(1) in self._names:
            self._out.append(CallWriting(found.group(1)))
            self._call_head = None
        elif found is not None or len(self._call_head) > _NAME_WITHIN:
            self._call_head = None

    def _next_trigger(self) -> int:
        cut = self._buf.find("<")
        if self._parse_calls and not self._seen_call_tag:
            for m in _LINE_TRIGGER.finditer(self._buf):
                if m.start() == 0 and not self._at_line_start:
                    continue
                if cut == -1 or m.start() < cut:
                    cut = m.start()
                break
        return cut

    def _step_text(self, final: bool) -> bool:
        cut = self._next_trigger()
        if cut == -1:
            keep = 0
            if self._parse_calls and not self._seen_call_tag and not final:
                # Blanks that open a line may be the indent of a fence or a call.
                nl = self._buf.rfind("\n")
                tail = self._buf[nl + 1 :]
                if (nl != -1 or self._at_line_start) and not tail.strip(" \t"):
                    keep = len(tail)
            self._emit_text(self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep :]
            return False
        self._emit_text(self._buf[:cut])
        self._buf = rest = self._buf[cut:]
        if rest.startswith("<"):
            return self._at_tag(final)
        if rest.lstrip(" \t").startswith("`"):
            return self._at_fence(final)
        self._mode, self._hold, self._buf = "bare_hold", "", rest
        return True

    def _at_tag(self, final: bool) -> bool:
        rest = self._buf
        if rest.startswith(_THINK_OPEN):
            self._buf, self._mode = rest[len(_THINK_OPEN) :], "think"
            self._strip_nl = True
            return True
        if self._parse_calls and rest.startswith(_CALL_OPEN):
            after = rest[len(_CALL_OPEN) :].lstrip()
            if not after and not final:
                return False
            if after.startswith(("{", "`")):
                self._seen_call_tag = True
                self._buf, self._mode = rest[len(_CALL_OPEN) :], "call"
                self._call_head = ""
                return True
        elif not final and any(t.startswith(rest) for t in _TAGS) and len(rest) < len(_CALL_OPEN):
            return False
        self._emit_text("<")
        self._buf = rest[1:]
        return True

    def _at_fence(self, final: bool) -> bool:
        rest = self._buf
        m = _FENCE_OPEN.match(rest)
        if m is None:
            if not final and "\n" not in rest and _FENCE_MAYBE.fullmatch(rest):
                return False
            tick = rest.index("`")
            self._emit_text(rest[: tick + 1])
            self._buf = rest[tick + 1 :]
            return True
        self._fence_lang = m.group(1).lower()
        if self._fence_lang in _CALL_LANGS:
            self._mode, self._hold, self._buf = "fence_hold", m.group(0), rest[m.end() :]
        else:
            self._emit_text(m.group(0))
            self._mode, self._buf = "fence_pass", rest[m.end() :]
        return True

    def _step_fence_pass(self, final: bool) -> bool:
        m = _FENCE_CLOSE.search(self._buf)
        if m is None or (m.end() == len(self._buf) and not m.group(0).endswith("\n") and not final):
            # Emit whole lines only, so a closing fence is never split.
            cut = self._buf.rfind("\n") + 1
            if m is not None:
                cut = min(cut, m.start())
            self._emit_text(self._buf[:cut])
            self._buf = self._buf[cut:]
            return False
        self._emit_text(self._buf[: m.end()])
        self._buf, self._mode = self._buf[m.end() :], "text"
        return True

    def _step_fence_hold(self, final: bool) -> bool:
        body = self._buf
        if body.strip() and not body.lstrip().startswith("{"):
            self._emit_text(self._hold)
            self._hold, self._mode = "", "fence_pass"
            return True
        m = _FENCE_CLOSE.search(body)
        if m is None or (not m.group(0).endswith("\n") and not final):
            return False
        block, self._buf = self._hold + body[: m.end()], body[m.end() :]
        self._hold, self._mode = "", "text"
        if not self._is_call(body[: m.start()], self._fence_lang == "tool_call"):
            self._emit_text(block)
        return True

    def _step_bare_hold(self, final: bool) -> bool:
        held = self._buf
        stripped = held.lstrip()
        if (":" in stripped or len(stripped) > 24) and not _CALL_START.match(held):
            return self._release_bare()
        try:
            _value, end = json.JSONDecoder().raw_decode(held, len(held) - len(stripped))
        except json.JSONDecodeError:
            return False
        line_end = held.find("\n", end)
        if line_end == -1 and not final:
            if held[end:].strip():
                return self._release_bare()
            return False
        stop = len(held) if line_end == -1 else line_end
        if held[end:stop].strip() or not self._is_call(held[:end], False):
            return self._release_bare()
        self._buf, self._mode = held[stop:], "text"
        return True

    def _release_bare(self) -> bool:
        # Show the brace that looked like a call start and go on scanning after it.
        held = self._buf
        cut = held.index("{") + 1
        self._emit_text(held[:cut])
        self._buf, self._mode = held[cut:], "text"
        return True

    def _is_call(self, src: str, any_name: bool) -> bool:
        try:
            value = json.loads(src)
        except json.JSONDecodeError:
            return any_name
        name, _args, _repairs, _err = normalize_call(value)
        return bool(name) and (any_name or name in self._names)
