"""Documents as a retrieval unit: the documents a whole-folder question points to by name.

In a folder of filings of a few companies over a few years, the paragraph that answers "3M's
FY2018 capital expenditure" reads much like its siblings in 3M's other years; what tells the
right filing apart is in its title (issuer, kind, period: `indexer.titles.first_page`). A document's
description (its title and the period, date or version it states) is matched against the
question's words, each word weighted by how few descriptions hold it (BM25's idf), so a name or
a year that only a few documents carry counts, and a word every description holds ("Form",
"report") does not. When a question writes names, only they count, with its numbers (a year):
words capitalised inside a sentence ("Corning", "FY2018", "10-Q", "OBS"), and a sentence's
capitalised first word when a description holds it ("Corning's …", not "Summarize …"). A question
without names points to a document only when two or more of its words are in the description
("the seed lexicon"): a single topic word also turns up in titles ("internet", "program",
"most"), and pointing by it sent a third of MMLongBench's questions, none of which names its
document, to the wrong one (`benchmarks.retrieval.pointing`). The documents matched best are searched once more on
their own, and that ranking is fused with the whole folder's (`indexer.search.hybrid`): hits
concentrate in the documents the question names, while a question that names none ranks across
all of them. A question that names none but asks about slides ("in slide 4", "the presentation")
points to the decks: paged documents of few words a page.
"""

from __future__ import annotations

import math
import re

from indexer.store.database import Store
from indexer.titles.card import DECK_TOKENS_PER_PAGE
from indexer.tokens import POSSESSIVE, SENTENCE_END, query_terms

POINTED = 3  # a question points to the documents matched nearly as well as the best (CLOSE), when
CLOSE = 0.8  # there are at most POINTED of them and they are fewer than half the folder's
MIN_DOCS = 3  # a folder of fewer documents needs no pointing
MIN_WORDS = 2  # a question without names points with this many words of a description
MIN_NAME = 3  # a name this long or longer that no document holds is worth saying so
RARE_ROWS = 20  # a name this few paragraphs of the folder hold, or fewer, is some documents' own
SHOUTED = 0.3  # a question with more of its words in capitals than this is shouted, not naming
# A question about slides ("in slide 4", "the presentation") asks a deck: pages of few words each.
# What a question calls the document it asks about ("in slide 4", "this paper", "the manual"), and
# the kinds of card (`indexer.titles.card`) that answer to it.
_KIND_ASKED = (
    (re.compile(r"\b(?:slides?|slideshow|presentation|deck)\b", re.I), frozenset({"slides"})),
    (re.compile(r"\b(?:this|the|our|that)\s+(?:paper|article|work|study)\b", re.I), frozenset({"paper"})),
    (re.compile(r"\b(?:manual|user guide|handbook|help guide)\b", re.I), frozenset({"manual", "guide"})),
    (re.compile(r"\b(?:brochure|prospectus)\b", re.I), frozenset({"brochure"})),
    (re.compile(r"\b(?:this|the)\s+report\b", re.I), frozenset({"report"})),
)
_RUN_END = re.compile(r"[?.!,;:)]$")  # a name ends at a sentence's or a clause's end
_SPLIT = re.compile(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])")  # "fy2018" → "fy 2018", "2q23" → "2 q 23"
_TOKEN = re.compile(r"\S+")
_YEAR = re.compile(r"(?:19|20)\d\d")
_SHORT_YEAR = re.compile(r"^(fy|cy)['’]?(\d{2})$", re.I)  # a fiscal or calendar year by its last two digits
CENTURY_TURN = 70  # a year written short from this on is of the 1900s


def _words(text: str) -> set[str]:
    return {part for term in query_terms(text) for part in _SPLIT.sub(" ", term).split()}


def _whole(token: str) -> str:
    """A word as one key, whatever its dots and hyphens: "U.S." → "us", "Q2" → "q2", "3M" → "3m"."""
    return re.sub(r"[\W_]", "", POSSESSIVE.sub("", token)).lower()


