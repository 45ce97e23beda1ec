"""Token counting and lexical terms.

`count_tokens` is an estimate close to what LLM tokenizers give for English
(a word or a punctuation mark is about one token, a CJK character one), cheap
enough to run on every paragraph. It is what `n_tokens` and every budget in the
tool answers mean.

`lexical_terms` is the tokenizer of the BM25 index and its queries: lower-case
words, plus every compound kept whole (`10-k`, `3.2.1`, `$1,234`, `item_7a`) so
that codes, numbers and names match exactly, and CJK text as single characters
and bigrams (it has no spaces).
"""

from __future__ import annotations

import re

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN_RE = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]", re.UNICODE)
_WORD_RE = re.compile(rf"[^\W{_CJK}]+", re.UNICODE)
# A compound: word characters joined by - . , / : ' (`10-K`, `3.2.1`, `1,234.5`).
_COMPOUND_RE = re.compile(rf"[^\W{_CJK}]+(?:[-./,:'][^\W{_CJK}]+)+", re.UNICODE)
_CJK_RUN_RE = re.compile(rf"[{_CJK}]+")
_JOINERS = re.compile(r"[-./,:']")

# Words too common to carry meaning in a query. Kept short on purpose: BM25's
# IDF already discounts common words; this only stops a long question from
# matching every paragraph through "the" and "of".
STOPWORDS = frozenset(
    """a an and are as at be by for from has have how i in is it its of on or that the this
    to was were what when where which who why will with you your do does did can could
    would should about into than then there these those their they them we our""".split()
)


def count_tokens(text: str) -> int:
    return len(_TOKEN_RE.findall(text))


def lexical_terms(text: str) -> list[str]:
    """Terms for the FTS5 index (`unicode61` with `_` as a token character)."""
    lowered = text.lower()
    terms = _WORD_RE.findall(lowered)
    for compound in _COMPOUND_RE.findall(lowered):
        terms.append(_JOINERS.sub("_", compound))
    for run in _CJK_RUN_RE.findall(lowered):
        terms.extend(run)
        terms.extend(run[i : i + 2] for i in range(len(run) - 1))
    return terms


def query_terms(text: str) -> list[str]:
    """Distinct meaningful terms of a query, in order of first appearance."""
    seen: dict[str, None] = {}
    for term in lexical_terms(text):
        if term not in STOPWORDS and term not in seen:
            seen[term] = None
    return list(seen)
