"""What a change request says of the value it wants, where it says no value there now:
a number (:func:`wanted_value`: "Raise the deposit to 60 pounds.", "Make the deposit
£60.", "Run three replicas", "one more replica", "by 10 seconds"), a value of a form of
its own (:func:`shaped_value`: a web address, a version, a host name), or a word for a
setting named as code (:func:`keyed_value`: "Set LOG_LEVEL … to info."); each with how
a line holding the setting is made to hold it. Read by the rule that writes such a
change (:mod:`._nudge_wanted`)."""

from __future__ import annotations

import re
from decimal import Decimal

import attrs

from harness.actors.model.local._choose import UNIT_STEMS, any_stem, stems
from harness.actors.model.local._nudge_base import FILE_NAME
from harness.actors.model.local._settings import LISTS_TABLES
from harness.actors.model.local._turn import asks_new, code_names
from harness.actors.model.local._values import (
    ANY_VALUE,
    BY_STEP,
    FAULT,
    GIVEN,
    HOUR_WORDS,
    NUMBER_STEMS,
    SECONDS,
    digits,
    in_figures,
    names_unit,
    said_change,
    unit_of,
    value_change,
)
from harness.words import asks_for_change

__all__ = [
    "COMMENT_LINE",
    "GIVES_NUMBER",
    "SETS",
    "KeyedWanted",
    "ShapedWanted",
    "Wanted",
    "given",
    "keyed_value",
    "shaped_value",
    "wanted_value",
]

