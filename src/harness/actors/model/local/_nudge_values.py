"""The rule for a change that names the value wanted and the value there now ("From
tomorrow just bake 24 for the counter, not 36.", "The tax rate goes up from 0.2 to 0.23.",
"keep a dozen old logs rather than six", "the last two days instead of just one"): the
harness finds the one line that holds the value there now and speaks of what the request
speaks of, and writes the search, the read and the edit itself, each as a call the user
sees (and, in the terminal, approves).

Measured (bench local-tasks, the fresh set, half A): told such a change, the 1.5B model
claimed it at once with no call ("I've updated the `bake_croissants` function to bake 24
croissants instead of 36."), wrote a script into the watering log it was asked to keep
twelve of, or read the right file (``club.toml``) and read on to the turn limit; asked
for the edit in words, it duplicated lines of the right file and said done."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import ClassVar

import attrs

from harness.actors.model.local._choose import RECORDS, UNIT_STEMS, choose_line, stems
from harness.actors.model.local._nudge_base import (
    CHAIN_TOOLS,
    FILE_NAME,
    Hit,
    Nudge,
    WrittenAhead,
    chain_search,
    one_line_chain,
)
from harness.actors.model.local._nudge_changes import NUMBER_WORDS, change_goes_in
from harness.actors.model.local._settings import LISTS_TABLES
from harness.actors.model.local._turn import Turn, asks_new
from harness.words import asks_for_change

__all__ = [
    "Change",
    "NewValue",
    "ShapedWanted",
    "ValueWanted",
    "Wanted",
    "described_file",
    "shaped_value",
    "value_change",
    "wanted_value",
]

# a value a request writes: a number (with its currency or percent sign), a number word,
# a dozen; then, if it has one, its unit of time
_VALUE = (
    r"[£$€]?\d+(?:\.\d+)?%?(?!\.?\d)|half a dozen|a dozen|dozen|"
    + "|".join(NUMBER_WORDS)
    + r"(?![\w-])"
)
_UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b"
_SAID = rf"({_VALUE})(?:\s+({_UNIT}))?"
# "…, not 36", "rather than six", "instead of just one": the value there now, after the
# one wanted
_NOT_OLD = re.compile(
    rf"\b(?:not|rather than|instead of)\s+(?:just |only |the |every )?{_SAID}(?![\w-])", re.I
)
# "from 0.2 to 0.23", "from 400 km to 500 km"
_FROM_TO = re.compile(rf"\bfrom\s+{_SAID}(?:\s+[a-z]+)?\s+to\s+{_SAID}(?![\w-])", re.I)
# "Every four is plenty.", "Three is enough by default.": the value wanted; the value
# there now is the prompt's one other value
_ENOUGH = re.compile(
    rf"(?:^|\b(?:every|just|only)\s+){_SAID}\s+(?:is|are|would be|will do)\s+"
    r"(?:plenty|enough)\b",
    re.I,
)
_ANY_VALUE = re.compile(rf"(?<![\w.£$€-]){_SAID}(?![\w-])", re.I)
# a fault told rather than a change asked: "removes two lines instead of one. Fix it." says
# what happens now first, so its pair reads the other way round
_FAULT = re.compile(r"\b(?:fix|bug|wrong|broken|error|fails?|crash)", re.I)
_SENTENCE = re.compile(r"(?:[^.!?]|\.(?=\d))+(?:[.!?]|$)")
# a request that speaks of a time of day: "open at 8 in the morning", "close at 10 pm",
# "at 9 now"; not "start at 20 units"
_CLOCK = re.compile(
    r"o'clock|\b[ap]\.?m\b|\bin the (?:morning|afternoon|evening)\b|\bat night\b"
    r"|\bat \d{1,2}(?::\d\d)?\s*(?:[,.;!]|$|(?:now|instead|rather|not)\b)",
    re.I,
)
# each unit of time in seconds, and how a line's names write it ("repeat_minutes",
# "refreshSeconds", "KEEP_DAYS", "hours")
_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}
_NAMES_UNIT = {
    "second": re.compile(r"(?<![a-z])sec(?:ond)?s?(?![a-z])"),
    "minute": re.compile(r"(?<![a-z])min(?:ute)?s?(?![a-z])"),
    "hour": re.compile(r"(?<![a-z])(?:hours?|hrs?)(?![a-z])"),
    "day": re.compile(r"(?<![a-z])days?(?![a-z])"),
    "week": re.compile(r"(?<![a-z])weeks?(?![a-z])"),
}
# what comes before a value given to a name or compared with: ``=``, ``:``, ``<`` or
# ``>``, then a quote, a bracket or a shell default (``croissant = 36``, ``"custard
# tart": (180``, ``KEEP="${KEEP:-6``, ``qty >= 10``); not a call's argument (``pad(price,
# 10)``)
_GIVEN = r"""[=:<>]\s*["'(\[{]?\s*(?:\$\{\w+:-)?[£$€]?"""
# how a line's name starts when it names a unit ("repeat_minutes", "timeout_secs")
_UNIT_NAMES = {"second": "sec", "minute": "min", "hour": "hour", "day": "day", "week": "week"}


_NUMBER_STEMS = frozenset(w[:5] for w in (*NUMBER_WORDS, "dozen"))


def _digits(value: str) -> str:
    """*value* as the number a file writes: "six" 6, "a dozen" 12, "£4.50" 4.50, "5%" 5."""
    word = value.lower()
    if word == "half a dozen":
        return "6"
    if word.endswith("dozen"):
        return "12"
    if word in NUMBER_WORDS:
        return str(NUMBER_WORDS.index(word))
    return value.strip("£$€%")


def _unit(word: str | None) -> str | None:
    """The unit of time *word* names ("hrs" hour, "minutes" minute), or ``None``."""
    if not word:
        return None
    word = word.lower()
    if word.startswith(("hr", "hour")):
        return "hour"
    return next((unit for unit in _SECONDS if word.startswith(unit[:3])), None)


@attrs.frozen
class Form:
    """The change as a file may write it: the value there now and the value wanted, in
    *unit* (``None``: as the request says them)."""

    old: str
    new: str
    unit: str | None


@attrs.frozen
class Change:
    """A change of one value the request asks for: the value there now and the value
    wanted, as digits, each with the unit of time it is said in (``None`` for none);
    *clock*: hours of a time of day, which a file may write as ``07:00``."""

    old: str
    new: str
    old_unit: str | None = None
    new_unit: str | None = None
    clock: bool = False

    @property
    def forms(self) -> list[Form]:
        """The forms a file may hold the change in: as said, and, for a span of time, in
        each other unit it comes to whole (two hours: 120 minutes, 7200 seconds). A value
        there now of 0 or 1 is no form: nearly any line holds it."""
        said = self.old_unit or self.new_unit
        forms = [Form(self.old, self.new, said)] if self.old_unit == self.new_unit else []
        if said is not None:
            forms += [
                form
                for unit in _SECONDS
                if (form := self._in(unit)) is not None and form.unit not in (f.unit for f in forms)
            ]
        return [f for f in forms if f.old not in ("0", "1") and f.old != f.new]

    def _in(self, unit: str) -> Form | None:
        """The change in *unit*, when both values come to a whole number of it or one
        with at most two decimals."""
        values = []
        for value, said in ((self.old, self.old_unit), (self.new, self.new_unit)):
            try:
                n = Decimal(value) * _SECONDS[said or unit] / _SECONDS[unit]
            except InvalidOperation:
                return None
            if n <= 0 or n != n.quantize(Decimal("0.01")):
                return None
            values.append(f"{n.normalize():f}")
        return Form(values[0], values[1], unit)

    def held(self, form: Form) -> str:
        """The value there now of *form* as a line holds it: ``36`` in ``croissant =
        36`` and ``KEEP="${KEEP:-6}"``, not in ``2026-05-06``, ``14:00``, ``360`` or
        ``WELCOME5``; on the clock, the hour of ``"07:00"`` too."""
        old = re.escape(form.old)
        plain = rf"{old}(?![\w]|\.\d|:\d|-\d)"
        if self.clock:
            plain = rf"(?:0?{old}(?=:[0-5]\d)|{plain})"
        return rf"(?<![\w.:])(?<!\d-){plain}"

    def set_in(self, line: str) -> Form | None:
        """The form in which *line* gives the value there now to a name or compares with
        it (:data:`_GIVEN`; not an argument of a call, ``pad(price, 10)``: a width, not a
        setting). A span of time in another unit than the request's only where the line
        names that unit (``repeat_minutes: 120`` for two hours)."""
        said = self.old_unit or self.new_unit
        for form in self.forms:
            given = _GIVEN + self.held(form)
            if re.search(given, line) is None:
                continue
            if form.unit == said or _names(line, form.unit):
                return form
        return None

    def made(self, line: str, form: Form) -> str:
        """*line* with the value wanted in place of the one there now, in *form* (an
        hour written ``07`` as ``08``)."""

        def new(m: re.Match[str]) -> str:
            padded = self.clock and m.group(0).startswith("0") and m.group(0).isdigit()
            return form.new.zfill(2) if padded else form.new

        return re.sub(self.held(form), new, line)

    def search(self, prompt: str, *, anywhere: bool = False) -> str | None:
        """The search for the lines the rule may choose: the value there now given to a
        name or compared with (:meth:`set_in`), as a whole number in any of its forms,
        and a word of *prompt* (or, for a form in another unit than the one said, that
        unit's name) on the line (*anywhere*: with no word, for a search in the one
        file the prompt describes). Not a part of ``7.5`` or ``360``; on the clock,
        ``07:00`` too. A regular expression ripgrep reads too, which has no lookaround.
        ``None`` where the prompt has no word a line could share.

        Whatever it lists, the model reads when the rule chooses no line, and takes for
        the place to change (measured, half B: shown ``pad(price, 10)`` for "Bulk
        prices should start at 20 units, not 10.", it edited that line; shown every
        line holding 2, it searched that expression again and again)."""
        said = self.old_unit or self.new_unit
        words = stems(prompt) - UNIT_STEMS - _NUMBER_STEMS
        words |= {_UNIT_NAMES[f.unit] for f in self.forms if f.unit and f.unit != said}
        olds = "|".join(re.escape(f.old) for f in self.forms)
        value = rf"{_GIVEN}{'0?' if self.clock else ''}(?:{olds})(?:[^\w.]|$)"
        if anywhere:
            return value
        if not words:
            return None
        named = "|".join(sorted(words))
        return rf"(?i)(?:{named})[^\n]*{value}|{value}[^\n]*(?:{named})"


def _names(line: str, unit: str | None) -> bool:
    """Whether *line* names *unit* ("repeat_minutes", "refreshSeconds", ``"hours":``)."""
    if unit is None:
        return False
    words = re.sub(r"([a-z])([A-Z])", r"\1_\2", line).lower()
    return _NAMES_UNIT[unit].search(words) is not None


def _pairs(prompt: str) -> set[tuple[str, str | None, str, str | None]]:
    """Each (value there now, its unit, value wanted, its unit) *prompt* says."""
    pairs = set()
    for sentence in _SENTENCE.findall(prompt):
        for m in _FROM_TO.finditer(sentence):
            pairs.add((_digits(m[1]), _unit(m[2]), _digits(m[3]), _unit(m[4])))
        for m in _NOT_OLD.finditer(sentence):
            before = _ANY_VALUE.findall(sentence[: m.start()])
            if before:
                value, unit = before[-1]
                pairs.add((_digits(m[1]), _unit(m[2]), _digits(value), _unit(unit)))
        for m in _ENOUGH.finditer(sentence.strip()):
            wanted = (_digits(m[1]), _unit(m[2]))
            others = {(_digits(o[1]), _unit(o[2])) for o in _ANY_VALUE.finditer(prompt)}
            others.discard(wanted)
            if len(others) == 1:
                ((old, unit),) = others
                pairs.add((old, unit, *wanted))
    return pairs


# spans of time said in words, as minutes: "half an hour", "three quarters of an hour"
_SPANS = (
    (re.compile(r"\bthree[- ]quarters of an hour\b", re.I), "45 minutes"),
    (re.compile(r"\b(?:a )?quarter of an hour\b", re.I), "15 minutes"),
    (re.compile(r"\ban hour and a half\b", re.I), "90 minutes"),
    (re.compile(r"\bhalf an hour\b", re.I), "30 minutes"),
)


def in_figures(prompt: str) -> str:
    """*prompt* with each span of time it says in words said in minutes ("up to half an
    hour": "up to 30 minutes"), as a setting writes it."""
    for words, figure in _SPANS:
        prompt = words.sub(figure, prompt)
    return prompt


def value_change(prompt: str) -> Change | None:
    """The change of one value *prompt* asks for, saying the value there now and the
    value wanted ("bake 24 for the counter, not 36": 36 to 24; "goes up from 0.2 to
    0.23"; "the last two days instead of just one": one day to two; "nags us every two
    hours. Every four is plenty."); else ``None``. Not for a fault told ("removes two
    lines instead of one. Fix it."), nor two changes at once."""
    if _FAULT.search(prompt) or not asks_for_change(prompt):
        return None
    pairs = _pairs(in_figures(prompt))
    if len(pairs) != 1:
        return None
    old, old_unit, new, new_unit = pairs.pop()
    # a unit said once is the other value's too: "two days instead of just one"
    old_unit, new_unit = old_unit or new_unit, new_unit or old_unit
    hours = old_unit is None and all(v.isdigit() and int(v) <= 24 for v in (old, new))
    change = Change(old, new, old_unit, new_unit, hours and _CLOCK.search(prompt) is not None)
    return change if change.forms else None


# a file a request names by what it is: "the hours script", "the plan script", "the deploy
# config"; not a kind of file ("the shell script", "a new script")
_DESCRIBED = re.compile(
    r"\bthe ([a-z][\w-]{2,}) (?:script|config|settings|sheet|tool|program)\b", re.I
)
_KINDS = frozenset(("shell", "bash", "python", "node", "new", "little", "small", "same", "whole"))


def _stem_of(path: str) -> str:
    """The name of the file at *path*, with no folder and no extension."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0].lower()


def described_file(prompt: str) -> str | None:
    """The name of the one file *prompt* names by what it is ("The hours script gives me
    five boats": ``hours``, the stem of ``tools/hours.sh``), or ``None``."""
    said = {m.lower() for m in _DESCRIBED.findall(prompt)} - _KINDS
    return said.pop() if len(said) == 1 else None


def _the_lines(
    hits: list[tuple[str, str]], change: Change, prompt: str
) -> list[tuple[str, str, Form]]:
    """Of *hits* (each a file's path and a line), the lines to change, each with the
    form it holds the value in: the one line holding the value there now as a setting
    that shares the most words with *prompt* (its units of time are no such words; a
    line naming the unit it holds a span in, converted from the one said, counts one
    more), when one does so alone, or one such line in each of the
    files the prompt names ("change it in fleet.py and in station.toml"); none
    otherwise. Lines of prose, records and tests only where the prompt names their
    file."""
    named = {m.group(1) for m in FILE_NAME.finditer(prompt)}
    wanted = stems(prompt) - UNIT_STEMS
    scored = []
    for path, text in hits:
        form = change.set_in(text)
        if form is None or not change_goes_in(path, prompt):
            continue
        if path in named or not RECORDS.search(path):
            # a span found in another unit than the one said, on a line naming that unit
            # (``repeat_minutes: 120`` for two hours), is found by more than chance; a
            # value as said is found by chance on a line that only names its unit
            # (``FIRST_MINUTES_FREE = 15`` for a service run every 15 minutes)
            converted = form.unit != (change.old_unit or change.new_unit)
            score = len(wanted & stems(text)) + (converted and _names(text, form.unit))
            score += _stem_of(path) == described_file(prompt)
            scored.append((score, path, text, form))
    best = max((score for score, *_ in scored), default=0)
    top = [(path, text, form) for score, path, text, form in scored if score == best]
    if best == 0:
        return []
    if len(top) == 1:
        return top
    paths = [path for path, _, _ in top]
    if len(set(paths)) == len(paths) and set(paths) <= named:
        return top
    return []


# a search's hit: "bakery.toml:28:croissant = 36", in any file: a setting may be in one
# with no extension (``bin/backup``, ``.env``), which the hits the other change rules read,
# a file a prompt or reply names, always have
_HIT = re.compile(r"^((?:[\w.-]+/)*[\w.-]+):\d+:(.*)$", re.M)


class NewValue(WrittenAhead):
    """A change request that says the value wanted and the value there now, with nothing
    changed yet: the harness writes each call itself. First the search for the value
    there now (in each unit a span of time comes to whole); then, for the line holding
    it as a setting that shares the most words with the request (or one such line in
    each file the request names), the read of its file and the edit of the line, the
    value wanted in place of the one there now. Where no line qualifies, or two do in one
    file or in files the request does not name, or a call goes wrong, the rule stops and
    the model goes on."""

    name: ClassVar[str] = "new-value"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools):
            return None
        change = value_change(turn.prompt)
        if change is None:
            return None
        described = described_file(turn.prompt)
        search = change.search(turn.prompt, anywhere=described is not None)
        if search is None:
            return None
        # a file the request describes ("the hours script") is searched alone, for the
        # value with no word beside it (``TOP="${1:-5}"``)
        where = {"glob": f"*{described}.*"} if described else {}
        if not turn.steps:
            return Nudge(
                f"Search for {change.old}, the value there now.",
                "search_text",
                arguments={"pattern": search, "regex": True, **where},
            )
        first = chain_search(turn, search)
        if first is None:
            return None  # the model went its own way, or a call of the rule's went wrong
        last = turn.steps[-1]
        hits = [(h.group(1), h.group(2)) for h in _HIT.finditer(first.result)]
        written = {s.path for s in turn.steps if s.wrote}
        todo = [t for t in _the_lines(hits, change, turn.prompt) if t[0] not in written]
        if not todo:
            return None
        path, line, form = todo[0]
        if last.name == "read_file" and last.path == path and line in (last.shown_lines or ()):
            return Nudge(
                f"Write {form.new} for {form.old} on this line of {path}.",
                "edit_file",
                arguments={"path": path, "old_text": line, "new_text": change.made(line, form)},
            )
        if last.name == "read_file" and last.path == path:
            return None
        return Nudge(
            f"{path} holds {form.old} on a line the change is about.",
            "read_file",
            arguments={"path": path},
        )


# -- a change that says only the value wanted ---------------------------------------------

# a number a line gives to a name or compares with: ``deposit = 50``, ``price: 4.5``,
# ``"retries": 3``, ``KEEP="${KEEP:-6}"``; not a part of ``2026-05-06`` or ``14:00``
_NUMBER = r"\d+(?:\.\d+)?"
_SETS = re.compile(rf"{_GIVEN}({_NUMBER})(?![\w.]|:\d|-\d)")
# what makes a value said a change by that much, not the value wanted: "by 5", "5 more",
# "5 per cent", "a tenth"
_RELATIVE_AFTER = re.compile(
    r"\s*(?:%|per ?cent|more|less|fewer|extra|longer|shorter"
    r"|times\s+(?:more|less|fewer|as|longer|shorter|bigger|larger|smaller|faster|slower|over)\b)",
    re.I,
)
# what a value is said to be for each of: "£4.50 a loaf", "6 an hour", "20 per seat"
_PER_THING = re.compile(r"\s+(?:a|an|per|each)\s+([a-z]{4,})\b", re.I)
# the name a number is given on a line: ``"price": 4.20``, ``late_fee = 2``
_KEY_BEFORE = re.compile(r"([A-Za-z_][\w-]*)[\"']?\s*$")


def given(line: str, keys: frozenset[str] = frozenset()) -> list[re.Match[str]]:
    """The numbers *line* gives a name or compares with; where it gives several, those
    whose name is one of *keys* (``"price": 4.20`` of a menu's line, for "the price")."""
    found = list(_SETS.finditer(line))
    if len(found) < 2 or not keys:
        return found
    named = []
    for m in found:
        key = _KEY_BEFORE.search(line[: m.start()].rstrip(":= \t([{\"'"))
        if key and stems(key.group(1)) & keys:
            named.append(m)
    return named


# a rate a line names: "litres_per_minute", "PER_HOUR", "perSecond"
_RATE = re.compile(r"per[_ ]?(?:sec|min|hour|day|week)", re.I)
# a sentence that lets something be so: "Let the pump run for up to half an hour."
_LET = re.compile(r"(?:^|[.!?]\s+)(?:let|allow)\s+(?!me\b|us\b)", re.I)
# a count of tries: "should be tried 5 times", "attempt it 3 times"; a setting holding
# one is named for its tries (``retries``, ``max_attempts``, ``tries``)
_TIMES = re.compile(r"\s*times\b", re.I)
_TRIES = frozenset(("retri", "attem", "trie"))
_RELATIVE_BEFORE = re.compile(r"\b(?:by|another|extra)\s*$", re.I)
# what says a value is the one wanted: "up to 60", "costs 5", "run for 60 seconds", "at
# 170", "to Postgres 16.4"; not "the over 65 tickets", "sail number 655"
_WANTED_BEFORE = re.compile(
    r"\b(?:(?:to|at|be|costs?|is|are|for)\s+(?:[A-Z][\w-]*\s+)?|(?:be|is|are)\s+[a-z]+ed\s+)$",
    re.I,
)
# a line that is only a comment: ``# …``, ``// …``
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|/?\*)")


