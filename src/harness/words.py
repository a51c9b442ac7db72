"""The words every layer shares: the provider names, what kind each is, the
permission modes, Claude Code's tool names read as harness's, the words a prompt asks for
a change or a run with (the command it says fails is :mod:`harness.failing`'s).

A leaf: it imports nothing of harness and nothing heavy, so the command line offers
them as choices without loading the message vocabulary. :mod:`harness.messages`
re-exports them; this module is their one owner.
"""

from __future__ import annotations

import re
from typing import Literal

from harness.failing import ERROR_SHOWN, REPORTS_FAILURE, failing_command

__all__ = [
    "ASKS_CHANGE",
    "ASKS_RUN",
    "ASK_STARTS",
    "CLAUDE_TOOLS",
    "HOSTED_PROVIDERS",
    "NOTHING_TO_CHANGE",
    "PERMISSION_MODES",
    "PROVIDERS",
    "PROVIDER_KINDS",
    "STATE_SAID",
    "UNMAPPED_CLAUDE_TOOLS",
    "PermissionMode",
    "ProviderKind",
    "asks_for_change",
    "asks_question",
    "asks_to_write",
    "claude_aliases",
    "claude_name",
    "harness_tool",
    "like_words",
    "listed_files",
    "name_words",
    "path_words",
    "same_file",
    "wants_value",
]

PROVIDERS = ("ollama", "openai", "anthropic", "gemini", "local")
"""Every provider name a request may carry: the one list the model worker, the
conversation and the command line read."""

ProviderKind = Literal["server", "embedded", "hosted"]
PROVIDER_KINDS: dict[str, ProviderKind] = {
    "ollama": "server",
    "openai": "hosted",
    "anthropic": "hosted",
    "gemini": "hosted",
    "local": "embedded",
}
"""What each provider is: a ``server`` on this machine (its address and model come from
``OLLAMA_*``), the ``embedded`` model harness runs itself, or ``hosted`` elsewhere (it
needs an API key and bills by the token). Code that must treat them differently asks
the kind, never the name."""

HOSTED_PROVIDERS: tuple[str, ...] = tuple(p for p in PROVIDERS if PROVIDER_KINDS[p] == "hosted")
"""The providers that need an API key."""

