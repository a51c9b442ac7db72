"""One text-protocol reply of a small model whose sampler harness can reach, guided.

What makes a small model do tool work, around any engine that runs it with a grammar: the
embedded llama.cpp model, and a llama.cpp server through its own completion endpoint.
:class:`Guide` applies a :class:`~harness.actors.model.ModelProfile`:

- the history as such models read it (:func:`template_messages`);
- the profile's temperature when the call sets none;
- the repeat cap (:func:`~harness.actors.model.local._repeats.check_repeats`);
- the lazy grammar of the tool table, from the first sign of a call on;
- one nudge (:func:`~harness.actors.model.local._nudge.nudge_for`, the rules the profile
  turns on) when the reply announces, claims or repeats instead of acting, its generation
  bound to the call it asks for;
- a call a rule knows whole from the prompt and the results so far alone
  (:func:`~harness.actors.model.local._nudge.known_call`), written with no generation;
- a reply to the prompt stopped at a sentence's or line's end, before any call, once it
  announces a look and names its target
  (:func:`~harness.actors.model.local._nudge.announced_call`), and that call asked for,
  or written as named when it is a read of the one file the sentence names.

The engine is a :data:`Generate`: one generation of *messages* under a grammar, streamed
as text pieces, then :class:`~harness.messages.model.Usage` and
:class:`~harness.actors.model._provider.Finish`. What was measured for each part is in
``docs/models.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing

import attrs

from harness.actors.model import parse_reply
from harness.actors.model._profile import SMALL_MODEL, ModelProfile
from harness.actors.model._provider import Finish, ProviderCall, ProviderEvent
from harness.actors.model._textproto import text_protocol_prompt
from harness.actors.model.local._grammar import (
    NOT_GIVEN,
    edit_call_grammar,
    tool_call_grammar,
)
from harness.actors.model.local._nudge import announced_call, known_call, nudge_for, still_used
from harness.actors.model.local._nudge_base import Nudge
from harness.actors.model.local._nudge_figures import made_up_again
from harness.actors.model.local._repeats import CAPPED, check_repeats
from harness.actors.model.local._turn import Turn, absent, named_starts, turn_of
from harness.errors import HarnessError
from harness.messages.local import LocalModelProgress
from harness.messages.model import ChatMessage, TextDelta, ToolSchema, Usage

__all__ = [
    "ASKED_PREFIX",
    "KNOWN_ANSWER_PREFIX",
    "KNOWN_PREFIX",
    "NUDGED_PREFIX",
    "NUDGED_TOKENS",
    "TAKEN_PREFIX",
    "Generate",
    "Guide",
    "StopReply",
    "nudge_line",
    "static_first",
    "template_messages",
    "untagged",
]

NUDGED_TOKENS = 768
"""The most a nudged reply (one call) may write: a bound edit of a file the model misread
can write its body on to the output limit."""

NUDGED_PREFIX = "asking the model again: "
"""How the progress line of a nudge starts; the rule's name follows."""


TAKEN_PREFIX = "taking the call it announced: "
"""How the progress line of a call the reply named whole starts; the rule's name follows."""


ASKED_PREFIX = "asking the model for the call the rules ask first: "
"""How the progress line of a call a rule asks for in place of a reply starts (its kind
known, not its text: the edit of a file the rules just read); the rule's name follows."""


KNOWN_PREFIX = "writing the call the rules already know: "
"""How the progress line of a call a rule knows before any reply starts
(:func:`~harness.actors.model.local._nudge.known_call`); the rule's name follows."""


KNOWN_ANSWER_PREFIX = "writing the answer the rules already know: "
"""How the progress line of an answer a rule knows before any reply starts: its calls
did the task (:attr:`Nudge.answer`); the rule's name follows."""


def nudge_line(nudge: Nudge) -> str:
    """The status line while a nudged generation runs (``asking the model again:
    claimed-change``), or of the call a stopped reply named whole (``taking the call it
    announced: announced-action``)."""
    return (TAKEN_PREFIX if nudge.arguments is not None else NUDGED_PREFIX) + nudge.rule


