"""The words the honest endings read: what a reply claims, announces or describes, and
what a prompt asks for.

Patterns and the sentence helpers live here, apart from the rules in
:mod:`harness.conversation._endings` that use them, so a rule reads as what it checks.
Everything is read from a reply's prose: code blocks are left out, and inline code is
blanked (same length, so a place in one is the same place in the other), never read as
words.
"""

from __future__ import annotations

import re

__all__ = [
    "ANNOUNCES",
    "CALLED_RUN_TOOL",
    "CLAIMS_CHANGE",
    "CLAIMS_LOOK",
    "CLAIMS_RUN",
    "DESCRIBES_FIX",
    "FENCE",
    "HANDS_OVER",
    "NO_FIX_NEEDED",
    "announces_change",
    "blank_code",
    "bounds",
    "find",
    "last_sentence",
    "quote",
]

_CHANGED = (
    r"edited|created|wrote|written|fixed|updated|changed|modified|renamed|replaced|added|"
    r"removed|deleted|saved|applied|refactored|implemented|moved|corrected|set|turned|"
    r"switched|bumped|increased|decreased|raised|lowered|enabled|disabled|adjusted|"
    r"inserted|appended|converted|reverted|restored|patched|swapped|commented out|"
    r"uncommented|installed|resolved|solved|repaired|sorted (?:\w+ )?out"
)
# a change said in the past of the thing changed, never of how a thing stands
_MOVED = (
    r"updated|changed|modified|increased|decreased|raised|lowered|bumped|renamed|replaced|"
    r"corrected|switched|turned|adjusted"
)
# what a reply says it did before changing anything: "I read X, found Y, updated it"
_LOOKED = (
    r"read|found|checked|opened|looked|located|searched|reviewed|inspected|examined|"
    r"identified|noticed|saw"
)
# what a "created"/"wrote"/"added" can be about that is the answer itself, not a file
_ANSWER_ITSELF = (
    r"(?! (?:a |an |the |this |my |your |some |)(?:\w+ )?(?:plan|summary|overview|outline|"
    r"list|table|answer|response|explanation|breakdown|draft|report|description|note)s?\b)"
    r"(?! (?:it |them |this |these )?below\b)"
)
# within one sentence: a dot only inside a word ("package.json", "1.2.0")
_WORDS = r"(?:[^.\n]|\.(?=\w))"
_CLAUSE = r"(?:[^,.;:\n]|\.(?=\w))"
# history, not this run: "has been fixed in version 2.1", "was added in release 3"
_WHEN_MADE = r" (?:in|since|as of) (?:version|v?\d|release|commit|the (?:\w+ )?release)"
_HISTORY = rf"(?!{_WHEN_MADE})"
CLAIMS_CHANGE = re.compile(
    rf"\bI(?:'ve| have| just| then| also| now| already| successfully)* (?:{_CHANGED})\b"
    rf"{_ANSWER_ITSELF}"
    rf"|\b(?:has|have) (?:now |already |also |successfully )?been (?:{_CHANGED})\b{_HISTORY}"
    # the past said of the thing changed, with where it went: "the `retries` value was
    # updated to 5" (not "was set to 30 in settings.toml", which may say how it stands)
    rf"|\b(?:was|were) (?:now |also |successfully )?(?:{_MOVED}) (?:to|from)\b"
    rf"(?!{_WORDS}*?{_WHEN_MADE})"
    # "I made the necessary changes", "I've made all the requested edits"
    r"|\bI(?:'ve| have| just| then| also)* made (?:\w+ ){0,3}?"
    r"(?:changes?|edits?|fix(?:es)?|modifications?|updates?|adjustments?|corrections?)\b"
    # "I made the api service run image 4.3.0 by editing the image field": a result, then
    # the change that made it
    rf"|\bI(?:'ve| have| just| then| also)* (?:made|got|ensured|configured|pointed|kept)\b"
    rf"{_ANSWER_ITSELF}{_WORDS}{{0,120}}?\bby (?:editing|changing|updating|modifying|"
    r"setting|replacing|adding|removing|deleting|renaming|switching|bumping|raising|"
    r"lowering|turning)\b"
    # "I read it, and then used the edit_file tool to replace the version"
    rf"|\bI\b{_WORDS}{{0,120}}?\b(?:used|called|invoked)\b{_WORDS}{{0,60}}?\bto (?:edit|change|"
    r"replace|update|modify|fix|write|create|rename|remove|delete|set|add|correct)\b"
    # a change in a list of things done, the first "I" their subject: "I read package.json,
    # found the field, updated it to 1.3.0" (an object follows: "updated entries" is not one)
    rf"|\bI (?:{_LOOKED}|{_CHANGED})\b{_WORDS}{{0,160}}?(?:,|\band\b)\s+(?:then |also |finally )?"
    rf"(?:{_CHANGED}) (?:(?:it|them|the|this|that|its|their|a|an)\b|`)",
    re.I,
)
_REVISED = r"(?:updated|modified|changed|fixed|corrected|edited|new|revised|rewritten)"
_WHAT = (
    r"(?:(?:`[^`\n]+`|[\w./-]+\.\w{1,5}) ?(?:files?|scripts?)?|files?|scripts?|"
    r"config(?:uration)?(?: files?)?)"
)
# a changed file handed over as the result: "Here's the updated `inventory.py` file:", or
# pointed at: "The corrected script is provided above."
HANDS_OVER = re.compile(
    rf"\b(?:here(?:'s| is| are)|below (?:is|are)|this is) (?:the|your) (?:now )?{_REVISED} "
    rf"(?:version of (?:the )?)?{_WHAT}\b"
    rf"|\bthe {_REVISED} (?:version(?: of (?:the )?{_WHAT})?|{_WHAT}) (?:is|was|are) "
    r"(?:provided|shown|given|included|written|listed) (?:above|below)\b",
    re.I,
)
CLAIMS_RUN = re.compile(
    r"\bI(?:'ve| have| just| then| also| now| already)* (?:ran|executed)\b"
    r"|\bI(?:'ve| have)(?: just| also| now| already)* run\b"
    r"|\b(?:has|have) (?:now |already |also )?been (?:run|executed)\b",
    re.I,
)
# the run claimed by the tool's name, read with inline code left in: "I called the
# `run_cmd` tool with the command `curl …`"
CALLED_RUN_TOOL = re.compile(
    r"\bI(?:'ve| have| just| then| also| now| already)* (?:called|used|invoked) "
    r"(?:the )?`?run_cmd\b",
    re.I,
)
# a claim to have looked at the workspace: "I searched the project and found", "After
# following these steps, I found that" (the steps the same reply said it would take)
CLAIMS_LOOK = re.compile(
    r"\bI(?:'ve| have| just| then| also| first)* (?:found|searched|looked (?:at|for|through|"
    r"in|into)|checked|opened|inspected|examined|reviewed|scanned|went through|located)\b"
    r"|\bafter (?:following|completing|performing|taking|going through) (?:these|the above|"
    r"those|all (?:of )?(?:these|the|those)) steps\b",
    re.I,
)
# a claim to have asked the user, said of them: "I asked the user to provide the path"
# ("I asked you" may speak of a question in the conversation's text, answered since)
CLAIMS_ASK = re.compile(
    r"\bI(?:'ve| have| just| then| also| already| first)* asked the user\b", re.I
)
# the last sentence announces an action and nothing follows: "I will summarize X for
# you.", "To summarize X, I will read the file" (a lead-in of purpose or order, never a
# condition: "If you want, I will fix it" offers)
ANNOUNCES = re.compile(
    rf"^(?:(?:to|in order to|before|after|now that|first|next|then|so)\b{_CLAUSE}{{0,200}},\s*)?"
    r"(?:(?:now|next|first|then|okay|ok|sure|great|alright)[,!.]?\s+)*"
    r"(?:I will|I'll|I am going to|I'm going to|let me|let's|I need to|I should|"
    r"I would (?:need|have) to|I'd (?:need|have) to)\s+"
    r"(?:now |first |then |also |quickly |go ahead and )*"
    r"(?:read|open|check|look|run|execute|search|find|list|edit|fix|update|change|modify|"
    r"create|write|add|remove|delete|rename|summari[sz]e|examine|inspect|analy[sz]e|review|"
    r"implement|test|install|refactor|call|use|start|apply|make|replace|investigate|explore|"
    r"gather|fetch|get|see|view|verify|adjust|amend|alter|tweak|correct|set|increase|"
    r"decrease|reduce|raise|lower|switch|swap|bump)\b",
    re.I,
)
# the verbs of an announcement that say a change ("I will update the timeout to 30.")
_CHANGE_VERB = re.compile(
    r"edit|fix|update|change|modify|create|write|add|remove|delete|rename|replace|correct|set|"
    r"increase|decrease|reduce|raise|lower|switch|swap|bump|adjust|amend|alter|tweak|apply|"
    r"implement|refactor",
    re.I,
)
# an announced use of the tool that makes a change ("I will use the `search_text` tool to
# find the lines and the `edit_file` tool to replace them.")
_USES_CHANGE_TOOL = re.compile(r"\b(?:edit|write)_file\b")


