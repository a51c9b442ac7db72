"""What search_text's result says about its lines, beyond the lines themselves: which of
them define the name searched for and which files use it, and, when nothing matched,
where the name in the pattern does occur."""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction

__all__ = ["defined_at", "elsewhere", "program_like", "spelled_like"]

Hit = tuple[str, int, str]

# A line that defines a name, in most languages: ``def``/``class`` and their kin after any
# modifiers (``export async function``, ``pub fn``, ``func (r *T)``), a JavaScript
# declaration, or a name bound to a function (``name = lambda``).
_MODIFIERS = (
    "export|default|async|static|public|private|protected|abstract|final|inline|extern"
    "|unsafe|override|virtual|local"
)
_KEYWORDS = (
    "def|class|function|func|fn|struct|enum|interface|trait|type|module|macro|defn|sub|proc"
    "|object|record|union|namespace|const|let|var"
)
_DEFINES = (
    rf"^\s*(?:(?:{_MODIFIERS}|pub(?:\([\w:]+\))?)\s+)*"
    r"(?:(?:def|class|function\*?|func(?:\s*\([^)]*\))?|fn|struct|enum|interface|trait|type"
    r"|module|macro|defn|sub|proc|object|record|union|namespace|const|let|var)\s+{name}\b"
    r"|{name}\s*=\s*(?:lambda\b|(?:async\s+)?function\b))"
)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
# the words of a name or phrase: snake_case, kebab-case and camelCase cut apart
_WORD = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{3,}(?![a-z])")
# words that say nothing of where a thing is: the workspace's own vague words, and the
# function words of a request ("We open at 8 in the morning now": "now" is on a line of
# code that has nothing to do with opening hours)
_NO_CLUE_WORDS = (
    "the and for with from that this what which where file files value set get use "
    "config conf setting settings "
    "now not but are was were been being have has had does did doing because while about "
    "into through during again then once here there when why how very too just than also "
    "can will would should could our your their its them they you she him her who whom "
    "these those some such want wants need needs please"
)
_NO_CLUE = frozenset(_NO_CLUE_WORDS.split())
MAX_SHOWN = 8
"""Lines of the workspace a search that found nothing shows at most."""
_NOT_NAMES = frozenset(f"{_MODIFIERS}|{_KEYWORDS}|pub|self|this|return|import|from".split("|"))