@attrs.frozen
class Wanted:
    """A change that says only the value wanted ("Raise the deposit to 60 pounds.",
    "Green tea costs 5 now"), as digits, with the unit of time it is said in."""

    value: str
    unit: str | None = None
    keys: frozenset[str] = frozenset()
    """The request's words: of a line giving several numbers (``{ "name": "Sourdough",
    "price": 4.20, "left": 9 }``), the one whose name is one of them is the setting."""
    per: str | None = None
    """What the value is said to be for each of ("£4.50 a loaf": ``loaf``): a word of
    the request that says no setting."""
    money: bool = False
    """The value is a sum of money said with its pence ("£4.50"): a line writing a whole
    number (``sourdough = 12``, a count) holds no such sum."""
    count_of: str | None = None
    """The value counts what this word names, one more than there are now: "Give it a
    second replica." is ``replicas: 1`` made 2 (the word's stem, ``repli``)."""
    tries: bool = False
    """The value is a count of tries ("tried 5 times"): a line naming its tries
    (``"retries": 3``) speaks of what the request speaks of."""

    @property
    def also(self) -> frozenset[str]:
        """Words a line may share with the request that the request does not write: a
        count of tries is said of ``retries``; a span of time of a line naming a unit
        of time (``max_run_minutes = 25`` for "half an hour")."""
        return (_TRIES if self.tries else frozenset()) | (UNIT_STEMS if self.unit else frozenset())

    def search(self, prompt: str) -> str | None:
        """The search for the lines the rule may choose: a number given to a name or
        compared with, and a word of *prompt* on the line (a regular expression ripgrep
        reads too); ``None`` where the prompt has no word a line could share."""
        words = (stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - _NUMBER_STEMS) | self.also
        if not words:
            return None
        value = rf"{_GIVEN}{_NUMBER}(?:[^\w.]|$)"
        named = "|".join(sorted(words))
        return rf"(?i)(?:{named})[^\n]*{value}|{value}[^\n]*(?:{named}){LISTS_TABLES}"

    def made(self, line: str) -> str | None:
        """*line* with the value wanted in place of the one number it gives a name, in
        the unit the line names, or ``None`` where it gives none or two, or 0 or 1, is
        only a comment, names no tries where the value is a count of them, already holds
        the value wanted, or names a unit the value does
        not come to whole in."""
        found = given(line, self.keys)
        if len(found) != 1 or _COMMENT_LINE.match(line):
            return None
        if self.tries and not stems(line) & _TRIES:
            return None  # a count of tries goes on a line naming tries
        if self.money and "." not in found[0].group(1):
            return None
        if self.count_of is not None:
            one_less = Decimal(self.value) - 1
            if self.count_of not in stems(line) or Decimal(found[0].group(1)) != one_less:
                return None  # "a second replica": the line counting replicas, at one
            return line[: found[0].start(1)] + self.value + line[found[0].end(1) :]
        if self.unit and _RATE.search(line):
            return None  # a span of time is no rate (``flow_litres_per_minute``)
        if Decimal(found[0].group(1)) in (0, 1):
            return None  # nearly any line gives 0 or 1: no setting of its own
        value = self.value
        named = next((u for u in _SECONDS if _names(line, u)), None)
        if self.unit and named and named != self.unit:
            n = Decimal(value) * _SECONDS[self.unit] / _SECONDS[named]
            if n != n.quantize(Decimal("0.01")):
                return None
            value = f"{n.normalize():f}"
        m = found[0]
        if Decimal(m.group(1)) == Decimal(value):
            return None
        places = len(m.group(1).partition(".")[2])
        if places and "." not in value:  # written as the line writes it: 420.00 to 450.00
            value = f"{Decimal(value):.{places}f}"
        return line[: m.start(1)] + value + line[m.end(1) :]


