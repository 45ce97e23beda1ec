"""Judgements about a line of text and a block that the layout repair (`indexer.parse`)
and the structure builder both make: each is written once, here.

Is a guessed heading really a sentence, a caption or a number? Is a line a figure? A
heading that turns out not to be one becomes the text line it is, keeping its page and box.
"""

from __future__ import annotations

import re
import unicodedata

from indexer.models import Block
from indexer.parse.numbering import KEYWORD_SCHEMES, numbering, numbering_depth

# A line that stops on one of these words is cut mid-phrase: not a whole title.
TRAILING_FUNCTION_WORD = re.compile(r"\b(the|and|of|to|in|for|a|an|or|with|by|on|at|as|that|our|its)$", re.I)
# Figures, amounts and dates: "$ (1,234.5)", "—", "12.5 %", "6/30/2023".
_NUMERIC = re.compile(r"[-—–$€£%()\d.,/\s]+")
_CAPTION = re.compile(r"^(figure|fig\.|table|chart|exhibit|source|photo|image)\s*\d+", re.I)
_CONTINUED = re.compile(r"\bcontinued\)?$", re.I)  # "Notes to … Statements (Continued)": the page goes on
_CONTINUES = re.compile(r"^\(?\s*continued\s+on\s+(?:the\s+)?(?:next|following)\s+page\s*\)?\.?$", re.I)


def is_number(text: str) -> bool:
    """A figure, an amount or a dash standing for none: a table's value, never a title."""
    return bool(_NUMERIC.fullmatch(text)) and any(ch.isdigit() or ch in "—–" for ch in text)


def is_continued(title: str) -> bool:
    """The repeated title of a continued page ("Notes to … Statements (Continued)")."""
    return bool(_CONTINUED.search(title))


def says_continues(text: str) -> bool:
    """A line that only says a table goes on overleaf ("(Continued on following page)")."""
    return bool(_CONTINUES.match(text.strip()))


def looks_like_body_text(title: str) -> bool:
    """A guessed heading that is really a sentence, a numbered step of a procedure, a line
    fragment, a caption, a number, an index's letter or the repeated title of a continued page."""
    words = title.split()
    return (
        is_step(title)
        or bool(_LETTER.fullmatch(title) or _NUMBER_WORD.fullmatch(title))
        or title.startswith(("#", "//", "@", "•", "▪", "●", "■", "– ", "- "))
        or unicodedata.category(title[:1] or "a").startswith("S")
        or bool(_LEADERS.search(title))
        or len(_NUMBERED_TITLE.findall(title)) >= 2
        or len(words) > (30 if numbering_depth(title) is not None else 16)  # a numbered chapter title may be long
        or (title.endswith(".") and len(words) > 6 and not is_keyword_numbered(title))
        or bool(TRAILING_FUNCTION_WORD.search(title))
        or bool(_CAPTION.match(title))
        or bool(_NUMERIC.fullmatch(title))
        or title[:1].islower()
        or (title.endswith(":") and not is_numbered_label(title))
        or title.endswith((";", ","))
        or (title.startswith("(") and numbering_depth(title) is None)
        or is_continued(title)
    )


_PAREN_NUMBER = re.compile(r"^\(?\d{1,2}\)\s+\S")  # "3) Readings:", "(2) Grading:"
_LETTER = re.compile(r"\W*[^\W\d_]\W*")  # "C", "- B -": a letter dividing an index
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_NUMBER_WORD = re.compile(  # "CHAPTER" / "TWO" over "INSTALLATION": the word and the number, its title below
    rf"chapter|{_UNITS}|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    rf"(?:twenty|thirty|forty|fifty)(?:[- ]?(?:{_UNITS}))?",
    re.I,
)
# A contents page's line: "5 More guidance ........ 37", or a chapter's own list of its sections run
# together ("2.1 Starting a workout 2.2 Using Smart companion …").
_LEADERS = re.compile(r"(?:(?:\.\s?){4,}|…)\s*[A-Z]?\d+\s*$")  # "… 37", a map's index: "…… B2"
_NUMBERED_TITLE = re.compile(r"(?:^|\s)\d{1,2}(?:\.\d{1,2})+\s+(?:[A-Z]|[^\W\d_\x00-\x7f])")
_STEP = re.compile(r"^\(?(\d{1,2})[.)]?\s+(\S.*[.!])$")  # "3 Touch to save the note."


