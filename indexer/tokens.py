"""Token counting and lexical terms.

`count_tokens` is an estimate close to what LLM tokenizers give for English
(a word or a punctuation mark is about one token, a CJK character one; a word
longer than 12 characters one per 4 characters, a run of digits one per 3, as tokenizers cut them), cheap
enough to run on every paragraph. It is what `n_tokens` and every budget in the
tool answers mean; `clip_to_tokens` cuts a text to a budget by the same count.

`lexical_terms` is the tokenizer of the BM25 index: lower-case words, plus every
compound kept whole (`10-k`, `3.2.1`, `$1,234`, `item_7a`) so that codes, numbers
and names match exactly, and CJK text as single characters and bigrams (it has no
spaces), each run's bigrams in a row. `query_terms` makes a query's terms the same
way, without the function words of its language (`indexer.languages`), and finds
the words of its CJK text: a word of two characters is a bigram, a longer one the
phrase of its bigrams (which FTS5 matches where they stand in a row: the word
itself), so a query matches words, not single characters met anywhere. Chinese
is cut into words by jieba; Japanese at its kana, where its grammar is written;
Korean, which writes spaces but joins particles to words, gives its bigrams.
"""

from __future__ import annotations

import itertools
import logging
import re
from functools import cache
from typing import Any

from indexer.languages import query_stop_words

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN_RE = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]", re.UNICODE)
_WORD_RE = re.compile(rf"[^\W{_CJK}]+", re.UNICODE)
# A run of words joined by - . , / : ' (`10-K`, `3.2.1`, `1,234.5`); those with a joiner are
# compounds. Matching runs (`*`, not `+`) keeps this linear: with `+`, a long word without a
# joiner was re-scanned from every one of its characters (a 40 kB word took a minute).
_COMPOUND_RE = re.compile(rf"[^\W{_CJK}]+(?:[-./,:'][^\W{_CJK}]+)*", re.UNICODE)
_CJK_RUN_RE = re.compile(rf"[{_CJK}]+")
_JOINERS = re.compile(r"[-./,:']")

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
    """Distinct meaningful terms of a query, in order of first appearance: its words but the
    function words of its language, and the words of its CJK text (a phrase of bigrams for a
    word of three characters or more)."""
    stop = query_stop_words(text)
    seen: dict[str, None] = {}
    lowered = text[:LEXICAL_MAX_CHARS].lower()
    terms = _WORD_RE.findall(lowered)
    terms += [_JOINERS.sub("_", run) for run in _COMPOUND_RE.findall(lowered) if _JOINERS.search(run)]
    for term in terms:
        if term not in stop and term not in seen:
            seen[term] = None
    for run in _CJK_RUN_RE.findall(lowered):
        if _HANGUL_RE.search(run):  # a Korean word carries its particle ("장비를"): its bigrams, each alone
            found = [run] if len(run) <= 2 else [run[i : i + 2] for i in range(len(run) - 1)]
        else:
            found = [_cjk_term(word) for word in _cjk_words(run, stop)]
        for term in found:
            if term not in seen and term not in stop:
                seen[term] = None
    return list(seen)


def query_pairs(text: str) -> list[tuple[str, str]]:
    """The query's meaningful words two by two in the order it writes them, the function words
    between them skipped ("China's largest cloud provider" → china/largest, largest/cloud,
    cloud/provider): a paragraph holding such a pair close together says what the question says,
    not only its words (`indexer.store.keywords.Keywords.near`)."""
    stop = query_stop_words(text)
    lowered = _ASKED_RE.sub(" ", text[:LEXICAL_MAX_CHARS].lower())  # "how many": what is asked, not of what
    words = [w for w in _WORD_RE.findall(lowered) if w not in stop and len(w) > 1]
    return list(dict.fromkeys((a, b) for a, b in itertools.pairwise(words) if a != b))


# The word after "how" in a question asks for an amount or a manner ("How many data centers …",
# "how much", "how long", "how often"): paired with the next word it names nothing said in a text.
_ASKED_RE = re.compile(r"\bhow\s+(?:many|much|long|often|far|old|big|large|high|soon)\b")


def codes(text: str) -> list[str]:
    """The codes a query writes, as keyword search indexes them whole: letters and digits joined by
    hyphens, dots or slashes ("INV-2024-00417" → inv_2024_00417, "ZX-88-A71", "v2.3.1"), or run
    together ("AB12345"); a number alone ("3.5", "2021-2022") is no code."""
    found = []
    for term in query_terms(text):
        letters, digits = any(ch.isalpha() for ch in term), any(ch.isdigit() for ch in term)
        joined = "_" in term and digits and (letters or term.count("_") >= 2)
        if joined or (letters and digits and len(term) >= MIN_CODE_CHARS and not _CJK_RUN_RE.search(term)):
            found.append(term)
    return found


MIN_CODE_CHARS = 5  # letters and digits run together this long are a code ("AB123"), shorter a word ("Q2", "3M")


def _joined_characters(words: list[str], stop: frozenset[str]) -> list[str]:
    """The words but the function words, single characters in a row joined into one: a word the
    segmenter does not know (a name, a Japanese word read as Chinese: "黒字") comes out as its
    characters."""
    joined: list[str] = []
    single = False  # the word before was a single character, kept
    for word in words:
        if word in stop or not word.strip():
            single = False
        elif len(word) == 1 and single:
            joined[-1] += word
        else:
            joined.append(word)
            single = len(word) == 1
    return joined


_HIRAGANA_RE = re.compile(r"[\u3040-\u309f]+")
_HANGUL_RE = re.compile(r"[\uac00-\ud7af]")
_HAN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _cjk_words(run: str, stop: frozenset[str]) -> list[str]:
    """The words of a run of Chinese or Japanese characters but its function words: Japanese (it
    writes kana) is cut where hiragana, its particles and endings, stands (the whole run when it is
    all hiragana); Chinese is cut by jieba."""
    if not (_HAN_RE.search(run) or _HIRAGANA_RE.search(run)):
        return [run]  # katakana alone: one word
    if _HIRAGANA_RE.search(run):
        words = [w for w in _HIRAGANA_RE.split(run) if w and w not in stop]
        return words or [run]
    return _joined_characters(_jieba().lcut(run), stop)


def _cjk_term(word: str) -> str:
    """A CJK word as BM25 finds it: a character, a bigram, or the phrase of its bigrams."""
    if len(word) <= 2:
        return word
    return " ".join(word[i : i + 2] for i in range(len(word) - 1))


@cache
def _jieba() -> Any:  # jieba publishes no types
    """jieba's tokenizer, its dictionary loaded on the first Chinese query (about a second)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)  # it announces loading its dictionary on stderr
    return jieba.Tokenizer()
