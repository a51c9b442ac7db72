"""Nudge rules about changes: a rename the user asked for left half done, a name an error
says is wrong left as it is, a change claimed, handed back to the user or described while
no edit was made, and a change not begun after a look found where it goes. Each asks for
the edit (or, with no file seen yet, for the read an edit needs first, or for the search
that shows how a name is spelled); what the rules of :mod:`._nudge` share about a change
(whether one is asked for, the nudge for the edit) is here too."""

from __future__ import annotations

import re
from typing import ClassVar

import attrs

from harness.actors.model.local._nudge_base import (
    FILE_NAME,
    NEGATED,
    Nudge,
    announces,
    edit_arguments,
    edit_block,
)
from harness.actors.model.local._renames import asked_rename
from harness.actors.model.local._turn import EDIT_TOOLS, Step, Turn, asks_new, culprits
from harness.words import NOTHING_TO_CHANGE, asks_for_change

__all__ = [
    "MAKE_THE_CHANGE",
    "NUMBER_WORDS",
    "ChangeNotBegun",
    "ClaimedChange",
    "FinishRename",
    "NameInError",
    "StillUsed",
    "asks_change",
    "change_goes_in",
    "file_to_read",
    "last_write",
    "still_used",
]

# the verbs of a change done: "replaced", "fixed", "bumped" (not "changed nothing")
_DID = (
    r"(replaced|renamed|changed|fixed|updated|edited|modified|corrected|added|removed|wrote|"
    r"rewrote|saved|applied|set|turned|bumped|switched|increased|decreased|raised|lowered|"
    r"enabled|disabled|inserted|appended)\b(?! nothing)"
)
# a claim to have changed something, or the change handed back for the user to make
_CHANGED = re.compile(
    rf"\bI (have |then |just |also )?{_DID}|\bI\b(?:(?!\. )[^\n]){{0,80}}\band (then )?{_DID}"
    rf"|\b(has|have) been {_DID}|\b(was|were) {_DID}"
    r"|\b(changes?|edits?) (were|was|have been|has been) (made|applied)\b"
    # "I made the `add` function in `calc.py` return `a + b`" (its answer after the read)
    r"|\bI (have |just |then |also )?made\b(?:[^.\n]|\.(?=\w)){0,80}?"
    r"\b(return|use|print|take|call)\b"
    r"|\bI (have |just |then |also )?made (\w+ ){0,3}?(changes?|edits?|modifications?|fix)\b"
    r"|\b([Yy]ou|[Ww]e) (should|need to|can|must|have to|will need to|would need to|"
    r"would have to) (replace|change|fix|edit|modify|update|rename|correct|add|remove|"
    r"ensure|make sure)\b"
    r"|\b[Tt]he (correct|corrected|fixed|right) (implementation|code|version|function|line)"
    r"\b[^.\n]{0,40}\b(should be|would be|is)\b"
    r"|\bI would (follow these steps|replace|change|fix|edit|modify|update|rename|correct)\b"
    r"|\b[Hh]ere(?:'s| is) the (corrected|fixed|updated|modified)\b"
)
# what edit_file's result adds when the name an edit renamed is still used elsewhere (its
# wording is in tools/_files.py, _still_used)
_STILL_USED = re.compile(
    r"^note: (\S+) \(this edit renamed it to (\S+)\) is still used:\n((?:  .*(?:\n|$))+)", re.M
)
_USE = re.compile(r"^  (.+?):\d+: (.*)$", re.M)


# a file's path as a search's or listing's result writes it
_PATH = r"(?:[\w.-]+/)*[\w.-]+\.[A-Za-z]\w{0,4}"
# a line of a search's or listing's result that starts with a file's path
_RESULT_PATH = re.compile(rf"^({_PATH})(?::\d+:|/?$)", re.M)


def _shown_file(turn: Turn) -> str | None:
    """The one file the reply names that a search or listing since the prompt showed
    (a path a result says does not exist is no such file), or ``None``: asked to read
    first after its search had shown ``settings.toml:23:warehouses = ...`` and said
    "you would need to edit the `settings.toml` file", the 1.5B model read again the
    ``back_office/settings.json`` it had made up, four times."""
    shown = {m.group(1) for s in turn.steps for m in _RESULT_PATH.finditer(s.result)}
    named = {m.group(1) for m in FILE_NAME.finditer(turn.reply)} & shown
    named = {path for path in named if change_goes_in(path, turn.prompt)}
    return named.pop() if len(named) == 1 else None


