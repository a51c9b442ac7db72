"""The rule for a change that turns a setting on or off ("Turn debug off in
settings.toml.", "Put it in high contrast mode.", "Our prices already include tax; the
back office's settings say they don't."): the harness finds the one line giving
``true`` or ``false`` to a name that speaks of what the request speaks of, and writes the
search, the read and the edit itself, each as a call the user sees (and, in the
terminal, approves).

Measured (bench local-tasks, the fresh set, half A): told "Put it in high contrast mode.",
the 1.5B model's edit of the line it found was refused as unread, and it went on to a
``kiosk.conf`` that does not exist; told the prices include tax and the settings say
they don't, it answered with no call; told a boat "can be booked again", it changed
the tide board's notice and left ``in_service=False``."""

from __future__ import annotations

import re
from typing import ClassVar

import attrs

from harness.actors.model.local._choose import any_stem, choose_line, stems
from harness.actors.model.local._nudge_base import (
    CHAIN_TOOLS,
    FILE_NAME,
    Nudge,
    WrittenAhead,
    one_line_chain,
)
from harness.actors.model.local._settings import LISTS_TABLES
from harness.actors.model.local._turn import Turn
from harness.words import STATE_SAID, asks_for_change

__all__ = ["Switch", "SwitchWanted", "wanted_switch"]

# a line giving a name true or false: ``debug = true``, ``"gift_wrap": true``,
# ``in_service=False``
_SETS = re.compile(r"[=:]\s*(true|false|True|False)\b")
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|/?\*)")
# the way a setting is wanted said last in its clause: "We want it on.", "I'd like debug
# off, please", "it should be on now"; not "we want to focus on the shop"
_LAST = r"(?=\s*(?:[.,;!]|$|please\b|again\b|now\b|too\b|instead\b))"
_WANTS = r"\b(?:want|need|like|prefer)s?\b[^.;!?]*?|\b(?:should|must|needs? to) be\s+(?:\w+\s+)?"
# "turn debug off", "switch gift wrapping off", "disable", "We want it off.": off
# (or the word a file writes: "express_delivery should be true", "Set debug to false")
_OFF = re.compile(
    rf"\b(?:turn|switch|set)\b[^.;!?]*?\boff\b|\bdisable\b|(?:{_WANTS})\boff\b{_LAST}"
    r"|\b(?:should|must|needs? to) be (?:disabled|false)\b"
    r"|\b(?:set|change|switch|turn)\b[^.;!?]*?\bto\s+false\b",
    re.I,
)
# "turn express_delivery on", "enable", "put it in high contrast mode", "We want it on.": on
_ON = re.compile(
    r"\b(?:turn|switch|set)\b[^.;!?]*?\bon\b|\benable\b"
    r"|\b(?:put|switch|set|change)\b[^.;!?]*?\b(?:in|into|to)\b[^.;!?]*?\bmode\b"
    rf"|(?:{_WANTS})\bon\b{_LAST}|\b(?:should|must|needs? to) be (?:enabled|true)\b"
    r"|\b(?:set|change|switch|turn)\b[^.;!?]*?\bto\s+true\b",
    re.I,
)
# a setting told to say the wrong thing, the request not saying which way it goes:
# "the settings say they don't", "it still says she's out of service"
_SAYS_WRONG = re.compile(
    r"\bstill says\b|\bsays? (?:she|he|it|they|we)"
    r"(?:'s|'re| is| are| isn't| aren't| don't| doesn't| do not| does not)\b"
    r"|\b(?:that|which|it|settings?|file|config) (?:says?|claims?) (?:otherwise|the opposite)\b"
    r"|\b(?:claims?|thinks?|believes?) (?:that )?(?:she|he|it|they|we|our|the)\b",
    re.I,
)
# a state said and then not wanted: "Debug mode is still on in settings.toml; it
# shouldn't be.", "… still has debug switched on. We don't want that.", "Production
# shouldn't run with debug = true."; or asked for as what it can be: "can it be false?"
_STATES = "on|off|true|false|enabled|disabled"
# (a few words after the state, a dot inside a file's name among them: "on in settings.toml")
_THEN = r"(?:[^.!?\n]|\.(?=\w)){0,40}?"
_UNWANTED = re.compile(
    rf"\b(?P<said>{_STATES})\b{_THEN}[.;,!-]\s*(?:but\s+)?(?:it|that|this|they)\s+"
    rf"(?:shouldn't|should not|mustn't|must not)\s+be\b(?!\s+(?:{_STATES})\b)"
    rf"|\b(?P<then>{_STATES})\b{_THEN}[.;!]\s*(?:we|I)\s+"
    r"(?:don't|do not)\s+want\s+(?:that|it|this)\b"
    r"|\b(?:shouldn't|should not|mustn't|must not)\s+(?:run|be|go|ship|start)\s+with\s+"
    rf"[\w.]+\s*[=:]?\s*(?P<with>{_STATES})\b",
    re.I,
)
_CAN_BE = re.compile(
    rf"\b(?:can|could)\s+(?:it|that|this|they)\s+be\s+(?P<state>{_STATES})\s*[?.!]*\s*$",
    re.I | re.M,
)
_ON_WORDS = ("on", "true", "enabled")
# a fault told, or an error pasted: the fault rules and the model take those; "fix the
# setting that says otherwise" asks a setting turned, no fault
_FAULT = re.compile(r"\b(?:fix|bug|broken|error|fails?|crash)|Traceback|Error:", re.I)
_FIX_SETTING = re.compile(r"\b(?:fix|correct)\s+(?:the|that|this)\s+setting\b", re.I)


