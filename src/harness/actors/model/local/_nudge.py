"""Asking a small model, once, to do what it just said it would do.

Measured with the 1.5B model: asked "What does calc.py do? Is there a bug?" it answers "I
will read the calc.py file ... If I find any issues, I will fix them" and stops, with no
call; refused an ambiguous ``edit_file`` it answers "I need to include more surrounding
text" and stops. Either way the turn ends with nothing done. A reply that makes no call but
announces an action (a first-person intention and a verb a tool performs), or opens with
a tool's name as if calling it ("search_text: parse_date"), or claims one ("I read the file
and found …") before any tool ran, or claims a command's run with no run_cmd call since the
prompt, or claims a change ("I replaced nam with name") when no edit was made since the
prompt, gets one more generation in the same
turn, after a short user line naming the tool to use; with the call grammar on, that
generation is bound by the grammar of a call to that tool from its first token, since
measured, asked in words the model described the call again instead of writing it (0 calls
in 8 nudged replies). A reply that only says the user's question again is asked, once, for
the answer, bound to nothing. An empty reply after a tool result is asked, in a task that asks
for a change, for a refused edit again when its refusal showed the file, or for the edit
when none was made and a file was read; else what it changed when an edit was made; else
to go on. An answer after a read that skips the prompt's question whether the code is right
("Is there a bug?") is asked it, with what a bug is; one to a question where something is
that names a file nothing in the conversation named is asked to find it first.

Creating and writing are left out on purpose: a model nudged to "create" a file it could
not find would write an invented one.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Sequence

import attrs

from harness.actors.model import parse_reply
from harness.messages.model import ToolSchema

__all__ = ["Nudge", "StillUsed", "asks_if_right", "last_read", "nudge_for", "still_used"]


@attrs.frozen
class Nudge:
    """The user line asking the model to go on, and the tool it names ("" for none: the
    reply is not bound to a call)."""

    text: str
    tool: str


# "I would need to see the code": measured, the 1.5B model's whole answer to "Read calc.py
# and tell me if add is correct." after a search that found nothing
_INTENT = re.compile(
    r"\b(I will|I'll|I am going to|I'm going to|Let me(?! know)|Let's|I need to|I should|"
    r"I must|Next, I|First, I|I can now|I would need to|I'd need to|I would have to)\b",
    re.I,
)
# a claim to have run a command: "I ran the command …", "I executed `python3 hello.py`"
_RAN = re.compile(r"\bI (have |just |then |also )?(ran|executed|run)\b", re.I)
_CLAIM = re.compile(r"\bI (have |just )?(read|checked|looked at|opened|ran|searched)\b", re.I)
_DID = (
    r"(replaced|renamed|changed|fixed|updated|edited|modified|corrected|added|removed|wrote|"
    r"rewrote|saved|applied)\b(?! nothing)"
)
# "I replaced …", "I then fixed …", "I read calc.py and replaced …" (in one sentence),
# "The bug has been fixed", "helper was renamed", "to confirm the changes were made"
_CHANGED = re.compile(
    rf"\bI (have |then |just |also )?{_DID}|\bI\b(?:(?!\. )[^\n]){{0,80}}\band (then )?{_DID}"
    rf"|\b(has|have) been {_DID}|\b(was|were) {_DID}"
    r"|\b(changes?|edits?) (were|was|have been|has been) (made|applied)\b"
    # "The function `greet` now takes a parameter named `name`" (measured, no edit made)
    r"|\bnow (takes|uses|has|returns|accepts|reads|says|prints|adds|calls)\b"
    # the change handed back to the user: "You should replace `return a - b` with …",
    # "To fix this, we need to change the mul function",
    # "You should add `b` to `a` instead", "Here's the corrected `calc.py`:",
    # "you would need to edit these files directly", "I would follow these steps: 1. Open"
    # "you need to ensure that the add function correctly adds", "The correct
    # implementation should be:"
    r"|\b([Yy]ou|[Ww]e) (should|need to|can|must|have to|will need to|would need to|"
    r"would have to) (replace|change|fix|edit|modify|update|rename|correct|add|remove|"
    r"ensure|make sure)\b"
    r"|\b[Tt]he (correct|corrected|fixed|right) (implementation|code|version|function|line)"
    r"\b[^.\n]{0,40}\b(should be|would be|is)\b"
    r"|\bI would (follow these steps|replace|change|fix|edit|modify|update|rename|correct)\b"
    r"|\b[Hh]ere(?:'s| is) the (corrected|fixed|updated|modified)\b"
    # "I needed to edit the add function to return a + b + 1 … and then ran the
    # `edit_file` command to make the change" (measured, after the edit was refused)
    r"|\bI needed to (edit|change|fix|replace|modify|update|rename|correct)\b"
    r"|\b(ran|called|used)( the)? `?(edit_file|write_file)\b"
)
# a prompt that asks for a change: only then is a claimed one taken at its word ("the bug
# was fixed in 2.1" answers a question). The verb is the ask's, where a sentence or clause
# starts or after "and", "please", "can you": in "tell me if add is correct" it is a
# question about a function named add.
_ASKS_CHANGE = re.compile(
    r"(?:^|[.!?;,:]\s*|\b(?:and|then|please|you to|can you|could you|would you)\s+)"
    r"(fix|rename|change|edit|replace|update|modify|correct|refactor|add|remove|delete)\b",
    re.I | re.M,
)
_EDITS = ("edit_file", "write_file")
# a tool's answer to a path that does not exist, naming the one meant (the tools' jail)
_MEANT = re.compile(r"does not exist; did you mean ([^\s?]+)\?")
# what only a read that worked shows: lines tagged with their number and hash
_READ_OK = re.compile(r"^\d+:[0-9a-f]{2}\|", re.M)
# verbs -> the tool that does them
_VERBS: tuple[tuple[str, str], ...] = (
    (r"fix|edit|change|modify|correct|replace|update|rename|include more", "edit_file"),
    (r"run|execute|test", "run_cmd"),
    (r"read|open|look at|check|inspect|examine|review|analy[sz]e|see|view", "read_file"),
    (r"list", "list_dir"),
    (r"search|find|grep", "search_text"),
)
# a reply that opens with a tool's name as if calling it: "search_text: parse_date",
# "`read_file`(calc.py)"
_AS_TEXT = re.compile(r"\s*`?([A-Za-z_][\w.-]*)`?\s*[:(]")
_LAST_CALL = re.compile(r'<tool_call>\s*\{\s*"name"\s*:\s*"([\w.-]+)"')


def _named_tool(reply: str, names: Sequence[str]) -> str | None:
    hits = [(reply.find(n), n) for n in names if n in reply]
    return min(hits)[1] if hits else None


def _verb_tool(sentence: str, names: Sequence[str]) -> str | None:
    """The tool of the first action the sentence names ("read ..., then fix": read)."""
    hits = []
    for verbs, tool in _VERBS:
        found = re.search(rf"\b({verbs})", sentence, re.I)
        if tool in names and found:
            hits.append((found.start(), tool))
    return min(hits)[1] if hits else None


def _called(history: Sequence[dict[str, str]], tool: str) -> bool:
    """Whether the model called *tool* since the user's last prompt."""
    return any(
        tool in _LAST_CALL.findall(m["content"])
        for m in _since_prompt(history)
        if m["role"] == "assistant"
    )


