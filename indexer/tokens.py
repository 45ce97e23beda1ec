"""Token counting and lexical terms.

`count_tokens` is an estimate close to what LLM tokenizers give for English
(a word or a punctuation mark is about one token, a CJK character one; a word
longer than 12 characters one per 4 characters, a run of digits one per 3, as tokenizers cut them), cheap
enough to run on every paragraph. It is what `n_tokens` and every budget in the
tool answers mean; `clip_to_tokens` cuts a text to a budget by the same count.

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
# A run of words joined by - . , / : ' (`10-K`, `3.2.1`, `1,234.5`); those with a joiner are
# compounds. Matching runs (`*`, not `+`) keeps this linear: with `+`, a long word without a
# joiner was re-scanned from every one of its characters (a 40 kB word took a minute).
_COMPOUND_RE = re.compile(rf"[^\W{_CJK}]+(?:[-./,:'][^\W{_CJK}]+)*", re.UNICODE)
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


TOKEN_COUNT_VERSION = "3"  # bump when count_tokens changes: stored counts are then made again
LONG_WORD = 12  # longer words count one token per CHARS_PER_TOKEN characters
CHARS_PER_TOKEN = 4
DIGITS_PER_TOKEN = 3
# The words that cost more than one token: long ones, and runs of more than three digits.
_COSTLY_RE = re.compile(rf"[^\W{_CJK}]{{{LONG_WORD + 1},}}|(?<!\w)\d{{{DIGITS_PER_TOKEN + 1},}}(?!\w)", re.UNICODE)


def _cost(token: str) -> int:
    if token.isdigit():  # tokenizers cut digit runs in groups of three: 123456789 is three tokens
        return -(-len(token) // DIGITS_PER_TOKEN)
    return 1 if len(token) <= LONG_WORD else -(-len(token) // CHARS_PER_TOKEN)


def count_tokens(text: str) -> int:
    """Estimated LLM tokens; linear in time, constant in memory beyond the token list."""
    if len(text) > 1_000_000:  # no list of millions of strings for a giant paragraph
        return sum(_cost(m.group()) for m in _TOKEN_RE.finditer(text))
    n = len(_TOKEN_RE.findall(text))
    for m in _COSTLY_RE.finditer(text):
        n += _cost(m.group()) - 1
    return n


def clip_to_tokens(text: str, budget: int) -> str:
    """The longest prefix of `text` that counts at most `budget` tokens (cut inside a long word
    if need be), so that a clipped paragraph keeps its promise whatever it holds."""
    used = 0
    for m in _TOKEN_RE.finditer(text):
        cost = _cost(m.group())
        if used + cost > budget:
            per = DIGITS_PER_TOKEN if m.group().isdigit() else CHARS_PER_TOKEN
            end = m.start() + max(0, budget - used) * per if cost > 1 else m.start()
            return text[:end].rstrip()
        used += cost
    return text


def shorten(text: str, budget: int) -> str:
    """`text` if it counts at most `budget` tokens, else its clipped prefix marked with "…"."""
    clipped = clip_to_tokens(text, budget)
    return text if clipped == text else clipped + "…"


# BM25 indexes the first this many characters of a paragraph: past it, a paragraph is a data
# dump whose length normalisation makes it a useless hit anyway, and its millions of terms
# would cost the server gigabytes.
LEXICAL_MAX_CHARS = 200_000


def lexical_terms(text: str) -> list[str]:
    """Terms for the FTS5 index (`unicode61` with `_` as a token character)."""
    lowered = text[:LEXICAL_MAX_CHARS].lower()
    terms = _WORD_RE.findall(lowered)
    for run in _COMPOUND_RE.findall(lowered):
        if _JOINERS.search(run):
            terms.append(_JOINERS.sub("_", run))
    for run in _CJK_RUN_RE.findall(lowered):
        terms.extend(run)
        terms.extend(run[i : i + 2] for i in range(len(run) - 1))
    return terms


POSSESSIVE = re.compile(r"['’]s$", re.I)  # "Corning's": the name is "Corning"
SENTENCE_END = re.compile(r"[.?!:;]\s*$")  # a query or a token that ends a sentence ("… in 2022?")


def query_terms(text: str) -> list[str]:
    """Distinct meaningful terms of a query, in order of first appearance."""
    seen: dict[str, None] = {}
    for term in lexical_terms(text):
        if term not in STOPWORDS and term not in seen:
            seen[term] = None
    return list(seen)