def asks_change(turn: Turn) -> bool:
    """Whether the prompt asks for a change and edit_file is offered to make it."""
    return "edit_file" in turn.tools and asks_for_change(turn.prompt, plainly=True)


# a file of prose about the project: it tells of the code and settings a change goes in,
# and holds the most everyday words, so a search by a request's words lists it first (a
# .txt file may be settings: requirements.txt)
_PROSE = re.compile(
    r"(?:^|/)(?:README|CHANGELOG|CHANGES|NOTES)[^/]*$|\.(?:md|rst)$|(?:^|/)docs/", re.I
)
# a request about the prose itself
_ABOUT_PROSE = re.compile(r"\b(?:readme|docs?|documentation|changelog|notes)\b", re.I)


def change_goes_in(path: str, prompt: str) -> bool:
    """Whether the change *prompt* asks for may be made in the file *path*: any file but
    one of prose (``README.md``, ``notes.txt``, ``docs/…``), unless the prompt names it or
    speaks of the docs. Measured (bench local-tasks, four projects): asked to make a
    script list five titles, to bake 24 croissants, to let the oven heat up first, the
    1.5B model was asked to read the ``README.md`` a search by the request's words listed
    first, then for the edit of what it read, and changed the README (4 runs of 4 that
    read it so, none passed)."""
    if not _PROSE.search(path):
        return True
    name = path.rsplit("/", 1)[-1].lower()
    return name in prompt.lower() or _ABOUT_PROSE.search(prompt) is not None


# a search's hit: "settings.toml:31:smtp_host = ..." (its file, as the result names it,
# and the line)
_HIT = re.compile(rf"^({_PATH}):\d+:(.*)$", re.M)


# the value a request says is there now: "not fourteen", "rather than six", "instead of
# 180", "not 5%"
_OLD_VALUE = re.compile(
    r"\b(?:not|rather than|instead of)\s+(?:just |only )?[£$€]?(\d+(?:\.\d+)?|[a-z]+)\b", re.I
)
#: the number words a request may write a value in, "zero" to "twenty", each at its value
NUMBER_WORDS = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen", "twenty"),
)


def _old_values(prompt: str) -> list[str]:
    """The values *prompt* says are there now, as digits ("not fourteen": 14); 0 and 1
    left out, which nearly any line holds."""
    found = []
    for m in _OLD_VALUE.finditer(prompt):
        word = m.group(1).lower()
        if word in NUMBER_WORDS:
            word = str(NUMBER_WORDS.index(word))
        if word[0].isdigit() and word not in ("0", "1"):
            found.append(word)
    return found


def _holding_old_value(turn: Turn) -> str | None:
    """The first file a search since the prompt listed, that a change may go in, on a line
    holding the value the request says is there now (:func:`_old_values`); else ``None``."""
    olds = _old_values(turn.prompt)
    if not olds:
        return None
    holds = re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, olds))})(?!\w)")
    for step in turn.steps:
        for hit in _HIT.finditer(step.result):
            if holds.search(hit.group(2)) and change_goes_in(hit.group(1), turn.prompt):
                return hit.group(1)
    return None


def _where_change_goes(turn: Turn) -> str | None:
    """The file a search since the prompt found the change in: the first listed that a
    change may go in and whose line holds the value the request says is there now ("…
    from twelve now, not fourteen": ``club.toml:15:min_helm_age = 14``, not the
    ``board/main.js`` line listed first for "juniors"), else the first listed that a
    change may go in, or that a listed line of prose names (``README.md:12:- `bash
    tools/popular.sh` lists the most borrowed titles.`` names ``tools/popular.sh``).

    Measured (offline, each change request of the fresh set that names no file, the
    search for its words run on its project): the file picked is one the task changes in
    22 of half A's 35 by the first listed alone, 24 with the value first (half B: 13 of
    27 both ways). With the search counting a word less the more lines hold it, and a
    plural as its singular: 28 of half A's 32 against 24, 15 of half B's 24 against 13
    (``python -m bench search-words``)."""
    if pinned := _holding_old_value(turn):
        return pinned
    for step in turn.steps:
        for hit in _HIT.finditer(step.result):
            path, text = hit.group(1), hit.group(2)
            if change_goes_in(path, turn.prompt):
                return path
            named = [m.group(1) for m in FILE_NAME.finditer(text)]
            if home := next((n for n in named if change_goes_in(n, turn.prompt)), None):
                return home
    return None


