"""Which line of a search's hits a change goes on: the words a line and a request share
(:func:`stems`), and the one line that shares the most (:func:`choose_line`), which the
rules that change one line a search of their own finds (``value-wanted``,
``switch-wanted``, ``entry-gone``) share."""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.actors.model.local._nudge_base import FILE_NAME, Chosen, Hit
from harness.actors.model.local._nudge_changes import change_goes_in
from harness.actors.model.local._settings import STRUCTURED, TABLES, key_path, table_of

__all__ = ["MORE_PLACES", "RECORDS", "UNIT_STEMS", "any_stem", "choose_line", "stems"]

#: the stems of the units of time: a span said in one is no word a line shares
UNIT_STEMS = frozenset(("secon", "sec", "minut", "hour", "hrs", "day", "week"))
#: files a change does not go in unless the request names them: records of what
#: happened, and tests
RECORDS = re.compile(r"\.(?:csv|tsv|log|jsonl)$|(?:^|/)(?:tests?/|test_[^/]*$|[^/]*[._]test\.)")
#: a request that says the value is held in more than one place, each to change: "it needs
#: changing there as well", "change it there too", "in both", "wherever it's set", "keep
#: the two in step", "in the prices and on the counter screen"; not "too many" (read by
#: ``value-wanted`` and ``new-value``)
MORE_PLACES = re.compile(
    r"\b(?:too(?=\s*(?:[.,;:!?)]|$))|as well|both|also|everywhere|wherever|each of"
    r"|in (?:step|sync)|(?:keep|make) (?:them|both|the two) (?:the same|match|agree))\b"
    r"|\b(?:in|on)\s+(?:the\s+)?\w+(?:\s+\w+)?\s+and\s+(?:in|on)\b",
    re.I | re.M,
)
# words too common to say what a line is about
_COMMON = frozenset(
    "about after again also always before being could every from have instead into just keep "  # noqa: SIM905
    "does enough goes less like made make many more most much must need only other over plenty "
    "rather should some still than that their them then there these they this tomorrow today "
    "want were what when where which while will with would your".split()
)
# words of three letters too common to say what a line is about; the others ("tax",
# "max", "fee", "age", "api", "log") name a setting as well as a longer word does
_SHORT_COMMON = frozenset(
    "add all and any are ask bit but can did don end far few fix for get got had has her "  # noqa: SIM905
    "hey him his how isn its let may new not now old one our out own per pls put ran run "
    "say see set she six ten the too try two use was way who why won yet you".split()
)

# a file whose name starts with a dot, as a prompt writes it: ".nvmrc", ".editorconfig"
_DOTFILE = re.compile(r"(?<![\w./-])(\.[A-Za-z][\w.-]*)")


