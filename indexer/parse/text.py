"""Plain text → blocks.

Plain text declares no structure, so headings are inferred (and marked so):
setext-style underlines, short numbered lines (`2.1 Methods`, `第一章 总则`),
short ALL-CAPS lines standing alone, and short lines set apart as a heading is
(`_set_apart`, `_wrapped_headings`): a blank line before and after, or in text
hard-wrapped without blank lines a finished sentence before, no sentence
punctuation of their own, and prose after (or a blank line before, and the
paragraph it titles right under it). Blocks are separated by blank lines; a
block whose lines all start with a bullet or number is a list. The short lines
that open a document ("Syllabus", "Phil 753: Grounding", "Spring 2023" over the
course's description) stay lines of their own (`_opening_lines`), for its title
to be found in them.
"""

from __future__ import annotations

import re

from indexer.models import Block, ParsedDocument
from indexer.parse.numbering import is_cjk_heading

_UNDERLINE_RE = re.compile(r"^(=+|-+|~+|\^+|\*+)\s*$")
# "2.1 Methods", "Chapter 3 Results", "IV. Discussion", "B) Appendix": a letter or roman numeral
# needs its "." or ")" — otherwise "I will be away on Monday" would be a heading.
_NUMBERED_HEADING_RE = re.compile(
    r"^(?:(?:[Cc]hapter|[Ss]ection|[Pp]art)\s+)?(\d+(?:\.\d+)*[.)]?|[IVXLC]+[.)]|[A-Z][.)])\s+([A-Z][^\n]{1,78})$"
)
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*•·‣◦]|\d+[.)]|[a-z][.)])\s+")
_SENTENCE_END_RE = re.compile(r"[.;,:!?]\s*$")


# A line that ends a sentence: ". ! ?" perhaps inside quotes or brackets, or a citation mark ("[4]").
_SENTENCE_ENDS_RE = re.compile(r"(?:[.!?…][\"'”’)\]]*|\[\w{1,4}\])\s*$")
MAX_PLAIN_HEADING = 60  # characters of a heading set apart without numbering or capitals
MAX_HEADING_WORDS = 8
MAX_HEADING_RUN = 2  # headings set apart in a row (a chapter's and its first section's); more are an address or a list
WRAPPED_LINES = 8  # a chunk of at least this many lines whose median line is at least WRAPPED_WIDTH
WRAPPED_WIDTH = 50  # characters long is prose hard-wrapped at a fixed width, blank lines or not
PROSE_CHARS = 80  # a chunk after a heading is prose: this long at least, and a sentence ends in it
MAX_OPENING_LINES = 3  # short lines that open a document, each kept a block of its own
MAX_OPENING_CHARS, MAX_OPENING_WORDS = 100, 16  # a document's name runs longer than a section's
OPENING_SHORT = 0.7  # an opening line over longer ones is at most this share of the longest


def parse_text(source: str, opening: bool = True) -> ParsedDocument:
    """`opening`: the first lines open a document (not so for an e-mail's body, titled by its subject)."""
    chunks = []
    for chunk in re.split(r"\n\s*\n", source):
        lines = [line.rstrip() for line in chunk.strip("\n").split("\n") if line.strip()]
        if lines:
            chunks.append(lines)
    set_apart = _set_apart(chunks)
    blocks: list[Block] = []
    for k, lines in enumerate(chunks):
        if k in set_apart:
            blocks.append(Block("heading", lines[0].strip(), level=1, inferred=True))
        elif (
            k == 0
            and opening
            and not _UNDERLINE_RE.match(lines[1] if len(lines) > 1 else "")  # an underlined title: read whole
            and (n := _opening_lines(lines))
        ):
            first = _classify(lines)[0]  # a heading over its paragraph stays one
            blocks.append(first if first.text == lines[0].strip() else Block("text", lines[0].strip()))
            blocks.extend(b for line in lines[1:n] for b in _classify([line]))
            if lines[n:]:
                blocks.extend(_classify(lines[n:]))
        else:
            blocks.extend(_classify(lines))
    return ParsedDocument(blocks=blocks)


