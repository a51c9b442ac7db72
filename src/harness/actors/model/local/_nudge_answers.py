"""Nudge rules that check an answer against what the tools found: a file named that no
result named (or, asked which function, a function no result showed), something the
results show is not there spoken of as present, the file defining a name given for the
one calling it, a question about the project answered with nothing looked at. Each asks
for the search or read, or for the answer from the fact, in place of the guess."""

from __future__ import annotations

import keyword
import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import (
    FILE_NAME,
    INTENT,
    NOT_FILES,
    QUESTION,
    Nudge,
    announces,
    block,
)
from harness.actors.model.local._turn import (
    Step,
    Turn,
    about_workspace,
    absent,
    asks_change,
    asks_new,
    code_names,
)
from harness.words import asks_to_write

__all__ = [
    "FileNotGiven",
    "GuessedFile",
    "NamedDefiner",
    "NothingFound",
    "SaidAbsentIsThere",
    "UnlookedAnswer",
]

# a question that asks where something is: "Which file defines parse_date?"
_ASKS_WHERE = re.compile(
    r"\b(which|what) (\w+ )?(file|module|folder|directory|script|class|component|function|"
    r"method|helper)\b"
    r"|\b(which|what) (part|piece|section)s? of (the |our |this )?(code|program|project)\b"
    r"|\bwhere\b[^.?!\n]*\b(defined|declared|set|called|used|imported|invoked|read)\b"
    r"|\b(what|who)\s+(else\s+)?(calls|uses|imports|invokes|reads)\b",
    re.I,
)
# a question that asks what calls or uses a name, not what defines it: "Which file calls
# with_tax?", "Where is cartTotal called from?"; the name is the word after the verb, or
# the one before "called"/"used", or for "it", the last name of code said before it
_ASKS_CALLER = re.compile(
    r"\b(?:calls?|uses?|imports?|invokes?|reads|rel(?:y|ies) on)\s+"
    r"(?:the\s+(?:function|method|class|setting)\s+)?`?([A-Za-z_$][\w$]*)"
    r"|\b([A-Za-z_$][\w$]*)`?\s+(?:(?:is\s+|gets\s+)?(?:called|used|imported|invoked)|"
    r"(?:is|gets)\s+read)\b"
    # "Where is toe_height read?" ("can't read" is no name read: "read" needs "is" before)
    r"|\bwhere\s+is\s+`?([A-Za-z_$][\w$]*)`?\s+read\b",
    re.I,
)
_NOT_CALLED = frozenset({"is", "it", "function", "method", "class", "the", "file", "where"})
# a tool's word that a path the call named is not there
_ABSENT = re.compile(r"\S+ does not exist\b")


class GuessedFile:
    """An answer to "which file defines X?" that names a file neither the user nor any
    tool result named (a path a result says does not exist is not named by it): the
    answer is a guess, so it asks for a search. So is an answer to "which function …?"
    naming a function no result showed: it asks for the read of the one file the answer
    names that a result showed and no read has, else for a search. Measured (bench
    local-tasks, the theatre, half A): asked which function stops a seat being sold
    twice, the 1.5B model searched, saw ``bookings.py:40:return seat not in self.sold``,
    and answered "the `sell` method" of ``bookings.py``, which has none."""

    name: ClassVar[str] = "guessed-file"

    def check(self, turn: Turn) -> Nudge | None:
        finder = next((t for t in ("search_text", "find_files") if t in turn.tools), None)
        if finder is None or _ASKS_WHERE.search(turn.prompt) is None:
            return None
        if announces(turn) is not None:
            return None
        known = [turn.prompt, *turn.earlier, *(s.result for s in turn.steps)]
        said = _ABSENT.sub("", "\n".join(known))
        files = [m.group(1) for m in FILE_NAME.finditer(turn.reply)]
        files = [f for f in files if f.lower() not in NOT_FILES]
        for name in files:
            if name not in said and name.rsplit("/", 1)[-1] not in said:
                return Nudge(
                    f"No tool result above names {name}, so that answer is a guess. Find the "
                    f"file first: call {finder}. Write " + block(finder),
                    finder,
                )
        if not turn.steps or _ASKS_FUNCTION.search(turn.prompt) is None:
            return None  # with nothing looked at, unlooked-answer's to ask
        names = [n for n in code_names(turn.reply) if n not in _LITERALS]
        guessed = next((n for n in names if not _holds(said, n)), None)
        if guessed is None:
            return None
        read = {s.path for s in turn.steps if s.name == "read_file"}
        unread = sorted({f for f in files if f not in read})
        if len(unread) == 1 and "read_file" in turn.tools:
            return Nudge(
                f"No tool result above shows {guessed}, so that answer is a guess. Read "
                f"{unread[0]} first: call read_file. Write " + block("read_file"),
                "read_file",
                arguments={"path": unread[0]},
            )
        return Nudge(
            f"No tool result above shows {guessed}, so that answer is a guess. Find it "
            f"first: call {finder}. Write " + block(finder),
            finder,
        )


