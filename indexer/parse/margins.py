"""Line numbers down a page's margin (transcripts, pleadings): found on the text layer, taken out of the text.

A court transcript numbers its lines 1–25 down the left edge of every page, pleading paper 1–28;
flash reads each number into the line beside it ("7 ALEXANDRE MIRZAYANCE.", "2 3 CHIEF JUSTICE
ROBERTS: …"), or alone ("11 12"), and a number run into a short line makes it look like a numbered
heading ("8 - - - - x"). The evidence is the page's own, never a phrase: whole-number words 1, 2,
3, … (at least MIN_LINES of them) top to bottom, sharing one edge (right-aligned "9" and "10"
share their right edge), evenly spaced, restarting at 1 on the page, and nothing else printed in
their band: a margin. On such a page every item holding one of them is read again from the text
layer without them; a line set in from the item's left edge starts a paragraph of its own (a
speaker's turn in a transcript, which flash runs into the turn before once the numbers confuse it).
"""

from __future__ import annotations

import itertools
import re
import statistics

from indexer.models import Item
from indexer.parse.pdf_layers import PageWord, inside, join_lines, lines_of, union_box, words_of

MIN_LINES = 10  # numbers 1…N, N at least this: a transcript page has 25, pleading paper 28
EDGE = 2.0  # page units (of 1000): numbers aligned on one edge differ by less than this
PITCH_SPREAD = 1.6  # the widest gap between two numbers is at most this many times the narrowest
MARGIN_GAP = 15.0  # page units: the least space between a margin's number and the text on its line
INDENT = 15.0  # page units: a line starting this far right of the item's left edge opens a paragraph
_NUMBER = re.compile(r"\d{1,2}")
TEXT_TYPES = ("text", "header", "footer", "page_footnote")


def line_numbers(words: list[PageWord]) -> list[PageWord]:
    """The page's margin line numbers, top to bottom, or [] when it has none."""
    numbers = [w for w in words if _NUMBER.fullmatch(w.text)]
    if len(numbers) < MIN_LINES:
        return []
    best: list[PageWord] = []
    for edge in (lambda w: w.x1, lambda w: w.x0):  # right-aligned, or left-aligned
        for anchor in numbers:
            if anchor.text != "1":
                continue
            column = [w for w in numbers if abs(edge(w) - edge(anchor)) < EDGE]
            run = _run(column)
            if len(run) > len(best) and _evenly_spaced(run) and _in_margin(run, words):
                best = run
    return best if len(best) >= MIN_LINES else []


def _run(column: list[PageWord]) -> list[PageWord]:
    """1, 2, 3, … going down the page, as far as they go."""
    run: list[PageWord] = []
    for word in sorted(column, key=lambda w: w.y0):
        if int(word.text) == len(run) + 1 and (not run or word.y0 > run[-1].y1 - 1):
            run.append(word)
    return run


def _evenly_spaced(run: list[PageWord]) -> bool:
    gaps = [b.middle[1] - a.middle[1] for a, b in itertools.pairwise(run)]
    return bool(gaps) and min(gaps) > 0 and max(gaps) <= PITCH_SPREAD * min(gaps)


def _in_margin(run: list[PageWord], words: list[PageWord]) -> bool:
    """Nothing but the numbers themselves is printed in the band they run down, and the text beside
    them keeps a margin's distance (a numbered list's "1 Apples" is a word space away)."""
    left, right = min(w.x0 for w in run) - EDGE, max(w.x1 for w in run) + EDGE
    top, bottom = run[0].y0, run[-1].y1
    ours = {id(w) for w in run}
    others = [w for w in words if id(w) not in ours and top <= w.middle[1] <= bottom]
    if any(w.x0 < right and w.x1 > left for w in others):
        return False
    for number in run:  # the nearest word on its line, on either side
        beside = [w for w in others if w.y0 < number.middle[1] < w.y1]
        gaps = [w.x0 - number.x1 for w in beside if w.x0 >= number.x1] + [
            number.x0 - w.x1 for w in beside if w.x1 <= number.x0
        ]
        if gaps and min(gaps) < MARGIN_GAP:
            return False
    return True


def strip_line_numbers(items: list[Item], words: list[PageWord]) -> list[Item] | None:
    """A page's items without its margin line numbers (`line_numbers`); None when it has none."""
    numbers = line_numbers(words)
    if not numbers:
        return None
    ours = {id(w) for w in numbers}
    text = [w for w in words if id(w) not in ours]
    out: list[Item] = []
    for item in items:
        box = item.get("bbox")
        if item.get("type") not in TEXT_TYPES or not box or not any(inside(n, box) for n in numbers):
            out.append(item)
            continue
        for k, paragraph in enumerate(_paragraphs(lines_of(words_of(item, items, text)))):
            part = {**item, "text": join_lines(paragraph), "bbox": union_box([w for line in paragraph for w in line])}
            if k:
                part.pop("text_level", None)
            out.append(part)  # type: ignore[arg-type]
    return out


def _paragraphs(lines: list[list[PageWord]]) -> list[list[list[PageWord]]]:
    """Lines into paragraphs: a line set in from the others' left edge opens one."""
    if not lines:
        return []
    edge = (
        statistics.median_low([line[0].x0 for line in lines]) if len(lines) > 2 else min(line[0].x0 for line in lines)
    )
    paragraphs: list[list[list[PageWord]]] = []
    for line in lines:
        if not paragraphs or line[0].x0 > edge + INDENT:
            paragraphs.append([line])
        else:
            paragraphs[-1].append(line)
    return paragraphs