PermissionMode = Literal["ask", "auto", "plan", "deny"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("ask", "auto", "plan", "deny")
"""How calls that change something are decided: ``ask`` the user, ``auto`` run what no
rule denies, ``plan`` switch the changing tools off, ``deny`` refuse what would ask."""

CLAUDE_TOOLS: dict[str, tuple[str, ...]] = {
    "Read": ("read_file",),
    "Write": ("write_file",),
    "Edit": ("edit_file",),
    "MultiEdit": ("edit_file",),
    "Glob": ("find_files",),
    "Grep": ("search_text",),
    "LS": ("list_dir",),
    # a Bash allowance covers the live command's input and its end too
    "Bash": ("run_cmd", "send_input", "end_process"),
    "BashOutput": ("send_input",),
    "KillShell": ("end_process",),
    "KillBash": ("end_process",),
    "WebFetch": ("get_url",),
    "WebSearch": ("search_web",),
    "Task": ("spawn_agent",),
    "Agent": ("spawn_agent",),
    "Skill": ("use_skill",),
    "AskUserQuestion": ("get_user_input",),
    "ExitPlanMode": ("submit_plan",),
}
"""Claude Code's tool name -> the harness tools that do its job; the first is the one a
hook matches by that name. The one table of Claude Code's names: the tool lists of agent
and command files (``harness.custom``) and the hooks' matchers and payloads
(``harness.hooks``) both read it."""

UNMAPPED_CLAUDE_TOOLS = frozenset(
    {"TodoWrite", "TodoRead", "NotebookEdit", "NotebookRead", "SlashCommand"}
)
"""Claude Code tools harness has nothing like; naming one is reported, never ignored."""

_ALIASES: dict[str, tuple[str, ...]] = {}
for _claude, _tools in CLAUDE_TOOLS.items():
    _ALIASES[_tools[0]] = (*_ALIASES.get(_tools[0], ()), _claude)


def claude_aliases(tool: str) -> tuple[str, ...]:
    """The Claude Code names a hook matcher may use for harness tool *tool*, the name
    its payload shows first (``edit_file``: ``Edit``, ``MultiEdit``); ``()`` for a tool
    with none."""
    return _ALIASES.get(tool, ())


def claude_name(tool: str) -> str | None:
    """The Claude Code name a hook sees harness tool *tool* by, if it has one."""
    aliases = _ALIASES.get(tool)
    return aliases[0] if aliases else None


def harness_tool(name: str) -> str:
    """The harness tool a hook matching Claude Code's *name* runs for (*name* itself when
    it is no Claude Code name)."""
    tools = CLAUDE_TOOLS.get(name)
    return tools[0] if tools else name


ASK_STARTS = (
    r"(?:^\s*(?:(?:[-*+•]|\d+[.)])\s+)?(?:\[ \]\s*)?|[.!?;:,]\s*|\s[-–—]\s+|"
    r"\b(?:and|then|so|please|pls|can you|could you|would you|"
    r"will you|can u|could u|you to|can we|could we|shall we|let'?s|let us|just|also)\s+)"
)
"""Where an ask starts in a prompt (a pattern, read with ``re.M``): a line (an item of a
list or a to-do not yet done too: "- [ ] rename House.thirsty to needs_water", "2. bump
the pool"; not one done, "- [x] …"), a sentence or a clause (after a dash too: "also,
tools/hours.sh - make the default 3"), or after "and", "then", "so", "please", "can
you", "let's", "just", "also" ("It's on the screen as well, so change it there too",
"Let's rename slugify as toSlug"). In "tell me if add is correct" the verb is a
function's name, not an ask."""

ASKS_CHANGE = re.compile(
    ASK_STARTS + r"(?:fix|change|make(?! sure\b)|set|update|edit|modify|correct|replace|"
    r"rename|remove|delete|add|bump|turn|switch|increase|decrease|raise|lower|enable|"
    r"disable|refactor|move|insert|append|swap|convert|rewrite|give(?! me\b| us\b)|put|"
    r"use|reduce|drop|allow|limit|upgrade|downgrade|pin|point|restore|revert|scale|repair|"
    r"amend|adjust|alter|tweak|extend|shorten|lengthen|cut|flip|toggle|halve|triple|"
    # "Could you double pool_size?" (not "double-check it", "double quotes")
    r"double(?![- ]check)(?!\s+quotes?\b)|"
    # "Sort it out.", "please sort it." (not "sort them by name")
    r"sort (?:it|this|that|them)(?:\s+out)?(?=\s*(?:[.!?,;]|$|please\b))|"
    # "Up the stock service retries to 5.": "up" as a verb, a value after it
    r"up(?=\s+(?:the|its|our|their)\s[^.?!\n]*?\bto\s+[£$€]?\d)|"
    # "Take the Post Office Stores off the van's round"
    r"take(?!\s+a\s+look\b)(?=\s[^.?!\n]{0,60}?\b(?:off|out)\b))\b",
    re.I | re.M,
)
"""A prompt that asks for a change ("Fix it.", "In calc.py, make add return a + b.", "...
and set it to 30", "Give the cache 512mb"); "Why does make fail?" and "Give me the total"
ask none. Read through :func:`asks_for_change`, which also hears a change said as how
something should be."""

# a sentence saying how a thing should be ("The WELCOME5 coupon should take 10% off now,
# not 5%.", "Calls to the stock service should be tried 5 times."): a dot inside a word
# ("config.json") does not end one
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=\w))+[.!?]*")
_SHOULD = re.compile(
    r"\b(?:should|must|needs? to|ought to|supposed to|meant to)\s+(?:now\s+|also\s+|only\s+)?\w",
    re.I,
)
# a condition that starts a sentence ("When checkout calls the stock service, it should
# try 5 times"): no wondering about what follows it
_CONDITION = re.compile(r"^(?:when|whenever|if|once|after|before)\b[^,]*,\s*", re.I)
# before its "should", the user as the one who is to do it: "I need to ring her about a
# change", "I must say": what they will do, not how the files should be ("I need to be
# able to book on Sundays" is)
_USER_TO_DO = re.compile(r"\bI\s+(?:really\s+|just\s+)?$")
# a sentence saying how a thing is from now on, which is a change to make in the files
# ("Our mail goes out through smtp.mailhub.example from now on.", "Green tea costs 5 now
# in the sample order."); a sentence that starts with "Now" uses it to go on, not to date
_NEW_STATE = re.compile(
    r"\b(?:from now on|now|no longer|any ?more|these days|going forward)\b(?!\s*,?\s*(?:what|"
    r"why|how|which|where|when|who)\b)",
    re.I,
)
# a count said in digits or words ("6", "six", "a dozen", "half")
_COUNT = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a dozen|half)"
# a sentence saying which value is wanted over the one there is ("Keep a dozen old logs
# rather than six.", "Can the chart show two days instead of just one?", "Just bake 24,
# not 36."), that a value is enough ("Every four hours is plenty.") or that a thing needs
# changing ("… so it needs changing there as well."), was otherwise ("it used to be
# 400") or goes up or down ("Deposit goes up to 60.", "…, up from 30"), or that a thing
# starts ("We're
# starting to lend magazines.", "We'll begin opening on Sundays."), which the folder's
# files are to say too; not a thought starting ("I'm starting to think add is wrong.")
_WANTED = re.compile(
    rf"\b(?:instead of|rather than)\b"
    # ("…, not 36", and a figure straight before it: "croissants 24 not 36")
    rf"|(?:,\s*|(?<=\d)\s+)not\s+(?:every\s+|just\s+|only\s+)?{_COUNT}\b"
    r"|\b(?:is|are|'s|be)\s+(?:plenty|enough)\b"
    r"|\bneeds?\s+(?:changing|updating|fixing|correcting|amending|adjusting)\b"
    # (as a note of what it was: "services.stock.retries: 5 (was 3)")
    r"|\bused to be\b|\(\s*(?:it\s+)?was\s+[£$€]?\d"
    r"|\b(?:goes|go|going|went|gone)\s+(?:up|down)\s+(?:to|from|by)\b"
    r"|,\s*(?:up|down)\s+from\s+\d"
    # (a verb, not the noun: "Summarise the changes from 1.2 to 1.3")
    r"|(?<!the )(?<!these )(?<!those )(?<!any )(?<!all )"
    r"\b(?:changes|changed|is changing|moves|moved)\s+(?:to|from)\s+[£$€]?\d"
    r"|(?:'re|\bare|'m|\bam|'s|\bis|'ll|\bwill|\bgoing\s+to)\s+(?:now\s+)?(?:start|begin)"
    r"(?:ning|ing)?\s+(?:to\s+(?!(?:think|wonder|see|feel|worry|suspect|believe|doubt|"
    r"understand|notice|realis|realiz)\w*)\w|\w+ing\b)"
    # a value put up or down ("We're putting the deposit up to £60."), a thing that still
    # says the old one ("pricing.py and settings.toml both still say 0.2"), or a way of
    # doing it asked "instead" ("Repeat the alert every 4 hours instead.")
    r"|\b(?:put|puts|putting|bring|brings|bringing|push|pushes|pushing)\s+(?:[\w'-]+\s+){0,4}?"
    r"(?:up|down)\s+(?:to|by)\s+[£$€]?\d"
    r"|\bstill\s+(?:says?|said|has|have|shows?|reads?|uses?|lists?|gives?|keeps?|sets?)\b"
    r"|\binstead\s*[.!?]*$",
    re.I,
)
# a setting and the state wanted, said alone, as a line of a to-do list or a commit
# message says it: after a file's name and a colon ("kiosk/shelves.json: high_contrast
# on."), or a name only code writes ("gift_wrap off", "`debug`: on please"); not "Carry
# on.", "Log off."
STATE_SAID = re.compile(
    r"^(?:[\w./-]+\.[A-Za-z]\w*\s*:\s*(?!(?:which|what|who|where|how|why|is|are)\b)"
    r"[\w-]+(?:\s+[\w-]+){0,2}|`\w+`|(?-i:[a-z]+(?:_\w+|[A-Z]\w*)))"
    r"\s*[:=]?\s+(?:on|off)\s*(?:,?\s*please)?\s*[.!]?$",
    re.I | re.M,
)
# a sentence that wants a thing otherwise without a verb of changing: a name it is to
# have ("cartTotal → orderTotal", "Could round_money become round_cents?", "I'd like
# slugify renamed to toSlug", "Please call zone_of fare_zone instead", "rotate_logs needs a
# new name, rotate_log_files"; the new name written as code), a state wanted or not
# ("We want it on.", "The kiosk needs high contrast turned on.", "We need a bigger
# pool", "We don't want that.", "it shouldn't be"), a value going from one to another
# ("VAT goes from 0.2 to 0.23"), a thing let do more ("Let it retry 5 times."), or the
# files told a fact ("please tell the back office settings that"), a value written as
# going to another ("deposit: 50 -> 60", "£4.20 → £4.50", "24h -> 48h"), or a setting's
# line written after its file's name ("station.toml: deposit = 60")
_OTHERWISE = re.compile(
    r"(?:->|→|=>|\brenamed\s+(?:to|as)|\bbecomes?|\bbe\s+called|\bcall\s+`?\w+`?|"
    r"\bnew\s+name[,:]?)\s+`?(?-i:[a-z]+(?:_\w+|[A-Z]\w*)|[A-Z]\w*_\w*)\b"
    r"|[£$€]?\d[\d.]*%?\s*[a-z]{0,3}\s*(?:->|→|=>)\s*[£$€]?\d"
    r"|\b(?:want|need|like)s?\s+(?:it|them|this|that)\s+(?:on|off|back|gone|enabled|disabled)\b"
    r"|\b(?:want|need|like)s?\s+(?:(?!to\b)[\w'-]+\s+){1,4}?(?:turned|switched|changed|"
    r"raised|lowered|removed|added|updated|fixed|renamed|replaced|moved|bumped|increased|"
    r"decreased|enabled|disabled)\b"
    r"|\b(?:want|need)s?\s+(?:a|an|the)\s+(?:bigger|smaller|larger|longer|shorter|higher|lower|"
    r"faster|slower)\b"
    r"|\b(?:goes|go|going|went|gone|moves?|moving|rises|rising|rose|falls|falling|fell)\s+"
    r"from\s+[£$€]?\d[\d.]*\S*\s+"
    r"(?:[a-z]+\s+)?to\b"
    # a setting written as its line after its file's name: "station.toml: deposit = 60"
    r"|^[\w./-]+\.[A-Za-z]\w*\s*:\s*`?[\w.-]+\s*=\s*[^\s=][^=\n]*`?\s*$"
    r"|\blet\s+(?:it|them)\s+\w+\s+(?:up\s+to\s+|for\s+)?[£$€]?\d"
    r"|\btell\s+(?:the|our|its)\s+(?:[\w'-]+\s+){0,3}?(?:settings|config(?:uration)?|files?|"
    r"scripts?|code)\b"
    # a state not wanted: "settings.toml still has debug switched on. We don't want that.",
    # "it shouldn't be"
    r"|\b(?:don't|do not|doesn't|does not)\s+want\s+(?:that|it|this|them)\b"
    r"|\b(?:should|must)(?:n't| not)\s+(?:be|say|have|show|use|keep)\b"
    # a name or a way preferred: "We'd rather have toSlug than slugify", "the name
    # round_cents suits it better"
    r"|(?:'d|\bwould)\s+rather\b|\bprefer(?:s|red)?\b"
    r"|\b(?:suits?|fits?|reads?)\s+(?:it\s+|them\s+|us\s+)?better\b"
    # a thing let do something from now on, said as a sentence's verb: "Let the hours
    # script show the top three boats by default." (not "Let the summary script count
    # them.", which asks for a run, nor "Let me know")
    r"|^(?:please\s+)?let\s+(?!me\b|us\b|'s\b)[^.!?\n]*\b(?:by default|always|from now on)\b"
    rf"|{STATE_SAID.pattern}",
    re.I | re.M,
)
# a sentence asking for something as a question ("Can the chart show two days instead of
# one?"), not one asking about it ("Why does it show two days instead of one?")
# ("Mind fixing the script?", "Any chance you could fix it?" too)
# (after a few words that set when or where: "Starting tomorrow, could the counter bake
# go from 36 to 24?")
_REQUEST = re.compile(
    r"^(?:[^,?\n]{1,40},\s*)?(?:please\s+)?(?:can|could|would|will|mind|any chance)\b", re.I
)
# the same asked in a sentence's own clause, after a dash, comma or semicolon: "Probably a
# typo in skipper.sh - can you get it going again?"
_REQUEST_CLAUSE = re.compile(
    r"(?:[,;:]|\s[-–—])\s*(?:please\s+)?(?:(?:can|could|would|will) you|mind|any chance)\b",
    re.I,
)