# a question that asks for a function by what it does: "Which function rounds an amount
# to whole cents?", "Which helper in scripts/lib.sh calls die?"
_ASKS_FUNCTION = re.compile(r"\b(?:which|what) (?:\w+ )?(?:function|method|helper)\b", re.I)


# words of the language an answer may put in backticks that name nothing of the project
# ("it returns `True`")
_LITERALS = frozenset(
    {*keyword.kwlist, "true", "false", "null", "undefined", "NaN", "self", "this", "void"}
)


def _holds(text: str, name: str) -> bool:
    """Whether *text* holds *name* as a word ("sold" in "self.sold"; not "sell" in
    "selling")."""
    return re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text) is not None


# a sentence saying a thing is not there ("pricing.py does not contain compute_shipping",
# "There is no compute_shipping in pricing.py", "I couldn't find it"); a negation of what
# it does is none ("compute_shipping does not return anything", "… returns None" speak of
# it as there)
_SAYS_ABSENT = re.compile(
    r"(?:\b(?:no|not|never)|n't)\b[^.?!\n]{0,40}?\b(?:exists?|found|find|defined|define|"
    r"declared|there|present|contains?|containing|includes?|ha(?:ve|s)|mentions?|mentioned|"
    r"listed|set|specified|configured|available|in|anywhere|such)\b"
    r"|\b(?:missing|absent|nowhere|none of|nothing (?:called|named))\b"
    r"|\b(?:has|have|had|holds?|contains?|with|is|are) no\b",
    re.I,
)


class SaidAbsentIsThere:
    """An answer to a question about something the tools' results show is not there (a
    file a tool said does not exist; a name the question places in a file that was read
    and does not hold it) that speaks of it with no word saying it is not there: the
    model described what it never saw. Asks for the answer again, from the fact, bound
    to nothing (it may search elsewhere), in place of the reply: shown its wrong reply
    and asked again, the 1.5B model wrote the same reply word for word."""

    name: ClassVar[str] = "said-absent-is-there"

    def check(self, turn: Turn) -> Nudge | None:
        if not turn.reply.strip():
            return None
        reads = [s.path for s in turn.steps if s.name == "read_file" and s.path]
        for gone in absent(turn.prompt, [s.result for s in turn.steps], reads):
            if not gone.where and "does not exist" not in gone.sentence:
                continue  # the question did not say where it is: it may be elsewhere
            sentences = re.split(r"(?<=[.!?])\s+|\n+", turn.reply)
            about = [x for x in sentences if gone.name.lower() in x.lower()]
            if not about or any(_SAYS_ABSENT.search(x) for x in about):
                continue
            return Nudge(
                f"{gone.sentence} Answer with that fact, starting with these words: "
                f'"{gone.sentence}" and invent nothing about it.',
                "",
                instead=True,
            )
        return None


# a result line of search_text ("pricing.py:22:def with_tax(...)")
_HIT = re.compile(r"^([^\s:]+):\d+:(.*)$", re.M)
# a line that defines *name*: def/class/function and kin, a shell function, a bound function
_DEFINES = (
    r"^\s*(?:(?:export|default|async|static|public|private)\s+)*"
    r"(?:(?:def|class|function|func|fn|sub)\s+{name}\b|{name}\s*\(\)\s*\{{"
    r"|(?:const|let|var)?\s*{name}\s*=\s*(?:async\s+)?(?:function\b|\())"
)


def _asked_caller(prompt: str) -> str | None:
    """The name a question asks the callers of, or ``None``."""
    for m in _ASKS_CALLER.finditer(prompt):
        name = m.group(1) or m.group(2) or m.group(3)
        if name.lower() in ("it", "them"):
            # "I'm changing what order_total gives back. What calls it?": the name before
            named = code_names(prompt[: m.start()])
            if named:
                return named[-1]
        elif name.lower() not in _NOT_CALLED:
            return name
    return None