def _opening_lines(lines: list[str]) -> int:
    """How many of the document's first lines are short lines of their own (a title, a course's
    code and name, a term), up to MAX_OPENING_LINES: no sentence punctuation ends them, the line
    after each does not go on in lower case, and they are short beside the longest line after them,
    or the opening chunk is no more than such lines. 0 when they are the first lines of a paragraph."""
    if len(lines) < 2 or all(_LIST_ITEM_RE.match(line) for line in lines) or _looks_preformatted(lines):
        return 0
    n = 0
    while n < min(len(lines) - 1, MAX_OPENING_LINES):
        line, after = lines[n].strip(), lines[n + 1].strip()
        if not _plain_opening(line) or after[:1].islower():
            break
        n += 1
    if n == 0:
        return 0
    rest = lines[n:]
    if len(rest) == 1 and _plain_opening(rest[0].strip()):
        return n  # a chunk of short lines alone: each its own
    longest = max(len(line.strip()) for line in rest)
    while n and len(lines[n - 1].strip()) > OPENING_SHORT * longest:
        n -= 1  # as long as the text's own lines: the first lines of a hard-wrapped paragraph
    return n


def _plain_opening(line: str) -> bool:
    """A line short enough to title or date a document, no sentence or list punctuation its own."""
    return (
        2 <= len(line) <= MAX_OPENING_CHARS
        and len(line.split()) <= MAX_OPENING_WORDS
        and _SENTENCE_END_RE.search(line) is None
        and not _LIST_ITEM_RE.match(line)
    )


def _plain_title(line: str, max_chars: int = MAX_PLAIN_HEADING) -> bool:
    """A line that could title a section with no numbering or capitals to say so ("Early life"): short,
    opening with a capital, mostly letters, no sentence punctuation at its end, not a list item."""
    text = line.strip()
    if not (2 <= len(text) <= max_chars) or len(text.split()) > MAX_HEADING_WORDS:
        return False
    if not text[0].isupper() or _SENTENCE_END_RE.search(text) or text.endswith(('"', "'", "”", "’", "-", "–", "—")):
        return False
    if _LIST_ITEM_RE.match(text) or "://" in text or "@" in text:
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters >= 2 * sum(not ch.isspace() for ch in text) / 3


def _is_prose(lines: list[str]) -> bool:
    text = " ".join(line.strip() for line in lines)
    first = text[:1]
    return (
        len(text) >= PROSE_CHARS
        and (first.isupper() or first.isdigit() or first in "\"“'‘(")
        and re.search(r"[.!?…][\"'”’)\]]*(\s|$)", text) is not None
        and not all(_LIST_ITEM_RE.match(line) for line in lines)
    )


def _set_apart(chunks: list[list[str]]) -> set[int]:
    """The chunks that are a short line standing alone between blank lines, prose after it (or
    after the sub-heading below it), the chunk before it not running on into it (a sign-off's
    comma, a lead-in's colon), and no more than MAX_HEADING_RUN of them in a row."""
    single = [len(c) == 1 and _heading(c[0]) is None and _plain_title(c[0]) for c in chunks]
    found: set[int] = set()
    for k, end in _runs(single):
        before = chunks[k - 1][-1].rstrip() if k else ""
        after = chunks[end + 1] if end + 1 < len(chunks) else None
        if end - k < MAX_HEADING_RUN and not before.endswith((",", ":", ";")) and after and _is_prose(after):
            found.update(range(k, end + 1))
    return found


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """The runs of consecutive true flags, each as its first and last index."""
    runs: list[tuple[int, int]] = []
    for k, flag in enumerate(flags):
        if flag and runs and runs[-1][1] == k - 1:
            runs[-1] = (runs[-1][0], k)
        elif flag:
            runs.append((k, k))
    return runs