def _tokens(query: str, ends: list[bool] | None = None) -> list[tuple[str, str, frozenset[str]]]:
    """Each word of the query as written, with how it is written ("name": capitalised inside a
    sentence, two capitals, letters with digits; "start": capitalised only as a sentence's first
    word; "number"; "word") and its parts as descriptions are indexed ("FY2018" and "FY18" → fy,
    2018). A query not written as sentences ("Contoso capital expenditure 2031") has no sentence starts.
    `ends`, when given, gets for each word whether a name cannot go on past it (a sentence's or a
    clause's end: "… for General Mills? CCC is …")."""
    out: list[tuple[str, str, frozenset[str]]] = []
    starts = bool(SENTENCE_END.search(query))
    for token in _TOKEN.findall(query):
        word = POSSESSIVE.sub("", token.strip("\"'()[]{},.?!:;"))
        parts = frozenset(p for p in _words(word) if "_" not in p)  # "10-K" is 10 and k, as in titles
        if year := _SHORT_YEAR.match(word):  # "FY21" is fiscal 2021, not the 21st of a month
            century = "19" if int(year.group(2)) >= CENTURY_TURN else "20"  # "FY99" is 1999
            parts = frozenset({year.group(1).lower(), century + year.group(2)})
        capitals = sum(c.isupper() for c in word)
        mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        if parts:
            kind = (
                "number"
                if word.isdigit()
                else "name"
                if capitals >= 2 or mixed or (capitals and not starts)
                else "start"
                if capitals
                else "word"
            )
            out.append((word, kind, parts))
            if ends is not None:
                ends.append(bool(_RUN_END.search(token)))
        starts = bool(SENTENCE_END.search(token))
    return out


def _name_runs(query: str) -> list[list[tuple[str, str, frozenset[str]]]]:
    """The names a query writes, each as its run of words ("Godfrey Phillips India Limited"; a
    sentence's first word with them, which may be a name or not)."""
    runs: list[list[tuple[str, str, frozenset[str]]]] = [[]]
    ends: list[bool] = []
    for (word, kind, parts), end in zip(_tokens(query, ends), ends, strict=True):
        if kind in ("name", "start"):
            runs[-1].append((word, kind, parts))
        if (kind not in ("name", "start") or end) and runs[-1]:
            runs.append([])
    return [run for run in runs if run]


def names_written(query: str) -> list[str]:
    """The words of letters only that a query writes as names ("Microsoft", "AMEX"; not "FY2018",
    a sentence's first word, nor a short one like "US"), as written, once each."""
    return list(
        dict.fromkeys(
            word for word, kind, _ in _tokens(query) if kind == "name" and word.isalpha() and len(word) >= MIN_NAME
        )
    )


