"""The section a scoped query names, and the names that mean the same section.

A host that asks a document for a section by its name ("balance sheet", "risk factors") wants
that section first, not whatever talks about it most. A query names a section when every word of
the query is in the section's title and they are most of its words ("balance sheet" names
"Consolidated Balance Sheets", not "Off-Balance Sheet Arrangements" nor "Balance Sheet Hedging of
Foreign Currency Assets"; stems count: "statement" is "Statements"). Words that do not tell a
document's sections apart do not count: those in parentheses ("(in millions)"), those of the
document's own title ("Walmart Inc. Consolidated Balance Sheets" in Walmart's report) and those
in many of its titles ("The Coca-Cola Company and Subsidiaries Consolidated …" heads every
statement of Coca-Cola's). A question written as a sentence that names financial statements by
a standard name, its words together ("… by using the income statement."), or asks a measure read
from them ("… the quick ratio …"), names those statements however long it is (`statements_named`);
a statement is a titled table, not a section that talks about it. Measured in
benchmarks/results/statements.md and docs/benchmarks.md.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from indexer.store import lexical
from indexer.store.database import ParagraphRow, Store
from indexer.tokens import POSSESSIVE, SENTENCE_END, query_terms

NAMED_SHARE = 0.6  # the query's words make up at least this share of the title's
# A statement's name makes up at least this share of its title's words from the name on
# ("Statements of Operations and Comprehensive Income").
STATEMENT_SHARE = 0.5
COMMON_TITLES = 3  # a word in this many of a document's titles does not tell them apart
OPENING_PARAGRAPHS = (
    5  # a named section's opening: its short leading lines and first paragraph of substance, within these
)
LEAD_TOKENS = 40  # a text paragraph this short is a leading line ("(In millions)"), not substance
MAX_KEPT = 1000  # document versions whose title words are kept
LEADING_LINES = 2  # leading lines given with a named section's substance

# The standard names of the primary financial statements (US GAAP and IFRS, IAS 1): each report
# titles its statements with one of them, and a reader asks with another ("income statement" for
# "Consolidated Statements of Operations").
SAME_NAMES: tuple[tuple[str, ...], ...] = (
    (
        "income statement",
        "statement of income",
        "statement of operations",
        "statement of earnings",
        "statement of profit or loss",
        "profit and loss statement",
        "p&l statement",
    ),
    ("balance sheet", "statement of financial position", "statement of financial condition"),
    ("cash flow statement", "statement of cash flows"),
    ("statement of shareholders equity", "statement of stockholders equity", "statement of changes in equity"),
)
# Measures an analyst computes from the primary statements, and the statements (in SAME_NAMES)
# each is read from: a question that asks for one ("Has the quick ratio improved?", "Is it a
# capital-intensive business?") is answered from those statements, as one that names them. An
# adjusted (non-GAAP) measure is not: the report reconciles it in a table of its own.
READ_FROM: tuple[tuple[tuple[str, ...], tuple[int, ...]], ...] = (
    (
        ("gross margin", "operating margin", "net margin", "profit margin", "effective tax rate", "interest coverage"),
        (0,),
    ),
    (
        (
            "working capital",
            "quick ratio",
            "current ratio",
            "debt to equity",
            "debt-to-equity",
            "net debt",
            "pp&e",
            "ppne",
        ),
        (1,),
    ),
    (
        ("free cash flow", "free cashflow", "capital expenditure", "capital expenditures", "capex", "capital spending"),
        (2,),
    ),
    (
        (
            "return on assets",
            "return on equity",
            "roa",
            "roe",
            "asset turnover",
            "inventory turnover",
            "days sales outstanding",
            "days payable outstanding",
            "days inventory outstanding",
            "cash conversion cycle",
            "capital intensive",
            "capital-intensive",
            "capital intensity",
        ),
        (0, 1),
    ),
    (("ebitda", "dividend payout ratio"), (0, 2)),
)
_ADJUSTED = frozenset({"adjusted", "non-gaap", "core", "organic"})  # a measure after one is not from the statements
_PARENTHESES = re.compile(r"\([^()]*\)")
_RUN = re.compile(r"\w+(?:[-'’]\w+)*")  # a word as written: "off-balance" is one, not "balance"
_JOINED = re.compile(r"[-'’]")
_SENTENCE_BREAK = re.compile(r"(?<=[.?!;:])\s+")
_Key = tuple[int, int]
_Phrasing = list[frozenset[str]]  # each word of a query as the stems it may be indexed as


@dataclass(frozen=True)
class _Title:
    words: list[str]
    aside: frozenset[str]  # words that do not tell the section apart from the document's others
    starts: frozenset[str]  # `lexical.start` of each word: which query words it may match once stemmed


class SectionNames:
    """Finds the section a scoped query names. Keeps each document version's titles as words
    (a query scoped to 16 filings looks at 3,000 titles) and the stems of the standard names."""

    def __init__(self, store: Store):
        self.store = store
        self._titles: dict[tuple[int, int], dict[_Key, _Title]] = {}  # (doc_id, version) → its titles
        self._names: list[list[_Phrasing]] | None = None  # SAME_NAMES, stemmed

    def section_named(self, query: str, doc_ids: list[int]) -> _Key | None:
        """`(doc_id, sec_id)` of the section of these documents that the query names, if one is:
        the title with the largest share of the query's words (in any of its names: `SAME_NAMES`);
        on a tie, the query's own words before another name's, then the first in reading order. A
        query that is a statement's name alone gets the statement (`_statement`)."""
        if not (terms := query_terms(query)):
            return None
        asked = _phrasing(terms, self.store.keywords.stems(terms))
        words = frozenset().union(*asked)
        for group, names in enumerate(self._standard_names()):
            named = any(frozenset().union(*name) == words for name in names if name)
            if named and (key := self._statement(group, doc_ids)):
                return key
        return self._best(self._phrasings(asked), doc_ids)

    def statements_named(self, query: str, doc_ids: list[int]) -> list[_Key]:
        """The financial statements a question written as a sentence names by a standard name ("… by
        using the income statement.", "… within the balance sheet and the cash flow statement?"), or
        asks a measure of that is read from them ("Has the quick ratio improved?": `READ_FROM`), in
        the order it says them: for each, the statement of these documents (`_statement`). The
        words stand together in one sentence, small words included ("income on the statement of
        cash flows" names the cash flow statement only, and an "off-balance sheet" item no balance
        sheet). Keywords ("balance sheet risk") are left to `section_named`: a keyword query that
        goes beyond a title asks for something else."""
        if not SENTENCE_END.search(query):
            return []
        sentences = [
            [POSSESSIVE.sub("", w) for w in _RUN.findall(part.lower())] for part in _SENTENCE_BREAK.split(query)
        ]
        sayings = [(_RUN.findall(name), (g,), False) for g, group in enumerate(SAME_NAMES) for name in group] + [
            (_RUN.findall(measure), groups, True) for measures, groups in READ_FROM for measure in measures
        ]
        plain = {w for ws in [*sentences, *(words for words, _, _ in sayings)] for w in ws if not _JOINED.search(w)}
        stems = self.store.keywords.stems(sorted(plain))

        def stemmed(words: list[str]) -> list[set[str]]:
            return [set(stems.get(w, [w])) if w in plain else {w} for w in words]

        said_in = [stemmed(sentence) for sentence in sentences]
        said: list[tuple[tuple[int, int, int], int]] = []  # ((sentence, word, nth statement) where said, statement)
        for words, groups, measure in sayings:
            name = stemmed(words)
            for n, sentence in enumerate(said_in):
                at = [
                    i
                    for i in range(len(sentence) - len(name) + 1)
                    if all(sentence[i + j] & w for j, w in enumerate(name))
                    and not (measure and i > 0 and sentences[n][i - 1] in _ADJUSTED)
                ]
                if at:
                    said += [((n, min(at), k), g) for k, g in enumerate(groups)]
        order = [g for _, g in sorted(said)]
        keys = [self._statement(g, doc_ids) for g in dict.fromkeys(order)]
        return [key for key in keys if key is not None]

    def _statement(self, group: int, doc_ids: list[int]) -> _Key | None:
        """The section of these documents that is the statement SAME_NAMES[group] names: a title
        holding one of its names that opens with a table, list or picture (not "Off-Balance Sheet
        Arrangements" nor a note's paragraph), the name most of the title's words from the name on
        (the company's name and "Consolidated" before it do not count: "Key Balance Sheet Data"
        gives way to "Acme Corp Consolidated Balance Sheets"), and first in reading order on a tie
        (a statement before a note restating it)."""
        shares: dict[_Key, float] = {}
        for share, key in self._shares(self._standard_names()[group], doc_ids, lead_free=True):
            shares[key] = max(share, shares.get(key, 0.0))
        ranked = sorted(shares, key=lambda k: (-shares[k], k))
        for key in (k for k in ranked if shares[k] >= STATEMENT_SHARE):
            rows = self.store.paragraphs_by_id(opening(self.store, key)[:1])
            if any(row.kind != "text" for row in rows.values()):
                return key
        return None

    def _best(self, phrasings: list[_Phrasing], doc_ids: list[int]) -> _Key | None:
        """The title that the most of one of these phrasings' words make up (see `section_named`)."""
        best: tuple[float, _Key] | None = None
        for share, key in self._shares(phrasings, doc_ids):
            if share >= NAMED_SHARE and (best is None or share > best[0]):
                best = (share, key)
        return best[1] if best else None

    def _shares(
        self, phrasings: list[_Phrasing], doc_ids: list[int], lead_free: bool = False
    ) -> Iterator[tuple[float, _Key]]:
        """For each phrasing and each title of these documents that holds all its words, in reading
        order: the share of the title's words they make up, those that do not tell titles apart
        aside, and with `lead_free` those before the first of them too."""
        starts = [[{lexical.start(s) for s in word} for word in phrasing] for phrasing in phrasings if phrasing]
        # Only titles that hold a word like each of some phrasing's words are stemmed (the cost of a lookup).
        titles = {
            key: title
            for key, title in self._titles_of(doc_ids).items()
            if any(all(word & title.starts for word in phrasing) for phrasing in starts)
        }
        stems = self.store.keywords.stems(sorted({w for t in titles.values() for w in t.words}))
        for phrasing in filter(None, phrasings):
            asked = frozenset().union(*phrasing)
            for key, t in titles.items():
                said = [bool(asked & set(stems.get(w, [w]))) for w in t.words]
                first = said.index(True) if lead_free and any(said) else 0
                kept = [w for w, a in zip(t.words[first:], said[first:], strict=True) if w not in t.aside or a]
                words = {s for w in kept for s in stems.get(w, [w])}
                if asked <= words:
                    yield len(asked) / len(words), key

    def _phrasings(self, query: _Phrasing) -> list[_Phrasing]:
        """The query, then, for each standard name the query says, the query with each other name
        of that statement in its place."""
        asked = frozenset().union(*query)
        phrasings, seen = [query], {asked}
        for group in self._standard_names():
            said = next((words for name in group if (words := frozenset().union(*name)) <= asked), None)
            if said is None:
                continue
            rest = [word for word in query if not word <= said]
            for name in group:
                phrasing = rest + name
                if (key := frozenset().union(*phrasing)) not in seen:
                    seen.add(key)
                    phrasings.append(phrasing)
        return phrasings

    def _standard_names(self) -> list[list[_Phrasing]]:
        """SAME_NAMES, each name as the stems its words may be indexed as."""
        if self._names is None:
            names = [[query_terms(name) for name in group] for group in SAME_NAMES]
            stems = self.store.keywords.stems(sorted({w for group in names for name in group for w in name}))
            self._names = [[_phrasing(name, stems) for name in group] for group in names]
        return self._names

    def _titles_of(self, doc_ids: list[int]) -> dict[_Key, _Title]:
        docs = {doc_id: doc for doc_id in doc_ids if (doc := self.store.document(doc_id)) is not None}
        kept = {doc_id: self._titles.get((doc_id, doc.version)) for doc_id, doc in docs.items()}
        if missing := {doc_id: docs[doc_id] for doc_id, titles in kept.items() if titles is None}:
            found = _titles(self.store, {doc_id: doc.title or "" for doc_id, doc in missing.items()})
            if len(self._titles) > MAX_KEPT:
                self._titles.clear()
            for doc_id, doc in missing.items():
                kept[doc_id] = self._titles[(doc_id, doc.version)] = {k: t for k, t in found.items() if k[0] == doc_id}
        return {key: t for titles in kept.values() if titles for key, t in titles.items()}