# a number a line gives to a name or compares with: ``deposit = 50``, ``price: 4.5``,
# ``"retries": 3``, ``KEEP="${KEEP:-6}"``; not a part of ``2026-05-06`` or ``14:00``
_NUMBER = r"\d+(?:\.\d+)?"
SETS = re.compile(rf"{GIVEN}({_NUMBER})(?![\w.]|:\d|-\d)")
#: a line giving a number to a name or comparing with one, as a search (a regular
#: expression ripgrep reads too)
GIVES_NUMBER = rf"{GIVEN}{_NUMBER}(?:[^\w.]|$)"
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
    found = list(SETS.finditer(line))
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
_TRIES = frozenset(("retr", "attem", "trie"))
# a verb of trying just before a count of times: "Let it retry 5 times"
_TRY_BEFORE = re.compile(r"\b(?:re)?try(?:ing)?\s+(?:up\s+to\s+)?$", re.I)
_RELATIVE_BEFORE = re.compile(r"\b(?:by|another|extra)\s*$", re.I)
# "Make the deposit £60": a value wanted where it ends what is made so (its unit, a thing
# it is for each of, or the sentence after it; not "Make the over 65 tickets cheaper")
_MAKE = r"(?:^|[.!?;]\s+|please\s+)make\s+(?:the|our|its|their)\s+(?:[\w'-]+\s+){1,4}"
_MADE_SO = re.compile(
    r"(?:\s+(?:pounds?|euros?|dollars?|pence|per ?cent|[a-z]+s))?"
    r"(?:\s*[.!?;,]|\s*$|\s+(?:a|an|per|each|please|now|instead|from)\b)",
    re.I,
)
# what says a value is the one wanted: "up to 60", "costs 5", "run for 60 seconds", "at
# 170", "to Postgres 16.4", "should open 45 minutes before", "New price for sourdough:
# £4.50", "repeat every 4 hours", "Make the deposit £60" (:data:`_MAKE`), "deposit = 60";
# not "the over 65 tickets", "sail number 655"
_WANTED_BEFORE = re.compile(
    r"\b(?:(?:to|at|be|costs?|is|are|for|every)\s+(?:[A-Z][\w-]*\s+)?"
    r"|(?:be|is|are)\s+[a-z]+ed\s+|(?:should|must|needs? to|ought to)\s+(?:now\s+)?[a-z]+\s+"
    rf"|(?<=[a-z]):\s+|(?<=\w)\s*=\s*|({_MAKE}))$",
    re.I,
)
# a line that only gives a name a number: ``replicas: 1``, ``"retries": 0,``, ``MAX = 1``
_PLAIN_SETTING = re.compile(
    r"""^\s*["']?([A-Za-z_][\w-]*)["']?\s*[:=]\s*\d+(?:\.\d+)?\s*,?\s*(?:#.*)?$"""
)
# a time of day a line gives: ``"07:00"``, ``9:30``
_TIME_OF_DAY = re.compile(r"(?<![\w.:])(\d{1,2}):([0-5]\d)(?![\w:])")
# a value said as an hour of the day: "at 8 in the morning", "7 am", "9 o'clock" (not
# "priced at 5 now": a value after "at" may be any)
_HOUR_SAID = re.compile(rf"\s*(?:{HOUR_WORDS})", re.I)
# a time of day past noon, which a file writes from 12 on
_AFTERNOON = re.compile(r"\bp\.?m\b|\bin the (?:afternoon|evening)\b|\bat night\b", re.I)
# a line that is only a comment: ``# …``, ``// …``
COMMENT_LINE = re.compile(r"^\s*(?:#|//|/?\*)")


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
    counts: str | None = None
    """The value counts what this word names ("Run three replicas of the api service":
    ``repli``): only a line giving a name of that word a number holds it
    (``replicas: 1``)."""
    step: Decimal | None = None
    """The value is the one there now and this much, said as a step ("one more
    replica": 1, "two fewer stops": -2, "Raise the timeout by 10 seconds": 10);
    *value* then says the step."""
    held: str | None = None
    """The value there now, where the request says it and it is 0 or 1 ("replicas 1 ->
    2"), which nearly any line holds: the line giving it to a name the request says."""
    clock: bool = False
    """The value is an hour of the morning ("From next week we open at 8 in the
    morning."): a line giving one time of day (``opens = "07:00"``) holds it, written as
    the line writes its hours (``08:00``)."""

    @property
    def aim(self) -> str:
        """What the change makes the setting, as a sentence says it: "60", "1 more"."""
        if self.step is None:
            return self.value
        return f"{abs(self.step).normalize():f} {'more' if self.step > 0 else 'less'}"

    @property
    def also(self) -> frozenset[str]:
        """Words a line may share with the request that the request does not write: a
        count of tries is said of ``retries``; a span of time of a line naming a unit
        of time (``max_run_minutes = 25`` for "half an hour")."""
        return (_TRIES if self.tries else frozenset()) | (UNIT_STEMS if self.unit else frozenset())

    def search(self, prompt: str) -> str | None:
        """The search for the lines the rule may choose: a number given to a name or
        compared with (:data:`GIVES_NUMBER`), and a word of *prompt* on the line (a
        regular expression ripgrep reads too); ``None`` where the prompt has no word a
        line could share."""
        words = (stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - NUMBER_STEMS) | self.also
        if not words:
            return None
        named = any_stem(words)
        value = GIVES_NUMBER
        return rf"(?i)(?:{named})[^\n]*{value}|{value}[^\n]*(?:{named}){LISTS_TABLES}"

    def made(self, line: str) -> str | None:
        """*line* with the value wanted in place of the one number it gives a name, in
        the unit the line names, or ``None`` where it gives none or two, or 0 or 1 other
        than to a name the request says, is only a comment, names no tries where the
        value is a count of them, already holds the value wanted, or names a unit the
        value does not come to whole in."""
        if self.clock:
            return self._at_hour(line)
        found = given(line, self.keys)
        if len(found) != 1 or COMMENT_LINE.match(line):
            return None
        if self.tries and not stems(line) & _TRIES:
            return None  # a count of tries goes on a line naming tries
        if self.money and "." not in found[0].group(1):
            return None
        if self.counts is not None:
            key = _KEY_BEFORE.search(line[: found[0].start()].rstrip(":= \t([{\"'"))
            if key is None or self.counts not in stems(key.group(1)):
                return None  # "three replicas" goes on the line giving replicas a number
            if Decimal(found[0].group(1)) == Decimal(self.value):
                return None
            return line[: found[0].start(1)] + self.value + line[found[0].end(1) :]
        if self.held is not None and Decimal(found[0].group(1)) != Decimal(self.held):
            return None  # "worker replicas 1 -> 2": not the api's ``replicas: 2``
        if self.step is not None:
            return self._stepped(line, found[0], self.step)
        if self.count_of is not None:
            one_less = Decimal(self.value) - 1
            if self.count_of not in stems(line) or Decimal(found[0].group(1)) != one_less:
                return None  # "a second replica": the line counting replicas, at one
            return line[: found[0].start(1)] + self.value + line[found[0].end(1) :]
        if self.unit and _RATE.search(line):
            return None  # a span of time is no rate (``flow_litres_per_minute``)
        if Decimal(found[0].group(1)) in (0, 1):
            # nearly any line gives 0 or 1: no setting of its own, but a line that only
            # gives it to a name the request says ("Scale the worker up to 2 replicas.":
            # ``replicas: 1``; not ``{ orders += 1 }``)
            plain = _PLAIN_SETTING.match(line)
            if plain is None or not stems(plain[1]) & self.keys:
                return None
        value = self.value
        named = next((u for u in SECONDS if names_unit(line, u)), None)
        if self.unit and named and named != self.unit:
            n = Decimal(value) * SECONDS[self.unit] / SECONDS[named]
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

    def _at_hour(self, line: str) -> str | None:
        """*line* with its one time of day made the hour wanted, on the hour, its hours
        as wide as the line writes them; ``None`` where it gives none or two, is only a
        comment, or says that time already."""
        times = list(_TIME_OF_DAY.finditer(line))
        if len(times) != 1 or COMMENT_LINE.match(line):
            return None
        hours, minutes = times[0].group(1), times[0].group(2)
        if int(hours) == int(self.value) and minutes == "00":
            return None
        made = f"{self.value.zfill(len(hours))}:00"
        return line[: times[0].start()] + made + line[times[0].end() :]

    def _stepped(self, line: str, m: re.Match[str], step: Decimal) -> str | None:
        """*line* with its number *m* moved by *step*, in the unit the line names;
        ``None`` where the line names no such thing as the step counts, gives 0 or 1
        other than to a name the request says, or the step takes it to 0 or below."""
        if self.count_of is not None and self.count_of not in stems(line):
            return None
        held = Decimal(m.group(1))
        plain = _PLAIN_SETTING.match(line)
        named_plainly = plain is not None and stems(plain[1]) & self.keys
        if held in (0, 1) and self.count_of is None and not named_plainly:
            return None
        named = next((u for u in SECONDS if names_unit(line, u)), None)
        if self.unit and named and named != self.unit:
            step = step * SECONDS[self.unit] / SECONDS[named]
        new = held + step
        if new <= 0 or new != new.quantize(Decimal("0.01")):
            return None
        places = len(m.group(1).partition(".")[2])
        written = f"{new:.{places}f}" if places else f"{new.normalize():f}"
        return line[: m.start(1)] + written + line[m.end(1) :]