class DocumentMatch:
    def __init__(self, store: Store):
        self.store = store
        self._generation = -1  # the store generation the postings below were read at
        self._postings: dict[str, set[int]] = {}  # a description's word → the documents whose description holds it
        self._n = 0  # readable documents
        self._kinds: dict[str, set[int]] = {}  # a card's kind → its documents

    def pointed(self, query: str, doc_ids: list[int] | None) -> list[int]:
        """The documents (of `doc_ids`, or all) the question names by their description, best
        first, or else by a name only their text holds; empty when it names none, or the folder is
        too small for it to matter."""
        return self._described(query, doc_ids) or self._holding_a_rare_name(query, doc_ids)

    def _holding_a_rare_name(self, query: str, doc_ids: list[int] | None) -> list[int]:
        """The documents whose text alone holds a name the question writes ("What is the benefit of
        level-2 in the system that has passed TRUCS?"): a name few paragraphs of the folder hold
        (RARE_ROWS), in at most POINTED documents, fewer than half of those searched."""
        n = self._n if doc_ids is None else len(doc_ids)
        words = query.split()
        if n < MIN_DOCS or sum(w.isupper() for w in words) > SHOUTED * len(words):
            return []  # a question written in capitals writes no names by them
        found: list[set[int]] = []
        for name in names_written(query):
            terms = query_terms(name)
            if not terms or any(count > RARE_ROWS for count in self.store.keywords.row_counts(terms).values()):
                continue
            hits = self.store.keywords.search(name, RARE_ROWS, doc_ids)
            rows = self.store.paragraphs_by_id([pid for pid, _ in hits])
            holders = {row.doc_id for row in rows.values()}
            if 0 < len(holders) <= POINTED and len(holders) < n / 2:
                found.append(holders)
        if not found:
            return []
        common = set.intersection(*found)
        return sorted(common or sorted(found, key=len)[0])

    def _described(self, query: str, doc_ids: list[int] | None) -> list[int]:
        self._refresh()
        scope = set(doc_ids) if doc_ids is not None else None
        n = self._n if scope is None else len(scope)
        # Each word with the documents whose description holds it; a first word only when one does.
        tokens = [
            (kind, parts, held)
            for word, kind, parts in _tokens(query)
            if (held := self._holders(word, parts)) or kind != "start"
        ]
        names = [held for kind, _, held in tokens if kind in ("name", "start")]
        # With names, they and the numbers count; without, every word, and two must meet in one description.
        asked = [(parts, held) for kind, parts, held in tokens if kind != "word" or not names]
        # Several years ("between FY2021 and FY2022", "FY2018 - FY2020") span the documents of each:
        # the latest year's document is chosen after the rest of the question has named them.
        years = sorted({part for _, parts, _ in tokens for part in parts if _YEAR.fullmatch(part)})
        if len(years) >= 2:
            asked = [(parts, held) for parts, held in asked if not parts & set(years)]
        if n < MIN_DOCS:
            return []
        if not asked:
            return self._kind_asked(query, scope, n)
        weights: dict[int, float] = {}
        matched: dict[int, int] = {}  # words of the question (not their parts) a description holds
        for parts, held in asked:
            holders = held & scope if scope is not None else held
            idf = math.log(1 + (n - len(holders) + 0.5) / (len(holders) + 0.5)) * len(parts) if holders else 0.0
            for doc_id in holders:
                weights[doc_id] = weights.get(doc_id, 0.0) + idf
                matched[doc_id] = matched.get(doc_id, 0) + 1
        named = set().union(*names)
        weights = {d: w for d, w in weights.items() if (d in named if names else matched[d] >= MIN_WORDS)}
        if not weights:
            return self._kind_asked(query, scope, n)
        best = max(weights.values())
        close = sorted((d for d, weight in weights.items() if weight >= CLOSE * best), key=lambda d: -weights[d])
        if len(years) >= 2:
            close = self._of_the_year(close, years[-1])
        # Words most descriptions hold ("Form", "report") match many alike: they point nowhere.
        if not (len(close) <= POINTED and len(close) < n / 2):
            return []
        return self._holding_its_names(query, close, doc_ids)

    def _of_the_year(self, close: list[int], year: str) -> list[int]:
        """Of documents a question names alike, those of the latest year it names, when it names
        several: a report of a year sets the years before it beside it, and the one of an earlier
        year cannot tell of the later."""
        latest = [d for d in close if d in self._postings.get(year, set())]
        return latest or close

    def _holding_its_names(self, query: str, pointed: list[int], doc_ids: list[int] | None) -> list[int]:
        """The pointed documents whose text holds every word of the names that pointed to them, where
        the folder's text holds the word: "GODFREY PHILLIPS INDIA LIMITED" points to the deck titled
        "… in India" by one word, but its pages never name Godfrey Phillips, which another
        document's do. A name the question writes apart from them ("USD", "EBITDA") is no document's."""
        chosen = set(pointed)
        words = [
            word
            for run in _name_runs(query)
            if any(word.isalpha() and self._holders(word, parts) & chosen for word, _, parts in run)
            for word, kind, parts in run
            if word.isalpha() and len(word) >= MIN_NAME and (kind == "name" or self._holders(word, parts) & chosen)
        ]
        held = [word for word in dict.fromkeys(words) if self.store.keywords.holds_word(word, doc_ids)]
        return [d for d in pointed if all(self.store.keywords.holds_word(word, [d]) for word in held)]

    def _kind_asked(self, query: str, scope: set[int] | None, n: int) -> list[int]:
        """A question that names no document but says what kind it is ("in slide 4", "this paper",
        "the manual") points to the documents of that kind (their cards'), when they are fewer than
        half the documents searched: it is about one of them."""
        kinds = frozenset().union(*(asked for said, asked in _KIND_ASKED if said.search(query)))
        found = set().union(*(self._kinds.get(kind, set()) for kind in kinds)) if kinds else set()
        pointed = sorted(found & scope if scope is not None else found)
        return pointed if len(pointed) < n / 2 else []

    def _holders(self, word: str, parts: frozenset[str]) -> set[int]:
        """The documents whose description holds a word of the question: one of its parts of two
        characters or more ("FY2018": 2018; "COVID-19": covid), or, when its parts are single
        characters ("3M", "U.S.", "Q2"), the word itself: "Q2" is not in "10-Q, quarter ended July 2"."""
        long = [part for part in parts if len(part) > 1]
        if long:
            return set().union(*(self._postings.get(part, set()) for part in long))
        return set(self._postings.get(_whole(word), set()))

    def _refresh(self) -> None:
        """The descriptions' postings, read again after the index changed."""
        if self._generation == self.store.generation:
            return
        postings: dict[str, set[int]] = {}
        docs = [d for d in self.store.documents() if d.readable]
        for doc in docs:
            named = doc.title if doc.title and not doc.named_by_file else ""  # a file's name says nothing here
            described = f"{named} {doc.detail or ''} {doc.issuer or ''}"  # who wrote it: "the report by Aaron Smith"
            for word in _words(described) | {_whole(token) for token in _TOKEN.findall(described)}:
                postings.setdefault(word, set()).add(doc.doc_id)
        self._generation, self._postings, self._n = self.store.generation, postings, len(docs)
        self._kinds = {}
        for d in docs:
            self._kinds.setdefault(d.kind or "", set()).add(d.doc_id)
            if (d.n_pages or 0) >= 2 and d.n_tokens < DECK_TOKENS_PER_PAGE * (d.n_pages or 0):
                self._kinds.setdefault("slides", set()).add(d.doc_id)  # pages of few words: a deck, whatever its title