# a file's path as a prompt writes it, from the folder or whole from the root (a pasted
# error's "/shop/src/format.js:16")
_ANY_PATH = re.compile(rf"(?<![\w.-])/?{_PATH}\b")


def _prompt_file(turn: Turn) -> str | None:
    """The one file the prompt names (``tools/skipper.sh`` in a pasted "$ bash
    tools/skipper.sh … tools/skipper.sh: line 17: log_okay: command not found"), when
    it asks for nothing new; else ``None``. A path written whole counts as a file named:
    under "I get this when I run node src/index.js: /shop/src/format.js:16 …
    SyntaxError", the file to read is not the command's (measured, half B: bound to
    ``src/index.js``, the model edited it to no effect where it had read the
    ``src/format.js`` the error names)."""
    if asks_new(turn.prompt):
        return None  # "Write rows_left.py …" names a file that is not there yet
    named = set(_ANY_PATH.findall(turn.prompt)) - {"e.g", "i.e"}
    return named.pop() if len(named) == 1 else None


def file_to_read(turn: Turn) -> str | None:
    """The file the read a change needs first is written as, when no file was read yet:
    the one file the reply names that a search or listing showed, else the file a search
    found the change in, else the one file the prompt names; ``None`` leaves the path to
    the model.

    Measured (bench local-tasks, the sailing club's and the theatre's batches): of the 7
    change tasks asked for that read with the path left to the model, 6 read a file that
    is not there, 5 of them one it made up (``pontoon_berths.txt`` after its search had
    listed ``moorings.yaml:8:pontoon: 420.00``, which it then wrote; ``outings.txt`` when
    the pasted error named ``tools/skipper.sh``; ``house_settings.json``, read again until
    the turn limit)."""
    return _shown_file(turn) or _where_change_goes(turn) or _prompt_file(turn)


#: the nudge asking for the edit a task needs, when none was made
MAKE_THE_CHANGE = Nudge(
    "You have not changed any file yet: no edit was made. Make the change now: "
    f"call edit_file. {edit_block(None)}",
    "edit_file",
)


@attrs.frozen
class StillUsed:
    """A name the last edit renamed, and the first file that still uses it, with the
    lines that do (stripped, as the note shows them)."""

    old: str
    new: str
    path: str
    lines: tuple[str, ...]


def still_used(turn: Turn) -> StillUsed | None:
    """What the last edit that changed a file says is still to rename, when the rename is
    one the user asked for (their prompt names the old name); else ``None``. Calls after
    it that changed nothing (a read, an edit that changed nothing or was refused) leave
    its note standing: measured (bench local-tasks, half A), a rename of five lines in two
    files ended on an edit replacing a line with itself, after the note of the edit
    before had named the one import still to rename. Where the prompt asks a rename in so
    many words, only a line that uses the name as that rename reads it counts (not a
    comment that uses a plain word, nor a local named like a method renamed)."""
    last = last_write(turn)
    note = _STILL_USED.search(last.result) if last is not None else None
    if note is None or not re.search(rf"\b{re.escape(note.group(1))}\b", turn.prompt):
        return None
    uses = _USE.findall(note.group(3))
    asked = asked_rename(turn.prompt)
    if asked is not None and asked.old == note.group(1):
        # the rename asked says what a use is: "Rename House.thirsty" is not plan.py's
        # local ``thirsty = house.needs_water()``
        uses = [(where, text) for where, text in uses if asked.uses(text)]
    if not uses:
        return None
    path = uses[0][0]
    lines = tuple(text for where, text in uses if where == path)
    return StillUsed(note.group(1), note.group(2), path, lines)


def last_write(turn: Turn) -> Step | None:
    """The last call that changed a file, past calls after it that changed nothing (a
    read, a search, an edit that changed nothing or was refused), whose result's notes
    still stand; ``None`` when there is none, or a command came after it (it may have
    changed what the notes name)."""
    for step in reversed(turn.steps):
        if step.wrote:
            return step
        if step.name not in (*EDIT_TOOLS, "read_file", "search_text", "list_dir"):
            return None
    return None