def _asks_you(sentence: str) -> bool:
    """Whether *sentence* asks someone to do something: it starts so ("Can the chart show
    two days?", "Could you fix it?") or its own clause does ("Probably a typo - can you
    get it going again?"); asked to tell or explain ("Can you tell me why?"), it asks a
    question."""
    asks = _REQUEST.match(sentence) or _REQUEST_CLAUSE.search(sentence)
    return asks is not None and _WONDERS.search(sentence) is None


# before its wanted value, a sentence that asks or wonders about it: "Explain why it keeps
# six rather than twelve." ("when" and "if" start a condition there: "When the log is
# rotated, keep twelve rather than six.")
_WONDERS_ABOUT = re.compile(
    r"\b(?:why|what|how|whether|which|who|explain|tell|describe|summari[sz]e|think|wonder|"
    r"know)\b",
    re.I,
)
# before its "should", a sentence that asks or wonders about it: "Explain what add
# should return.", "I think the tests should pass."
_ABOUT = re.compile(
    r"\b(?:why|what|how|whether|which|who|when|where|if|explain|tell|describe|"
    r"summari[sz]e|think|wonder|know)\b"
    # verbs that are nouns too ("before each show"): only where the sentence starts
    r"|^(?:please\s+)?(?:show|list|say|check|see)\b",
    re.I,
)
# where the last clause before a "should" starts: after a dash or a semicolon ("… calls
# akw, which doesn't exist - it should be awk": the "which" is another clause's)
_CLAUSE = re.compile(r".*(?:\s[-–—]\s|;\s*)", re.S)


