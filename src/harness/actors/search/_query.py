"""What a query asks for: its terms, and which of them are explicit identifiers.

An identifier is a token a human would not write in prose: ``num_ctx``,
``asyncio.TaskGroup``, ``getElementById``, ``http2``, or anything in backticks.
Identifiers are what the relevance floor demands first; the code-oriented sources
(Stack Exchange, GitHub) get a distilled query of identifiers and rare terms,
since their search matches every word and prose words only narrow it to nothing.
"""

from __future__ import annotations

import re

import attrs

__all__ = ["Query", "parse_query"]

_TOKEN = re.compile(r"`([^`]+)`|([A-Za-z0-9_][\w.:/+#-]*[\w+#]|[A-Za-z0-9_])")
_IDENT = re.compile(
    r"_|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]|\w\.\w|::|\w\(|[A-Z]{2,}[a-z]"  # shapes of code
)
_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"^v?[\d.]+$")  # a version (3.11) is not an identifier

# Words that carry no topic; the ranking ignores them and the floor never picks them.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further get gets getting got had has have having he her here hers him his
    how i if in into is it its itself just me more most my no nor not now of off on once
    only or other our out over own same she should so some such than that the their them
    then there these they this those through to too under until up use used using very vs
    was we were what when where which while who whom why will with would you your yours
    example examples way ways work works working want need set""".split()  # noqa: SIM905
)


@attrs.frozen
class Query:
    """A parsed query.

    Attributes:
        text: the query as given.
        terms: its topic words, lowercased, in order, without stopwords or repeats.
        identifiers: the explicit identifiers, lowercased, as written (``asyncio.taskgroup``).
    """

    text: str
    terms: tuple[str, ...]
    identifiers: tuple[str, ...]

    def distilled(self, rare: tuple[str, ...] = ()) -> str:
        """The query for code search: identifiers and *rare* terms, else every term."""
        words = [*self.identifiers, *(t for t in rare if t not in self.identifiers)]
        return " ".join(words) if words else " ".join(self.terms) or self.text


def parse_query(text: str) -> Query:
    """Split *text* into topic terms and identifiers (see the module docstring)."""
    terms: list[str] = []
    identifiers: list[str] = []
    for m in _TOKEN.finditer(text):
        quoted, bare = m.group(1), m.group(2)
        raw = (quoted or bare or "").strip().strip(".,;:!?")
        if not raw:
            continue
        low = raw.lower()
        code = quoted is not None or (_IDENT.search(raw) and not _NUMBER.match(raw))
        if code and low not in identifiers:
            identifiers.append(low)
        for word in _WORD.findall(low):
            if word not in STOPWORDS and word not in terms:
                terms.append(word)
    return Query(text=text, terms=tuple(terms), identifiers=tuple(identifiers))