class FinishRename:
    """A rename the user asked for, done in one file while the edit's result says other
    files still use the old name, and the reply ends the turn there (saying both files are
    done, or nothing): asks for the edit of the next file that uses it."""

    name: ClassVar[str] = "finish-rename"

    def check(self, turn: Turn) -> Nudge | None:
        left = still_used(turn) if "edit_file" in turn.tools else None
        if left is None:
            return None
        return Nudge(
            f"{left.path} still uses {left.old}, so the rename is not done. Rename it there "
            f"too: call edit_file on {left.path}, replacing {left.old} with {left.new}. "
            + edit_block(left.path),
            "edit_file",
        )


# what the code should be, said in a sentence: "The method should return the SKUs at or
# below the threshold" (a task's whole answer after its read: the change described, none
# made); "nothing needs to be changed", "as it should" and questions say none
_SHOULD = re.compile(
    r"\b(should|must|needs? to|has to|ought to)( now| instead| rather| only)? (return|be|"
    r"read|use|print|equal|contain|compare|filter|include|list|show)\b"
)


def _describes_fix(reply: str) -> bool:
    """Whether a sentence of *reply* says what the code should be (not asking, denying
    or supposing)."""
    return any(
        _SHOULD.search(s)
        and not s.rstrip().endswith("?")
        and not NEGATED.search(s)
        and not re.search(r"\b(already|if)\b", s, re.I)
        for s in re.split(r"(?<=[.!?])\s+|\n+", reply)
    )


class ClaimedChange:
    """A reply, in a task that asks for a change, that claims one ("I replaced nam with
    name", "The bug has been fixed"), hands it back to the user ("You should replace
    …", "Here's the corrected file") or says what the code should be ("It should return
    a + b") when no edit was made since the prompt: asks for the edit, or, with no file
    seen yet, for the read an edit needs first."""

    name: ClassVar[str] = "claimed-change"

    def check(self, turn: Turn) -> Nudge | None:
        if not asks_change(turn) or turn.edited or announces(turn) is not None:
            return None
        if _CHANGED.search(turn.reply) is None and not _describes_fix(turn.reply):
            return None
        if "read_file" in turn.tools and not turn.saw_a_file:
            # an edit now would be of text the model has not seen; the file to read is
            # written as the call when the tools or the prompt say which it is
            shown = file_to_read(turn)
            return Nudge(
                "You have not changed any file yet, and have not read the file to change. "
                'Read it first: call read_file. Write the <tool_call> block ({"name": '
                '"read_file", "arguments": {"path": ...}}) and nothing else.',
                "read_file",
                arguments=None if shown is None else {"path": shown},
            )
        return MAKE_THE_CHANGE


# what edit_file answers an edit whose new text is its old one (tools/_files.py)
_CHANGED_NOTHING = "unchanged (the edits change nothing"
# the name an error says is wrong, with the one Python says was meant ("name 'totl' is
# not defined. Did you mean: 'total'?", "has no attribute 'lowstock'. Did you mean:
# 'low_stock'?")
_MEANT_NAME = re.compile(r"^.*\bDid you mean:? '(\w+)'\?", re.M)
# the search tool's note of the one name spelled like the one searched for, of the
# workspace or a program on PATH (tools/_search_notes.py)
_SPELLED_LIKE = re.compile(
    r"^\(spelled like (\S+): ([\w$]+)(?: at [^;),]+|, a program on PATH)\)$", re.M
)


