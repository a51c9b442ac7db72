"""What a rename asked in so many words asks for ("Rename the method give_back to
return_bike", "Rename House.thirsty to needs_water"): the name there now, the name
wanted, and which lines use it. Read by the rule that writes the rename
(:mod:`._nudge_rename`) and by the one that finishes a rename the model began
(``finish-rename``)."""

from __future__ import annotations

import re

import attrs

from harness.actors.model.local._turn import FILE_NAME, asks_change, code_names
from harness.words import asks_for_change, asks_question

__all__ = ["NamedPair", "Rename", "asked_rename", "named_pair"]

_NAME = r"[A-Za-z_]\w*"
# "Rename the (shell) function rotate_logs to rotate_log_files", "rename `cartTotal` to
# `orderTotal`", "Rename House.thirsty to needs_water": what kind of name it is (if
# said), the name there now (a member after its owner's name and a dot) and the name
# wanted, then the sentence goes on or ends; not "Rename the shop to Tea Corner"
_KIND = r"function|method|helper|class|variable|constant|field|attribute|property|key|setting"
# where a rename's new name ends: the sentence goes on or ends
_ENDS = (
    r"(?=\s*(?:$|[,;:!?()]|\.(?!\w)|[-–—]\s|\s(?:in|everywhere|across|throughout|and|so|wherever|"
    r"instead|from now on|please)\b))"
)
# ("renaming" too: "Would you mind renaming slugify to toSlug?"; its owner after it: "the
# thirsty method of House", "rename it on House to needs_water")
_RENAME = re.compile(
    r"\brenam(?:e|ing)\s+(?:the\s+)?(?:(?:shell|python|javascript|js|bash)\s+)?"
    rf"(?:(?P<kind>{_KIND})\s+)?"
    rf"`?(?:(?P<dotted>{_NAME})\.)?(?P<old>{_NAME})(?:\(\))?`?(?:\s+(?:{_KIND}))?"
    rf"(?:\s+(?:of|on)\s+(?:the\s+)?`?(?P<of>(?-i:[A-Z]\w*))`?(?:\s+class)?)?"
    rf"\s+(?:to|into|as)\s+`?(?P<new>{_NAME})(?:\(\))?`?{_ENDS}",
    re.I,
)
# a rename said another way, each giving the name there now and the name wanted: "round_money
# should be called round_cents", "I'd like slugify renamed to toSlug", "Please call zone_of
# fare_zone instead", "cartTotal should be orderTotal everywhere" (both written as only
# code writes a name: :data:`_CODE_NAME`)
_OLD = rf"`?(?:({_NAME})\.)?({_NAME})(?:\(\))?`?"
_NEW = rf"`?({_NAME})(?:\(\))?`?{_ENDS}"
_SHOULD_BE = r"\s+(?:should|must|needs? to|has to|ought to)\s+be\s+"
# (the files it is in may come between: "rotate_logs in scripts/lib.sh should be renamed
# to rotate_log_files")
_WHERE = r"(?:\s+in\s+[\w./-]+(?:(?:,\s*|\s+and\s+)[\w./-]+)*)?"
# (and its kind after it: "The give_back method should be renamed return_bike")
_OF_KIND = rf"(?:\s+(?:{_KIND}))?"
_SAID_RENAMES = (
    re.compile(
        rf"{_OLD}{_OF_KIND}{_WHERE}{_SHOULD_BE}(?:called|named|renamed(?:\s+to)?)\s+{_NEW}",
        re.I,
    ),
    re.compile(rf"{_OLD}{_OF_KIND}{_WHERE}\s+renamed\s+(?:to|as)\s+{_NEW}", re.I),
    # "Change the name cartTotal to orderTotal", "swap the name slugify for toSlug",
    # "give the method give_back a better name: return_bike"
    re.compile(
        rf"\b(?:change|swap|switch)\s+(?:the\s+)?name\s+(?:of\s+)?{_OLD}\s+(?:to|for|with)\s+"
        rf"{_NEW}",
        re.I,
    ),
    re.compile(
        rf"\bgive\s+(?:the\s+(?:{_KIND})\s+)?{_OLD}\s+(?:a\s+)?(?:\w+\s+)?name\s*[:,-]?\s+"
        rf"(?:like\s+|such as\s+)?{_NEW}",
        re.I,
    ),
    # "Could round_money become round_cents?", "House.thirsty is now needs_water"
    re.compile(rf"{_OLD}\s+(?:become|becomes|is now|should now be)\s+{_NEW}", re.I),
    # "House.thirsty -> House.needs_water": an arrow from a member named after its owner,
    # the owner said again or not (two names alone, "give_back -> return_bike", are a
    # pair whose files say which is there now: :func:`named_pair`)
    re.compile(rf"`?({_NAME})\.({_NAME})(?:\(\))?`?\s*(?:->|→|=>)\s*`?(?:{_NAME}\.)?{_NEW}"),
)
# "Please call zone_of fare_zone instead": the new name written as code ("call save_file
# twice" is no rename)
_CALL_IT = re.compile(
    rf"(?:^|[.!?;]\s+|\b(?:please|can you|could you|would you|and|then)\s+)call\s+"
    rf"(?:the\s+(?:{_KIND})\s+)?{_OLD}\s+{_NEW}",
    re.I,
)
# "let's call the function fare_zone instead", "call it fare_zone", "Rename it
# needs_water": the name there now said before (the new name written as code)
_CALL_THE = re.compile(
    rf"(?:^|[.!?;,]\s+|\b(?:please|can you|could you|would you|and|then|so|let'?s|let us)\s+)"
    rf"(?:call|rename)\s+(?:it|them|the\s+(?:{_KIND}))\s+{_NEW}",
    re.I,
)
# "cartTotal should be orderTotal": a rename only where both are written as code names
_BARE_RENAME = re.compile(rf"{_OLD}{_SHOULD_BE}{_NEW}")
# after a rename, another: "… and bar_a to bar_b", "Then rename …"
_ANOTHER = re.compile(
    rf"(?:.*\brenam|\s*,?\s*(?:and\s+)?`?{_NAME}`?\s+to\s+`?{_NAME})", re.I | re.S
)
# what a request may say beside a rename that the rename itself does: "and update
# everything that calls it", "change all the callers that use it"
_ITS_OWN = re.compile(
    r"\b(?:update|change|fix)\s+(?:everything|every\s+\w+|all(?:\s+the)?\s+\w+|the\s+\w+)"
    r"(?:\s+(?:that|which))?\s+(?:calls?|uses?|refers?\s+to|imports?)\s+it\b",
    re.I,
)
_RUN = re.compile(r"\b(?:run|execute)\b", re.I)
# a rename asked as whether one minds doing it: "Would you mind renaming slugify to toSlug?"
_MIND_RENAMING = re.compile(r"\bmind\s+renaming\b", re.I)
# words the patterns of a rename said another way may take for a name ("… should be
# renamed to …": "be")
_NO_NAMES = frozenset(("be", "been", "is", "was", "were", "are", "it", "this", "that", "now"))
# a question about a rename, not an ask for one ("Why was slugify renamed?"; not "Could
# you do the rename?": :func:`_asks_why`)
_WHY = re.compile(r"\b(?:why|when|who|whether)\b[^.!?]*\brenamed?\b", re.I)
_RENAME_ASKED = re.compile(r"[^.!?]*\brenamed?\b[^.!?]*\?")
# the ask beside a rename said another way: "Rename it.", "Please rename the method"
_RENAME_IT = re.compile(
    rf"\b(?:please\s+)?rename\s+(?:it|them|the\s+(?:{_KIND}))\b[^.!?]*[.!?]?", re.I
)
# a word that stands for a name said before: "Rename it to fare_zone"
_PRONOUNS = frozenset({"it", "this", "that", "them", "these", "those"})
# … or, in a rename said in other words, an article: "give the function a clearer name:
# rotate_log_files" (the rule had searched for every use of "a")
_STANDS_FOR = _PRONOUNS | {"a", "an"}
# a name said before a rename: in backticks, a member after its owner ("House.thirsty",
# not a file's name) or a name called or defined ("thirsty()", "function slugify(title)"),
# or a word that may be a name (kept where written as only code writes one: _CODE_NAME)
_SAID_NAME = re.compile(
    r"`([A-Za-z_]\w*)`"
    r"|\b(?:[A-Z]\w*\.)?([A-Za-z_]\w*)(?=\()|\b[A-Z]\w*\.([A-Za-z_]\w*)\b(?![.\w])"
    r"|\b([A-Za-z_]\w*)"
)
# a name only code writes: with an underscore, a capital inside or a digit
# ("give_back", "toSlug", "SPRING10")
_CODE_NAME = re.compile(r"_|[a-z][A-Z]|\d")
# a line of a file that is only a comment: ``# …``, ``// …``, `` * …``
_COMMENT = re.compile(r"^\s*(?:#|//|/?\*)")