def stems(text: str) -> set[str]:
    """The words of *text* a line and a request can share, each without a plural's
    ``s`` (or a final ``y``'s ``ies``, and the ``y`` itself), then of an ``ing`` after
    four letters, and cut to its first five letters ("croissants" and ``croissant``,
    "opening" and ``opens``, "retry" and ``retries``, "warning" and ``warn_every``;
    ``min_helm_age`` gives min, helm and age). A word of three letters counts unless
    it is too common to name anything ("Tax is going up" and ``TAX_RATE``; not "the",
    "now", "fix")."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", text)
    stems = set()
    for word in (w.lower() for w in words if len(w) >= 3):
        if word in _COMMON or word in _SHORT_COMMON:
            continue
        if len(word) == 3:
            stems.add(word)
            continue
        if word.endswith("ies") and len(word) > 5:
            word = word[:-3]
        elif (word.endswith("y") and len(word) > 4) or (word[-1] == "s" and word[-2] != "s"):
            word = word[:-1]
        if word.endswith("ing") and len(word) > 6:
            word = word[:-3]
        stems.add(word[:5])
    return stems


def any_stem(words: set[str] | frozenset[str]) -> str:
    """*words* (stems) as alternatives of a search (a regular expression ripgrep reads
    too): a stem of four letters or more anywhere a word holds it; a shorter one only
    where a word or a name's part starts ("tax" of ``TAX_RATE`` and ``sales_tax``, not
    of ``syntax``; "age" of ``min_age``, not of ``page``)."""
    return "|".join(w if len(w) > 3 else rf"(?:\b|_){w}" for w in sorted(words))


def choose_line(
    hits: list[Hit],
    reads: dict[str, dict[int, str]],
    prompt: str,
    make: Callable[[str], str | None],
    say: str,
    also: frozenset[str] = frozenset(),
    unsaid: frozenset[str] = frozenset(),
    each: bool = False,
) -> Chosen | str | None:
    """Of *hits*, the one line to change: of the lines *make* can change, the one that
    shares the most words with *prompt*, when one does so alone. Where the prompt names
    files, only in them ("Pin the project to Node 20 with an .nvmrc file" is not
    package.json's ``"node": ">=18.17"``); prose, records and tests only where the prompt
    names their file; *also*: words the request means and does not write, which tell
    apart only lines sharing as many of its own; *unsaid*: words of the request that
    say no line ("a loaf" of "£4.50 a loaf"). A line of a
    TOML or INI file shares the words of its table's header too, where the search
    listed the headers (:data:`LISTS_TABLES`: ``[pump]`` for ``max_run_minutes = 25``).
    Where the best lines tie in one JSON, YAML or TOML file, or in several files of
    which such a file holds lines under keys (indented), the keys each sits under count
    too ("the email service's retries": the ``"retries"`` under ``"email": {``; "the
    stock service retries" of ``"retries": 3`` under ``"stock": {`` in config.json over
    ``low_stock_threshold = 4`` in settings.toml): each such file's path is returned in
    turn, to read first, and once they are read (*reads*) the tie is broken or stays.
    With *each* (the request says the value is in more than one place: "Update both
    fleet.py and station.toml"), best lines that tie one a file, each file one the
    request names, are all to change: the first is returned, the others left to the
    rule's next steps."""
    named = {m.group(1) for m in FILE_NAME.finditer(prompt)} | set(_DOTFILE.findall(prompt))
    words = stems(FILE_NAME.sub(" ", prompt)) - UNIT_STEMS - unsaid
    headers: dict[str, list[tuple[int, str]]] = {}
    for hit in hits:
        if TABLES.search(hit.path) and hit.text.startswith("["):
            headers.setdefault(hit.path, []).append((hit.number, hit.text))
    scored = []
    for hit in hits:
        if make(hit.text) is None or not change_goes_in(hit.path, prompt):
            continue
        if hit.path in named if named else not RECORDS.search(hit.path):
            said = f"{hit.text} {table_of(headers.get(hit.path, []), hit.number)}"
            shared = stems(said)
            scored.append(((len(words & shared), len(also & shared)), hit))
    best = max((score for score, _ in scored), default=(0, 0))
    top = [hit for score, hit in scored if score == best]
    if best == (0, 0):
        return None
    paths = list(dict.fromkeys(hit.path for hit in top))
    one_a_file = len(top) == len(paths)
    if each and one_a_file and len(paths) > 1 and named.issuperset(paths):
        return Chosen(top[0], make, say.format(path=top[0].path))
    if len(top) > 1:
        # where the lines tie in two files or more, only a file where one sits under keys
        # (indented) may tell them apart
        structured = [
            p
            for p in paths
            if STRUCTURED.search(p)
            and (len(paths) == 1 or any(h.path == p and h.text[:1].isspace() for h in top))
        ]
        if not structured:
            return None
        unread = [p for p in structured if p not in reads]
        if unread:  # the file holding the most of the lines that tie, first
            return max(unread, key=lambda p: sum(hit.path == p for hit in top))
        under = [
            (len(words & stems(" ".join([h.text, *key_path(reads.get(h.path, {}), h.number)]))), h)
            for h in top
        ]
        most = max(score for score, _ in under)
        top = [hit for score, hit in under if score == most]
        if len(top) > 1:
            # still a tie: a key the request says whole, however short ("the api service":
            # ``api:``, which no stem of four letters or more holds)
            whole = {w.lower() for w in _KEY_WORD.findall(prompt)}
            keyed = [
                (len(whole & _key_names(key_path(reads.get(h.path, {}), h.number))), h) for h in top
            ]
            most = max(score for score, _ in keyed)
            top = [hit for score, hit in keyed if score == most]
        if len(top) > 1 or most == 0:
            return None
    return Chosen(top[0], make, say.format(path=top[0].path))


# a word as a key may write it: "api", "redis-cache", "log_level"
_KEY_WORD = re.compile(r"[A-Za-z][\w-]*")
# the key a line opens: ``  api:``, ``"email": {``, ``- name: hold-ready``, ``[mail]``
_OPENS_KEY = re.compile(r"""^\s*(?:-\s+)?\[?["']?([A-Za-z][\w-]*)["']?\s*[:=\].]""")


def _key_names(opened: list[str]) -> set[str]:
    """The names of the keys *opened* (:func:`key_path`'s lines) open, lower case."""
    return {m.group(1).lower() for line in opened if (m := _OPENS_KEY.match(line))}