@attrs.frozen
class Switch:
    """A change that turns a setting on (*on* true) or off, or (*on* ``None``) the
    other way from how a line sets it now."""

    on: bool | None

    def search(self, prompt: str) -> str | None:
        """The search for the lines giving true or false to a name with a word of
        *prompt* on the line (a regular expression ripgrep reads too); ``None`` where
        the prompt has no word a line could share."""
        words = stems(FILE_NAME.sub(" ", prompt))
        if not words:
            return None
        named = any_stem(words)
        value = r"[=:]\s*(?:true|false|True|False)\b"
        return rf"(?i)(?:{named})[^\n]*{value}|{value}[^\n]*(?:{named}){LISTS_TABLES}"

    def made(self, line: str) -> str | None:
        """*line* with its one true or false the other way (as the line writes it:
        ``False`` to ``True``), or ``None`` where it gives none or two, is only a
        comment, or already says what the request wants."""
        found = list(_SETS.finditer(line))
        if len(found) != 1 or _COMMENT_LINE.match(line):
            return None
        word = found[0].group(1)
        now = word.lower() == "true"
        if self.on is not None and self.on == now:
            return None
        new = "false" if now else "true"
        if word[0].isupper():
            new = new.capitalize()
        return line[: found[0].start(1)] + new + line[found[0].end(1) :]


def wanted_switch(prompt: str) -> Switch | None:
    """The switch *prompt* asks for: off ("Turn debug off", "disable", "stop"), on
    ("turn … on", "enable", "put it in … mode"), the other way from a state said and not
    wanted ("Debug mode is still on in settings.toml; it shouldn't be."), the state asked
    as what it can be ("can it be false?"), or, where a setting is said to say the
    wrong thing ("the settings say they don't", "it still says she's out of service"),
    the other way; or as a setting and its state said alone (:data:`STATE_SAID`:
    "kiosk/shelves.json: high_contrast on."); ``None`` for any other prompt, one saying
    both, or a fault told."""
    if _FAULT.search(_FIX_SETTING.sub(" ", prompt)):
        return None
    # (before the way said: "gift_wrap is still set to false. We don't want that.")
    unwanted = _UNWANTED.search(prompt)
    if unwanted:
        state = unwanted.group("said") or unwanted.group("then") or unwanted.group("with")
        return Switch(on=state.lower() not in _ON_WORDS)
    off, on = _OFF.search(prompt), _ON.search(prompt)
    if off and on:
        return None
    said = off or on
    if said:
        # asked, not asked about: "Is debug on?" is no switch
        asked = not re.search(r"\?", prompt[said.end() :].split(".")[0])
        return Switch(on=bool(on)) if asked or asks_for_change(prompt) else None
    can_be = _CAN_BE.search(prompt)
    if can_be:
        return Switch(on=can_be.group("state").lower() in _ON_WORDS)
    if _SAYS_WRONG.search(prompt):
        return Switch(on=None)
    # said alone, as a to-do list or a commit message says it: "kiosk/shelves.json:
    # high_contrast on." (one setting: two are two changes)
    said_alone = [m.group(0) for m in STATE_SAID.finditer(prompt)]
    if len(said_alone) == 1:
        way = said_alone[0].lower().rstrip(" .!").removesuffix("please").rstrip(" ,")
        return Switch(on=way.endswith("on"))
    return None


class SwitchWanted(WrittenAhead):
    """A change request that turns a setting on or off, with nothing changed yet: the
    harness writes each call itself. First the search for lines giving true or false to
    a name with a word of the request on them; then, for the one such line that shares
    the most words with the request (where lines of one JSON, YAML or TOML file tie, the
    keys each sits under count too, read first), the read of its file and the edit of
    its true or false. Where no line qualifies, two tie, or a call goes wrong, the rule
    stops and the model goes on."""

    name: ClassVar[str] = "switch-wanted"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools):
            return None
        switch = wanted_switch(turn.prompt)
        search = switch.search(turn.prompt) if switch is not None else None
        if switch is None or search is None:
            return None
        way = {True: "on", False: "off", None: "the other way"}[switch.on]
        return one_line_chain(
            turn,
            search,
            f"Search for the setting to turn {way}.",
            lambda hits, reads: choose_line(
                hits, reads, turn.prompt, switch.made, f"Turn it {way} on this line of {{path}}."
            ),
        )