def _as_word(name: str) -> re.Pattern[str]:
    """*name* as a whole name in a line: ``SALE_LOG`` in ``"${1:-$SALE_LOG}"`` too."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")


def _respelt(name: str, meant: str, path: str, *lines: str) -> Nudge:
    """The edit of *lines* of *path* with *name* written as *meant*, each given whole: one
    edit a line, each line once (``from pricing import round_mony`` and the call of it
    below)."""
    edits: list[dict[str, str]] = [
        {"old_text": line, "new_text": _as_word(name).sub(meant, line)}
        for line in dict.fromkeys(lines)
    ]
    said = "this line" if len(edits) == 1 else "these lines"
    return Nudge(
        f"The error names {name}; the code has {meant}. Write {meant} for {name} in "
        f"{path}: {said} as it is, then as it should read.",
        "edit_file",
        arguments=edit_arguments(path, edits),
    )


def _meant_in_error(turn: Turn) -> tuple[str, str] | None:
    """The name an error the prompt quotes says is wrong and the one it says was meant
    (Python's "Did you mean: 'low_stock'?"), or ``None``."""
    for m in _MEANT_NAME.finditer(turn.prompt):
        named = culprits(m.group(0))
        if named and named[0] != m.group(1):
            return named[0], m.group(1)
    return None


def _spelled_fix(step: Step) -> Nudge | None:
    """After the search for a name the error says is wrong, whose result names one name
    of the workspace spelled like it and lists it on lines of one file: the edit of the
    first of those lines, the name written as the workspace has it."""
    note = _SPELLED_LIKE.search(step.result)
    if note is None or note.group(1) != step.arguments.get("pattern"):
        return None
    name, meant = note.group(1), note.group(2)
    lines = [
        (hit.group(1), hit.group(2))
        for hit in _HIT.finditer(step.result)
        if _as_word(name).search(hit.group(2))
    ]
    if not lines or len({path for path, _ in lines}) > 1:
        return None
    if any(line.endswith(" …") for _, line in lines):
        return None  # a line the result cut short is no old text
    return _respelt(name, meant, lines[0][0], *(line for _, line in lines))


class NameInError:
    """In a task that asks for a change, whose prompt quotes an error naming a name the
    code gets wrong (``SPRNG10`` in "unknown coupon SPRNG10", ``SALE_LOG`` in "SALE_LOG:
    unbound variable", ``log_okay`` in "log_okay: command not found"), a reply with no
    call while nothing is changed yet. After the read of a file holding the name, where
    the error says which name was meant (Python's "Did you mean: 'low_stock'?"): the edit
    of its first line there, the name written as meant, given whole. After another read,
    or an edit that changed nothing, with no search for the name yet: that search. Its
    result lists where the name is written and the names spelled like it (the search
    tool's note: ``SPRING10 at src/cart.js:4``); where it names one, and lists the name
    on lines of one file, the edit writing it so is known before any reply
    (:meth:`ahead`).

    Measured (bench local-tasks, the fresh set's half A): told "Error: unknown coupon
    SPRNG10" and "SALE_LOG: unbound variable", the 1.5B model read the file the error
    came from, wrote an edit whose new text was the line as it was, was told it changed
    nothing and asked for the edit again, and wrote the same edit twice more. Told
    "has no attribute 'lowstock'. Did you mean: 'low_stock'?", it read report.py, and
    shown ``report.py:16:    low = inv.lowstock()`` and ``low_stock`` spelled like it,
    renamed the variable ``low``."""

    name: ClassVar[str] = "name-in-error"

    def check(self, turn: Turn) -> Nudge | None:
        if not asks_change(turn) or turn.edited or "search_text" not in turn.tools:
            return None
        last = turn.last
        if last is None or turn.reply.rstrip().endswith("?"):
            return None
        named = culprits(turn.prompt)
        if last.name == "search_text" and last.arguments.get("pattern") in named:
            return None  # its one fix is known before any reply: see ahead
        read = last.name == "read_file" and last.shown_lines is not None
        if read and last.path and (meant := _meant_in_error(turn)):
            wrong, right = meant
            holding = [line for line in last.shown_lines or () if _as_word(wrong).search(line)]
            if holding:
                return _respelt(wrong, right, last.path, *holding)
        if not read and not (last.name == "edit_file" and _CHANGED_NOTHING in last.result):
            return None
        searched = {s.arguments.get("pattern") for s in turn.steps if s.name == "search_text"}
        name = next((n for n in named if n not in searched), None)
        if name is None:
            return None
        return Nudge(
            f"The error names {name}. Search for {name} to see where it is written and "
            f"which names like it the code has: write the <tool_call> block "
            f'({{"name": "search_text", "arguments": {{"pattern": "{name}"}}}}) and nothing '
            "else.",
            "search_text",
            arguments={"pattern": name},
        )

    def ahead(self, turn: Turn) -> Nudge | None:
        """Before any call, where the error says which name was meant ("Did you mean:
        'FLOW_LITRES_PER_MINUTE'?"), the search for the name it says is wrong. The edit
        known before the model replies: right after the search for a name the
        error says is wrong, whose result names the one name of the workspace spelled like
        it and lists the name on lines of one file, while nothing is changed yet. Written
        with no generation: shown that note, the 1.5B model searched for the name again,
        or read the file again, each time, until the turn limit (the sailing club's
        ``log_okay``, the theatre's ``SALE_LOG``), or wrote an edit of its own that
        required a module that does not exist (the shop's ``SPRNG10``)."""
        last = turn.last
        if not asks_change(turn) or turn.edited:
            return None
        named = culprits(turn.prompt)
        if last is None and named and {"search_text", "edit_file"} <= set(turn.tools):
            # the search for the name the error says is wrong comes first: its result
            # says where the name is written and which name of the workspace is spelled
            # like it (measured: told "name 'FLOW_LITERS_PER_MINUTE' is not defined. Did
            # you mean: 'FLOW_LITRES_PER_MINUTE'?", the 1.5B model said how to define it,
            # read plan.py, and rewrote it whole; told "name 'totl' is not defined" or
            # "OUTDIR: unbound variable", it read the file and wrote long edits of its
            # own, one whose old text was not in the file, one rewriting the script, in
            # 450 and 226 s)
            meant = _meant_in_error(turn)
            wrong = meant[0] if meant else named[0]
            said = f"The error says {meant[1]} was meant. " if meant else "The error names it. "
            return Nudge(f"{said}Search for {wrong}.", "search_text", arguments={"pattern": wrong})
        if last is None or last.name != "search_text":
            return None
        if last.arguments.get("pattern") not in culprits(turn.prompt):
            return None
        return _spelled_fix(last)


# a reply offering a change instead of making it ("If you want, I can change it.")
OFFERS = re.compile(
    r"\b(?:if you (?:want|like|'d like|wish|prefer)|would you like|shall I|let me know)\b", re.I
)


class ChangeNotBegun:
    """In a task that asks for a change, a reply that ends the turn with no write or
    edit made or tried, after a look that found where the change goes: a search whose
    result lists lines of a file (asks for that file's read, written as named), or the
    read of such a file, or of one the prompt names (asks for the edit). A reply that
    asks a question, says no change is needed, offers one, or announces what it will do
    (the announcement's own rule) is left alone.

    Measured (bench local-tasks, the fresh set, half A): told "Green tea costs 5 now in
    the sample order." and "Our mail goes out through smtp.mailhub.example from now on.",
    the 1.5B model searched (asked to by nothing-found), the results listed
    ``src/index.js:9:{ sku: 'tea-01', name: 'Green tea', price: 4.5 },`` and
    ``settings.toml:31:smtp_host = "smtp.shop.example"``, and it described those lines
    and ended."""

    name: ClassVar[str] = "change-not-begun"

    def check(self, turn: Turn) -> Nudge | None:
        if not asks_change(turn) or any(s.name in EDIT_TOOLS for s in turn.steps):
            return None
        if turn.reply.rstrip().endswith("?") or announces(turn) is not None:
            return None
        if _says_no_change(turn) or OFFERS.search(turn.reply):
            return None  # "It is already called name, as it should be.", an offer
        last = turn.last
        if last is None:
            return None
        found = [m.group(1) for s in turn.steps for m in _HIT.finditer(s.result)]
        path = _where_change_goes(turn)
        if last.name == "search_text" and path is not None and "read_file" in turn.tools:
            return _read_there(path)
        if last.name != "read_file" or last.shown_lines is None or last.path is None:
            return None
        named = {m.group(1) for m in FILE_NAME.finditer(turn.prompt)}
        read = last.path.removeprefix("./")
        pinned = _holding_old_value(turn)
        if pinned is not None and read != pinned and read not in named:
            # the line holding the value there now says where; the model read on elsewhere
            # (measured: read club.toml as asked, then sheet.py, and was asked for the edit
            # of the file it had read last)
            return _read_there(pinned)
        if (read in found or read in named) and change_goes_in(read, turn.prompt):
            return MAKE_THE_CHANGE
        return None


def _says_no_change(turn: Turn) -> bool:
    """Whether the reply says no change is needed in words of its own: the request's own
    words said back are no such verdict (measured, bench local-tasks, half A: told "The
    Post Office Stores has closed down, so the van doesn't need to stop there any more.",
    the 1.5B model searched, then wrote the request back word for word, and its "doesn't
    need" was read as the change judged needless)."""
    asked = {m.group(0).lower() for m in NOTHING_TO_CHANGE.finditer(turn.prompt)}
    return any(m.group(0).lower() not in asked for m in NOTHING_TO_CHANGE.finditer(turn.reply))


def _read_there(path: str) -> Nudge:
    """The nudge asking for the read of *path*, where a search found the change goes."""
    return Nudge(
        f"The search found where the change goes, in {path}, and no file is changed yet. "
        f"Read {path} now to make the change there: write the <tool_call> block "
        f'({{"name": "read_file", "arguments": {{"path": "{path}"}}}}) and nothing else.',
        "read_file",
        arguments={"path": path},
    )