def is_step(title: str) -> bool:
    """A numbered sentence, a step of a procedure ("3 Touch to save the note."): its words after
    the first in lower case, where a numbered heading capitalises them ("4. Results and Discussion.")."""
    found = _STEP.match(title)
    if found is None:
        return False
    words = found.group(2).split()
    long = [w for w in words[1:] if sum(ch.isalpha() for ch in w) >= 4]
    return len(words) >= 3 and bool(long) and sum(w[0].isupper() for w in long) < 0.5 * len(long)


def is_numbered_label(title: str) -> bool:
    """A numbered heading that ends in a colon, its text below it ("1. Learning Outcomes:",
    "3) Readings:"): a few capitalised words, not a numbered sentence that leads into a list
    ("2. Then perform the following:")."""
    if (numbering_depth(title) is None and not _PAREN_NUMBER.match(title)) or len(title.split()) > 8:
        return False
    long = [w for w in re.findall(r"[^\W\d_][\w'-]*", title) if len(w) >= 4]
    return bool(long) and sum(w[0].isupper() for w in long) >= 0.6 * len(long)


def is_keyword_numbered(title: str) -> bool:
    """Opens with a keyword number ("Item 7.", "PART II", "Note 4"): such titles often end with
    a period ("Item 8. Financial Statements and Supplementary Data.") and are titles all the same."""
    found = numbering(title)
    return found is not None and found.scheme in KEYWORD_SCHEMES


MIN_PICTURE_AREA = 0.04  # share of its page a picture covers to be more than a logo or an icon
UNCAPTIONED = "[picture without caption or text]"  # a figure paragraph's text when it has no words


def is_sizeable(bbox: list[int] | None) -> bool:
    """A region (0–1000 page units) big enough to be a figure worth reading or showing."""
    return bbox is not None and bool(bbox) and (bbox[2] - bbox[0]) * (bbox[3] - bbox[1]) >= MIN_PICTURE_AREA * 1_000_000


def union(boxes: list[list[int]]) -> list[int]:
    """The box around several boxes (x0, y0, x1, y1)."""
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


def steps_as_lists(blocks: list[Block]) -> list[Block]:
    """Numbered steps of a procedure that stand as lines of their own, one after another on a
    page and counting up ("1 Press …", "2 Turn …"), are one list: a procedure is read, and found,
    whole."""
    out: list[Block] = []
    for block in blocks:
        previous = out[-1] if out else None
        number = _step_number(block)
        if (
            previous is not None
            and number is not None
            and previous.page == block.page
            and previous.kind in ("text", "list")
            and _last_step_number(previous) == number - 1
        ):
            box = union([previous.bbox, block.bbox]) if previous.bbox and block.bbox else previous.bbox
            out[-1] = Block("list", f"{previous.text}\n{block.text}", page=previous.page, bbox=box)
            continue
        out.append(block)
    return out


def _step_number(block: Block) -> int | None:
    found = _STEP.match(block.text) if block.kind == "text" and is_step(block.text) else None
    return int(found.group(1)) if found else None


def _last_step_number(block: Block) -> int | None:
    last = block.text.rsplit("\n", 1)[-1]
    return _step_number(Block("text", last)) if block.kind == "list" or "\n" not in block.text else None


def as_text(heading: Block) -> Block:
    """A heading that turned out not to be one, as the text line it is (page and box kept)."""
    return Block("text", heading.text, page=heading.page, bbox=heading.bbox)
