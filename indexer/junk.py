"""Text that is not language: random letters, base64, hex dumps, minified code, binary rendered
as text.

Such a paragraph stays readable and exactly searchable, but it is not embedded (its vector
would sit near everything and nothing) and it never outranks a paragraph of real text in
fused search (`indexer.search`): 2,600 paragraphs of random letters in one `.txt` took 4 of
the top 5 hits for queries that matched a real document word for word.

The measures are language-agnostic, since real documents are written in many languages and
scripts: they look at the shape of the "words" rather than a vocabulary. A paragraph is junk
when it is a long run with almost no spaces (minified code, base64, a blob), when it is mostly
replacement or control characters (binary shown as text), when its Latin letters hold far fewer
vowels than any language writes (random letters), or when most of its characters are in tokens
no language writes (over 30 characters, long hex strings). Text in scripts without Latin
vowels (CJK, Arabic, Cyrillic, …) is judged by length and spacing alone. Short paragraphs (a
part number, a code, a cell) are never junk: they are what exact search is for.
`benchmarks/junk.py` measures the false positives on the benchmark documents.
"""

from __future__ import annotations

import re
import unicodedata

MIN_CHARS = 160  # shorter paragraphs are never junk
JUNK_SHARE = 0.5  # share of a paragraph's non-space characters in junk tokens
LONG_TOKEN = 30  # no language writes words this long (German compounds stay under it)
MIN_SPACE_SHARE = 0.03  # a long run of text with fewer spaces than this is a dump (minified code, base64)
MIN_VOWEL_SHARE = 0.27  # Latin-script languages write 33–48 % vowels (a e i o u y); random letters 23 %
MIN_LATIN_LETTERS = 80  # enough Latin letters to judge their vowels by
MAX_ODD_SHARE = 0.1  # replacement characters, control and private-use characters: binary shown as text
JUDGED_KINDS = ("text", "list", "code")  # tables, equations and figures are what they are

_TOKEN_RE = re.compile(r"\S+")
_HEX_RE = re.compile(r"(?:0x)?[0-9a-fA-F]{8,}")
_VOWELS = frozenset("aeiouyAEIOUY")


def is_junk(text: str, kind: str = "text") -> bool:
    """Whether a paragraph's text is something other than language (see the module docstring)."""
    if len(text) < MIN_CHARS or kind not in JUDGED_KINDS:
        return False
    sample = text[:20_000]  # the shape of a dump shows in its start
    if sum(1 for ch in sample if ch.isspace()) < MIN_SPACE_SHARE * len(sample):
        return True
    if sum(1 for ch in sample if ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Co", "Cs")) > MAX_ODD_SHARE * len(sample):
        return True
    latin = [ch for ch in sample if "a" <= ch.lower() <= "z"]
    if len(latin) >= MIN_LATIN_LETTERS and sum(1 for ch in latin if ch in _VOWELS) < MIN_VOWEL_SHARE * len(latin):
        return True
    junk = total = 0
    for token in _TOKEN_RE.findall(sample):
        total += len(token)
        if _is_junk_token(token):
            junk += len(token)
    return total > 0 and junk > JUNK_SHARE * total


def _is_junk_token(token: str) -> bool:
    word = token.strip(".,;:!?()[]{}\"'«»“”‘’-–—")
    if len(word) > LONG_TOKEN:
        return not word.startswith(("http://", "https://", "www."))  # a URL is long and real
    return bool(_HEX_RE.fullmatch(word)) and any(ch.isdigit() for ch in word) and any(ch.isalpha() for ch in word)