class StopReply(HarnessError):
    """Thrown into a generation (``athrow``) at a text piece to end it there, a signal and
    no failure: an engine that knows it stops generating and still yields its
    :class:`Usage` and :class:`Finish`; one that does not lets it out, and its usage is
    not said."""


Generate = Callable[
    [list[dict[str, str]], ProviderCall, str, bool], AsyncGenerator[ProviderEvent, None]
]
"""One generation: ``(messages, call, grammar, lazy)``; *grammar* "" for none, *lazy*
for a grammar that applies from its triggers on (else from the first token)."""

# read_file's version line: these models never write a version (the call grammar leaves it
# out), and read it as something the file says
_VERSION = re.compile(r"^version: [0-9a-f]{16}\n?", re.M)


def static_first(call: ProviderCall) -> tuple[str, str]:
    """The system prompt of *call* with what is the same in every project first, and that
    part alone: ``(system, static)``.

    The worker writes the text protocol's tool section after the conversation's system
    prompt, whose first paragraph is the base prompt and whose next ones name the
    workspace, its instruction files and skills. The tool section moves up behind the
    base prompt, so the state after both is one for every project (saved once, loaded in
    a folder never seen) and a new folder reads only its own lines. The base prompt stays
    first: with the tool section before it the model answered a "which file" question
    with a guess and no call. *static* is "" when the prompt is not of that shape.
    """
    system = call.system
    section = text_protocol_prompt(call.text_tools) if call.text_tools else ""
    if not section or not system.endswith("\n\n" + section):
        return system, ""
    head = system[: -len(section) - 2]
    base, _, project = head.partition("\n\n")
    static = f"{base}\n\n{section}"
    return (f"{static}\n\n{project}" if project else static), static


# the first sign of a call in a reply (the lazy grammar's triggers, and any code): no
# reply is stopped from there on
_CALL_SIGN = re.compile(r"<tool|```|\{")


def _ends_sentence(text: str, piece: str) -> bool:
    """Whether *text*, which *piece* follows, ends a line or a sentence."""
    if not text.strip() or not piece[:1].isspace():
        return False
    return piece.startswith("\n") or text.endswith(("\n", ".", "!", "?"))


def template_messages(system: str, messages: tuple[ChatMessage, ...]) -> list[dict[str, str]]:
    """The history as the chat template takes it. Under the text protocol it holds only
    user and assistant turns already; native tool turns are written as text anyway,
    since these models repeat calls whose results come back through the tool role.

    An earlier reply that made a call is given as its calls alone: a small model copies
    the plan of its last reply before each call, and the prompt grows by it each turn."""
    out: list[dict[str, str]] = []
    if system:
        out.append({"role": "system", "content": system})
    prompt = ""
    seen = _Seen()  # what the tools said since the prompt
    for msg, after in zip(messages, [*messages[1:], None], strict=True):
        if msg.role == "tool":
            seen.results.append(msg.content)
            text = _VERSION.sub("", msg.content)
            text = f"<tool_response>\n{text}\n</tool_response>"
            out.append({"role": "user", "content": text + _reminder(prompt, after, seen)})
        elif msg.role == "user" and "<tool_response>" in msg.content:
            seen.results.append(msg.content)
            text = _VERSION.sub("", msg.content)
            out.append({"role": "user", "content": text + _reminder(prompt, after, seen)})
        elif msg.role == "user":
            prompt = msg.content
            seen = _Seen()
            out.append({"role": "user", "content": msg.content})
        elif msg.role == "system":
            out.append({"role": "system", "content": msg.content})
        elif msg.role == "assistant":
            seen.read(msg)
            out.append(_as_calls(msg))
    return out


def _call_text(name: str, arguments: Mapping[str, object]) -> str:
    """One call as the text protocol writes it."""
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def _as_calls(msg: ChatMessage) -> dict[str, str]:
    """An assistant message as the model reads it: a reply that made calls, as its calls
    alone."""
    if msg.tool_calls:
        calls = "\n".join(_call_text(c.name, c.arguments) for c in msg.tool_calls)
        return {"role": "assistant", "content": calls}
    if (at := msg.content.find("<tool_call>")) > 0:
        return {"role": "assistant", "content": msg.content[at:]}
    return {"role": "assistant", "content": msg.content}