# a prompt that wonders about a failure rather than reporting it ("… fails with: … Why?");
# "what" that shows rather than asks does not ("Here's what the build does now:")
_WONDERS = re.compile(
    r"\b(?:why|(?<!here's )(?<!here is )(?<!this is )(?<!that's )(?<!that is )what|how|"
    r"explain|tell me|wonder)\b",
    re.I,
)


def asks_for_change(prompt: str, *, plainly: bool = False) -> bool:
    """Whether *prompt* asks for a change: a clause that starts with a verb of changing
    (:data:`ASKS_CHANGE`), or a sentence, not a question, that says how something should
    be ("Bulk prices should start at 20 units, not 10.", "Bookings are supposed to close
    at noon."; not "Why should add return a + b?", "Explain what add should return.",
    nor what the user is to do: "I need to ring her") or how it is from now on ("Green tea
    costs 5 now in the sample order."; not "Now, explain add."); or that shows a command
    failing (:func:`failing_command`) and does not ask why or what it means: a failure
    reported is one to fix; or, unless *plainly*, a sentence that wants one value over
    the one there is, says a value is enough, a thing needs changing or a thing starts
    (:data:`_WANTED`: "Keep a dozen old logs rather than six.", "Every four is plenty.",
    "We're starting to lend magazines."), or wants a thing otherwise with no verb of
    changing (:data:`_OTHERWISE`: "cartTotal → orderTotal", "The kiosk needs high
    contrast turned on.", "Let it retry 5 times.", "We'd rather have toSlug than
    slugify", "deposit: 50 -> 60", "kiosk/shelves.json: high_contrast on."), or reports
    a thing failing (:data:`REPORTS_FAILURE`: "The sample order crashes on an unknown
    coupon"); or that pastes an error as a program prints it ("AttributeError:
    …", "line 12: akw: command not found", "NameError in schedule.py") and does not ask
    about it.

    The test the conversation's endings and the small model's nudges share: only then is
    a claimed change taken at its word, or a missing one said. The nudges ask *plainly*:
    measured (bench local-tasks, the 9 prompts of the fresh set that say a change only
    so), pushed to edit on them the 1.5B model won none, twice duplicated lines of the
    right file and said done; the endings read them all, so that a run which changed
    nothing on such a prompt does not end as done (4 recorded runs that did). A thing
    that starts, heard plainly too, was measured the same way (the two prompts of the
    fresh set so said, one a half: pushed to edit, the model duplicated a line of one
    of the files to change, or edited a file that was not one, and both runs ended
    done, where they had ended not done). The changes said otherwise and the errors
    pasted are the endings' too: measured (``python -m bench change-words``, half B, a
    half none of them was made on), they hear 51 of 55 change prompts where 47 were
    (50 before the arrows, the notes of what a value was and the states said alone,
    made on the ninth wording set), and no more questions; a preference, a value a file
    still says, a failure reported (made on the sixth wording set's misses) hear no more
    of half B, nor of a seventh set written before them, and no more questions."""
    if ASKS_CHANGE.search(prompt):
        return True
    if failing_command(prompt) is not None and not _asks_about(prompt):
        return True  # "I get this: $ bash tools/x.sh … command not found. It worked fine."
    for found in _SENTENCE.findall(prompt):
        sentence = found.strip()
        said = _SHOULD.search(sentence) or _NEW_STATE.search(sentence, 1)
        before = _CONDITION.sub("", _CLAUSE.sub("", sentence[: said.start()])) if said else ""
        if said and not sentence.endswith("?") and not _wonders(_ABOUT, before):
            own = _USER_TO_DO.search(sentence[: said.start()])
            if not own or sentence[said.end() - 1 :].lower().startswith("be able"):
                return True
        if not plainly and (_wants(_WANTED, sentence) or _wants(_OTHERWISE, sentence)):
            return True
    # an error pasted ("Getting this from python3 report.py: AttributeError: …"), or a
    # failure reported ("The sample order crashes on an unknown coupon."), asked nothing
    # about ("… Why?")
    failed = ERROR_SHOWN.search(prompt) or REPORTS_FAILURE.search(prompt)
    return not plainly and failed is not None and not _asks_about(prompt)