def announces_change(text: str) -> str | None:
    """The first sentence of *text* (code blocks gone) that announces a change the model
    will make ("I will update the timeout to 30.", "Let me use the `edit_file` tool to
    replace it."), as quoted to the user; ``None`` when none does. The verb announced
    says it (or the tool it will use): "I'll check whether the timeout needs to change."
    announces a look. A question ("Shall I change it?") or an offer ("If you want, I will
    fix it") announces nothing."""
    text = FENCE.sub("", text)
    masked = blank_code(text)
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(masked))]
    for start, end in zip(starts, [*starts[1:], len(masked)], strict=True):
        sentence = masked[start:end].strip()
        announced = ANNOUNCES.match(sentence)
        if announced is None or sentence.endswith("?"):
            continue
        verb = announced.group(0).split()[-1].lower()
        if _CHANGE_VERB.fullmatch(verb) or (
            verb in ("use", "call") and _USES_CHANGE_TOOL.search(text[start:end])
        ):
            return quote(text, start, start + len(sentence))
    return None


# a sentence saying what the code should be, or telling the user what to change
DESCRIBES_FIX = re.compile(
    r"\b(?:should|must|needs? to|has to|have to|ought to|would need to)"
    r"(?: now| instead| rather| actually| really| only)? (?:be|return|read|say|use|print|"
    r"equal|contain|call|take|check|compare|filter|include|exclude|become|keep|list|show)\b"
    r"|\byou(?:'ll| will)? (?:should|need to|can|could|must|have to|would need to|"
    r"may want to|might want to) (?:simply |just )?(?:change|replace|update|modify|edit|set|"
    r"fix|add|remove|rename|correct|swap|use)\b"
    r"|\bto fix (?:this|it|that|the (?:\w+ )?(?:bug|issue|problem|error))\b"
    r"|\bthe (?:fix|solution|correction) (?:is|would be) to\b"
    r"|\bthe (?:correct|right|fixed|corrected) (?:code|line|version|implementation|value|"
    r"condition|comparison) (?:is|would be|should be)\b"
    r"|(?:^|(?<=[.!?] )|(?<=\n))(?:simply |just )?(?:change|replace|update|modify|swap) \S",
    re.I,
)
# a sentence that says nothing needs changing, offers, or asks
NO_FIX_NEEDED = re.compile(
    r"\b(?:already|nothing|no (?:change|fix|edit|need)s?\b|(?:not|n't) (?:need|be changed)|"
    r"as (?:it|they) should)|\bif you (?:want|like|'d like|wish|prefer)|^if\b|"
    r"\b(?:would you like|do you want|shall I|let me know)\b",
    re.I,
)
FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE = re.compile(r"`[^`\n]*`")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def blank_code(text: str) -> str:
    """*text* with inline code blanked out (same length, so a place in one is the same
    place in the other): what is in code is never read as words."""
    return _INLINE.sub(lambda m: "`" + "_" * (len(m.group()) - 2) + "`", text)


def find(pattern: re.Pattern[str], text: str) -> str | None:
    """The sentence of *text* (code blocks gone) where *pattern* matches its prose."""
    found = pattern.search(blank_code(text))
    return None if found is None else quote(text, found.start(), found.end())


def bounds(masked: str, at: int, end: int) -> tuple[int, int]:
    """Where the sentence around *masked*[at:end] starts and ends."""
    starts = [m.end() for m in _SENTENCE_END.finditer(masked, 0, at)]
    after = _SENTENCE_END.search(masked, end)
    return (starts[-1] if starts else 0), (after.start() if after else len(masked))


def quote(text: str, at: int, end: int) -> str:
    """The sentence around *text*[at:end], at most 120 characters."""
    start, stop = bounds(blank_code(text), at, end)
    sentence = text[start:stop].strip()
    return sentence if len(sentence) <= 120 else sentence[:117].rstrip() + "..."


def last_sentence(text: str) -> tuple[str, str]:
    """The last sentence of *text*: as written, and with its inline code blanked."""
    masked = blank_code(text)
    ends = [m.end() for m in _SENTENCE_END.finditer(masked.rstrip())]
    start = ends[-1] if ends else 0
    return text[start:].strip(), masked[start:].strip()