def _homes(prompt: str, name: str) -> set[str]:
    """The files *prompt* names as where *name* itself is, just after it: ``club.toml`` of
    "There's a toe_height setting in club.toml", ``pricing.py`` of "imports CURRENCY from
    pricing.py" (not ``scripts/lib.sh`` of "Which helper in scripts/lib.sh calls die?",
    the place the answer is in)."""
    found = re.finditer(
        rf"(?<![\w$]){re.escape(name)}`?(?:\s+\w+)?\s+(?:in|from)\s+`?"
        rf"((?:[\w.-]+/)*[\w-]+\.[A-Za-z]\w{{0,4}})\b",
        prompt,
    )
    return {m.group(1) for m in found}


class NamedDefiner:
    """An answer to "which file calls X?" (or uses, imports, reads it) that names only the
    file a search result shows defining X, or the one the question says X is in ("There's
    a toe_height setting in club.toml. Which part of the code actually reads it?"): the
    definer answered for the caller. Asks for a search of X alone, whose result names the
    files that use it, or, when a result already says which files use it, for the answer
    from that, in place of the reply.

    Measured (bench local-tasks, the sailing club, half A): asked which part of the code
    reads ``toe_height`` from ``club.toml``, the 1.5B model read ``club.toml`` and answered
    that it is read "in the ``[hard]`` section" of it."""

    name: ClassVar[str] = "named-definer"

    def check(self, turn: Turn) -> Nudge | None:
        name = _asked_caller(turn.prompt) if _ASKS_WHERE.search(turn.prompt) else None
        if name is None or "search_text" not in turn.tools or announces(turn) is not None:
            return None
        results = "\n".join(s.result for s in turn.steps)
        rx = re.compile(_DEFINES.format(name=re.escape(name)))
        definers = {path for path, text in _HIT.findall(results) if rx.match(text)}
        noted = re.search(
            rf"\({re.escape(name)} is defined at ([^;)]+)(?:; used in ([^)]+))?\)", results
        )
        if noted is not None:
            definers |= {p.split(":")[0] for p in noted.group(1).split(" and ")}
        homes = _homes(turn.prompt, name) - definers
        definers |= homes
        named = {m.group(1) for m in FILE_NAME.finditer(turn.reply)}
        named |= {n.rsplit("/", 1)[-1] for n in named}
        if (
            not definers
            or not named
            or not named <= definers | {d.rsplit("/", 1)[-1] for d in definers}
        ):
            return None
        definer = sorted(definers - homes or homes)[0]
        if noted is not None and noted.group(2):
            users = noted.group(2)
            return Nudge(
                f"{definer} defines {name}; the question asks which file calls it. The search "
                f"result above says it is used in {users}. Answer starting with these words: "
                f'"{name} is called in"',
                "",
                instead=True,
            )
        said = (
            f"{definer} holds {name} itself; the question asks what uses it."
            if definer in homes
            else f"{definer} is where {name} is defined, not where it is called."
        )
        return Nudge(
            f"{said} Search for {name} alone to find the files that use it: call "
            f'search_text with the pattern "{name}". Write ' + block("search_text"),
            "search_text",
            # written whole: asked for the pattern alone, the model searched *.toml only,
            # where the setting is, not the code that reads it
            arguments={"pattern": name},
        )


# a folder's path in a request ("scripts/")
_FOLDER = re.compile(r"(?<![\w.])[\w.-]+/")
# a word of a request (three letters or more), and the words that say nothing of where
# its subject is written
_REQUEST_WORD = re.compile(r"[A-Za-z][a-z]{2,}")
_STOP_WORDS = (
    "the and for with from that this what which where there how much many may can could "
    "does did should would will was were are has have had its our your you they them their "
    "into onto than then when please tell show give need want use used add set get make "
    "turn switch change fix run instead off not all any each every some one two new old "
    "just also only through about other file files value setting settings config"
)
_STOP = frozenset(_STOP_WORDS.split())
# a reply that says the thing was not found ("I could not find ...", "there is no ...")
_SAYS_NONE = re.compile(
    r"\b(?:could not|couldn't|cannot|can't|did not|didn't|unable to)\s+(?:find|locate|see)\b"
    r"|\b(?:not found|no such|does not exist|doesn't exist|there is no|there are no|"
    r"there's no|is not (?:set|defined|mentioned|there)|nowhere)\b",
    re.I,
)
# a question asking how to do something, which general knowledge may answer
_HOW_TO = re.compile(r"\bhow (?:do|can|should|would) (?:i|we|you)\b|\bhow to\b", re.I)
_MAX_WORDS = 5
# find_files' answer when nothing matched, on a line of its own (tools/_search.py)
_NO_FILES = re.compile(r"^no files match\b", re.M)