def _listed(items: list[str]) -> str:
    return " and ".join(items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def defined_at(pattern: str, hits: list[Hit]) -> str:
    """A line naming where a search for a bare name found it defined and which other files
    use it, when it found both: "(parse_date is defined at dates.py:1; used in app.py)",
    to go before the hits. Measured (bench local-tasks, search-def): asked which file
    defines ``parse_date``, the 1.5B model searched for it, got the import in app.py listed
    before the definition in dates.py, and answered app.py. Replayed at that point (8
    samples each): app.py 8 times with no line, 7 with the line after the hits, 0 with it
    before them. Asked which file calls a function, it named the file defining it: the
    users are named too."""
    if not re.fullmatch(r"[A-Za-z_$][\w$]*", pattern):
        return ""
    rx = re.compile(_DEFINES.format(name=re.escape(pattern)))
    places = [f"{rel}:{n}" for rel, n, text in hits if rx.match(text)]
    if not places or len(places) == len(hits):
        return ""
    defining = {p.rsplit(":", 1)[0] for p in places}
    users = sorted({rel for rel, n, text in hits if f"{rel}:{n}" not in places} - defining)
    used = f"; used in {_listed(users)}" if users else ""
    return f"({pattern} is defined at {_listed(places)}{used})\n"


def _names_in(pattern: str) -> list[str]:
    """The words of *pattern* that are no keyword (``formatLine`` of ``def formatLine``;
    ``mail``, ``server`` and ``port`` of ``mail server port``)."""
    return [w for w in _NAME.findall(pattern) if w not in _NOT_NAMES and len(w) >= 3]


def _name_in(pattern: str) -> str | None:
    """The name a pattern that found nothing looks for: its longest word that is not a
    keyword (``formatLine`` in ``def formatLine``, ``with_tax`` in ``with_tax.py``)."""
    words = _names_in(pattern)
    return max(words, key=len) if words else None


def elsewhere(
    pattern: str, glob: str | None, find: Callable[[str], list[Hit]]
) -> tuple[str, str | None]:
    """For a search that found nothing: the lines of the whole workspace that hold the name
    in *pattern* as a word (*find* gives the lines matching a regular expression), with
    where it is defined; else the lines holding the most of the pattern's words (see
    :func:`_by_words`), or that no file holds it; ``""`` for a pattern holding no name.
    Second, the name no file of the workspace holds, when that is what it found (an
    answer that gives it as found is a guess: the run's ending reads it).
    Measured (bench local-tasks, the fresh set's half A): asked which file defines a
    JavaScript function, the 1.5B model searched for ``def NAME`` in ``*.py``, got "no
    matches", and answered a file no result named, three times, until the repeat cap
    stopped it; searches for a file named after the function went the same way."""
    name = _name_in(pattern)
    if name is None:
        return "", None
    if len(_names_in(pattern)) >= 2 and (phrase := _by_words(pattern, find)):
        return " (no line holds the whole phrase)" + phrase, None
    hits = find(rf"\b{re.escape(name)}\b")[:MAX_SHOWN]
    if not hits:
        # said outright: after a bare "no matches" for a setting's name, the 1.5B model
        # answered with a value of its own (bench local-tasks, the fresh set)
        return f" ({name} is in no file of the workspace)" + _by_words(pattern, find), name
    where = f" in files matching {glob}" if glob else ""
    lines = [f"{rel}:{n}:{text.strip()}" for rel, n, text in hits]
    note = f"{where}. {name} itself is on these lines of the workspace:\n"
    return note + defined_at(name, hits) + "\n".join(lines), None


def _by_words(pattern: str, find: Callable[[str], list[Hit]]) -> str:
    """The lines holding the most of the words of *pattern* (``mail``, ``server``, ``port``
    of ``mail_server_port`` or ``mail server port``), each a whole part of a name in any
    case (``smtp_port``, ``maxMemory``; not the port of ``report``), a plural as its
    singular (``thursdays`` finds ``thursday``). A word counts less the more lines hold
    it: one held by a single line counts 1, one held by four lines a quarter, so the
    ``open`` of every ``with open(…)`` does not outweigh the one line that says
    ``thursday = "09:30-17:00"``. First the lines whose words, with those of the lines up
    to three above and below (a section's name over its keys: ``[mail]`` over
    ``smtp_port``), count the most, then by their own words, then by their file's; ``""``
    when *pattern* has fewer than two words or no line holds one.

    Asked to switch "the mail server port", a request naming no file, the 1.5B model
    searched for ``mail_server_port``, a name it made up, got "no matches", and wrote the
    steps for a mail server's own configuration instead (bench local-tasks, the fresh
    set's third batch, half A). Counting each word once whatever it held, a search by
    the words of "Raise the deposit to 60 pounds." listed the two ``raise ValueError``
    lines of ``fleet.py`` before ``station.toml:16:deposit = 50``, and "croissants" found
    none of ``bakery.toml``'s ``croissant`` keys (docs/models-rounds.md, the thirty-second
    round, measures both)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(pattern)))
    words = [w for w in words if w not in _NO_CLUE and w not in _NOT_NAMES][:5]
    if len(words) < 2:
        return ""
    parts = {w: _part(w) for w in words}
    hits = find("|".join(rx.pattern for rx in parts.values()))
    if not hits:
        return ""

    def held(text: str) -> set[str]:
        return {w for w, rx in parts.items() if rx.search(text)}

    own = {(rel, n): held(text) for rel, n, text in hits}
    per_file: dict[str, set[str]] = {}
    for (rel, _n), words_held in own.items():
        per_file.setdefault(rel, set()).update(words_held)
    holding = Counter(w for words_held in own.values() for w in words_held)

    def worth(words_held: Iterable[str]) -> Fraction:
        # exact: a sum of floats in a set's order would break ties differently per run
        return sum((Fraction(1, holding[w]) for w in words_held), Fraction(0))

    def near(rel: str, n: int) -> Fraction:
        # the words of the lines a few above and below too: [mail] names smtp_port's mail
        return worth(set().union(*(own.get((rel, m), ()) for m in range(n - 3, n + 4))))

    best = sorted(
        hits,
        key=lambda h: (-near(h[0], h[1]), -worth(own[h[0], h[1]]), -worth(per_file[h[0]]), h[:2]),
    )
    lines = [f"{rel}:{n}:{text.strip()}" for rel, n, text in best[:MAX_SHOWN]]
    return f". Lines holding its words ({', '.join(words)}), the most first:\n" + "\n".join(lines)


def _singular(word: str) -> str:
    """*word* (lower case) without a plural's ending: ``thursdays`` is ``thursday``,
    ``batteries`` ``battery``; words of three letters or fewer stay as they are. A word
    that only ends in an s (``status``) loses it too: :func:`_part` puts it back."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _part(word: str) -> re.Pattern[str]:
    """*word* (lower case) as a whole part of a name, in the singular or the plural
    (:func:`_singular`; ``battery`` or ``batteries``, and ``cookie`` for ``cookies``):
    between non-letters (``smtp_port``, ``ports``, ``MAIL_PORT``; not ``BACKUP`` for
    back), or capitalized after a lower-case letter (``maxMemory``)."""
    one = _singular(word)
    stem, end, upper = (
        (one[:-1], "(?:ys?|ies?)", "(?:YS?|IES?)") if one.endswith("y") else (one, "s?", "S?")
    )
    cap = stem[0].upper() + re.escape(stem[1:])
    w = re.escape(stem)
    return re.compile(
        rf"(?<![A-Za-z])(?:{w}|{cap}){end}(?![a-z])|(?<=[a-z]){cap}{end}(?![a-z])"
        rf"|(?<![A-Za-z]){w.upper()}{upper}(?![A-Za-z])"
    )


# How far a name may be from the one searched for and still be named as spelled like it:
# a letter left out, added, changed or two swapped; two such for a name of eight or more
_NEAR_SHORT = 1
_NEAR_LONG = 2
_LONG = 8
MAX_SPELLED = 3
"""Names spelled like the one searched for that a result names at most."""
# a name as a misspelling is looked for: no ``$``, so the shell's ``$SALE_LOG`` is SALE_LOG
_WORD_NAME = re.compile(r"[A-Za-z_]\w*")


def _distance(a: str, b: str, most: int) -> int:
    """The edits (a letter left out, added, changed, or two next to each other swapped)
    that make *a* into *b*, or ``most + 1`` once it is known to be more than *most*."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > most:
            return most + 1
        before, row = row, current
    return row[-1]


def _misspelling(pattern: str, name: str, most: int) -> bool:
    """Whether *name* may be *pattern* misspelt: at most *most* edits apart, and neither
    the same name in other case (``Error``, ``error``) nor its plural."""
    a, b = pattern.lower(), name.lower()
    if a == b or b in (a + "s", a + "es") or a in (b + "s", b + "es"):
        return False
    return _distance(pattern, name, most) <= most


def spelled_like(pattern: str, find: Callable[[str], list[Hit]]) -> str:
    """For a search of a bare name of four letters or more that no line of the workspace
    defines and at most one file holds (what a misspelt name in an error looks like:
    ``SPRNG10`` in "unknown coupon SPRNG10", ``SALE_LOG`` in "SALE_LOG: unbound
    variable"), the names of the workspace spelled like it (:func:`_misspelling`), each
    with the first line it is on: "(spelled like SPRNG10: SPRING10 at src/cart.js:4)",
    to go after the hits; ``""`` when there are none. Names are looked for among those
    starting with the same three letters, in any case.

    Measured (bench local-tasks, the fresh set's half A): told "Error: unknown coupon
    SPRNG10" and "SALE_LOG: unbound variable", the 1.5B model read the file the error
    came from and wrote edits that changed nothing, the line as it was, twice each."""
    if len(pattern) < 4 or not re.fullmatch(r"[A-Za-z_$][\w$]*", pattern):
        return ""
    defines = re.compile(_DEFINES.format(name=re.escape(pattern)))
    most = _NEAR_LONG if len(pattern) >= _LONG else _NEAR_SHORT
    start = pattern[:3].lower()
    holding: set[str] = set()
    first: dict[str, str] = {}
    # only names of a length a misspelling can have: a common start ("get") matches less
    shortest, longest = max(0, len(pattern) - 3 - most), len(pattern) - 3 + most
    for rel, n, text in find(rf"(?i)\b{re.escape(pattern[:3])}\w{{{shortest},{longest}}}\b"):
        names = _WORD_NAME.findall(text)
        if pattern in names:
            if defines.match(text):
                return ""  # a name the code defines is no misspelling
            holding.add(rel)
        for name in names:
            if name in first or not name.lower().startswith(start):
                continue
            if _misspelling(pattern, name, most):
                first[name] = f"{rel}:{n}"
    if not first or len(holding) > 1:
        return ""
    ranked = sorted(first, key=lambda name: _distance(pattern, name, most))[:MAX_SPELLED]
    said = "; ".join(f"{name} at {first[name]}" for name in ranked)
    return f"\n(spelled like {pattern}: {said})"


# where a line runs a program: its start, or after a pipe, ``;``, ``&&``, ``||``, ``$(``, a
# backtick, or a shell word that runs the next (``then``, ``do``, ``sudo``, ``xargs``)
_RUNS = r"(?:^|[|;&(`]|\b(?:then|do|else|sudo|exec|xargs|time)\b)\s*{name}(?=\s|$)"


def program_like(pattern: str, hits: list[Hit]) -> str:
    """For a search of a name that the lines it found run as a program (``akw -F, '...``)
    and that is no program on ``PATH``, the programs on it a letter apart (one
    left out, added, changed, or two swapped, never the first), to go after the hits:
    "(spelled like akw: awk, a program on PATH)"; ``""`` when there are none, or the
    name is one. Measured (bench local-tasks, the fresh set's half A): told "akw: command
    not found", the 1.5B model said to install ``akw`` with apt-get, searched for it, and
    wrote edits that changed nothing until the turn limit."""
    if not re.fullmatch(r"[a-z][\w.+-]{2,}", pattern) or not hits:
        return ""
    runs = re.compile(_RUNS.format(name=re.escape(pattern)))
    if not all(runs.search(text.strip()) for _, _, text in hits):
        return ""
    where = os.environ.get("PATH", "")
    if shutil.which(pattern, path=where):
        return ""
    near = sorted(
        {
            name
            for folder in where.split(os.pathsep)
            for name in _listing(folder)
            if name[0] == pattern[0]
            and abs(len(name) - len(pattern)) <= 1
            and _distance(pattern, name, 1) <= 1
            and shutil.which(name, path=folder)
        }
    )
    if not near:
        return ""
    some = "a program" if len(near) == 1 else "programs"
    return f"\n(spelled like {pattern}: {', '.join(near[:MAX_SPELLED])}, {some} on PATH)"


def _listing(folder: str) -> list[str]:
    """The names in *folder*; none where it is not a folder that can be read (a ``PATH``
    may name such)."""
    try:
        return os.listdir(folder) if folder else []
    except OSError:
        return []