def wanted_value(prompt: str) -> Wanted | None:
    """The one value *prompt* asks a setting to have, saying no value there now ("Raise
    the deposit to 60 pounds.", "Let them run for 60 seconds."); ``None`` for a change
    :func:`value_change` reads, a fault told, a request for something new, a value by
    which to change ("by 5", "5 more", "15 per cent"), a number that only tells which
    ("the over 65 tickets": the value wanted comes after "to", "at", "for", "costs",
    "is"), two values, or 0 or 1."""
    if value_change(prompt) is not None or _FAULT.search(prompt):
        return None
    if not (asks_for_change(prompt) or _LET.search(prompt)) or asks_new(prompt):
        return None
    prompt = in_figures(prompt)
    said = list(_ANY_VALUE.finditer(prompt))
    if not said:
        return _one_more(prompt)
    if len(said) != 1:
        return None
    m = said[0]
    before = prompt[: m.start()]
    if _RELATIVE_AFTER.match(prompt, m.end()) or _RELATIVE_BEFORE.search(before):
        return None
    if not _WANTED_BEFORE.search(before):
        return None
    value = _digits(m.group(1))
    if value in ("0", "1") or not re.fullmatch(_NUMBER, value):
        return None
    money = m.group(1)[0] in "£$€" and "." in m.group(1)
    tries = _TIMES.match(prompt, m.end()) is not None
    each = _PER_THING.match(prompt, m.end())
    per = next(iter(stems(each.group(1))), None) if each else None
    keys = frozenset(stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - {per})
    return Wanted(value, _unit(m.group(2)), keys=keys, per=per, money=money, tries=tries)