def _found(step: Step) -> bool:
    """Whether *step* showed something of the workspace: a file's lines, search hits (or
    the lines holding a search's words), files listed or found, a command's output with
    no failure."""
    if step.shown_lines is not None:
        return True
    result = step.result.strip()
    if step.name == "search_text":
        return _HIT.search(result) is not None
    if step.name == "find_files":
        return bool(result) and _NO_FILES.search(result) is None
    if step.name == "list_dir":
        return bool(result) and "does not exist" not in result
    if step.name == "run_cmd":  # ended well, or still running (waiting for input)
        return "[exit code 0]" in result or (bool(result) and "[exit code" not in result)
    return False


def _request_words(prompt: str) -> list[str]:
    """The words of *prompt* that may name where its subject is written ("mail",
    "server", "port" of "Switch the mail server port to 465"), in order, at most five."""
    words = [w.lower() for w in _REQUEST_WORD.findall(prompt)]
    return list(dict.fromkeys(w for w in words if w not in _STOP))[:_MAX_WORDS]


class NothingFound:
    """A request that names no file and asks for nothing new, and a reply ending the turn
    when nothing the tools showed since it came from the workspace: a change asked for and
    none made, or a question answered after looks that found nothing (a file name made
    up, a command the machine lacks), unless the answer says it was not found. The
    subject is in this folder's files, under words of the request: the search for them is
    written as the call (search_text shows the lines holding the most of a phrase's
    words).

    Measured (bench local-tasks, the fresh set's third batch, half A, prompts naming no
    file): asked to switch "the mail server port" or give "the redis cache" more memory,
    the 1.5B model wrote steps for the servers' own configuration (``/etc/postfix``,
    ``redis.conf``) and ended; asked which port mail goes through, it looked for
    ``back_office.conf``, found none, and answered "port 25" (the folder says 587); asked
    how much memory the cache may use, it ran ``redis-cli`` (not installed) and answered
    "100MB"."""

    name: ClassVar[str] = "nothing-found"

    def check(self, turn: Turn) -> Nudge | None:
        if "search_text" not in turn.tools or turn.earlier:
            return None
        if FILE_NAME.search(turn.prompt) or _FOLDER.search(turn.prompt):
            return None  # the request says where to look
        if asks_new(turn.prompt):
            return None  # what is to be made is nowhere yet
        if _ASKS_WHERE.search(turn.prompt):
            return None  # which file: guessed-file's and named-definer's to ask
        if any(_found(s) for s in turn.steps) or turn.edited:
            return None
        change = asks_change(turn.prompt)
        if not change and (
            not turn.steps or _SAYS_NONE.search(turn.reply) or _HOW_TO.search(turn.prompt)
        ):
            return None  # a question answered with no look, or asking how, may need no file
        words = _request_words(turn.prompt)
        if len(words) < 2:
            return None
        return Nudge(
            "Nothing found so far comes from this folder's files, and they hold what my "
            "request is about: search them for its words.",
            "search_text",
            arguments={"pattern": " ".join(words)},
        )


# a question, on one line: a question mark ("… do they pay more? how much more"), or a
# sentence that starts as one asks
# after the reply's intention, a look: "I need to look at the documentation or the codebase"
_LOOK = re.compile(r"\b(?:look|check|search|find|read|open|inspect|examine|review)", re.I)
# a reply that answers in general terms, from no fact of this place: "we need to consider
# the following", "The cost of the helm is typically a fixed amount"
_GENERAL = re.compile(
    r"\b(?:typically|usually|generally|in general|it depends|depends on|(?:need|have) to "
    r"consider|would need to know|varies|may vary|common practice)\b",
    re.I,
)