def _asks_about(prompt: str) -> bool:
    """Whether *prompt* wonders about what it shows ("why", "what", "tell me") or ends on
    a question that asks no one to do anything ("… ValueError: bad. Is that expected?";
    not "… Can you fix it?", nor "Probably a typo - can you get it going again?")."""
    if _WONDERS.search(prompt):
        return True
    # "Did you mean: 'low_stock'?" is the program's hint, not the user's question
    said = (s.strip() for s in _SENTENCE.findall(prompt))
    sentences = [s for s in said if s and not s.lower().startswith("did you mean")]
    last = sentences[-1] if sentences else ""
    return last.endswith("?") and not _asks_you(last)


# "who" and "which" that start a clause saying more of a thing named before them, not a
# question: "As a grower who only looks every other day, I want …", "TAX_RATE, which
# pricing.py reads, should be 0.23"; "Tell me who changed it" still wonders
_RELATIVE = re.compile(
    r"(?:,\s*|\b(?:a|an|the|any|every|each|some|those|these|our|my|your|their)\s+"
    r"(?:[\w'-]+\s+){1,2}|\b(?:some|any|every|no)(?:one|body)\s+|\bpeople\s+)"
    r"(?:who|which)\b",
    re.I,
)


def _wonders(pattern: re.Pattern[str], before: str) -> bool:
    """Whether *before* (the words of a sentence before what it wants) asks or wonders
    (*pattern*), a relative "who" or "which" aside (:data:`_RELATIVE`)."""
    return pattern.search(_RELATIVE.sub(" ", before)) is not None


