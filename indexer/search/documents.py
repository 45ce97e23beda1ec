"""Documents as a retrieval unit: the documents a whole-folder question points to by name.

In a folder of filings of a few companies over a few years, the paragraph that answers "3M's
FY2018 capital expenditure" reads much like its siblings in 3M's other years; what tells the
right filing apart is in its title (issuer, kind, period: `indexer.parse.titles`). A document's
description (its title and the period, date or version it states) is matched against the
question's words, each word weighted by how few descriptions hold it (BM25's idf), so a name or
a year that only a few documents carry counts, and a word every description holds ("Form",
"report") does not. When a question writes names, only they count: words capitalised inside a
sentence ("Corning", "FY2018", "10-Q", "OBS"), and numbers (a year) beside them. A question
without names points to a document only when two or more of its words are in the description
("the seed lexicon"): a single topic word also turns up in titles ("internet", "program",
"most"), and pointing by it sent a third of MMLongBench's questions, none of which names its
document, to the wrong one (`benchmarks/pointing.py`). The documents matched best are searched once more on
their own, and that ranking is fused with the whole folder's (`indexer.search.hybrid`): hits
concentrate in the documents the question names, while a question that names none ranks across
all of them.
"""

from __future__ import annotations

import math
import re

from indexer.store.database import Store
from indexer.tokens import SENTENCE_END, query_terms

POINTED = 3  # a question points to the documents matched nearly as well as the best (CLOSE), when
CLOSE = 0.8  # there are at most POINTED of them and they are fewer than half the folder's
MIN_DOCS = 3  # a folder of fewer documents needs no pointing
MIN_WORDS = 2  # a question without names points with this many words of a description
_SPLIT = re.compile(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])")  # "fy2018" → "fy 2018", "2q23" → "2 q 23"
_TOKEN = re.compile(r"\S+")
_POSSESSIVE = re.compile(r"['’]s$", re.I)


def _words(text: str) -> set[str]:
    return {part for term in query_terms(text) for part in _SPLIT.sub(" ", term).split()}


def _named(query: str) -> tuple[set[str], set[str]]:
    """The query's words written as names (a capital not merely starting a sentence, or two, or a
    digit with a letter: "3M", "FY2018"), and its bare numbers ("2018"). A query that is not
    written as sentences ("Contoso capital expenditure 2031") has no sentence starts."""
    names: list[str] = []
    numbers: list[str] = []
    starts = bool(SENTENCE_END.search(query))
    for token in _TOKEN.findall(query):
        word = _POSSESSIVE.sub("", token.strip("\"'()[]{},.?!:;"))
        capitals = sum(c.isupper() for c in word)
        mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        if word.isdigit():
            numbers.append(word)
        elif capitals >= 2 or (capitals and not starts) or mixed:
            names.append(word)
        starts = bool(SENTENCE_END.search(token))
    return _words(" ".join(names)), _words(" ".join(numbers))


class DocumentMatch:
    def __init__(self, store: Store):
        self.store = store
        self._generation = -1  # the store generation the postings below were read at
        self._postings: dict[str, set[int]] = {}  # a description's word → the documents whose description holds it
        self._n = 0  # readable documents

    def pointed(self, query: str, doc_ids: list[int] | None) -> list[int]:
        """The documents (of `doc_ids`, or all) the question names by their description, best
        first; empty when it names none, or the folder is too small for it to matter."""
        self._refresh()
        scope = set(doc_ids) if doc_ids is not None else None
        n = self._n if scope is None else len(scope)
        names, numbers = _named(query)
        asked = names | numbers if names else _words(query)
        if n < MIN_DOCS or not asked:
            return []
        weights: dict[int, float] = {}
        matched: dict[int, int] = {}
        for word in asked:
            holders = self._postings.get(word, set())
            if scope is not None:
                holders = holders & scope
            if holders:
                idf = math.log(1 + (n - len(holders) + 0.5) / (len(holders) + 0.5))
                for doc_id in holders:
                    weights[doc_id] = weights.get(doc_id, 0.0) + idf
                    matched[doc_id] = matched.get(doc_id, 0) + 1
        named = {d for word in names for d in self._postings.get(word, ())}  # a number alone names nothing
        weights = {d: w for d, w in weights.items() if (d in named if names else matched[d] >= MIN_WORDS)}
        if not weights:
            return []
        best = max(weights.values())
        close = sorted((d for d, weight in weights.items() if weight >= CLOSE * best), key=lambda d: -weights[d])
        # Words most descriptions hold ("Form", "report") match many alike: they point nowhere.
        return close if len(close) <= POINTED and len(close) < n / 2 else []

    def _refresh(self) -> None:
        """The descriptions' postings, read again after the index changed."""
        if self._generation == self.store.generation:
            return
        postings: dict[str, set[int]] = {}
        docs = [d for d in self.store.documents() if d.readable]
        for doc in docs:
            named = doc.title if doc.title and not doc.named_by_file else ""  # a file's name says nothing here
            for word in _words(f"{named} {doc.detail or ''}"):
                postings.setdefault(word, set()).add(doc.doc_id)
        self._generation, self._postings, self._n = self.store.generation, postings, len(docs)
