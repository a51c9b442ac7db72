"""Nudge rules that check the figures an answer gives against what the tools found: a
question for an amount, a time or a number answered with none (``figure-not-given``),
and a figure no result holds (``made-up-figure``). Each asks for the
answer again, from the history without the reply it replaces."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

from harness.actors.model.local._nudge_answers import (
    _HIT,
    _HOW_TO,
    _REQUEST_WORD,
    _SAYS_NONE,
    _STOP,
)
from harness.actors.model.local._nudge_base import Nudge, printed
from harness.actors.model.local._nudge_changes import NUMBER_WORDS
from harness.actors.model.local._turn import Step, Turn, asks_change
from harness.actors.model.local._values import digits
from harness.words import asks_to_write, like_words

__all__ = ["FigureNotGiven", "MadeUpFigure", "figures_in", "made_up_again"]

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# a date with its year ("2023-04-15", "15 April 2023", "April 15th, 2023"; the year in
# its group), and a phone number (nine digits or more, in groups)
_DATED = re.compile(
    r"\b((?:19|20)\d\d)-[01]\d-[0-3]\d\b"
    rf"|\b[0-3]?\d(?:st|nd|rd|th)? (?:{_MONTHS}),? ((?:19|20)\d\d)\b"
    rf"|\b(?:{_MONTHS}) [0-3]?\d(?:st|nd|rd|th)?,? ((?:19|20)\d\d)\b"
)
_PHONE = re.compile(r"(?<![\w.])(?:\+\d{1,3}[ -]?)?\d{2,5}[ -]?\d{3,4}[ -]?\d{3,4}(?!\w|\.\d)")


# a figure an answer gives in digits: a whole number, a decimal or a time ("10", "4.50",
# "14:25"); not a part of a name, a path or a version ("main.js", "v2", "3rd", "1.5B")
_NUMBER = re.compile(r"(?<![\w.:/-])\d+(?:[.:]\d+)?(?![\w/-]|[.:]\d|\.[A-Za-z])")
# before a figure, a place in a file ("line 18", "lines 7 and 18"), not a figure of it
_LINE_NUMBER = re.compile(r"\blines? (?:\d+(?:,\s*|\s+and\s+|\s+to\s+|-))*$", re.I)
# a figure that starts a line of a list ("1. Read the file")
_LIST_MARK = re.compile(r"(?:^|\n)\s*$")
# after a figure, a time's half of the day ("10 PM", "2:30 p.m.")
_HALF_DAY = re.compile(r"\s*([ap])\.?m\b", re.I)
# a figure a file writes in words, read as its value ("keeps five copies", "a dozen"):
# the words the value rules read, and the tens past them
_TENS = {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "hundred": "100"}
_NUMBER_WORD = re.compile(rf"\b(?:{'|'.join([*NUMBER_WORDS, 'dozen', *_TENS])})\b", re.I)
# a code block of an answer: its figures are an example's, not an answer's
_FENCED = re.compile(r"```.*?(?:```|$)", re.S)
# what a read or a search writes before a line it shows: its number ("13:4e|", "a.py:13:")
_SHOWN_AT = re.compile(r"^(?:\d+:[0-9a-f]{2}\||[^\s:]+:\d+:)", re.M)
# a question whose answer is worked out from figures rather than read ("how much more",
# "in total", "how many … are there"): its figure need be in no line
_WORKED_OUT = re.compile(
    r"\b(?:more|less|fewer|cheaper|dearer|difference|total|altogether|in all|add(?:s|ed)? "
    r"(?:it |them )?up|sum)\b|\bhow many\b[^.?!]*\b(?:are|is) (?:there|in|on|left)\b",
    re.I,
)


def figures_in(text: str) -> set[str]:
    """The figures *text* holds, each as written and as a value ("4.50" and "4.5"): every
    run of digits (a time's hours and minutes too, "14:25", "14" and "25"), and the
    numbers it writes in words."""
    found: set[str] = set()
    for m in re.finditer(r"\d+(?:\.\d+)?", text):
        found |= {m.group(0), str(float(m.group(0)))}
    found |= set(re.findall(r"\d+:\d\d", text))
    found |= {_TENS.get(w.lower()) or digits(w) for w in _NUMBER_WORD.findall(text)}
    return found | {str(float(v)) for v in found if ":" not in v}


def _as_said(figure: str, after: str) -> set[str]:
    """The ways a file may write *figure*, which an answer wrote before *after*: as it
    is and as a value; a time of the afternoon in 24 hours too ("10 PM": "22:00"); a
    percentage as a fraction ("20%": "0.2")."""
    ways = {figure} if ":" in figure else {figure, str(float(figure))}
    half = _HALF_DAY.match(after)
    if half:
        hours, _, minutes = figure.partition(":")
        hour = int(float(hours)) + (12 if half.group(1).lower() == "p" and float(hours) < 12 else 0)
        ways |= {f"{hour}:{minutes or '00'}", f"{hour:02d}:{minutes or '00'}", str(hour)}
    if re.match(r"\s*(?:%|per ?cent)", after) and ":" not in figure:
        ways.add(str(float(figure) / 100))
    return ways


def _made_up(turn: Turn) -> str | None:
    """The first figure *turn*'s reply gives, outside a code block (an example's), that
    neither the prompt, the conversation before it nor any tool result holds: a date
    with its year (not its year either: a date may be written another way than the file
    writes it, its year hardly), a phone number (not its digits), or any other figure in
    digits that is not a line's number, nor its value written otherwise ("4.50" is
    "4.5", "10 PM" is "22:00"). For a question whose answer is worked out ("how much
    more", "in total") or that asks how to do something (general knowledge may answer
    it): dates and phone numbers alone."""
    known = "\n".join([turn.prompt, *turn.earlier, *(s.result for s in turn.steps)])
    reply = _FENCED.sub(lambda m: " " * len(m.group(0)), turn.reply)
    # the dates and phone numbers the reply gives, whose figures are checked whole
    spans: list[tuple[int, int]] = []
    for m in _DATED.finditer(reply):
        year = m.group(1) or m.group(2) or m.group(3)
        if m.group(0) not in known and year not in known:
            return m.group(0)
        spans.append(m.span())
    digits = re.sub(r"\D", "", known)
    for m in _PHONE.finditer(reply):
        number = re.sub(r"\D", "", m.group(0))
        if len(number) >= 9:
            if number not in digits:
                return m.group(0)
            spans.append(m.span())
    if _WORKED_OUT.search(turn.prompt) or _HOW_TO.search(turn.prompt):
        return None
    # the figures the files and outputs hold, not the numbers of the lines they showed
    values = figures_in(_SHOWN_AT.sub("", known))
    for m in _NUMBER.finditer(reply):
        before, after = reply[: m.start()], reply[m.end() :]
        if any(start <= m.start() < end for start, end in spans):
            continue
        if _LINE_NUMBER.search(before) or (_LIST_MARK.search(before) and after[:2] in (". ", ") ")):
            continue
        if not _as_said(m.group(0), after) & values:
            return m.group(0)
    return None


def _printed_figures(step: Step) -> bool:
    """Whether *step* ran a command that exited 0 having printed a figure (``date +%A``'s
    "Sunday" gives none to answer from)."""
    if step.name != "run_cmd" or not printed(step.result):
        return False
    return re.search(r"\d", step.result.replace("[exit code 0]", "")) is not None


class MadeUpFigure:
    """A question answered, after a look, with a figure that no tool result, nor the
    prompt, holds (:func:`_made_up`): the model made it up. Asks for the answer again,
    from the history without that reply: from the lines the tools showed that hold
    figures and share words with the question, where there are such (at most three,
    before the ask), else from the output of a program that printed figures, else for
    saying that the files looked at do not give it, bound to that one sentence with no
    digit (:data:`~._grammar.NOT_GIVEN`): asked in words alone, the model wrote the
    made-up figure again after the sentence saying it was made up. The reply, streamed
    as it came, stays in the answer, so a sentence before the new one says the figure
    was made up.

    Measured (bench local-tasks, the minibus, half A): asked "When's the minibus due its
    MOT?", the 1.5B model listed the folder and answered "The minibus is due its MOT on
    2023-04-15."; no file holds a date of the MOT. Asked "What's her number?" of a driver
    the files give no number for, it answered "The number of Brenda Coyle is 1. It is
    found in the file `rota.yaml` on line 43." (half A, the thirty-fifth round's first
    wording of figure-not-given): a figure of no other form, in an answer a date or a
    phone number alone did not catch. In every recorded run of the fresh set, no answer
    of a run that passed gives a figure no result holds."""

    name: ClassVar[str] = "made-up-figure"

    def check(self, turn: Turn) -> Nudge | None:
        if not turn.steps or asks_change(turn.prompt) or asks_to_write(turn.prompt):
            return None
        if _A_PROGRAM.search(turn.prompt):
            return None  # "a little script that prints how many …": a program to write
        figure = _made_up(turn)
        if figure is None:
            return None
        said = f"No tool result above shows {figure}, so the answer made it up."
        retract = f"(Nothing I looked at shows {figure}: I made that up.)"
        lines = _figure_lines(turn)
        if lines:
            ask = (
                " Lines the tools showed that hold figures:\n"
                + "\n".join(lines)
                + "\nAnswer from the line that answers the question, or say that none of "
                "these lines answers it."
            )
        elif any(_printed_figures(s) for s in turn.steps):
            ask = " Answer from the program's output above, or say that it does not give it."
        else:
            # nothing to answer from: the answer says so, bound to that sentence
            return Nudge(
                said + " No line the tools showed gives the figure asked for: say that the "
                "files you looked at do not give it.",
                "",
                instead=True,
                retract=retract,
                not_given=True,
            )
        return Nudge(said + ask, "", instead=True, retract=retract)


def made_up_again(turn: Turn, rules: Iterable[str]) -> str:
    """The sentence saying a figure of *turn*'s reply is made up ("" for none), for the
    answer a nudge asked for, which no rule reads again (one nudge a reply), where
    ``made-up-figure`` is one of *rules*. Measured (bench local-tasks, every recorded
    run of the fresh set): an answer asked again gave a figure no result held in five
    runs, all failed ("The bus did 10 miles." after figure-not-given's ask, half B;
    "The number of Brenda Coyle is 1.", half A), and in no run that passed."""
    if MadeUpFigure.name not in rules:
        return ""
    nudge = MadeUpFigure().check(turn)
    return nudge.retract if nudge is not None else ""


# a question that asks for an amount, a time or a number: "How long do we hold the
# tickets?", "What's her number?", "what's the policy number?"
_ASKS_FIGURE = re.compile(
    r"\bhow (?:long|many|much|often|far|soon)\b|\bwhat time\b"
    r"|\b(?:phone|mobile|telephone|policy) (?:number|no)\b"
    r"|\bwhat(?:['’]s| is) (?:\w+['’]s |his |her |their |the )?number\b",
    re.I,
)
# a program asked for ("I'd like a little script, rows_left.py, that prints how many …")
_A_PROGRAM = re.compile(r"\ban? (?:(?:little|small|short|new|quick) )?(?:script|program)\b", re.I)
# an amount said with no figure: what a file may say itself ("held for a few days")
_VAGUE = re.compile(r"\b(?:a few|several|a couple|some|a lot|a little)\b", re.I)
# a question for a place, which a figure does not answer: "Which function works out how
# many trays …?", "where is …"
_ASKS_WHERE = re.compile(
    r"\b(?:which|what) (?:\w+ )?(?:function|file|method|script|class|module|program)\b"
    r"|\bwhere\b",
    re.I,
)
# a figure in an answer: a digit, or an amount said in words
_FIGURE = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
    r"twenty|thirty|forty|fifty|sixty|hundred|thousand|dozen|half|quarter|once|twice)\b",
    re.I,
)
_FIGURE_LINES = 3
# a line of a read's result, with its number (tools/_readfile.py: "13:4e|text")
_NUMBERED_LINE = re.compile(r"^(\d+):[0-9a-f]{2}\|(.*)$", re.M)


def _words(text: str) -> set[str]:
    """The words of *text* that may say what it is about ("hold", "unpaid", "days" of
    ``hold_unpaid_days = 3``)."""
    return {w.lower() for w in _REQUEST_WORD.findall(text)} - _STOP


def _figure_lines(turn: Turn) -> list[str]:
    """The lines the calls since the prompt showed that hold a figure and share two words
    or more with the question, the most shared first (a read's line as path:N: text)."""
    asked = _words(turn.prompt)
    scored: list[tuple[int, int, str]] = []
    for step in turn.steps:
        if step.shown_lines is not None and step.name == "read_file":
            shown = [
                (f"{step.path}:{n}: {text.strip()}", text)
                for n, text in _NUMBERED_LINE.findall(step.result)
            ]
        elif step.name == "search_text":
            shown = [(m.group(0).strip(), m.group(2)) for m in _HIT.finditer(step.result)]
        else:
            continue
        for line, text in shown:
            words = _words(text)
            shared = sum(any(like_words(a, w) for w in words) for a in asked)
            if shared >= 2 and re.search(r"\d", text):
                scored.append((-shared, len(scored), line))
    lines = list(dict.fromkeys(line for _, _, line in sorted(scored)))
    return lines[:_FIGURE_LINES]


def _none_shown(turn: Turn, asked: str) -> str:
    """What to ask for when no line a read or a search showed holds a figure for the
    question: after a program printed, the figure from its output; else that the files
    do not give it. Asked "for it, or say the files do not", the 1.5B model gave a
    figure of its own: "The number of Brenda Coyle is 1."."""
    if any(s.name == "run_cmd" and printed(s.result) for s in turn.steps):
        return (
            f"The question asks {asked}, and the answer gives no figure. Answer with it "
            "from the program's output above, or say that the output does not give it."
        )
    return (
        f"The question asks {asked}. No line the tools showed gives it: say that the "
        "files do not give it, and what they do say that helps."
    )


class FigureNotGiven:
    """A question for an amount, a time or a number ("How long do we hold the tickets
    before they go back on sale?", "What's her number?") answered, after a look, with no
    figure ("held for a few days"), while a line the look showed holds one and shares
    words with the question: asks for the answer again, in place of the reply, with those
    lines (at most three) before it.
    An answer that says the thing is not there is left alone: a figure of something else
    is no answer to it. Where no line shown holds a figure, an answer with none (nor a
    vague amount, "a few days", which a file may say itself) is asked again all the
    same, for the figure or for saying the files do not give it; not for a question for
    a place ("Which function works out how many trays …?").

    Measured (bench local-tasks, the theatre's batch, half A): the search's result held
    ``theatre.toml:13:hold_unpaid_days = 3  # phone bookings not paid for by then go back
    on sale`` under ``README.md:34: … held for a few days for payment``, and the 1.5B
    model answered from the README's words; asked so, "The tickets are held for 3 days
    before they go back on sale. This is set in theatre.toml line 13." (passed). Asked
    "What's her number?" (the minibus, half A), the search showed only rota.yaml's lines
    naming Brenda, and the model answered "Brenda Coyle"."""

    name: ClassVar[str] = "figure-not-given"

    def check(self, turn: Turn) -> Nudge | None:
        asked = _ASKS_FIGURE.search(turn.prompt)
        if not turn.steps or asked is None:
            return None
        if asks_change(turn.prompt) or asks_to_write(turn.prompt) or _A_PROGRAM.search(turn.prompt):
            return None  # "a script that tells me how many …": no question
        if _FIGURE.search(turn.reply) or _SAYS_NONE.search(turn.reply):
            return None
        lines = _figure_lines(turn)
        if not lines:
            if _ASKS_WHERE.search(turn.prompt) or _VAGUE.search(turn.reply):
                return None  # "A few days.": what a file may say, with no figure to give
            return Nudge(_none_shown(turn, asked.group(0).lower()), "", instead=True)
        return Nudge(
            f"The question asks {asked.group(0).lower()}, and the answer must give the "
            "figure. Lines the tools showed that hold figures:\n"
            + "\n".join(lines)
            + "\nAnswer with the figure that answers the question and where it is set, or "
            "say that none of these lines answers it.",
            "",
            instead=True,
        )