def _wants(pattern: re.Pattern[str], sentence: str) -> bool:
    """Whether *sentence* wants what *pattern* reads (a value over the one there is,
    :data:`_WANTED`; a thing otherwise, :data:`_OTHERWISE`), asked for and not asked
    about: "Can the chart show two days instead of one?" does, "Why does it show two
    days instead of one?" does not."""
    wanted = pattern.search(sentence)
    if wanted is None or _wonders(_WONDERS_ABOUT, sentence[: wanted.start()]):
        return False
    return not sentence.endswith("?") or _asks_you(sentence)


def wants_value(sentence: str) -> bool:
    """Whether *sentence* wants one value over the one there is, with no verb of changing
    (:data:`_WANTED`: "Could it keep twelve instead?", "Keep a dozen rather than six.")."""
    return _wants(_WANTED, sentence.strip())


# a sentence that starts by asking: "what temperature does the sourdough bake at"
_ASKING_START = re.compile(r"^(?:what|which|where|when|why|how|who|whose|whom)\b", re.I)


def asks_question(prompt: str) -> bool:
    """Whether *prompt* asks a question: a sentence of it that ends with a question mark
    and asks no one to do anything ("How long can someone keep a bike?"; not "Can you
    fix it?"), or that starts with a word of asking ("what temperature does the
    sourdough bake at"). A prompt may ask a question and a change too."""
    for found in _SENTENCE.findall(prompt):
        sentence = found.strip()
        if sentence.endswith("?") and not _asks_you(sentence):
            return True
        if _ASKING_START.match(sentence):
            return True
    return False