def _claims_a_run(reply: str, history: Sequence[dict[str, str]], names: Sequence[str]) -> bool:
    """Whether *reply* says a command ran ("I ran the command …") when no run_cmd call was
    made since the user's last prompt ("I then ran the `read_file` command" claims another
    tool's call, not a run)."""
    ran = _RAN.search(reply)
    if ran is None or "run_cmd" not in names or _called(history, "run_cmd"):
        return False
    sentence = re.split(r"(?<=[.!?])\s|\n", reply[ran.end() :])[0]
    return _named_tool(sentence, names) in (None, "run_cmd")


def _prompt_at(history: Sequence[dict[str, str]]) -> int:
    """The index of the user's last prompt (tool results are not prompts), or -1."""
    for i in range(len(history) - 1, -1, -1):
        msg = history[i]
        if msg["role"] == "user" and "<tool_response>" not in msg["content"]:
            return i
    return -1


def _since_prompt(history: Sequence[dict[str, str]]) -> list[dict[str, str]]:
    """The messages after the user's last prompt."""
    return list(history[_prompt_at(history) + 1 :])


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _repeats_result(reply: str, result: str) -> bool:
    """Whether *reply* opens with ten words of the tool *result* it answers (measured: told
    its old_text was not in the file, the 1.5B model wrote that answer out as its own)."""
    said = _words(reply).split()[:10]
    return len(said) >= 6 and " ".join(said) in _words(result)