@attrs.frozen
class Rename:
    """A rename the request asks for: the name there now and the name wanted; *plain*:
    the name is also an everyday word ("thirsty", "slugify"), which comments and prose
    may use in its plain sense; *member*: the request names it after its owner
    ("House.thirsty"), so only its definition and uses after a dot are it (not a local
    ``thirsty = house.thirsty()``)."""

    old: str
    new: str
    plain: bool
    member: bool = False
    alone: bool = True
    """The request, one sentence, asks nothing beside the rename but what the rename
    does ("and update everything that calls it", "keep the tests passing"): no other
    change, no run."""

    @property
    def search(self) -> str:
        """The search for every line that uses the name, as a whole word (a member's:
        after a dot or ``def``/``function``), a regular expression ripgrep reads too."""
        before = r"(?:\.|\b(?:def|function)\s+)" if self.member else r"\b"
        return rf"{before}{re.escape(self.old)}\b"

    def uses(self, line: str) -> bool:
        """Whether *line* uses the name, on a line that is more than a comment where the
        name is also a plain word."""
        if re.search(self.search, line) is None:
            return False
        return not (self.plain and _COMMENT.match(line))

    def made(self, line: str) -> str:
        """*line* with the name wanted in place of each use of the one there now."""
        if self.member:
            return re.sub(
                rf"(\.|\b(?:def|function)\s+){re.escape(self.old)}\b", rf"\g<1>{self.new}", line
            )
        return re.sub(self.search, self.new, line)


