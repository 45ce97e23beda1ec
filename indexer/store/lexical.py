"""BM25 exactly as FTS5's `bm25()` computes it, for a handful of rows, in Python.

At a million paragraphs `bm25()` is most of a keyword query's time: FTS5 computes it for
every row the query's terms match (about 0.7 µs a row; a query of common words matches
half a million rows: 390 ms), and scoring a few given rows through FTS5 is no cheaper,
since each cursor first counts every row of each term again to weigh it. Finding which
rows hold a term is 15 times cheaper than scoring them. So the store finds rows with
FTS5 and, where that saves time, scores them here: the same formula over each row's
words that may match a query term stemmed by FTS5's own tokenizer (`Store.stems`),
the row's length, row count and token totals from FTS5's own records, and each term's row count (kept until the next
write). `tests/indexer/store/test_lexical.py` checks the scores equal FTS5's.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

K1 = 1.2  # FTS5's constants (fts5_aux.c)
B = 0.75
MIN_IDF = 1e-6  # FTS5's floor for a term in more than half the rows


@dataclass(frozen=True)
class Totals:
    """What FTS5's averages record holds: rows, and tokens over all columns."""

    n_rows: int
    n_tokens: int

    @property
    def avg_tokens(self) -> float:
        return self.n_tokens / self.n_rows if self.n_rows else 1.0


def totals(record: bytes | None) -> Totals:
    """Parse FTS5's averages record (`%_data` row 1): varints of the row count, then each
    column's token total."""
    values: list[int] = []
    i = 0
    while record and i < len(record):
        value, i = _varint(record, i)
        values.append(value)
    return Totals(values[0], sum(values[1:])) if values else Totals(0, 0)


def row_length(record: bytes | None) -> int:
    """A row's tokens over all columns, from FTS5's record of its column sizes (`%_docsize`)."""
    total, i = 0, 0
    while record and i < len(record):
        value, i = _varint(record, i)
        total += value
    return total


def _varint(data: bytes, i: int) -> tuple[int, int]:
    """SQLite's varint: 7 bits a byte, high bit set while more follow; a ninth byte gives 8."""
    value = 0
    for _ in range(8):
        byte = data[i]
        i += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, i
    return (value << 8) | data[i], i + 1


def start(word: str) -> str:
    """What a word keeps through stemming: its first two letters ("statements" → "statement",
    "happy" → "happi"), so only words starting like a stem need stemming to be compared with it;
    without their accents, as the index folds them ("résultat" is stemmed "resultat")."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word[:4]) if not unicodedata.combining(ch))[:2]


def idf(n_rows: int, n_matching: int) -> float:
    return max(math.log((n_rows - n_matching + 0.5) / (n_matching + 0.5)), MIN_IDF)


def score(weights: dict[str, float], frequency: dict[str, float], length: int, avg_tokens: float) -> float:
    """BM25 of one row: `weights` maps each query term (as the index stems it) to its idf,
    `frequency` the row's occurrences of each, weighted by column; `length`: its tokens."""
    norm = K1 * (1 - B + B * length / avg_tokens)
    return sum(w * (f * (K1 + 1)) / (f + norm) for term, w in weights.items() if (f := frequency.get(term, 0.0)))
