"""Text that is not language: random letters, base64, hex dumps, minified code, binary rendered
as text.

Such a paragraph stays readable and exactly searchable, but it is not embedded (its vector
would sit near everything and nothing) and it never outranks a paragraph of real text in
fused search (`indexer.search.hybrid`): 2,600 paragraphs of random letters in one `.txt` took 4 of
the top 5 hits for queries that matched a real document word for word.

The measures are language-agnostic, since real documents are written in many languages and
scripts: they look at the shape of the "words" rather than a vocabulary. A paragraph is junk
when it is a long run with almost no spaces (minified code, base64, a blob), when it is mostly
replacement or control characters (binary shown as text), when its Latin letters hold far fewer
vowels than any language writes (random letters), or when most of its characters are in tokens
no language writes (over 30 characters, long hex strings). Text in scripts without Latin
vowels (CJK, Arabic, Cyrillic, …) is judged by length and spacing alone. Short paragraphs (a
part number, a code, a cell) are never junk: they are what exact search is for.
`benchmarks.parsing.junk` measures the false positives on the benchmark documents.
"""

from __future__ import annotations

import re
import unicodedata

MIN_CHARS = 160  # shorter paragraphs are never junk
JUNK_SHARE = 0.5  # share of a paragraph's characters in runs no language writes
LONG_TOKEN = 30  # no language writes a run of letters and digits this long (German compounds stay under it)
MIN_SPACE_SHARE = 0.03  # a long run of text with fewer spaces than this is a dump (minified code, base64)
MIN_VOWEL_SHARE = 0.28  # Latin-script languages write 33–48 % vowels (a e i o u y); random letters 23 %
MIN_LATIN_LETTERS = 80  # enough letters in plain words to judge their vowels by
MAX_ODD_SHARE = 0.1  # replacement characters, control and private-use characters: binary shown as text
HEX_SHARE = 0.8  # tokens of hex digits, a fifth of them with letters: a hex dump
MINIFIED_LINE = 400  # characters per line …
MINIFIED_SYMBOLS = 0.15  # … and share of code symbols, of minified code
JUDGED_KINDS = ("text", "list")  # code blocks, tables, equations and figures are what their authors made them

_HEX_RE = re.compile(r"(?:0x)?[0-9a-fA-F]{2,}")
_RUN_RE = re.compile(r"[A-Za-z0-9]+")
_SEPARATORS = frozenset("-_/.:,;|")
_RULE_RE = re.compile(r"(.)\1{3,}")
_VOWELS = frozenset("aeiouyAEIOUY")
_PUNCTUATION = ".,;:!?()[]{}\"'«»“”‘’-–—*`"
_CODE_SYMBOLS = frozenset("{}()[];=,<>+*/&|!?:")


def is_junk(text: str, kind: str = "text") -> bool:
    """Whether a paragraph's text is something other than language (see the module docstring)."""
    if len(text) < MIN_CHARS or kind not in JUDGED_KINDS:
        return False
    sample = text[:20_000]  # the shape of a dump shows in its start
    if sum(1 for ch in sample if ch.isspace() or ch in _SEPARATORS) < MIN_SPACE_SHARE * len(sample):
        return True  # base64, a blob: no spaces, and none of what separates the parts of a path or a URL
    if sum(
        1 for ch in sample if ch == "\ufffd" or (unicodedata.category(ch) in ("Cc", "Co", "Cs") and ch not in "\n\t\r")
    ) > MAX_ODD_SHARE * len(sample):
        return True  # binary shown as text
    tokens = words_of(sample)
    if not tokens:
        return False
    share = vowel_share(tokens)
    if share is not None and share < MIN_VOWEL_SHARE:
        return True  # random letters
    hexes = [t for t in tokens if _HEX_RE.fullmatch(t)]
    if len(hexes) >= HEX_SHARE * len(tokens) and sum(1 for t in hexes if not t.isdigit()) >= 0.2 * len(tokens):
        return True  # a hex dump
    long_runs = sum(len(t) for t in tokens if "://" not in t and any(_is_junk_run(r) for r in _RUN_RE.findall(t)))
    if long_runs > JUNK_SHARE * sum(len(t) for t in tokens):
        return True  # hashes, base64 with spaces
    lines = sample.count("\n") + 1
    symbols = sum(1 for ch in _RULE_RE.sub("", sample) if ch in _CODE_SYMBOLS)  # "=====" rules are not code
    return len(sample) / lines > MINIFIED_LINE and symbols > MINIFIED_SYMBOLS * len(sample)  # minified code


def words_of(text: str) -> list[str]:
    """Its whitespace-separated tokens without the punctuation around them."""
    return [t for t in (t.strip(_PUNCTUATION) for t in text.split()) if t]


def vowel_share(tokens: list[str]) -> float | None:
    """The share of vowels among the letters of plain Latin words (URLs, paths and code are not
    words); None when there are too few letters to judge."""
    words = [t for t in tokens if t.isascii() and t.isalpha()]
    letters = sum(len(w) for w in words)
    if letters < MIN_LATIN_LETTERS:
        return None
    return sum(1 for w in words for ch in w if ch in _VOWELS) / letters


def _is_junk_run(run: str) -> bool:
    """A run of letters and digits longer than any word, unless it is words run together (a PDF
    that lost its spaces: "Uponsuccessfulcompletionofthiscourse"): mixed with digits, or without
    the vowels of language."""
    if len(run) <= LONG_TOKEN:
        return False
    if any(ch.isdigit() for ch in run):
        return any(ch.isalpha() for ch in run)
    return sum(1 for ch in run if ch in _VOWELS) < MIN_VOWEL_SHARE * len(run)
