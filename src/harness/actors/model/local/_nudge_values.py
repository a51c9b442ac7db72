"""The rule for a change that names the value wanted and the value there now ("From
tomorrow just bake 24 for the counter, not 36.", "The tax rate goes up from 0.2 to 0.23.",
"keep a dozen old logs rather than six"): the harness finds the one line that holds the
value there now and speaks of what the request speaks of, and writes the search, the read
and the edit itself, each as a call the user sees (and, in the terminal, approves).

Measured (bench local-tasks, the fresh set, half A): told such a change, the 1.5B model
claimed it at once with no call ("I've updated the `bake_croissants` function to bake 24
croissants instead of 36."), wrote a script into the watering log it was asked to keep
twelve of, or read the right file (``club.toml``) and read on to the turn limit; asked
for the edit in words, it duplicated lines of the right file and said done."""

from __future__ import annotations

import re
from typing import ClassVar

import attrs

from harness.actors.model.local._nudge_base import FILE_NAME, Nudge
from harness.actors.model.local._nudge_changes import change_goes_in
from harness.actors.model.local._turn import Turn
from harness.words import asks_for_change

__all__ = ["NewValue", "value_change"]

_NUMBER_WORDS = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen", "twenty"),
)
# a value a request writes: a number (with its currency or percent sign), a number word,
# a dozen
_VALUE = (
    r"[£$€]?\d+(?:\.\d+)?%?(?!\.?\d)|half a dozen|a dozen|dozen|"
    + "|".join(_NUMBER_WORDS)
    + r"(?![\w-])"
)
# "…, not 36", "rather than six", "instead of just one": the value there now, after the
# one wanted
_NOT_OLD = re.compile(
    rf"\b(?:not|rather than|instead of)\s+(?:just |only |the )?({_VALUE})(?![\w-])", re.I
)
# "from 0.2 to 0.23", "from 400 km to 500 km"
_FROM_TO = re.compile(rf"\bfrom\s+({_VALUE})(?:\s+[a-z]+)?\s+to\s+({_VALUE})(?![\w-])", re.I)
_ANY_VALUE = re.compile(rf"(?<![\w.£$€-])({_VALUE})(?![\w-])", re.I)
# a fault told rather than a change asked: "removes two lines instead of one. Fix it." says
# what happens now first, so its pair reads the other way round
_FAULT = re.compile(r"\b(?:fix|bug|wrong|broken|error|fails?|crash)", re.I)
_SENTENCE = re.compile(r"(?:[^.!?]|\.(?=\d))+(?:[.!?]|$)")
# files a value change does not go in unless the request names them: records of what
# happened, and tests
_RECORDS = re.compile(r"\.(?:csv|tsv|log|jsonl)$|(?:^|/)(?:tests?/|test_[^/]*$|[^/]*[._]test\.)")
# words too common to say what a line is about
_COMMON = frozenset(
    "about after again also always before being could every from have into just keep "  # noqa: SIM905
    "less like made make many more most much must need only other over rather should "
    "some still than that their them then there these they this tomorrow today want what "
    "when where which while will with would your".split()
)


def _digits(value: str) -> str:
    """*value* as the number a file writes: "six" 6, "a dozen" 12, "£4.50" 4.50, "5%" 5."""
    word = value.lower()
    if word == "half a dozen":
        return "6"
    if word.endswith("dozen"):
        return "12"
    if word in _NUMBER_WORDS:
        return str(_NUMBER_WORDS.index(word))
    return value.strip("£$€%")


def value_change(prompt: str) -> tuple[str, str] | None:
    """The value there now and the value wanted, as digits, when *prompt* asks for one
    change of one value and says both ("bake 24 for the counter, not 36": ``("36",
    "24")``; "goes up from 0.2 to 0.23": ``("0.2", "0.23")``); else ``None``. Not for a
    fault told ("removes two lines instead of one. Fix it."), nor a value there now of 0
    or 1, which nearly any line holds."""
    if _FAULT.search(prompt) or not asks_for_change(prompt):
        return None
    pairs = set()
    for sentence in _SENTENCE.findall(prompt):
        for m in _FROM_TO.finditer(sentence):
            pairs.add((_digits(m.group(1)), _digits(m.group(2))))
        for m in _NOT_OLD.finditer(sentence):
            before = _ANY_VALUE.findall(sentence[: m.start()])
            if before:
                pairs.add((_digits(m.group(1)), _digits(before[-1])))
    if len(pairs) != 1:
        return None
    old, new = pairs.pop()
    if old in ("0", "1") or old == new:
        return None
    return old, new


# a request that speaks of a time of day: "open at 8 in the morning", "close at 10 pm",
# "at 9 now"; not "start at 20 units"
_CLOCK = re.compile(
    r"o'clock|\b[ap]\.?m\b|\bin the (?:morning|afternoon|evening)\b|\bat night\b"
    r"|\bat \d{1,2}(?::\d\d)?\s*(?:[,.;!]|$|(?:now|instead|rather|not)\b)",
    re.I,
)