def asked_rename(prompt: str) -> Rename | None:
    """The one rename *prompt* asks for ("Rename the method give_back to return_bike"),
    or ``None``: a question, no rename, two, a file's rename ("Rename notes.txt to todo.txt"), or
    one of words that may not be names at all ("Rename the shop to tea"), where the
    request says no kind of name and neither name is written as code only writes one.
    A rename said in other words is read by :func:`_said_rename`."""
    found = list(_RENAME.finditer(prompt))
    if not found:
        return _said_rename(prompt)
    if not (asks_change(prompt) or _MIND_RENAMING.search(prompt)):
        return None  # "Why did you rename give_back to return_bike?"
    if len(found) != 1 or _ANOTHER.match(prompt, found[0].end()):
        return None
    m = found[0]
    # its owner said before it and a dot ("House.thirsty") or after it ("of House")
    dotted, old, new = m.group("dotted"), m.group("old"), m.group("new")
    kind, owner = m.group("kind"), dotted or m.group("of")
    if old.lower() in _PRONOUNS and not dotted:
        said = _one_said_before(prompt, m.start())
        if said is None:
            return None
        old = said
    if old == new or FILE_NAME.fullmatch(f"{dotted}.{old}" if dotted else old):
        return None
    quoted = "`" in m.group(0)
    if not (kind or owner or quoted or _CODE_NAME.search(old) or _CODE_NAME.search(new)):
        return None
    rest = _ITS_OWN.sub(" ", prompt[: m.start()] + " " + prompt[m.end() :])
    one_sentence = re.search(r"[.!?;]\s+\S", prompt.strip()) is None
    alone = one_sentence and not asks_for_change(rest) and _RUN.search(rest) is None
    return Rename(old, new, _CODE_NAME.search(old) is None, owner is not None, alone)


def _one_said_before(prompt: str, at: int) -> str | None:
    """The one name *prompt* writes as code before *at*, which an "it" there stands for
    ("zone_of is a confusing name … Rename it to fare_zone"), or ``None``: none said, or
    two, and which one "it" is not known (the rule once renamed every "it" in the
    project's prose)."""
    plainly, written = set(), set()
    for n in _SAID_NAME.finditer(prompt[:at]):
        if n.group(3) and FILE_NAME.fullmatch(n.group(0)):
            continue  # "README.md" is a file's name
        if n.group(1) or n.group(2) or n.group(3):
            plainly.add(n.group(1) or n.group(2) or n.group(3))
        elif _CODE_NAME.search(n.group(4)):
            written.add(n.group(4))
    # a name quoted, called or after its owner says it is one more plainly than a word
    # written as code does ("> function slugify(title) … moving our helpers to toX names")
    said = plainly or written
    return said.pop() if len(said) == 1 else None


def _asks_why(prompt: str) -> bool:
    """Whether *prompt* asks about a rename rather than for one: why, when or by whom
    ("Why was slugify renamed to toSlug?"), or in a question that asks no one to do
    anything ("Was zone_of renamed?"; not "Could you do the rename?")."""
    if _WHY.search(prompt):
        return True
    return any(asks_question(m.group(0).strip()) for m in _RENAME_ASKED.finditer(prompt))


