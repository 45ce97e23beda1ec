"""Documents as a retrieval unit: the documents a whole-folder question points to by name.

In a folder of filings of a few companies over a few years, the paragraph that answers "3M's
FY2018 capital expenditure" reads much like its siblings in 3M's other years; what tells the
right filing apart is in its title (issuer, kind, period: `indexer.parse.titles`). A document's
description (its title and the period, date or version it states) is matched against the
question's words, each word weighted by how few descriptions hold it (BM25's idf), so a name or
a year that only a few documents carry counts, and a word every description holds ("Form",
"report") does not. The documents matched best are searched once more on their own, and that
ranking is fused with the whole folder's (`indexer.search.hybrid`): hits concentrate in the
documents the question names, while a question that names none ranks across all of them.
"""

from __future__ import annotations

import math
import re

from indexer.store.database import DocumentRow, Store
from indexer.tokens import query_terms

POINTED = 3  # a question points to the documents matched nearly as well as the best (CLOSE), when
CLOSE = 0.8  # there are at most POINTED of them and they are fewer than half the folder's
MIN_DOCS = 3  # a folder of fewer documents needs no pointing
_SPLIT = re.compile(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])")  # "fy2018" → "fy 2018", "2q23" → "2 q 23"


def _words(text: str) -> set[str]:
    return {part for term in query_terms(text) for part in _SPLIT.sub(" ", term).split()}


class DocumentMatch:
    def __init__(self, store: Store):
        self.store = store
        self._described: dict[tuple[int, int], set[str]] = {}  # (doc_id, version) → its description's words
        self._docs: tuple[int, list[DocumentRow]] = (-1, [])  # the readable documents, at a store generation

    def pointed(self, query: str, doc_ids: list[int] | None) -> list[int]:
        """The documents (of `doc_ids`, or all) the question names by their description, best
        first; empty when it names none, or the folder is too small for it to matter."""
        if self._docs[0] != self.store.generation:
            self._docs = (self.store.generation, [d for d in self.store.documents() if d.readable])
        scope = set(doc_ids) if doc_ids is not None else None
        docs = [d for d in self._docs[1] if scope is None or d.doc_id in scope]
        if len(docs) < MIN_DOCS or not (asked := _words(query)):
            return []
        described = {d.doc_id: self._description(d) for d in docs}
        held = {w: sum(w in words for words in described.values()) for w in asked}
        n = len(docs)
        idf = {w: math.log(1 + (n - k + 0.5) / (k + 0.5)) for w, k in held.items() if k}
        weights = {doc_id: sum(idf.get(w, 0.0) for w in words & asked) for doc_id, words in described.items()}
        best = max(weights.values())
        close = sorted((d for d, weight in weights.items() if weight >= CLOSE * best), key=lambda d: -weights[d])
        # Words most descriptions hold ("Form", "report") match many alike: they point nowhere.
        return close if best > 0 and len(close) <= POINTED and len(close) < n / 2 else []

    def _description(self, doc: DocumentRow) -> set[str]:
        key = (doc.doc_id, doc.version)
        if key not in self._described:
            if len(self._described) > 100_000:
                self._described.clear()
            named = doc.title if doc.title and not doc.named_by_file else ""  # a file's name says nothing here
            self._described[key] = _words(f"{named} {doc.detail or ''}")
        return self._described[key]
