"""What every part of the retrieval benchmark shares: where the models are, the measurement
constants (k values, the match threshold, the baseline's chunk size, the row labels) and the
token-bag matching that decides whether a unit contains a gold (paths, the progress log and the
commit stamp are every benchmark's: `benchmarks.common`).

Kept apart so the data sets, rankers, metrics, runs and report can all use them
without importing one another.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

MODELS_DIR = Path("/tmp/dr-models")

KS = (1, 3, 5, 10)
DOC_KS = (1, 10)  # whole-folder search: the question's own file among the first k hits
READ_WORDS = (300, 1000, 3000)  # evidence read within this many words, hits read whole in rank order
TOP_K = max(KS)
MIN_RECALL = 0.8  # a unit "contains" a gold span when it holds ≥ 80% of the span's tokens
CHUNK_WORDS = 600  # ≈ 800 tokens of indexer.tokens.count_tokens on English prose
CHUNK_STEP = 300  # 300 words of overlap ≈ 400 tokens
SCOPES = ("single", "collection")
ALL = "all questions"
BASELINE = "flat chunks 800/400"
WORDS = "words@5"  # mean words of text in the top 5: how much a reader gets for hit@5

_WORD_RE = re.compile(r"\w+")


# --- fuzzy matching ----------------------------------------------------------------------


def bag(text: str) -> Counter[str]:
    """Lower-cased word tokens as a multiset."""
    return Counter(_WORD_RE.findall(text.lower()))


def covers(unit: Counter[str], gold: Counter[str]) -> bool:
    """True when `unit` holds at least MIN_RECALL of `gold`'s tokens (multiset recall)."""
    total = sum(gold.values())
    found = sum(min(n, unit.get(token, 0)) for token, n in gold.items())
    return total > 0 and found >= MIN_RECALL * total