@attrs.frozen
class _Change:
    """The value there now and the value wanted, as digits; *clock*: hours of a time of
    day, which a file may write as ``07:00``."""

    old: str
    new: str
    clock: bool

    @classmethod
    def of(cls, prompt: str) -> _Change | None:
        change = value_change(prompt)
        if change is None:
            return None
        old, new = change
        hours = all(v.isdigit() and int(v) <= 24 for v in change)
        return cls(old, new, hours and _CLOCK.search(prompt) is not None)

    @property
    def held(self) -> str:
        """The value there now as a line holds it: ``36`` in ``croissant = 36`` and
        ``KEEP="${KEEP:-6}"``, not in ``2026-05-06``, ``14:00``, ``360`` or
        ``WELCOME5``; on the clock, the hour of ``"07:00"`` too."""
        old = re.escape(self.old)
        plain = rf"{old}(?![\w]|\.\d|:\d|-\d)"
        if self.clock:
            plain = rf"(?:0?{old}(?=:[0-5]\d)|{plain})"
        return rf"(?<![\w.:])(?<!\d-){plain}"

    def set_in(self, line: str) -> bool:
        """Whether *line* gives the value there now to a name or compares with it: after
        ``=``, ``:``, ``<`` or ``>``, a quote, a bracket or a shell default between
        (``croissant = 36``, ``"custard tart": (180, 25)``, ``KEEP="${KEEP:-6}"``, ``if
        qty >= 10:``); not an argument of a call (``pad(price, 10)``: a width, not a
        setting)."""
        given = rf"[=:<>]\s*[\"'(\[{{]?\s*(?:\$\{{\w+:-)?[£$€]?{self.held}"
        return re.search(given, line) is not None

    def made(self, line: str) -> str:
        """*line* with the value wanted in place of the one there now (an hour written
        ``07`` as ``08``)."""

        def new(m: re.Match[str]) -> str:
            padded = self.clock and m.group(0).startswith("0") and m.group(0).isdigit()
            return self.new.zfill(2) if padded else self.new

        return re.sub(self.held, new, line)

    @property
    def search(self) -> str:
        """The search for the value there now as a whole number: not a part of ``7.5``
        or ``360`` (a regular expression ripgrep reads too, which has no lookaround);
        on the clock, ``07:00`` too."""
        old = ("0?" if self.clock else "") + re.escape(self.old)
        return rf"(?:^|[^\w.]){old}(?:[^\w.]|$)"


def _stems(text: str) -> set[str]:
    """The words of *text* a line and a request can share, each without a plural's
    ``s`` and cut to its first five letters ("croissants" and ``croissant``, "open" and
    ``opens``; ``min_helm_age`` gives helm)."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", text)
    stems = set()
    for word in (w.lower() for w in words if len(w) >= 4):
        if word not in _COMMON:
            stems.add((word[:-1] if word.endswith("s") and not word.endswith("ss") else word)[:5])
    return stems


def _the_lines(hits: list[tuple[str, str]], change: _Change, prompt: str) -> list[tuple[str, str]]:
    """Of *hits* (each a file's path and a line), the lines to change: the one line
    holding *old* as a setting that shares the most words with *prompt*, when one does so
    alone, or one such line in each of the files the prompt names ("change it in fleet.py
    and in station.toml"); none otherwise. Lines of prose, records and tests only where
    the prompt names their file."""
    named = {m.group(1) for m in FILE_NAME.finditer(prompt)}
    wanted = _stems(prompt)
    scored = [
        (len(wanted & _stems(text)), path, text)
        for path, text in hits
        if change.set_in(text)
        and change_goes_in(path, prompt)
        and (path in named or not _RECORDS.search(path))
    ]
    best = max((score for score, _, _ in scored), default=0)
    top = [(path, text) for score, path, text in scored if score == best]
    if best == 0:
        return []
    if len(top) == 1:
        return top
    paths = [path for path, _ in top]
    if len(set(paths)) == len(paths) and set(paths) <= named:
        return top
    return []


# a search's hit: "bakery.toml:28:croissant = 36"
_HIT = re.compile(r"^((?:[\w.-]+/)*[\w.-]+):\d+:(.*)$", re.M)


class NewValue:
    """A change request that says the value wanted and the value there now, with nothing
    changed yet: the harness writes each call itself. First the search for the value
    there now; then, for the line holding it as a setting that shares the most words with
    the request (or one such line in each file the request names), the read of its file
    and the edit of the line, the value wanted in place of the one there now. Where no
    line qualifies, or two do in one file or in files the request does not name, or a
    call goes wrong, the rule stops and the model goes on."""

    name: ClassVar[str] = "new-value"

    def check(self, turn: Turn) -> Nudge | None:
        """After a reply, the call :meth:`ahead` knows: the guide writes it before any
        reply, so a reply comes first only where it does not (a caller of the rules
        alone)."""
        return self.ahead(turn)

    def ahead(self, turn: Turn) -> Nudge | None:
        """The call the rule writes before the model replies, or ``None``."""
        if not {"search_text", "read_file", "edit_file"} <= set(turn.tools):
            return None
        change = _Change.of(turn.prompt)
        if change is None:
            return None
        old, new = change.old, change.new
        if not turn.steps:
            return Nudge(
                f"Search for {old}, the value there now.",
                "search_text",
                arguments={"pattern": change.search, "regex": True},
            )
        first, last = turn.steps[0], turn.steps[-1]
        if first.name != "search_text" or first.arguments.get("pattern") != change.search:
            return None  # the model went its own way
        if last is not first and not (last.shown_lines is not None or last.wrote):
            return None  # a call of the rule's went wrong
        hits = [(h.group(1), h.group(2)) for h in _HIT.finditer(first.result)]
        written = {s.path for s in turn.steps if s.wrote}
        todo = [(path, line) for path, line in _the_lines(hits, change, turn.prompt)]
        todo = [(path, line) for path, line in todo if path not in written]
        if not todo:
            return None
        path, line = todo[0]
        if last.name == "read_file" and last.path == path and line in (last.shown_lines or ()):
            return Nudge(
                f"Write {new} for {old} on this line of {path}.",
                "edit_file",
                arguments={
                    "path": path,
                    "old_text": line,
                    "new_text": change.made(line),
                },
            )
        if last.name == "read_file" and last.path == path:
            return None
        return Nudge(
            f"{path} holds {old} on a line the change is about.",
            "read_file",
            arguments={"path": path},
        )