def _phrasing(words: list[str], stems: dict[str, list[str]]) -> _Phrasing:
    return [frozenset(stems.get(w, [w])) for w in words]


def _titles(store: Store, own_titles: dict[int, str]) -> dict[_Key, _Title]:
    """Each titled section's words of these documents (doc_id → the document's own title), and
    those of them that do not tell it apart from the document's other sections: the document's own
    title's, and the leading words it shares with COMMON_TITLES or more titles ("Walmart Inc.
    Consolidated" in "Walmart Inc. Consolidated Balance Sheets", "… Statements of Income", …)."""
    titles = {
        key: query_terms(_PARENTHESES.sub(" ", title)) for key, title in store.section_titles(list(own_titles)).items()
    }
    own = {doc_id: set(query_terms(title)) for doc_id, title in own_titles.items()}
    leads = Counter((doc_id, tuple(ws[:n])) for (doc_id, _), ws in titles.items() for n in range(1, len(ws) + 1))
    out: dict[_Key, _Title] = {}
    for key, ws in titles.items():
        shared = max((n for n in range(1, len(ws) + 1) if leads[(key[0], tuple(ws[:n]))] >= COMMON_TITLES), default=0)
        out[key] = _Title(ws, frozenset(own[key[0]] | set(ws[:shared])), frozenset(lexical.start(w) for w in ws))
    return out