NOTHING_TO_CHANGE = re.compile(
    r"\balready\b|\bno (?:change|fix|edit)s? (?:is |are |was |were )?(?:needed|necessary|"
    r"required)\b|\b(?:does|do|did)(?: not|n't) need\b|\bnothing (?:needs|needed|to "
    r"(?:change|fix))\b|\b(?:is|are|was) (?:already )?correct\b|\bas (?:it|they) should\b",
    re.I,
)
"""A reply that says the code needs no change ("add already returns a + b", "no change
is needed", "as it should"): read by the conversation's endings (an edit that changed
nothing, then this) and the small model's nudges alike."""


# a request to write a file it names: the verb, at most four words that are not a
# preposition ("a file", "an", "a new test"), then the file: a path with a suffix, a
# dotfile or a Makefile-like name ("Write test_fees.py with ...", "Add an .editorconfig
# so ...", "Make a file data/warehouses.txt that ..."; not "Add a line to config.json",
# nor "Make scripts/backup.sh keep ...": "make" and the file alone make it do something);
# the last word may end in a comma or colon that puts the file after it ("Write me a
# script, tools/product.sh.", "Add a test: test_x.py"; not "Add a note, then run x.py")
_ASKS_WRITE = re.compile(
    ASK_STARTS + r"(?:create|write|add|generate|make(?=\s+\w+\s))\s+"
    r"(?:(?!(?:to|in|into|of|from|for|on|at|with)\b)[\w-]+\s+){0,4}?"
    r"(?:(?!(?:to|in|into|of|from|for|on|at|with)\b)[\w-]+[,:]\s+)?`?"
    r"((?:[\w.-]+/)*(?:[\w-]+\.[A-Za-z]\w{0,7}|\.[A-Za-z][\w.-]*|[A-Z]\w*file))(?![\w/])",
    re.I | re.M,
)


# a file the prompt calls new: "in a new test_schedule.py", "a new file tools/x.sh"
_NEW_FILE = re.compile(
    r"\ba\s+new\s+(?:file\s+)?(?:(?:called|named)\s+)?`?"
    r"((?:[\w.-]+/)*(?:[\w-]+\.[A-Za-z]\w{0,7}|\.[A-Za-z][\w.-]*|[A-Z]\w*file))(?![\w/])",
    re.I,
)