def wanted_value(prompt: str) -> Wanted | None:
    """The one value *prompt* asks a setting to have, saying no value there now ("Raise
    the deposit to 60 pounds.", "Let them run for 60 seconds."); ``None`` for a change
    :func:`value_change` reads, a fault told, a request for something new, a value by
    which to change ("by 5", "5 more", "15 per cent"), a number that only tells which
    ("the over 65 tickets": the value wanted comes after "to", "at", "for", "costs",
    "is"), two values, or 0 or 1."""
    if value_change(prompt) is not None or FAULT.search(prompt):
        return None
    if not (asks_for_change(prompt) or _LET.search(prompt)) or asks_new(prompt):
        return None
    from_low = _from_low(prompt)
    if from_low is not None:
        return from_low
    prompt = in_figures(prompt)
    stepped = _step(prompt)
    if stepped is not None:
        return stepped
    said = list(ANY_VALUE.finditer(prompt))
    if not said:
        return _one_more(prompt)
    if len(said) != 1:
        return None
    m = said[0]
    before = prompt[: m.start()]
    if _RELATIVE_AFTER.match(prompt, m.end()) or _RELATIVE_BEFORE.search(before):
        return None
    wanted_so = _WANTED_BEFORE.search(before)
    if wanted_so is None:
        return _counted(prompt, m)
    if wanted_so.group(1) and not _MADE_SO.match(prompt, m.end()):
        return None  # "Make the over 65 tickets cheaper": the number tells which
    value = digits(m.group(1))
    if value in ("0", "1") or not re.fullmatch(_NUMBER, value):
        return None
    money = m.group(1)[0] in "£$€" and "." in m.group(1)
    tries = _TIMES.match(prompt, m.end()) is not None
    each = _PER_THING.match(prompt, m.end())
    per = next(iter(stems(each.group(1))), None) if each else None
    keys = frozenset(stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - {per})
    hour = re.fullmatch(r"\d{1,2}", value) is not None and int(value) <= 23
    clock = hour and _HOUR_SAID.match(prompt, m.end()) is not None
    if clock and _AFTERNOON.search(prompt) and int(value) < 12:
        return None  # "8 pm" is 20:00 in the file: left to the model
    return Wanted(
        value, unit_of(m.group(2)), keys=keys, per=per, money=money, tries=tries, clock=clock
    )