# read_file's line tags ("12:a3|"), which these models are shown without: with them a
# small model misreads the code they tag, and copies them into an edit's new text
_LINE_TAG = re.compile(r"^\d+:[0-9a-f]{2}\|", re.M)
# what edit_file says of the tags when it shows a file (tools/_edit.py, _not_found)
_TAG_NOTE = " (each line's N:HH| tag is not part of the text)"


def untagged(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """*messages* as the model reads them: tool results without read_file's line tags
    (nor the note that they are not part of the text)."""
    return [
        {**m, "content": _LINE_TAG.sub("", m["content"].replace(_TAG_NOTE, ""))}
        if m["role"] == "user" and "<tool_response>" in m["content"]
        else m
        for m in messages
    ]


# The longest prompt repeated after tool results: a longer one costs its tokens again
# each round.
_REMINDER_CHARS = 400


@attrs.define
class _Seen:
    """What the tools said since the user's prompt: their results, and the paths of the
    files read_file was asked for."""

    results: list[str] = attrs.Factory(list)
    reads: list[str] = attrs.Factory(list)

    def read(self, msg: ChatMessage) -> None:
        """Take the read_file paths of the calls *msg* makes (native or as text)."""
        calls = msg.tool_calls or parse_reply(msg.content, {"read_file": ("path",)}).calls
        for call in calls:
            path = (call.arguments or {}).get("path")
            if call.name == "read_file" and isinstance(path, str) and path not in self.reads:
                self.reads.append(path)


def _reminder(prompt: str, after: ChatMessage | None, seen: _Seen) -> str:
    """The user's prompt again, after the last of a run of tool results (*after*: the
    message that follows, if any): behind a file's text the question scrolls away from a
    small model. Only the last result of a run gets it, and the same one every turn, so
    the prompt cache keeps its prefix. What the results show is not there follows
    (:func:`~harness.actors.model.local._turn.absent`)."""
    if not prompt or len(prompt) > _REMINDER_CHARS:
        return ""
    if after is not None and (after.role == "tool" or "<tool_response>" in after.content):
        return ""
    notes = "".join(f"\nNote: {a.sentence}" for a in absent(prompt, seen.results, seen.reads))
    return f'\n\nThe user asked: "{prompt}"' + notes


class Guide:
    """The guidance of one engine's replies (see the module docstring).

    Args:
        profile: what to apply: its grammar, temperature, repeat cap and nudge rules
            (default: :data:`~harness.actors.model.SMALL_MODEL`).
        reorder: put the system prompt's static part first (the embedded model's provider
            does, unless HARNESS_LOCAL_STATIC_FIRST=off).
    """

    def __init__(self, profile: ModelProfile = SMALL_MODEL, *, reorder: bool = False) -> None:
        self.profile = profile
        self.reorder = reorder
        """The system prompt's static part first (:func:`static_first`); off to measure."""
        self._grammars: dict[str, str] = {}

    async def stream(
        self, call: ProviderCall, generate: Generate
    ) -> AsyncGenerator[ProviderEvent, None]:
        """Stream one guided reply to *call*: text pieces, then usage, then
        :class:`Finish`; a nudged generation's text follows the first's after a blank
        line, in the same reply."""
        profile = self.profile
        if call.options.temperature is None and profile.temperature is not None:
            options = attrs.evolve(call.options, temperature=profile.temperature)
            call = attrs.evolve(call, options=options)
        verdict = check_repeats(call.messages, profile.repeat_cap)
        if verdict.refuse:
            yield TextDelta(text=verdict.reason)
            yield Finish(reason=CAPPED)
            return
        # the turn before any reply: what a rule may know at once, and what the reply to
        # the prompt is watched against
        asked = turn_of(verdict.messages, "", call.text_tools)
        known = known_call(asked, profile.nudges)
        if known is not None and (known.answer or known.arguments is not None):
            # a call the prompt and the results so far make whole (a name respelt as the
            # workspace has it, the search for a value to change), or the answer once the
            # rule's calls did the task: written as it is, no generation asked
            line = (KNOWN_ANSWER_PREFIX if known.answer else KNOWN_PREFIX) + known.rule
            yield LocalModelProgress(model=call.model, stage="nudged", message=line)
            text = known.text if known.answer else _call_text(known.tool, known.arguments or {})
            yield TextDelta(text=text)
            yield Finish(reason="stop")
            return
        system = static_first(call)[0] if self.reorder else call.system
        messages = template_messages(system, verdict.messages)
        grammar = self.grammar(call.text_tools) if profile.grammar else ""
        reply: list[str] = []
        ends: list[Usage | Finish] = []
        # a reply to the prompt, watched for the look it announces until a call starts
        watch = profile.stops_at_announcement and bool(profile.nudges) and not asked.steps
        cut: Nudge | None = None
        # the call a rule knows the kind of, not its text (the edit of the file a rule
        # just read): asked in place of a reply, bound, with no free reply before it
        if known is not None and known.tool and known.instead:
            cut = known
        else:
            # aclosing: a reader that leaves must end the generation now, not whenever the
            # generator is garbage collected (a reply stopped here ends it so)
            async with aclosing(generate(untagged(messages), call, grammar, True)) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        if watch:
                            so_far = "".join(reply)
                            if _CALL_SIGN.search(so_far + event.text):
                                watch = False
                            elif _ends_sentence(so_far, event.text):
                                said = attrs.evolve(asked, reply=so_far)
                                cut = announced_call(said, profile.nudges)
                                if cut is not None:
                                    break
                        reply.append(event.text)
                        yield event
                    elif isinstance(event, Usage | Finish):
                        ends.append(event)
                    else:  # progress (loading, reading the prompt): passed on as it comes
                        yield event
                if cut is not None:
                    # the usage is the request's own, the size the context budget learns from
                    tail: list[ProviderEvent] = []
                    try:
                        tail.append(await events.athrow(StopReply()))
                        tail.extend([e async for e in events])
                    except (StopReply, StopAsyncIteration):
                        pass
                    ends.extend(e for e in tail if isinstance(e, Usage | Finish))
        finish = next((e for e in ends if isinstance(e, Finish)), None)
        nudge = turn = None
        if cut is not None:
            # the plan would go on to the call it announced, or stop there: asked at once
            nudge, turn = cut, attrs.evolve(asked, reply="".join(reply))
        elif profile.nudges and finish is not None and finish.reason == "stop":
            # the rules read the turn from the typed history, with read_file's line tags
            turn = turn_of(verdict.messages, "".join(reply), call.text_tools)
            nudge = nudge_for(turn, profile.nudges)
        if nudge is not None and nudge.arguments is not None:
            # the reply named the whole call ("I will read `notes.txt`"): written as it
            # said, no generation asked (a bound one wrote these same words in 2-3 s)
            yield LocalModelProgress(model=call.model, stage="nudged", message=nudge_line(nudge))
            yield TextDelta(text="\n\n" + _call_text(nudge.tool, nudge.arguments))
            ends.append(Finish(reason="stop"))
        elif nudge is not None and turn is not None:
            # once: the model said what it would do and stopped; ask it to do it, and
            # (with the grammar) take nothing but that call
            if nudge.instead:
                last = messages[-1]
                more = [*messages[:-1], {**last, "content": f"{last['content']}\n{nudge.text}"}]
            else:
                more = [
                    *messages,
                    {"role": "assistant", "content": "".join(reply)},
                    {"role": "user", "content": nudge.text},
                ]
            # said, never a silent pause: the terminal's status line shows it, and the
            # task bench counts which rules ask (docs/models.md)
            status = ASKED_PREFIX + nudge.rule if nudge is known else nudge_line(nudge)
            yield LocalModelProgress(model=call.model, stage="nudged", message=status)
            yield TextDelta(text=f"\n\n{nudge.retract}\n\n" if nudge.retract else "\n\n")
            limit = min(call.options.max_tokens or NUDGED_TOKENS, NUDGED_TOKENS)
            once = attrs.evolve(call, options=attrs.evolve(call.options, max_tokens=limit))
            # bound to the call asked for; a nudge that names none keeps the lazy grammar,
            # but after an empty reply it is bound to a call or words: asked again with
            # nothing but a blank reply before it, the model wrote a blank reply again
            # (80 of 1,619 asks of empty-after-result, in the task bench's runs)
            bound = self.bound(nudge.tool, turn, call.text_tools, at=nudge.at)
            if not bound and nudge.not_given and profile.grammar:
                bound = NOT_GIVEN
            elif not bound and not nudge.tool and not turn.reply.strip() and profile.grammar:
                bound = self.grammar(call.text_tools, or_words=True)
            shown = untagged(more)
            nudged = (
                generate(shown, once, bound, False)
                if bound
                else generate(shown, once, grammar, True)
            )
            answer: list[str] = []
            async with aclosing(nudged) as events:
                async for event in events:
                    if isinstance(event, Usage | Finish):
                        ends.append(event)
                    else:
                        if isinstance(event, TextDelta):
                            answer.append(event.text)
                        yield event
            # one nudge a reply: the answer it asked for is not asked again, but a figure
            # made up in it is said to be made up, as the rule says of a reply
            answered = "".join(answer)
            if not nudge.tool and not _CALL_SIGN.search(answered):
                again = made_up_again(attrs.evolve(turn, reply=answered), profile.nudges)
                if again:
                    yield TextDelta(text=f"\n\n{again}")
        usages = [e for e in ends if isinstance(e, Usage)]
        if usages:
            # The prompt is the request's own: the conversation's context budget learns
            # the tokenizer from it, and the sum with a nudged generation's prompt (the
            # same again and more) made it think the window full at half.
            yield Usage(
                prompt_tokens=usages[0].prompt_tokens,
                completion_tokens=sum(u.completion_tokens or 0 for u in usages),
                cached_tokens=usages[0].cached_tokens,
            )
        yield [e for e in ends if isinstance(e, Finish)][-1]

    def bound(
        self, tool: str, turn: Turn, tools: tuple[ToolSchema, ...], *, at: tuple[int, ...] = ()
    ) -> str:
        """The grammar of the one call a nudge asks for ("" with the grammar off, or for
        no tool): an edit of the file just seen is bound to that file's own lines (to
        start on the lines numbered *at*, where the rule knows them; else on those the
        request points at), and the edit finishing a rename to the lines the tool said
        still use the old name."""
        if not self.profile.grammar or not tool:
            return ""
        left = still_used(turn) if tool == "edit_file" else None
        seen = turn.last_seen() if tool == "edit_file" and left is None else None
        if left is not None:
            # a rename left unfinished: one of the lines the tool named, in their file
            grammar = edit_call_grammar(left.path, left.lines, picked=True)
        elif seen is not None:
            # starting on a line the request points at: free to start anywhere, the model
            # took the file's first lines as the old text
            starts = [n - 1 for n in at] if at else named_starts(turn.prompt, seen[1])
            grammar = edit_call_grammar(*seen, starts=starts)
            if starts and not grammar:
                grammar = edit_call_grammar(*seen)
        else:
            grammar = ""
        if grammar:
            return grammar
        schema = [t for t in tools if t.name == tool]
        return self.grammar((schema[0],), tagged_only=True) if schema else ""

    def grammar(
        self, tools: tuple[ToolSchema, ...], *, tagged_only: bool = False, or_words: bool = False
    ) -> str:
        """The grammar of one call to *tools* (or, *or_words*, of such a call or words:
        :func:`tool_call_grammar`), built once per table; "" where the grammar cannot be
        built: llama-cpp-python, whose schema converter builds it, is not installed (a
        llama.cpp server can be used without it; the embedded model cannot)."""
        key = json.dumps(
            [tagged_only, or_words, [[t.name, t.parameters] for t in tools]],
            sort_keys=True,
            default=str,
        )
        if key not in self._grammars:
            try:
                self._grammars[key] = tool_call_grammar(
                    tools, tagged_only=tagged_only, or_words=or_words
                )
            except ImportError:
                self._grammars[key] = ""
        return self._grammars[key]