# one more of a thing, said as the count it comes to: "a second replica", "a third
# worker"
_ORDINALS = ("second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_ONE_MORE = re.compile(rf"\ban?\s+({'|'.join(_ORDINALS)})\s+([a-z]{{4,}})\b", re.I)


def _one_more(prompt: str) -> Wanted | None:
    """The count *prompt* asks a thing to come to when it says it as one more ("Give it a
    second replica."), or ``None``."""
    found = _ONE_MORE.findall(prompt)
    if len(found) != 1:
        return None
    ordinal, thing = found[0]
    count_of = stems(thing)
    if len(count_of) != 1:
        return None
    return Wanted(str(_ORDINALS.index(ordinal.lower()) + 2), count_of=count_of.pop())


# a value said in a form of its own, which the line to change holds in the same form: a
# web address, a version of three parts, a host name of three labels or more
_SHAPES = (
    r"https?://[\w.-]+(?::\d+)?(?:/[\w./%-]*)?",
    r"\d+\.\d+\.\d+",
    r"[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*){2,}",
)
_SHAPED = [re.compile(rf"(?<![\w./:@-])({shape})(?![\w/:@-]|\.\w)") for shape in _SHAPES]


@attrs.frozen
class ShapedWanted:
    """A change that says only the value wanted, in a form a line holds its value in too
    ("Our mail goes out through smtp.mailhub.example from now on.", "Bump the version
    to 1.3.0."): *shape*, the form's regular expression."""

    value: str
    shape: str

    @property
    def also(self) -> frozenset[str]:
        """The value's own words: a line's value sharing them is the more alike."""
        return frozenset(stems(self.value))

    def search(self, prompt: str) -> str:
        """The search for the lines giving a value of this form to a name, and the
        headers of the tables of TOML files (a regular expression ripgrep reads too)."""
        return rf"""[=:]\s*["']?(?:{self.shape})(?:["',\s#]|$){LISTS_TABLES}"""

    def made(self, line: str) -> str | None:
        """*line* with the value wanted in place of the one value of this form it gives
        a name, or ``None`` where it gives none or two, is only a comment, or holds the
        value wanted already."""
        given = re.compile(rf"""[=:]\s*["']?({self.shape})(?=["',\s#]|$)""")
        found = list(given.finditer(line))
        if len(found) != 1 or _COMMENT_LINE.match(line) or found[0].group(1) == self.value:
            return None
        return line[: found[0].start(1)] + self.value + line[found[0].end(1) :]


def shaped_value(prompt: str) -> ShapedWanted | None:
    """The one value of a form of its own *prompt* asks a setting to have (a web address,
    a version, a host name), or ``None``: none or two said, or no change asked."""
    if _FAULT.search(prompt) or not asks_for_change(prompt) or asks_new(prompt):
        return None
    for shape, said in zip(_SHAPES, _SHAPED, strict=True):
        found = said.findall(prompt)
        if found:
            return ShapedWanted(found[0], shape) if len(set(found)) == 1 else None
    return None


# a request that says the value is held in more than one place: "it needs changing there
# as well", "change it there too", "in both"
_AS_WELL = re.compile(r"\b(?:as well|too|both|also|everywhere|each of)\b", re.I)


def _elsewhere(turn: Turn, search: str, value: str) -> Nudge | None:
    """Once the rule's chain changed one line, and the request says the value is held
    elsewhere too ("The screen over the counter shows the price too, so it needs changing
    there as well."): the read and the edit of the line in each other file its search
    listed that holds the value the changed line held and shares the most words with
    the request, one such line a file. ``None`` when there is none, or two tie."""
    first = chain_search(turn, search)
    written = [s for s in turn.steps if s.wrote]
    if first is None or len(written) != len({s.path for s in written}):
        return None
    old_text = str(written[0].arguments.get("old_text", "")).splitlines()
    words = stems(FILE_NAME.sub(" ", turn.prompt)) - UNIT_STEMS
    new_text = str(written[0].arguments.get("new_text", "")).splitlines()
    if not old_text or not new_text:
        return None
    changed = [
        a.group(1)
        for a, b in zip(_SETS.finditer(old_text[-1]), _SETS.finditer(new_text[-1]), strict=False)
        if a.group(1) != b.group(1)
    ]
    if len(changed) != 1:
        return None
    was, done = Decimal(changed[0]), {s.path for s in written}
    best: dict[str, list[tuple[int, Hit]]] = {}
    for m in _HIT.finditer(first.result):
        hit = Hit(m.group(1), 0, m.group(2))
        held = given(hit.text, frozenset(words))
        if hit.path in done or len(held) != 1 or Decimal(held[0].group(1)) != was:
            continue
        if RECORDS.search(hit.path) or not change_goes_in(hit.path, turn.prompt):
            continue
        if _COMMENT_LINE.match(hit.text):
            continue
        best.setdefault(hit.path, []).append((len(words & stems(hit.text)), hit))
    todo = []
    for scored in best.values():
        most = max(score for score, _ in scored)
        top = [hit for score, hit in scored if score == most]
        if most > 0 and len(top) == 1:
            todo.append(top[0])
    if not todo:
        return None
    hit, last = todo[0], turn.steps[-1]
    if last.name == "read_file" and last.path == hit.path:
        shown = [line for line in last.shown_lines or () if line.strip() == hit.text.strip()]
        if len(shown) != 1:
            return None
        numbers = given(shown[0], frozenset(words))
        if len(numbers) != 1:
            return None
        number = numbers[0]
        places = len(number.group(1).partition(".")[2])
        new = f"{Decimal(value):.{places}f}" if places and "." not in value else value
        made = shown[0][: number.start(1)] + new + shown[0][number.end(1) :]
        return Nudge(
            f"Write {value} on this line of {hit.path} as well.",
            "edit_file",
            arguments={"path": hit.path, "old_text": shown[0], "new_text": made},
        )
    if last.wrote:
        return Nudge(
            f"{hit.path} holds {changed[0]} too.", "read_file", arguments={"path": hit.path}
        )
    return None


class ValueWanted(WrittenAhead):
    """A change request that says only the value wanted ("Raise the deposit to 60
    pounds.", "Green tea costs 5 now in the sample order."), with nothing changed yet:
    the harness writes each call itself. First the search for the lines giving a number
    to a name with a word of the request on them; then, for the one such line that
    gives one number and shares the most words with the request, the read of its file
    and the edit of that number to the value wanted. Where no line qualifies, two tie,
    or a call goes wrong, the rule stops and the model goes on.

    Measured (bench local-tasks, the fresh set, half A): told "Green tea costs 5 now in
    the sample order.", the 1.5B model read ``src/index.js`` after the search listed
    ``{ sku: 'tea-01', name: 'Green tea', price: 4.5 },`` and sent edits whose new text
    was the old, twice; told "Raise the deposit to 60 pounds.", it edited a
    ``deposit.txt`` it made up, then searched, and answered "The deposit is currently set
    to 50 pounds.\""""

    name: ClassVar[str] = "value-wanted"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools):
            return None
        wanted: Wanted | ShapedWanted | None = wanted_value(turn.prompt)
        if wanted is None:
            wanted = shaped_value(turn.prompt)
        search = wanted.search(turn.prompt) if wanted is not None else None
        if wanted is None or search is None:
            return None
        say = f"Write {wanted.value} on this line of {{path}}."
        per = wanted.per if isinstance(wanted, Wanted) else None
        unsaid = frozenset((per,)) if per else frozenset()
        nudge = one_line_chain(
            turn,
            search,
            f"Search for the setting to make {wanted.value}.",
            lambda hits, reads: choose_line(
                hits, reads, turn.prompt, wanted.made, say, also=wanted.also, unsaid=unsaid
            ),
        )
        if nudge is not None or not turn.edited or not _AS_WELL.search(turn.prompt):
            return nudge
        return _elsewhere(turn, search, wanted.value)