def _from_low(prompt: str) -> Wanted | None:
    """The value wanted of a change *prompt* says from 0 or 1 ("Run 2 replicas of the
    worker instead of 1.", "worker replicas 1 -> 2", "two replicas rather than one"),
    which :func:`value_change` leaves (nearly any line holds 0 or 1), or ``None``: the
    line to change gives the value there now to a name the request says."""
    change = said_change(prompt)
    if change is None or change.old_unit or change.new_unit:
        return None
    low = [v for v in (change.old, change.new) if v in ("0", "1")]
    if len(low) != 1 or (not change.either and change.old != low[0]):
        return None
    (held,) = low
    value = change.new if held == change.old else change.old
    if not re.fullmatch(_NUMBER, value):
        return None
    keys = frozenset(stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - NUMBER_STEMS)
    return Wanted(value, keys=keys, held=held)


# a count said with what it counts, where no other word says it is the value wanted
# ("Run three replicas of the api service", "Use 4 workers"); not a number that tells
# which ("the over 65 tickets", "sail number 655", "the 3 boats")
_COUNTED = re.compile(r"\s+([a-z]{4,}s)\b")
_WHICH_BEFORE = re.compile(
    r"\b(?:over|under|above|below|than|aged?|number|no\.?|the|version|v|of|in|on|last|first)\s+$"
    r"|#\s*$",
    re.I,
)


def _counted(prompt: str, m: re.Match[str]) -> Wanted | None:
    """The value *m* of *prompt* as a count of the thing the word after it names ("Run
    three replicas": 3 ``replicas``), or ``None``."""
    counted = _COUNTED.match(prompt, m.end())
    if counted is None or _WHICH_BEFORE.search(prompt, 0, m.start()):
        return None
    value = digits(m.group(1))
    if _TIMES.match(prompt, m.end()) and _TRY_BEFORE.search(prompt, 0, m.start()):
        # "Let it retry 5 times.": a count of tries, on a line naming them
        keys = frozenset(stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - NUMBER_STEMS)
        return Wanted(value, keys=keys, tries=True) if re.fullmatch(r"\d+", value) else None
    thing = stems(counted.group(1))
    if not re.fullmatch(r"\d+", value) or len(thing) != 1 or unit_of(counted.group(1)):
        return None
    keys = frozenset(stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - NUMBER_STEMS)
    return Wanted(value, keys=keys, counts=thing.pop())


# a step from the value there now: "one more replica", "2 fewer stops"; "another
# replica"; "by 10 minutes", the way said by a verb ("Raise the timeout by 10 minutes.")
_STEP_THING = re.compile(r"\s+(more|extra|fewer|less)\s+([a-z]{3,})\b", re.I)
_ANOTHER = re.compile(r"\b(?:another|an extra|one extra)\s+([a-z]{4,})\b", re.I)
_UP = re.compile(r"\b(?:increase|raise|up|bump|extend|lengthen|longer|more)\b", re.I)
_DOWN = re.compile(r"\b(?:decrease|lower|reduce|cut|down|shorten|drop|trim|shorter)\b", re.I)


def _step(prompt: str) -> Wanted | None:
    """The change *prompt* asks as a step from the value there now ("Add one more
    replica to the worker.", "Drop two fewer stops", "We need another replica", "Raise
    the timeout by 10 seconds."), or ``None``: none, two, a step by a share ("by 10%"),
    a step by that says no way up or down, or a value beside it."""
    said = list(ANY_VALUE.finditer(prompt))
    steps: list[tuple[Decimal, str | None]] = []
    for m in said:
        value = digits(m.group(1))
        if not re.fullmatch(_NUMBER, value):
            return None  # a share ("10%") or a sum with a sign is no step to add
        more = _STEP_THING.match(prompt, m.end())
        if more is not None:
            sign = -1 if more.group(1).lower() in ("fewer", "less") else 1
            steps.append((sign * Decimal(value), more.group(2)))
        elif BY_STEP.search(prompt, 0, m.start()):
            up, down = _UP.search(prompt), _DOWN.search(prompt)
            if (up is None) == (down is None) or m.group(1).endswith("%"):
                return None
            steps.append(((1 if up else -1) * Decimal(value), m.group(2)))
    if said and len(steps) != len(said):
        return None  # a value beside the step, or a value and no step
    steps += [(Decimal(1), a.group(1)) for a in _ANOTHER.finditer(prompt)]
    if len(steps) != 1:
        return None
    step, thing = steps[0]
    keys = frozenset(stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - NUMBER_STEMS)
    unit = unit_of(thing)
    if thing is None or unit is not None:
        return Wanted(str(step), unit, keys=keys, step=step)
    counted = stems(thing)
    if len(counted) != 1:
        return None
    return Wanted(str(step), keys=keys, count_of=counted.pop(), step=step)


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
        if len(found) != 1 or COMMENT_LINE.match(line) or found[0].group(1) == self.value:
            return None
        return line[: found[0].start(1)] + self.value + line[found[0].end(1) :]