def _wrapped_headings(lines: list[str]) -> list[Block] | None:
    """A chunk of prose hard-wrapped without blank lines (a text saved from a web page or a PDF),
    cut at its headings: a short line standing alone after a finished sentence, with no sentence
    punctuation, the line after it opening with a capital or a figure (not the rest of a phrase);
    at most MAX_HEADING_RUN such lines in a row. None when the chunk is no such prose or has none."""
    widths = sorted(len(line.strip()) for line in lines)
    if len(lines) < WRAPPED_LINES or widths[len(widths) // 2] < WRAPPED_WIDTH:
        return None
    candidate = [_heading(line) is None and _plain_title(line, max_chars=WRAPPED_WIDTH) for line in lines]
    marked: set[int] = set()
    for k, last in _runs(candidate):
        end = last
        while end >= k and lines[end + 1 : end + 2] and lines[end + 1].strip()[:1].islower():
            end -= 1  # the phrase a caption or a sentence opens goes on below: not a heading
        before = lines[k - 1] if k else ""
        finished = not before or _SENTENCE_ENDS_RE.search(before) is not None
        if k <= end < k + MAX_HEADING_RUN and finished and end + 1 < len(lines):
            marked.update(range(k, end + 1))
    if not marked:
        return None
    blocks: list[Block] = []
    text: list[str] = []
    for k, line in enumerate(lines):
        if k in marked:
            if text:
                blocks.append(Block("text", " ".join(text)))
                text = []
            blocks.append(Block("heading", line.strip(), level=1, inferred=True))
        else:
            text.append(line.strip())
    if text:
        blocks.append(Block("text", " ".join(text)))
    return blocks


def _classify(lines: list[str]) -> list[Block]:
    if len(lines) == 2 and _UNDERLINE_RE.match(lines[1]) and len(lines[0].strip()) <= 100:
        level = 1 if lines[1].lstrip()[0] in "=*" else 2
        return [Block("heading", lines[0].strip(), level=level, inferred=True)]
    if len(lines) == 1:
        heading = _heading(lines[0])
        return [heading] if heading else [Block("text", lines[0].strip())]
    if all(_LIST_ITEM_RE.match(line) or line.startswith((" ", "\t")) for line in lines):
        return [Block("list", "\n".join(lines))]
    heading = _heading(lines[0])
    if heading is None and (wrapped := _wrapped_headings(lines)) is not None:
        return wrapped
    if heading is None and _plain_title(lines[0]) and _is_prose(lines[1:]):
        longest = max(len(line.strip()) for line in lines[1:])
        if len(lines[0].strip()) <= longest / 2:  # a title over its paragraph ("Asturian" over its text)
            heading = Block("heading", lines[0].strip(), level=1, inferred=True)
    if heading and not _LIST_ITEM_RE.match(lines[1]):
        rest = lines[1:]
        return [heading, *(_wrapped_headings(rest) or [Block("text", " ".join(line.strip() for line in rest))])]
    if _looks_preformatted(lines):
        return [Block("code" if _is_code(lines) else "table", "\n".join(lines))]
    return [Block("text", " ".join(line.strip() for line in lines))]


def _heading(line: str) -> Block | None:
    text = line.strip()
    if is_cjk_heading(text):  # its level comes from its numbering (`indexer.structure.sections`)
        return Block("heading", text, level=1, inferred=True)
    if len(text) > 80 or _SENTENCE_END_RE.search(text) or line.startswith((" ", "\t")):
        return None
    match = _NUMBERED_HEADING_RE.match(text)
    if match:
        number = match.group(1).rstrip(".)")
        depth = number.count(".") + 1 if number[0].isdigit() else 1
        return Block("heading", text, level=depth, inferred=True)
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) >= 4 and all(ch.isupper() for ch in letters) and len(text.split()) <= 8:
        return Block("heading", text, level=1, inferred=True)
    return None


def _looks_preformatted(lines: list[str]) -> bool:
    """Aligned columns or indented code: keep the line breaks."""
    columns = sum(1 for line in lines if "\t" in line.strip() or "  " in line.strip() or "|" in line)
    return columns >= max(2, len(lines) * 0.6)


def _is_code(lines: list[str]) -> bool:
    return sum(1 for line in lines if line.rstrip().endswith(("{", "}", ";", ")", ":"))) >= len(lines) * 0.5