def _said_rename(prompt: str) -> Rename | None:
    """The one rename *prompt* asks for in other words than "rename X to Y" ("give_back
    should be called return_bike", "I'd like slugify renamed to toSlug", "Please call
    zone_of fare_zone instead", "cartTotal should be orderTotal everywhere"), or
    ``None``: none, two, or names that may be words ("the shop should be called Tea
    Corner"). The prompt need not ask in a verb of changing: the words are the ask."""
    if _asks_why(prompt):
        return None  # "Why was slugify renamed to toSlug?"
    found = [
        m
        for pattern in _SAID_RENAMES
        for m in pattern.finditer(prompt)
        if m.group(2).lower() not in _NO_NAMES
    ]
    found += [m for m in _CALL_IT.finditer(prompt) if _CODE_NAME.search(m.group(3))]
    bare = [
        m
        for m in _BARE_RENAME.finditer(prompt)
        if _CODE_NAME.search(m.group(2)) and _CODE_NAME.search(m.group(3))
    ]
    said = [(m.start(), m.end(), m.group(1), m.group(2), m.group(3)) for m in [*found, *bare]]
    said += [
        (m.start(), m.end(), None, "it", m.group(1))
        for m in _CALL_THE.finditer(prompt)
        if _CODE_NAME.search(m.group(1))
    ]
    if len({(old, new) for _, _, _, old, new in said}) != 1:
        return None
    start, end, owner, old, new = said[0]
    if old.lower() in _STANDS_FOR and not owner:
        # "Please rename our shell function rotate_logs; call it rotate_log_files"
        before = _one_said_before(prompt, start)
        if before is None:
            return None
        old = before
    if old == new or FILE_NAME.fullmatch(f"{owner}.{old}" if owner else old):
        return None
    quoted = "`" in prompt[start:end]
    if not (owner or quoted or _CODE_NAME.search(old) or _CODE_NAME.search(new)):
        return None
    rest = _ITS_OWN.sub(" ", prompt[:start] + " " + prompt[end:])
    rest = _RENAME_IT.sub(" ", rest)
    one_sentence = re.search(r"[.!?;]\s+\S", rest.strip()) is None
    alone = one_sentence and not asks_for_change(rest) and _RUN.search(rest) is None
    return Rename(old, new, _CODE_NAME.search(old) is None, owner is not None, alone)


# a request that speaks of a name: "rename", "a new name", "to be called", "call it", an
# arrow from one name to another
_NAMING = re.compile(
    r"\b(?:re)?nam(?:e|es|ed|ing)\b|\bbe\s+called\b|\bcall\s+(?:it|them)\b|->|→|=>", re.I
)
# what an error message says: its names are the error's, not a rename's ("NameError: name
# 'totl' is not defined. Did you mean: 'total'?")
_ERROR_SAID = re.compile(
    r"\w(?:Error|Exception)\b|Traceback|not defined|not found|unbound variable|did you mean",
    re.I,
)


@attrs.frozen
class NamedPair:
    """A request about a name that writes two names as only code writes them ("I want
    round_money to be called round_cents", "cartTotal → orderTotal", "rotate_logs needs
    a new name, rotate_log_files") but not in words that say which is the name there
    now: the project's files say it, the one of the two they use."""

    one: str
    other: str
    alone: bool

    @property
    def search(self) -> str:
        """The search for every line that uses either name, as a whole word."""
        return rf"\b(?:{re.escape(self.one)}|{re.escape(self.other)})\b"

    def rename(self, lines: list[str]) -> Rename | None:
        """The rename of the name *lines* (a search's) use to the one they do not, or
        ``None`` where they use both or neither."""
        used = {
            name
            for name in (self.one, self.other)
            if any(re.search(rf"\b{name}\b", line) for line in lines)
        }
        if len(used) != 1:
            return None
        old = used.pop()
        new = self.other if old == self.one else self.one
        return Rename(old, new, plain=False, alone=self.alone)


def named_pair(prompt: str) -> NamedPair | None:
    """The two names a request about a name writes, where :func:`asked_rename` reads no
    rename in its words: a request that speaks of naming (:data:`_NAMING`), is no
    question of why or when, quotes no error, and writes exactly two names as only code
    writes them, no file's; ``None`` otherwise."""
    if _NAMING.search(prompt) is None or _asks_why(prompt) or _ERROR_SAID.search(prompt):
        return None
    # a question last, unless it asks someone to do it ("Could you do the rename?")
    last = re.split(r"(?<=[.!?])\s+", prompt.strip())[-1]
    if last.endswith("?") and asks_question(last) and not asks_change(prompt):
        return None
    files = " ".join(m.group(1) for m in FILE_NAME.finditer(prompt))
    names = list(dict.fromkeys(n for n in code_names(prompt) if n not in files))
    if len(names) != 2:
        return None
    one, other = names
    rest = prompt
    for name in names:
        rest = rest.replace(name, " ")
    rest = _RENAME_IT.sub(" ", _ITS_OWN.sub(" ", rest))
    rest = re.sub(r"\brenam(?:e|ed|ing)\b", " ", rest, flags=re.I)
    one_sentence = re.search(r"[.!?;]\s+\S", rest.strip()) is None
    alone = one_sentence and not asks_for_change(rest) and _RUN.search(rest) is None
    return NamedPair(one, other, alone)