def shaped_value(prompt: str) -> ShapedWanted | None:
    """The one value of a form of its own *prompt* asks a setting to have (a web address,
    a version, a host name), or ``None``: none or two said, or no change asked."""
    if FAULT.search(prompt) or not asks_for_change(prompt) or asks_new(prompt):
        return None
    for shape, said in zip(_SHAPES, _SHAPED, strict=True):
        found = said.findall(prompt)
        if found:
            return ShapedWanted(found[0], shape) if len(set(found)) == 1 else None
    return None


# a word a request asks a setting it names to have: "Set LOG_LEVEL of the worker service
# to info.", "Change `theme` to 'dark'": after "to", quoted or ending the clause
_KEYED_TO = re.compile(
    r"""\bto\s+(?:(["'`])([\w.-]+)\1|([A-Za-z][\w-]*(?:\.[\w-]+)*)(?=\s*(?:[.,;!?]|$)|\s+(?:in|for|on|"""
    r"""please|now|instead|from|everywhere)\b))""",
    re.I | re.M,
)
# values other rules read: a switch's, a number's
_NO_WORD = re.compile(r"^(?:true|false|on|off|yes|no|enabled?|disabled?|\d[\w.]*)$", re.I)
# a scalar a line gives a name: a bare word, or a quoted string, then the line ends or a
# comment or a comma ("LOG_LEVEL: debug", 'log_level = "warn"  # …', '"level": "warn",')
_SCALAR = r"""(?:(["'])([^"'\n]*)\1|([A-Za-z][\w.-]*))(?=\s*(?:[,#]|//|$))"""


@attrs.frozen
class KeyedWanted:
    """A change that names a setting as code names it and the word it should hold ("Set
    LOG_LEVEL of the worker service in deploy.yaml to info."): the line giving that
    name a word."""

    key: str
    value: str

    @property
    def also(self) -> frozenset[str]:
        """The key's own words."""
        return frozenset(stems(self.key))

    def search(self, prompt: str) -> str:
        """The search for the lines giving the key a value, and the headers of the tables
        of TOML files (a regular expression ripgrep reads too)."""
        return rf"""(?:^|[^\w.-])["']?{re.escape(self.key)}["']?\s*[:=]{LISTS_TABLES}"""

    def made(self, line: str) -> str | None:
        """*line* with the word wanted in place of the one scalar it gives the key (in the
        quotes it had), or ``None`` where it gives no scalar (a call, a list, a number, a
        switch), is only a comment, or holds the word wanted already."""
        given = re.compile(rf"""(?<![\w.-])["']?{re.escape(self.key)}["']?\s*[:=]\s*{_SCALAR}""")
        found = list(given.finditer(line))
        if len(found) != 1 or COMMENT_LINE.match(line):
            return None
        m = found[0]
        group = 2 if m.group(1) else 3
        if _NO_WORD.match(m.group(group) or "") or m.group(group) == self.value:
            return None
        return line[: m.start(group)] + self.value + line[m.end(group) :]


def keyed_value(prompt: str) -> KeyedWanted | None:
    """The one word *prompt* asks a setting it names as code to hold ("Set LOG_LEVEL of
    the worker service to info."), or ``None``: no change asked, a fault, no key or two,
    no word after "to" or two, or a word another rule reads (a switch, a number)."""
    if FAULT.search(prompt) or not asks_for_change(prompt) or asks_new(prompt):
        return None
    files = " ".join(m.group(1) for m in FILE_NAME.finditer(prompt))
    keys = list(dict.fromkeys(k for k in code_names(prompt) if k not in files))
    said = list(_KEYED_TO.finditer(prompt))
    values = {m.group(2) or m.group(3) for m in said}
    if len(keys) != 1 or len(values) != 1:
        return None
    value = values.pop()
    if _NO_WORD.match(value) or value in keys or prompt.find(keys[0]) > said[0].start():
        return None  # the key is said before its word: "Set LOG_LEVEL … to info"
    return KeyedWanted(keys[0], value)