def opening(store: Store, key: _Key) -> list[int]:
    """Paragraph ids of a section's opening: its first paragraph of substance (a table, a list, a
    picture or prose), then the short lines just before it that label it ("(In millions)",
    "2022 2021 2020"), at most LEADING_LINES of them: a query naming a statement gets the
    statement first, and the lines that say its units and columns right after. A section of a
    few short lines alone opens with them, and with the table that follows under the next
    heading if one does (a statement whose first row label was read as a heading: "Net sales",
    "Assets")."""
    doc_id, sec_id = key
    rows = store.paragraphs(doc_id, sec_id, 0, OPENING_PARAGRAPHS - 1)
    at = next((i for i, row in enumerate(rows) if _substance(row)), None)
    if at is None and len(rows) < OPENING_PARAGRAPHS:
        after = store.paragraphs(doc_id, sec_id + 1, 0, OPENING_PARAGRAPHS - 1 - len(rows))
        table = next((i for i, row in enumerate(after) if _substance(row)), None)
        if table is not None and after[table].kind != "text":
            rows, at = rows + after[: table + 1], len(rows) + table
    if at is None:
        return [row.id for row in rows]
    return [rows[at].id] + [row.id for row in rows[max(at - LEADING_LINES, 0) : at]]


def _substance(row: ParagraphRow) -> bool:
    return row.kind != "text" or row.n_tokens > LEAD_TOKENS