def asks_to_write(prompt: str) -> str | None:
    """The file *prompt* asks to have written ("Write test_fees.py with a test that
    ...", "Create a Makefile whose test target ...", "Could you put a test in a new
    test_schedule.py?"), or ``None``."""
    found = _ASKS_WRITE.search(prompt) or _NEW_FILE.search(prompt)
    return found.group(1) if found else None


ASKS_RUN = re.compile(ASK_STARTS + r"(?:run|execute|test)\b", re.I | re.M)
"""A prompt that asks for a run ("Run the tests", "... and execute build.sh")."""

# the files a prompt lists together, as the places of a change (read by the small
# model's nudges and by the endings)
_A_FILE = r"`?[\w./-]*[A-Za-z_][\w-]*\.[A-Za-z]\w*`?"
# two or more files in a row: "a.py and b.toml", "in a.py, in b.js and in c.json", "in
# a.toml and in the stock service's url in b.json" (a few words, then "in" or "of"), "in
# a.toml (log_level) and in b.json (log.level)"
_BRACKETED = r"\s*\([^()\n]{1,40}\)"
_BRACKET_NOTE = rf"(?:{_BRACKETED})?"
_FILE_LIST = re.compile(
    rf"{_A_FILE}{_BRACKET_NOTE}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?:(?:in|to)\s+)?(?:the\s+)?"
    rf"(?:[\w' -]{{1,40}}?\s(?:in|of)\s+)?{_A_FILE}{_BRACKET_NOTE})+"
)
_ONE_FILE = re.compile(_A_FILE)


def listed_files(prompt: str) -> list[str]:
    """The files *prompt* lists together (two or more joined by "and" or commas), in
    order, without backticks or a leading ``./``."""
    found: list[str] = []
    for run in _FILE_LIST.finditer(prompt):
        # a note in brackets names a key, not a file ("(log.level)")
        for name in _ONE_FILE.findall(re.sub(_BRACKETED, "", run.group(0))):
            path = name.strip("`").removeprefix("./").rstrip(".")
            if path not in found:
                found.append(path)
    return found


def same_file(path: str, named: str) -> bool:
    """Whether the workspace path *path* is the file a prompt names as *named* (the same
    path, or one ends the other: ``src/cart.js`` and ``cart.js``)."""
    path = path.removeprefix("./")
    return path == named or path.endswith("/" + named) or named.endswith("/" + path)


# Words of a file name too common to make two files alike.
_PLAIN_WORDS = frozenset(
    {"file", "files", "test", "tests", "main", "index", "data", "the", "new", "old", "lib"}
)


def name_words(name: str) -> set[str]:
    """The words of a file or folder name without its extension: ``map_script.txt`` is
    {map, script}, ``dailySheet.js`` is {daily, sheet}, ``.github`` is {github}; words
    shorter than three letters and plain ones ("file", "test", "main") left out."""
    return _words_of(name[1:] if name.startswith(".") else name.split(".")[0])


def path_words(path: str) -> tuple[set[str], set[str]]:
    """The words of a workspace path's file name (:func:`name_words`), and those of its
    folders' whole names: ``web/map_script.js`` is {map, script} and {web}."""
    *folders, name = path.split("/")
    return name_words(name), {w for folder in folders for w in _words_of(folder)}


def _words_of(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()
    return {w for w in re.split(r"[^a-z0-9]+", spaced) if len(w) >= 3} - _PLAIN_WORDS


def like_words(a: str, b: str) -> bool:
    """Whether two words name the same thing: equal, one the other with an ``s``
    (``tool`` and ``tools``), or one of five letters or more that the other begins
    (``station`` and ``stations``, ``water`` and ``watering``; not ``back`` and
    ``backup``)."""
    if a == b or a + "s" == b or b + "s" == a:
        return True
    return min(len(a), len(b)) >= 5 and (a.startswith(b) or b.startswith(a))