def _echoed(reply: str, history: Sequence[dict[str, str]]) -> str | None:
    """The user's last prompt, when *reply* is that prompt said again, once or more
    (measured: after a list_dir result the 1.5B model answered with the question, 2 runs
    in 5; once it wrote it twice)."""
    at = _prompt_at(history)
    prompt = history[at]["content"] if at >= 0 else ""
    said, asked = _words(reply), _words(prompt)
    if not asked or not said.startswith(asked):
        return None
    return prompt.strip() if len(said.replace(asked, "").strip()) < 20 else None


# a question that asks where something is: "Which file defines parse_date?"
_ASKS_WHERE = re.compile(
    r"\b(which|what) (file|module|folder|directory)\b|\bwhere\b[^.?!\n]*\b(defined|declared|set)\b",
    re.I,
)
# a file name in an answer: "src/parser.py", "`dates.py`"
_FILE_NAME = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z]{1,5})\b")
_NOT_FILES = frozenset({"e.g", "i.e"})  # what _FILE_NAME also reads as file names


# a tool's word that a path the call named is not there: "(src/parser.py does not exist,
# so the whole workspace was searched)"
_ABSENT = re.compile(r"\S+ does not exist\b")


def _guessed_file(reply: str, history: Sequence[dict[str, str]], at: int) -> str | None:
    """The first file *reply* names that neither the user nor a tool result did (a path a
    result says does not exist is not named by it), when the prompt asked where something
    is. Measured (bench local-tasks, search-def): the 1.5B model searched in a made-up
    ``src/parser.py``, was told it does not exist and shown the definition in dates.py, and
    answered ``src/parser.py``."""
    if _ASKS_WHERE.search(history[at]["content"]) is None:
        return None
    said = _ABSENT.sub("", "\n".join(m["content"] for m in history if m["role"] == "user"))
    for m in _FILE_NAME.finditer(reply):
        name = m.group(1)
        if name.lower() in _NOT_FILES:
            continue
        if name not in said and name.rsplit("/", 1)[-1] not in said:
            return name
    return None


# a question whether code is right: "Is there a bug?", "tell me if add is correct" (a
# dot inside a word, as in "calc.py", does not end it)
_YES_NO = re.compile(
    r"(?:^|(?<=[.!?:;]\s))((?:is|are|does|do|did|can|could|should|was|were|will|has|have)\b"
    r"(?:[^.!?\n]|\.(?=\w))*\?)"
    r"|\btell me (?:if|whether) ((?:[^.!?\n]|\.(?=\w))+)",
    re.I,
)
_ABOUT_FAULTS = re.compile(
    r"\b(bugs?|buggy|correct|wrong|right|broken|errors?|works?|working|issues?|problems?|"
    r"mistakes?)\b",
    re.I,
)
# a reply that gives a verdict, or says it cannot ("does what its name says": the verdict
# the reminder after a review question asks for, see asks_if_right)
_VERDICT = re.compile(
    r"\b(yes|no|not|bugs?|wrong|incorrect|correct(ly)?|errors?|mistakes?|issues?|problems?|"
    r"should|instead|fine|works?|broken|typo|intended|expected|unable|cannot|can't)\b"
    r"|\bwhat (its|the|their) (function'?s? )?names?( [`\"]?\w+[`\"]?)? (says?|suggests?)",
    re.I,
)
# what a question asks of code it reviews ("does it work?" may ask of a command's run)
_REVIEW = re.compile(r"\b(bugs?|buggy|correct|incorrect|wrong|broken|mistakes?)\b", re.I)


