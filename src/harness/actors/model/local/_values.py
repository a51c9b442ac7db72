"""What a change request says of values: the numbers it writes (a figure, a number word, a
dozen, a span of time, an hour of the clock), and the change of one value it asks, the
value there now and the value wanted (:func:`value_change`: "bake 24 for the counter, not
36", "goes up from 0.2 to 0.23", "down from 36", "it was 14", "deposit: 50 -> 60",
"retries: 5 (was 3)"; :func:`swap_change`: "512mb instead of 256mb"). Read by the rules
that write such a change (:mod:`._nudge_values`, :mod:`._nudge_wanted`)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

import attrs

from harness.actors.model.local._choose import UNIT_STEMS, any_stem, stems
from harness.actors.model.local._nudge_base import literal
from harness.actors.model.local._nudge_changes import NUMBER_WORDS
from harness.words import asks_for_change, wants_value

__all__ = [
    "ANY_VALUE",
    "BY_STEP",
    "FAULT",
    "GIVEN",
    "NUMBER_STEMS",
    "SECONDS",
    "Change",
    "Form",
    "Swap",
    "digits",
    "in_figures",
    "names_unit",
    "said_change",
    "swap_change",
    "unit_of",
    "value_change",
]

# a value a request writes: a number (with its currency or percent sign), a number word,
# a dozen; then, if it has one, its unit of time
# ("one" not where it stands for a thing: "the one on the screen", "this one")
_PRONOUN_ONE = r"(?<!the )(?<!this )(?<!that )(?<!which )(?<!each )(?<!any )(?<!no )one"
_VALUE = (
    rf"(?:\d+|{'|'.join(NUMBER_WORDS[1:])})\s+dozen|"  # "three dozen" is 36, not 3
    r"[£$€]?\d+(?:\.\d+)?%?(?!\.?\d)|half a dozen|a dozen|dozen|"
    + "|".join(_PRONOUN_ONE if word == "one" else word for word in NUMBER_WORDS)
    + r"(?![\w-])"
)
_UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b"
# (or written to the figure, as a setting's value often is: "24h", "2d", "90mins")
_SAID = rf"({_VALUE})(?:(?:\s+|(?<=\d))({_UNIT}|(?<=\d)[hd](?![\w-])))?"
# a measure of another kind written to its figure, which a line may hold bare
# (``SERVICE_EVERY_KM = 400``) or with it (``maxmemory: 256mb``); not "5m", minutes or
# metres
_MEASURES = r"(?i:km|[cm]m|mi|kg|g|lbs?|ml|[kmgt]b|px)"
# a value said going to another is the figure with its measure ("from 400km to 500km")
_SAID_TO = rf"{_SAID}(?:(?<=\d){_MEASURES})?"
# "…, not 36", "rather than six", "instead of just one": the value there now, after the
# one wanted
_NOT_OLD = re.compile(
    rf"\b(?:not|rather than|instead of)\s+(?:just |only |the |every )?{_SAID}(?![\w-])", re.I
)
# "from 0.2 to 0.23", "from 400 km to 500 km", "from every two hours to every four"
_EVERY = r"(?:(?:every|just|only)\s+)?"
_FROM_TO = re.compile(
    rf"\bfrom\s+{_EVERY}{_SAID_TO}(?:\s+[a-z]+)?\s+to\s+{_EVERY}{_SAID_TO}(?![\w-])", re.I
)
# "50 -> 60", "£4.20 → £4.50", "24h -> 48h": the value there now, an arrow, the value wanted
_ARROW = re.compile(rf"(?<![\w.£$€-]){_SAID_TO}\s*(?:->|→|=>)\s*{_SAID_TO}(?![\w-])", re.I)
# a value there now said in brackets beside the one wanted: "retries: 5 (was 3)", "£450
# (were 420)", "1800 seconds please (it's 25 minutes now)", "(currently 8)", "(it's 8 in
# settings.toml)"; not "(now 16)", which may say the value wanted
_NOW_ASIDE = re.compile(
    rf"\(\s*(?:it\s+was|was|were|it's|it\s+is|currently)\s+(?:at\s+)?{_SAID}"
    r"(?:\s+(?:now|currently|at the moment|at present|today|in\s+[\w./-]+\.\w+))?\s*\)",
    re.I,
)
# a time of day with its half of the day written to it: "8am", "7 p.m."
_MERIDIEM = re.compile(r"\b(\d{1,2})\s*([ap])\.?m\.?(?![\w])", re.I)
# a clause of a request: "… at 0.2; it's 0.23 now.", "…, it's 30 at the moment."; a dot
# before a letter or a figure does not end one ("greenhouse.toml", "0.23")
_CLAUSE = re.compile(r"(?:[^.!?;,]|,(?=\d)|\.(?=\w))+(?:[.!?;,]|$)")
# a clause that says how a thing is now, or was: the value there now
_PRESENT = re.compile(
    r"\b(?:at the moment|atm|currently|at present|right now|used to be|it was|it's been|"
    r"has been|till now|until now|so far|still\s+(?:says?|said|shows?|reads?|has|have))\b",
    re.I,
)
# "Every four is plenty.", "Three is enough by default.": the value wanted; the value
# there now is the prompt's one other value
_ENOUGH = re.compile(
    rf"(?:^|\b(?:every|just|only)\s+){_SAID}\s+(?:is|are|would be|will do)\s+"
    r"(?:plenty|enough)\b",
    re.I,
)
ANY_VALUE = re.compile(rf"(?<![\w.£$€-]){_SAID}(?![\w-])", re.I)
# a fault told rather than a change asked: "removes two lines instead of one. Fix it." says
# what happens now first, so its pair reads the other way round
FAULT = re.compile(r"\b(?:fix|bug|wrong|broken|error|fails?|crash)", re.I)
_SENTENCE = re.compile(r"(?:[^.!?]|\.(?=\d))+(?:[.!?]|$)")
# the words after an hour that make it one of the day: "8 in the morning", "10 pm"
HOUR_WORDS = r"o'clock|\b[ap]\.?m\b|\bin the (?:morning|afternoon|evening)\b|\bat night\b"
# a request that speaks of a time of day: "open at 8 in the morning", "close at 10 pm",
# "at 9 now"; not "start at 20 units"
_CLOCK = re.compile(
    rf"{HOUR_WORDS}|\bat \d{{1,2}}(?::\d\d)?\s*(?:[,.;!]|$|(?:now|instead|rather|not)\b)",
    re.I,
)
# each unit of time in seconds, and how a line's names write it ("repeat_minutes",
# "refreshSeconds", "KEEP_DAYS", "hours")
SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}
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
GIVEN = r"""[=:<>]\s*["'(\[{]?\s*(?:\$\{\w+:-)?[£$€]?"""
# how a line's name starts when it names a unit ("repeat_minutes", "timeout_secs")
_UNIT_NAMES = {"second": "sec", "minute": "min", "hour": "hour", "day": "day", "week": "week"}


NUMBER_STEMS = frozenset(stems(" ".join((*NUMBER_WORDS, "dozen"))))


def digits(value: str) -> str:
    """*value* as the number a file writes: "six" 6, "a dozen" 12, "three dozen" 36,
    "£4.50" 4.50, "5%" 5."""
    word = value.lower()
    if word == "half a dozen":
        return "6"
    if word.endswith("dozen"):
        count = word.removesuffix("dozen").strip()
        if count in NUMBER_WORDS:
            return str(12 * NUMBER_WORDS.index(count))
        return str(12 * int(count)) if count.isdigit() else "12"
    if word in NUMBER_WORDS:
        return str(NUMBER_WORDS.index(word))
    return value.strip("£$€%")


def unit_of(word: str | None) -> str | None:
    """The unit of time *word* names ("hrs" hour, "minutes" minute), or ``None``."""
    if not word:
        return None
    word = word.lower()
    if word.startswith(("hr", "hour")) or word == "h":
        return "hour"
    if word == "d":
        return "day"
    return next((unit for unit in SECONDS if word.startswith(unit[:3])), None)


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
    either: bool = False
    """The request says the two values but not which is there now ("Cut the croissants
    to 24 a day, down from 36.", "Juniors may helm at 12 (it was 14)."): the line a file
    holds one on says it, and the change goes from that one to the other."""
    percent: bool = False
    """The request writes both values as percents ("from 20% to 23%"), which a file may
    write as fractions too (``rate = 0.2``)."""

    @property
    def forms(self) -> list[Form]:
        """The forms a file may hold the change in: as said, and, for a span of time, in
        each other unit it comes to whole (two hours: 120 minutes, 7200 seconds); where
        the request does not say which value is there now, the forms of both ways. A
        value there now of 0 or 1 is no form: nearly any line holds it."""
        if self.either:
            back = Change(
                self.new, self.old, self.new_unit, self.old_unit, self.clock, percent=self.percent
            )
            return [*attrs.evolve(self, either=False).forms, *back.forms]
        said = self.old_unit or self.new_unit
        forms = [Form(self.old, self.new, said)] if self.old_unit == self.new_unit else []
        if self.percent and said is None:
            forms.append(Form(_fraction(self.old), _fraction(self.new), None))
        if said is not None:
            forms += [
                form
                for unit in SECONDS
                if (form := self._in(unit)) is not None and form.unit not in (f.unit for f in forms)
            ]
        # a decimal a file may write without its last zeros: "4.50" as ``price: 4.5``
        forms += [t for f in forms if (t := Form(_trim(f.old), _trim(f.new), f.unit)) not in forms]
        return [f for f in forms if f.old not in ("0", "1") and f.old != f.new]

    def turned(self, form: Form) -> bool:
        """Whether *form* goes from the value the request said second to the one it said
        first (a change whose request does not say which is there now)."""
        return form not in attrs.evolve(self, either=False).forms

    def _in(self, unit: str) -> Form | None:
        """The change in *unit*, when both values come to a whole number of it or one
        with at most two decimals."""
        values = []
        for value, said in ((self.old, self.old_unit), (self.new, self.new_unit)):
            try:
                n = Decimal(value) * SECONDS[said or unit] / SECONDS[unit]
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
        # a whole value written with decimals of zeros (``pontoon: 420.00``), which an
        # edit to a whole value keeps (``450.00``)
        zeros = r"(?=\.0+(?![\w.]))|" if "." not in form.old + form.new else ""
        plain = rf"{old}(?:(?={_MEASURES}\b)|{zeros}(?![\w]|\.\d|:\d|-\d))"
        if self.clock:
            plain = rf"(?:0?{old}(?=:[0-5]\d)|{plain})"
        return rf"(?<![\w.:])(?<!\d-){plain}"

    def set_in(self, line: str) -> Form | None:
        """The form in which *line* gives the value there now to a name or compares with
        it (:data:`GIVEN`; not an argument of a call, ``pad(price, 10)``: a width, not a
        setting). A span of time in another unit than the request's only where the line
        names that unit (``repeat_minutes: 120`` for two hours)."""
        said = self.old_unit or self.new_unit
        for form in self.forms:
            given = GIVEN + self.held(form)
            if re.search(given, line) is None:
                continue
            if form.unit == said or names_unit(line, form.unit):
                return form
        # a port in a web address: ``"url": "http://127.0.0.1:9412/stock"``
        for form in self.forms:
            if form.unit is None and form.old.isdigit() and re.search(_port(form.old), line):
                return form
        return None

    def made(self, line: str, form: Form) -> str:
        """*line* with the value wanted in place of the one there now, in *form* (an
        hour written ``07`` as ``08``; a port in a web address too)."""

        def new(m: re.Match[str]) -> str:
            padded = self.clock and m.group(0).startswith("0") and m.group(0).isdigit()
            return form.new.zfill(2) if padded else form.new

        line = re.sub(self.held(form), new, line)
        return re.sub(_port(form.old), rf"\g<1>{form.new}", line) if form.unit is None else line

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
        words = stems(prompt) - UNIT_STEMS - NUMBER_STEMS
        words |= {_UNIT_NAMES[f.unit] for f in self.forms if f.unit and f.unit != said}
        olds = "|".join(re.escape(f.old) for f in self.forms)
        # a measure the request writes to a figure, the line may write too ("256mb")
        measure = f"{_MEASURES}?" if re.search(rf"\d{_MEASURES}(?![\w-])", prompt) else ""
        zeros = r"(?:\.0+)?" if not any("." in f.old + f.new for f in self.forms) else ""
        value = rf"{GIVEN}{'0?' if self.clock else ''}(?:{olds}){zeros}{measure}(?:[^\w.]|$)"
        if anywhere:
            return value
        if re.search(r"\bports?\b", prompt, re.I):  # a port in a web address too
            value = rf"""(?:{value}|://[\w.-]+:(?:{olds})(?:[/"'\s,]|$))"""
        if not words:
            return None
        named = any_stem(words)
        return rf"(?i)(?:{named})[^\n]*{value}|{value}[^\n]*(?:{named})"


def _fraction(percent: str) -> str:
    """*percent* as a fraction of one: "20" 0.2, "17.5" 0.175."""
    return f"{(Decimal(percent) / 100).normalize():f}"


def _trim(value: str) -> str:
    """*value* without the zeros that end its decimals: "4.50" 4.5, "5.00" 5."""
    return value.rstrip("0").rstrip(".") if "." in value else value


def _port(value: str) -> str:
    """*value* as the port of a web address (``http://127.0.0.1:9412/stock``), the
    address before it kept in group 1."""
    return rf"""(://[\w.-]+:){re.escape(value)}(?=[/"'\s,]|$)"""


def names_unit(line: str, unit: str | None) -> bool:
    """Whether *line* names *unit* ("repeat_minutes", "refreshSeconds", ``"hours":``)."""
    if unit is None:
        return False
    words = re.sub(r"([a-z])([A-Z])", r"\1_\2", line).lower()
    return _NAMES_UNIT[unit].search(words) is not None


# a table's heads of the value there now and the value wanted ("| mooring | now | new |")
_HEAD_NOW = re.compile(r"(?:now|old|current(?:ly)?|was|before|from|today)", re.I)
_HEAD_NEW = re.compile(r"(?:new|wanted|to|after|proposed|should be|will be|from now on)", re.I)


def _table(prompt: str) -> set[tuple[str, str | None, str, str | None]]:
    """Each row of a Markdown table *prompt* pastes whose column of the value there now
    and column of the value wanted hold two values (the table of fees: "| pontoon | 420
    | 450 |" under "| mooring | now | new |"); a row that keeps its value is none."""
    pairs = set()
    rows = [line.strip().strip("|").split("|") for line in prompt.splitlines() if "|" in line]
    heads: tuple[int, int] | None = None
    for cells in (list(map(str.strip, row)) for row in rows):
        now = [i for i, c in enumerate(cells) if _HEAD_NOW.fullmatch(c)]
        new = [i for i, c in enumerate(cells) if _HEAD_NEW.fullmatch(c)]
        if len(now) == 1 and len(new) == 1 and now[0] < new[0]:
            heads = (now[0], new[0])
        elif heads is not None and len(cells) > heads[1]:
            old, wanted = (ANY_VALUE.fullmatch(cells[i]) for i in heads)
            if old and wanted and digits(old[1]) != digits(wanted[1]):
                pairs.add((digits(old[1]), unit_of(old[2]), digits(wanted[1]), unit_of(wanted[2])))
    return pairs


def _pairs(prompt: str) -> set[tuple[str, str | None, str, str | None]]:
    """Each (value there now, its unit, value wanted, its unit) *prompt* says."""
    pairs = _table(prompt)
    for m in _NOW_ASIDE.finditer(prompt):
        others = {(digits(o[1]), unit_of(o[2])) for o in ANY_VALUE.finditer(prompt[: m.start()])}
        if len(others) == 1:
            ((new, unit),) = others
            pairs.add((digits(m[1]), unit_of(m[2]), new, unit))
    for sentence in _SENTENCE.findall(prompt):
        for m in _ARROW.finditer(sentence):
            pairs.add((digits(m[1]), unit_of(m[2]), digits(m[3]), unit_of(m[4])))
        for m in _FROM_TO.finditer(sentence):
            pairs.add((digits(m[1]), unit_of(m[2]), digits(m[3]), unit_of(m[4])))
        for m in _NOT_OLD.finditer(sentence):
            before = ANY_VALUE.findall(sentence[: m.start()])
            if before:
                value, unit = before[-1]
                pairs.add((digits(m[1]), unit_of(m[2]), digits(value), unit_of(unit)))
        for m in _ENOUGH.finditer(sentence.strip()):
            wanted = (digits(m[1]), unit_of(m[2]))
            others = {(digits(o[1]), unit_of(o[2])) for o in ANY_VALUE.finditer(prompt)}
            others.discard(wanted)
            if len(others) == 1:
                ((old, unit),) = others
                pairs.add((old, unit, *wanted))
    return pairs or _said_then_asked(prompt)


def _said_then_asked(prompt: str) -> set[tuple[str, str | None, str, str | None]]:
    """The pair of a request whose only two values are in two clauses: the value there
    now in one that asks nothing and the value wanted in a later one that asks for it
    ("WELCOME5 is 5% off at the moment. Change it to 10%.", "… have the tax rate at 0.2;
    it's 0.23 now.", "Log rotation keeps six old logs. Make it twelve.") or wants it
    ("… only six old logs are kept. Could it keep twelve instead?"), or the value
    wanted first and the value there now in a later clause that says it is so now or
    was ("Open the doors 45 minutes before curtain up, it's 30 at the moment.", "service
    the bikes every 500 km, it used to be 400")."""
    clauses = _CLAUSE.findall(prompt)
    # (a value said twice in one clause is one: "pool exhausted (8 of 8 connections in use)")
    said = list(
        dict.fromkeys(
            (at, (digits(m[1]), unit_of(m[2])))
            for at, clause in enumerate(clauses)
            for m in ANY_VALUE.finditer(clause)
        )
    )
    if len(said) != 2 or said[0][1] == said[1][1] or said[0][0] == said[1][0]:
        return set()
    (first_at, (one, one_unit)), (then_at, (other, other_unit)) = said
    first, then = clauses[first_at], clauses[then_at]
    if _PRESENT.search(then) and not asks_for_change(then, plainly=True):
        return {(other, other_unit, one, one_unit)}
    if asks_for_change(first) or not (asks_for_change(then, plainly=True) or wants_value(then)):
        return set()
    return {(one, one_unit, other, other_unit)}


# spans of time said in words, as minutes: "half an hour", "three quarters of an hour"
_SPANS = (
    (re.compile(r"\bthree[- ]quarters of an hour\b", re.I), "45 minutes"),
    (re.compile(r"\b(?:a )?quarter of an hour\b", re.I), "15 minutes"),
    (re.compile(r"\ban hour and a half\b", re.I), "90 minutes"),
    (re.compile(r"\bhalf an hour\b", re.I), "30 minutes"),
)


# a number of tens said in words, and its units: "thirty", "twenty-five", "forty five"
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TENS_SAID = re.compile(
    rf"(?<![\w-])({'|'.join(_TENS)})(?:[- ]({'|'.join(NUMBER_WORDS[1:10])}))?\b(?![-.]\w)", re.I
)


def _tens(m: re.Match[str]) -> str:
    """A number of tens said in words, in figures: "twenty-five" 25."""
    units = NUMBER_WORDS.index(m[2].lower()) if m[2] else 0
    return str(10 * (2 + _TENS.index(m[1].lower())) + units)


def in_figures(prompt: str) -> str:
    """*prompt* with each span of time it says in words said in minutes ("up to half an
    hour": "up to 30 minutes"), as a setting writes it, and each number of tens in
    figures ("thirty minutes at most, not twenty-five": 30, 25)."""
    for words, figure in _SPANS:
        prompt = words.sub(figure, prompt)
    return _TENS_SAID.sub(_tens, prompt)


def _on_clock(m: re.Match[str]) -> str:
    """A time of day written with its half of the day, as the hour a setting writes:
    "8am" 8, "7 p.m." 19, "12am" 0."""
    hour = int(m[1]) % 12
    return str(hour + 12 if m[2].lower() == "p" else hour)


def value_change(prompt: str) -> Change | None:
    """The change of one value *prompt* asks for, saying the value there now and the
    value wanted ("bake 24 for the counter, not 36": 36 to 24; "goes up from 0.2 to
    0.23"; "the last two days instead of just one": one day to two; "nags us every two
    hours. Every four is plenty."); else ``None``. Not for a fault told ("removes two
    lines instead of one. Fix it."), nor two changes at once, nor one from 0 or 1, which
    nearly any line holds (:func:`said_change` reads it)."""
    change = said_change(prompt)
    return change if change is not None and change.forms else None


def said_change(prompt: str) -> Change | None:
    """The change of one value *prompt* says, as :func:`value_change` reads it, whether
    or not a file could hold it in any form ("Run 2 replicas of the worker instead of
    1.": 1 to 2)."""
    if FAULT.search(prompt) or not asks_for_change(prompt):
        return None
    clock = _MERIDIEM.search(prompt) is not None
    prompt = _MERIDIEM.sub(_on_clock, prompt)
    pairs = _pairs(in_figures(prompt))
    either = not pairs
    if either:
        pairs = _either(in_figures(prompt))
    if len(pairs) != 1:
        return None
    old, old_unit, new, new_unit = pairs.pop()
    # a unit said once is the other value's too: "two days instead of just one"
    old_unit, new_unit = old_unit or new_unit, new_unit or old_unit
    hours = old_unit is None and all(v.isdigit() and int(v) <= 24 for v in (old, new))
    on_clock = clock or _CLOCK.search(prompt) is not None
    percent = all(re.search(rf"(?<![\d.]){re.escape(v)}\s*%", prompt) for v in (old, new))
    return Change(old, new, old_unit, new_unit, hours and on_clock, either, percent)


# a value a request wants: "to 24", "to £60" (two of them are two changes: "Set retries to 5
# and the timeout to 30.")
_TO_VALUE = re.compile(rf"\bto\s+{_SAID}", re.I)
# a value said as a step from the one there now: "by 10 minutes", "two more", "5 fewer"
BY_STEP = re.compile(r"\bby\s+$", re.I)
_MORE = re.compile(r"\s+(?:more|fewer|less|extra)\b", re.I)


def _either(prompt: str) -> set[tuple[str, str | None, str, str | None]]:
    """The two values of a request that says both in one sentence but not which is there
    now ("Cut the counter's croissants to 24 a day, down from 36.", "Tax is going up to
    0.23 (it's 0.2 now)."), as said; none where it says more or fewer, in two sentences,
    both after "to", or one as money and the other not."""
    for sentence in _SENTENCE.findall(prompt):
        found = list(ANY_VALUE.finditer(sentence))
        said = list(dict.fromkeys((m[1], m[2]) for m in found))
        if len(said) != 2:
            continue
        if any(
            BY_STEP.search(sentence, 0, m.start()) or _MORE.match(sentence, m.end()) for m in found
        ):
            return set()  # a step, not a value: "by 10 minutes to 40", "two more"
        if len(list(ANY_VALUE.finditer(prompt))) != 2 or len(_TO_VALUE.findall(sentence)) > 1:
            return set()
        (one, one_unit), (other, other_unit) = said
        if (one[0] in "£$€") != (other[0] in "£$€") or one.endswith("%") != other.endswith("%"):
            return set()
        if digits(one) == digits(other):
            return set()
        return {(digits(one), unit_of(one_unit), digits(other), unit_of(other_unit))}
    return set()


# a value written with its unit in one word, as a setting writes it: "256mb", "512Mi",
# "30s", "1.5g"; not an ordinal ("2nd") or a time of day ("8am")
_TOKEN = re.compile(r"(?<![\w.£$€-])(\d+(?:\.\d+)?(?!st|nd|rd|th|am|pm)[A-Za-z]{1,3})(?![\w-])")


@attrs.frozen
class Swap:
    """A change of one value written with its unit in one word ("Give the redis cache
    512mb of memory instead of 256mb."): the request says both, in either order; the
    line a file holds one on says which is there now, and it is replaced as written."""

    old: str
    new: str
    old_unit: None = None
    new_unit: None = None
    either: bool = True

    def _on(self, value: str) -> str:
        return rf"(?<![\w.-]){re.escape(value)}(?![\w.-])"

    def set_in(self, line: str) -> Form | None:
        """The way *line* holds the change: its value there now, either of the two (as
        written, case aside); ``None`` where it holds neither or both."""
        held = [v for v in (self.old, self.new) if re.search(self._on(v), line, re.I)]
        if len(held) != 1:
            return None
        other = self.new if held[0] == self.old else self.old
        return Form(held[0], other, None)

    def turned(self, form: Form) -> bool:
        """Whether *form* goes from the value the request said second to the first."""
        return form.old != self.old

    def made(self, line: str, form: Form) -> str:
        """*line* with *form*'s value wanted in place of its value there now, its unit in
        the case the line writes it in ("256MB" to "512MB" for "512mb")."""

        def new(m: re.Match[str]) -> str:
            unit = re.sub(r"[\d.]", "", m.group(0))
            if unit.isupper():
                return form.new.upper()
            return form.new.lower() if unit.islower() else form.new

        return re.sub(self._on(form.old), new, line, flags=re.I)

    def search(self, prompt: str, *, anywhere: bool = False) -> str:
        """The search for lines holding either value as a word of its own (a regular
        expression ripgrep reads too, which has no lookaround)."""
        either = "|".join(literal(v) for v in (self.old, self.new))
        return rf"(?i)(?:^|[^\w.-])(?:{either})(?:[^\w.-]|$)"


def swap_change(prompt: str) -> Swap | None:
    """The change *prompt* asks of a value written with its unit in one word, saying
    both the value wanted and the one there now ("512mb instead of 256mb"), or ``None``:
    not two such values, both the same, a fault told or no change asked."""
    if FAULT.search(prompt) or not asks_for_change(prompt):
        return None
    said = list(dict.fromkeys(_TOKEN.findall(prompt)))
    if len(said) != 2 or said[0].lower() == said[1].lower():
        return None
    return Swap(said[0], said[1])