class UnlookedAnswer:
    """A question about this project answered with nothing looked at: the first reply to
    a one-line question makes no call and no earlier result is there to answer from,
    and the question names the project's code or files or speaks of it as the user's
    ("Which of our tools use the need_file helper?", "Which function works out how far a
    rider is from a station, and where is it?"), or the reply says it needs to look and
    names no tool ("I need to look at the documentation or the codebase"), or answers
    in general terms ("we need to consider …", "typically"; not to "how do I …?"). Such an
    answer comes from no file of the project (a guessed function, the harness's own
    tools taken for the user's), so it asks for a search, or, when the question names
    one file, for its read, in place of the reply: with the guess in what it read, the
    model searched the names it had made up (bench local-tasks, the sixth batch, half
    A: 0 of 3 passed; without it, 3 of 3). "What is 12 times 12?" is answered as it
    is."""

    name: ClassVar[str] = "unlooked-answer"

    def check(self, turn: Turn) -> Nudge | None:
        finder = next((t for t in ("search_text", "find_files") if t in turn.tools), None)
        if finder is None or turn.steps or turn.earlier or not turn.reply.strip():
            return None
        prompt = turn.prompt.strip()
        if not prompt or "\n" in prompt or QUESTION.search(prompt) is None:
            return None
        if asks_to_write(prompt):  # "Could you put a test in a new test_x.py?": a request
            return None
        intent = INTENT.search(turn.reply)
        looks = intent is not None and _LOOK.search(turn.reply, intent.end()) is not None
        general = _GENERAL.search(turn.reply) is not None and not _HOW_TO.search(prompt)
        if not (looks or general or about_workspace(prompt) or _ASKS_WHERE.search(prompt)):
            return None
        files = {m.group(1) for m in FILE_NAME.finditer(prompt)} - NOT_FILES
        if len(files) == 1 and "read_file" in turn.tools:
            return Nudge(
                "The question is about a file of this project, and it was not read, so that "
                "answer comes from none of its lines. Read it first: call read_file. Write "
                + block("read_file"),
                "read_file",
                instead=True,
                arguments={"path": files.pop()},
            )
        return Nudge(
            "The question is about this project's files, and nothing was read or searched, "
            f"so that answer comes from none of them. Look first: call {finder}. Write "
            + block(finder),
            finder,
            instead=True,
        )


# a question that asks for a file by that word: "… and in which file?", "Which script
# calls rotate_logs?" (not "Which function …?" alone)
_ASKS_FILE = re.compile(
    r"\b(?:which|what) (?:\w+ )?(?:files?|modules?|scripts?)\b|\bin which (?:file|module)\b",
    re.I,
)
_FILES_SHOWN = 3
# an answer that says what was asked for is not there: "I could not find a function
# that does that" (not "if the seat is not found in the `sold` dictionary", which tells
# of the code)
_FOUND_NONE = re.compile(
    r"\b(?:could not|couldn't|cannot|can't|did not|didn't|unable to)\s+(?:find|locate)\b"
    r"|\bno (?:such |\w+ )?(?:file|function|method|script|module|class)s?\b"
    r"|\bnowhere\b|\bdoes(?: not|n't) exist\b",
    re.I,
)


def _files_shown(turn: Turn) -> list[str]:
    """The files the calls since the prompt showed lines of, the ones read first, then
    those a search listed, each once, at most three."""
    read = [s.path for s in turn.steps if s.name == "read_file" and s.shown_lines is not None]
    hits = [m.group(1) for s in turn.steps for m in _HIT.finditer(s.result)]
    files: list[str] = []
    for path in (p for p in [*read, *hits] if p):
        path = path.removeprefix("./")
        if path not in files:
            files.append(path)
    return files[:_FILES_SHOWN]


class FileNotGiven:
    """A question that asks which file ("Which function does that, and in which file?")
    answered, after a look that showed lines of files, with no file named and no word
    that the thing is not there: asks for the answer again, in place of the reply, with
    the files the reads (first) and searches showed, at most three.

    Measured (bench local-tasks, the theatre's batch, half A): asked which function stops
    a seat being sold twice and in which file, the 1.5B model read ``bookings.py`` and
    answered "`is_free` in the `BoxOffice` class", naming no file (the same answer in 8
    of the task's 9 recorded runs; the ninth reached its turn limit)."""

    name: ClassVar[str] = "file-not-given"

    def check(self, turn: Turn) -> Nudge | None:
        if not turn.steps or _ASKS_FILE.search(turn.prompt) is None:
            return None
        if asks_change(turn.prompt) or announces(turn) is not None:
            return None
        named = [m.group(1) for m in FILE_NAME.finditer(turn.reply)]
        if [n for n in named if n.lower() not in NOT_FILES] or _FOUND_NONE.search(turn.reply):
            return None
        files = _files_shown(turn)
        if not files:
            return None
        return Nudge(
            "The question asks in which file, and the answer must name it. Files the "
            "tools showed:\n"
            + "\n".join(files)
            + "\nAnswer with what the question asks and the file it is in, or say that "
            "none of these files holds it.",
            "",
            instead=True,
        )