def _questions(prompt: str, about: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """The yes/no questions of *prompt* (and its "tell me if …") with a word *about*
    finds."""
    for m in _YES_NO.finditer(prompt.strip()):
        if about.search(m.group(1) or m.group(2)):
            yield m


def asks_if_right(prompt: str) -> bool:
    """Whether *prompt* asks whether code is right: "Is there a bug?", "tell me if add
    is correct"."""
    return next(_questions(prompt, _REVIEW), None) is not None


def _unanswered(reply: str, prompt: str) -> str | None:
    """What the prompt asked whether code is right, as "answered …" / "said whether …",
    when *reply* gives no verdict on it; else ``None``."""
    if _VERDICT.search(reply):
        return None
    m = next(_questions(prompt, _ABOUT_FAULTS), None)
    if m is None:
        return None
    if m.group(1):
        return f'answered "{m.group(1).strip()}"'
    return f"said whether {m.group(2).strip()}."


# what only a write or edit that worked answers, on a line of its own
_WROTE = re.compile(r"^(edited|wrote|created) \S", re.M)


def _edited(history: Sequence[dict[str, str]]) -> bool:
    """Whether a file was changed since the user's last prompt: a call to a tool that
    writes, answered by a result that says it did (measured: after two edits refused
    for text not in the file, the model said "has been renamed")."""
    recent = _since_prompt(history)
    return any(
        msg["role"] == "assistant"
        and any(n in _EDITS for n in _LAST_CALL.findall(msg["content"]))
        and _WROTE.search(after["content"]) is not None
        for msg, after in itertools.pairwise(recent)
    )


# a call's JSON, on one line after its opening tag (bodies may follow it)
_CALL_HEAD = re.compile(r"<tool_call>\s*(\{[^\n]*\})")
_TAGGED_LINE = re.compile(r"^\d+:[0-9a-f]{2}\|(.*)$", re.M)
# what edit_file answers when an old_text is not in a small file: the file, tagged (its
# wording is in tools/_edit.py, _not_found)
_SHOWN = "copy old_text exactly from the file, which is now"


def last_read(history: Sequence[dict[str, str]]) -> tuple[str, list[str]] | None:
    """The path and lines (untagged) of the last file seen since the user's last prompt:
    a read_file call alone in its message and its result, or an edit_file call whose
    old text was not found and whose result shows the file; ``None`` when there is none."""
    recent = _since_prompt(history)
    for i in range(len(recent) - 1, 0, -1):
        result, asked = recent[i], recent[i - 1]
        if result["role"] != "user":
            continue
        if _SHOWN in result["content"]:
            tool = "edit_file"
        elif _READ_OK.search(result["content"]):
            tool = "read_file"
        else:
            continue
        calls = _CALL_HEAD.findall(asked["content"]) if asked["role"] == "assistant" else []
        if len(calls) != 1:
            return None
        try:
            call = json.loads(calls[0])
            path = call["arguments"]["path"] if call.get("name") == tool else None
        except (ValueError, KeyError, TypeError):
            return None
        lines = _TAGGED_LINE.findall(result["content"])
        return (path, lines) if isinstance(path, str) and lines else None
    return None


# what edit_file's result adds when the name an edit renamed is still used elsewhere (its
# wording is in tools/_files.py, _still_used)
_STILL_USED = re.compile(
    r"^note: (\S+) \(this edit renamed it to (\S+)\) is still used:\n((?:  .*(?:\n|$))+)", re.M
)
_USE = re.compile(r"^  (.+?):\d+: (.*)$", re.M)


@attrs.frozen
class StillUsed:
    """A name the last edit renamed, and the first file that still uses it, with the
    lines that do (stripped, as the note shows them)."""

    old: str
    new: str
    path: str
    lines: tuple[str, ...]


def still_used(history: Sequence[dict[str, str]]) -> StillUsed | None:
    """What the last message, a tool result, says is still to rename, when the rename is
    one the user asked for: their prompt names the old name (an edit that renamed
    something on the way is the model's to explain); else ``None``."""
    last = history[-1] if history else None
    if last is None or last["role"] != "user" or "<tool_response>" not in last["content"]:
        return None
    note = _STILL_USED.search(last["content"])
    at = _prompt_at(history)
    if note is None or at < 0:
        return None
    if not re.search(rf"\b{re.escape(note.group(1))}\b", history[at]["content"]):
        return None
    uses = _USE.findall(note.group(3))
    if not uses:
        return None
    path = uses[0][0]
    lines = tuple(text for where, text in uses if where == path)
    return StillUsed(note.group(1), note.group(2), path, lines)


def _read_a_file(history: Sequence[dict[str, str]]) -> bool:
    """Whether a file was seen since the user's last prompt: a read that worked, or a
    refused edit's result showing the file."""
    return any(
        _READ_OK.search(msg["content"]) or _SHOWN in msg["content"]
        for msg in _since_prompt(history)
        if msg["role"] == "user"
    )


_MAKE_THE_CHANGE = Nudge(
    "You have not changed any file yet: no edit was made. Make the change now: "
    'call edit_file. Write the <tool_call> block ({"name": "edit_file", '
    '"arguments": {"path": ...}} then <old_content> and <new_content>) and nothing '
    "else.",
    "edit_file",
)


_WHAT_CHANGED = Nudge(
    "If the task is done, tell me in a sentence what you changed. If it is not, make the "
    "next call.",
    "",
)


def _block(tool: str) -> str:
    """How a nudge asks for a call of *tool*: "the <tool_call> block ({"name": "read_file",
    "arguments": {...) and nothing else." """
    example = json.dumps({"name": tool, "arguments": {}})[:-2]
    return f"the <tool_call> block ({example}...) and nothing else."


def _call_again(tool: str) -> Nudge:
    return Nudge(
        f"Do it now: call {tool} again, using what the tool result above says. Write "
        + _block(tool),
        tool,
    )


def _after_nothing(history: Sequence[dict[str, str]], names: Sequence[str]) -> Nudge | None:
    """What asks a model that wrote nothing after a tool result to go on (``None`` when
    nothing was done yet: an empty answer to the prompt itself stays one)."""
    at = _prompt_at(history)
    if at < 0 or at == len(history) - 1:
        return None
    editing = "edit_file" in names and _ASKS_CHANGE.search(history[at]["content"]) is not None
    if editing and _SHOWN in history[-1]["content"]:
        # measured (a rename replayed on a llama.cpp server, 6 samples): an edit of main.py
        # with an old text of its own was refused, showing the file, and the reply was
        # empty; asked for that edit again, bound to the file's lines, the model made the
        # right one 6 times in 6 (asked what it changed, it said the rename was done)
        return _call_again("edit_file")
    if _edited(history):
        # measured (bench runs replayed, 6 samples each): after the last edit of a fix or
        # of a rename, the 1.5B model's reply was empty 6 times in 6; asked to "go on ...
        # or answer the user: <the prompt>", it was empty again 5 times in 6 (else it
        # wrote the plan once more); asked what it changed, it said so 6 times in 6.
        # Before any edit the same question had it claim a change it never made, 6 times
        # in 6: so only after one.
        return _WHAT_CHANGED
    if editing and last_read(history) is not None:
        # measured (replayed, 6 samples each): asked for a rename, the model read util.py
        # and wrote nothing; asked to "go on", nothing again 5 times in 6 (else how the
        # user could edit it); asked for the edit, bound to the file's lines, it made the
        # right one 6 times in 6
        return _MAKE_THE_CHANGE
    # measured: after a result, the 1.5B model ended a rename with an empty reply
    return Nudge(
        "Go on: make the next call the task needs, or, if it is done, answer the user: "
        + history[at]["content"].strip(),
        "",
    )


def nudge_for(
    reply: str, history: Sequence[dict[str, str]], tools: Sequence[ToolSchema]
) -> Nudge | None:
    """What asks the model to go on, or ``None`` when *reply* needs none (it made a
    call, or it announces nothing a tool does)."""
    names = [t.name for t in tools]
    if not names:
        return None
    known = {t.name: tuple(t.parameters.get("properties", {})) for t in tools}
    left = still_used(history) if "edit_file" in names else None
    if left is not None and not parse_reply(reply, known).calls:
        # measured: the 1.5B model renamed helper in util.py, was told main.py still
        # uses it, and answered that both files were done (or with nothing at all)
        return Nudge(
            f"{left.path} still uses {left.old}, so the rename is not done. Rename it there "
            f"too: call edit_file on {left.path}, replacing {left.old} with {left.new}. "
            f'Write the <tool_call> block ({{"name": "edit_file", "arguments": {{"path": '
            f'"{left.path}"}}}} then <old_content> and <new_content>) and nothing else.',
            "edit_file",
        )
    if not reply.strip():
        return _after_nothing(history, names)
    if parse_reply(reply, known).calls:
        return None
    echoed = _echoed(reply, history)
    if echoed is not None:
        # no tool named: the answer may need none, or another call
        # the question first and the ask last: ended with the question, the nudge had
        # the model write the question once more
        return Nudge(
            f'The question was: "{echoed}" You wrote it again instead of answering it. '
            "Answer it now in your own words, from the tool results above.",
            "",
        )
    written = _AS_TEXT.match(reply)
    if written is not None and written.group(1) in names:
        # measured (bench local-tasks, search-def, 1 run in 5): the 1.5B model's whole
        # reply was "search_text: parse_date:*.py", a call in no form harness reads
        tool = written.group(1)
        return Nudge(
            f"You wrote {tool} as plain text, so nothing ran. Call it now: write " + _block(tool),
            tool,
        )
    intent = _INTENT.search(reply)
    last = history[-1]["content"] if history else ""
    asked = bool(history) and history[-1]["role"] == "user" and "<tool_response>" not in last
    previous: list[str] = []
    if len(history) >= 2 and history[-1]["role"] == "user" and "<tool_response>" in last:
        previous = _LAST_CALL.findall(history[-2]["content"])
    meant = _MEANT.search(last) if previous and previous[-1] in names else None
    if meant is not None:
        # "project/calc.py does not exist; did you mean calc.py?" and no call: whatever
        # the reply says, the next step is that call with the path the tool named
        again = previous[-1]
        return Nudge(
            f"Call {again} again with the path {meant.group(1)}, as the tool result above "
            f'says. Write the <tool_call> block ({{"name": "{again}", "arguments": '
            f'{{"path": "{meant.group(1)}"}}}}) and nothing else.',
            again,
        )
    if previous and previous[-1] in names and _repeats_result(reply, last):
        # the result said again in place of the next step: that call again, done right
        return _call_again(previous[-1])
    if _edited(history) and any(
        _repeats_result(reply, m["content"]) for m in _since_prompt(history) if m["role"] == "user"
    ):
        # measured (bench local-tasks, rename-param): after the edit that did the task, the
        # 1.5B model's answer was an earlier refusal said again ("The call was not run:
        # greet.py was not read in this session …"), 2 runs in 3
        return _WHAT_CHANGED
    if intent is None and _claims_a_run(reply, history, names):
        # measured (bench local-server, run-report, embedded): after a git_status call, the
        # 1.5B model answered "I ran the command in the terminal using the `run_cmd` tool.
        # The command output was: Hello, world!" (hello.py prints "hello 42")
        return Nudge(
            "No command has run since my question: no run_cmd call was made, so no output "
            "is known yet. Run it now: call run_cmd. Write " + _block("run_cmd"),
            "run_cmd",
        )
    if intent is None and asked:
        # "I read the file and found the code." with no call made: it read nothing
        intent = _CLAIM.search(reply)
    at = _prompt_at(history)
    change_asked = at >= 0 and _ASKS_CHANGE.search(history[at]["content"]) is not None
    claimed = intent is None and change_asked and not _edited(history)
    claim = _CHANGED.search(reply) if claimed else None
    if claim is not None and "read_file" in names and not _read_a_file(history):
        # "I fixed the bug by changing the return" with nothing read: an edit now would be
        # of text it has not seen, so first the read
        return Nudge(
            "You have not changed any file yet, and have not read the file to change. Read it "
            'first: call read_file. Write the <tool_call> block ({"name": "read_file", '
            '"arguments": {"path": ...}}) and nothing else.',
            "read_file",
        )
    if claim is not None and "edit_file" in names:
        # "I replaced nam with name" after a read, and nothing was written: it edited
        # nothing; asked for the edit, it gets the edit's grammar
        return _MAKE_THE_CHANGE
    guessed = _guessed_file(reply, history, at) if at >= 0 else None
    finder = next((t for t in ("search_text", "find_files") if t in names), None)
    if intent is None and guessed is not None and finder is not None:
        # measured (bench local-tasks, search-def): asked which file defines parse_date,
        # the 1.5B model answered "src/parser.py", a file no result had named: with no
        # call at all, or after a search that found nothing (a file-name search, or a
        # folder that does not exist)
        return Nudge(
            f"No tool result above names {guessed}, so that answer is a guess. Find the "
            f"file first: call {finder}. Write " + _block(finder),
            finder,
        )
    unanswered = _unanswered(reply, history[at]["content"]) if previous and at >= 0 else None
    if intent is None and unanswered is not None and last_read(history) is not None:
        # measured (bench local-tasks, find-bug): asked "What does calc.py do? Is there a
        # bug?", the 1.5B model read the file and said what each function does, 3 runs in
        # 4 with no word on the bug. Replayed (8 samples on each of two such runs): asked
        # for "yes or no, and why", it said "No, there is no bug" 14 times in 16; told
        # what a bug is, it said add does not do what its name says 13 times in 16 (and
        # wrongly called mul wrong too, 8 times)
        return Nudge(
            f"You have not {unanswered} Code that does not do what its name says is a bug. "
            "Look at each function in the file above and answer now.",
            "",
        )
    if intent is None:
        return None
    # the first announcement that names something a tool does ("I will follow these
    # steps:" names nothing; "I will execute python3 hello.py" does)
    tool = None
    starts = [intent.start()] + [m.start() for m in _INTENT.finditer(reply, intent.end())]
    for start in starts[:6]:
        sentence = reply[start:].split("\n\n", 1)[0]
        if sentence.rstrip().endswith(":"):
            # "I will follow these steps:" names nothing; its first step does (measured:
            # "\n\n1. Open `util.py` and find the function `helper`.\n2. Rename …", and
            # the turn ended there)
            sentence = " ".join(reply[start:].split("\n\n", 2)[:2]).split("\n2.", 1)[0]
        if re.search(r"\b(create|write)\b", sentence, re.I) and not re.search(
            r"\b(fix|edit|change)\b", sentence, re.I
        ):
            return None
        tool = _named_tool(sentence, names) or _verb_tool(sentence, names)
        if tool is not None:
            break
    if tool is None and previous and previous[-1] in names:
        tool = previous[-1]
    if tool is None:
        return None
    if previous and previous[-1] == tool:
        return _call_again(tool)
    return Nudge(
        f"You said what you will do but did not do it. Do it now: call {tool}. Write "
        + _block(tool),
        tool,
    )
