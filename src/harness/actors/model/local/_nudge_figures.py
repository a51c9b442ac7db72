"""Nudge rules that check the figures an answer gives against what the tools found: a
question for an amount, a time or a number answered with none (``figure-not-given``),
and a date or a phone number no result holds (``made-up-figure``). Each asks for the
answer again, from the history without the reply it replaces."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._nudge_answers import _HIT, _REQUEST_WORD, _SAYS_NONE, _STOP
from harness.actors.model.local._nudge_base import Nudge, printed
from harness.actors.model.local._turn import Turn, asks_change
from harness.words import asks_to_write, like_words

__all__ = ["FigureNotGiven", "MadeUpFigure"]

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# a date with its year ("2023-04-15", "15 April 2023", "April 15th, 2023"; the year in
# its group), and a phone number (nine digits or more, in groups)
_DATED = re.compile(
    r"\b((?:19|20)\d\d)-[01]\d-[0-3]\d\b"
    rf"|\b[0-3]?\d(?:st|nd|rd|th)? (?:{_MONTHS}),? ((?:19|20)\d\d)\b"
    rf"|\b(?:{_MONTHS}) [0-3]?\d(?:st|nd|rd|th)?,? ((?:19|20)\d\d)\b"
)
_PHONE = re.compile(r"(?<![\w.])(?:\+\d{1,3}[ -]?)?\d{2,5}[ -]?\d{3,4}[ -]?\d{3,4}(?!\w|\.\d)")


def _made_up(turn: Turn) -> str | None:
    """The first date or phone number *turn*'s reply gives that neither the prompt, the
    conversation before it nor any tool result holds: for a date, not its year either
    (a date may be written another way than the file writes it, its year hardly); for a
    phone number, not its digits."""
    known = "\n".join([turn.prompt, *turn.earlier, *(s.result for s in turn.steps)])
    for m in _DATED.finditer(turn.reply):
        year = m.group(1) or m.group(2) or m.group(3)
        if m.group(0) not in known and year not in known:
            return m.group(0)
    digits = re.sub(r"\D", "", known)
    for m in _PHONE.finditer(turn.reply):
        number = re.sub(r"\D", "", m.group(0))
        if len(number) >= 9 and number not in digits:
            return m.group(0)
    return None


class MadeUpFigure:
    """A question answered, after a look, with a date or a phone number that no tool
    result, nor the prompt, holds: the model made it up. Asks for the answer again, from
    the history without that reply, from what the results show, or for saying they do
    not show it; the reply, streamed as it came, stays in the answer, so a sentence
    before the new one says the figure was made up.

    Measured (bench local-tasks, the minibus, half A): asked "When's the minibus due its
    MOT?", the 1.5B model listed the folder and answered "The minibus is due its MOT on
    2023-04-15."; no file holds a date of the MOT. Of every recorded question run of the
    fresh set, that is the only answer with a date or a phone number no result showed."""

    name: ClassVar[str] = "made-up-figure"

    def check(self, turn: Turn) -> Nudge | None:
        if not turn.steps or asks_change(turn.prompt):
            return None
        figure = _made_up(turn)
        if figure is None:
            return None
        return Nudge(
            f"No tool result above shows {figure}, so the answer made it up. Answer only "
            "from what the tool results show; if they do not show it, say that the files "
            "do not say.",
            "",
            instead=True,
            retract=f"(No file I looked at shows {figure}: I made that up.)",
        )


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
