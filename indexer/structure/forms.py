"""A form's questions and answers kept apart: each question with its check boxes, one paragraph.

A form set as text (a filing's cover, an application, a survey) asks question after question, each
answered by ticking a box: "… a shell company? Yes ☐ No ☒". A PDF parser reads such a page into
blocks by lines, not by questions, so one paragraph runs three questions and their answers
together ("… Yes ☒ No ☐ Indicate by check mark whether …"), and another starts with the answer of
the question before it ("No ☐ Indicate …"). A search hit should be one question with its answer.

Only boxes a form draws are read as answers: the ballot-box characters ☐ ☑ ☒ (a symbol font's
boxes are read as these, `indexer.parse.symbols`), and "[X]" with the "[ ]" beside it (alone, "[ ]"
is a blank to fill in). Squares and ticks that also serve as bullets (□ ■ ✓) are not, so lists,
slides and papers keep their paragraphs. A cut is made only where the words say a question ended:
after a box whose label of a few words sits before it ("Yes ☒ No ☐", "Large accelerated filer ☒")
and that a long run of text starting a sentence follows. Options whose label follows the box
("☐ Written communications pursuant to Rule 425 …") stay together with their question: where such
a label ends, the words cannot tell.
"""

from __future__ import annotations

import re
from dataclasses import replace

from indexer.models import Block

_BOX = r"[☐☑☒]|\[[ xX]?\]"
_BOX_RE = re.compile(_BOX)
LABEL_WORDS = 4  # an option's label before its box: "Yes", "Smaller reporting company"
LONG_WORDS = 5  # after a box, this many words opening a sentence are the next question, not a label
# At a block's start: options with their labels first ("No ☐", "Yes ☑ No ☐"), the tail of the previous
# block's answer when the parser cut between a question's options.
_LEADING_ANSWER_RE = re.compile(rf"^\s*(?:(?:[^\s☐☑☒\[]+[ \t]+){{0,{LABEL_WORDS - 1}}}[^\s☐☑☒\[]+[ \t]*(?:{_BOX})\s*)+")
_NEW_ITEM_RE = re.compile(r"^\s*[\"“'(\[]?[A-Z0-9]")
_SENTENCE_END_RE = re.compile(r"[.?!:;)]\s+|\n")


def keep_answers_apart(blocks: list[Block]) -> list[Block]:
    """Blocks of text holding check boxes, cut and joined so each question has its answers.

    Other blocks pass unchanged. An answer that opens a block goes back to the block before it when
    both are text on one page; a block that holds several questions is cut after each answer."""
    joined: list[Block] = []
    for block in blocks:
        before = joined[-1] if joined else None
        if (
            block.kind == "text"
            and before is not None
            and before.kind == "text"
            and before.page == block.page
            and _boxes(block.text)
        ):
            lead = _LEADING_ANSWER_RE.match(block.text)
            if lead:
                joined[-1] = replace(before, text=f"{before.text.rstrip()} {lead.group(0).strip()}")
                rest = block.text[lead.end() :].strip()
                if rest:
                    joined.append(replace(block, text=rest))
                continue
        joined.append(block)
    out: list[Block] = []
    for block in joined:
        pieces = split_answers(block.text) if block.kind == "text" else [block.text]
        out.extend([block] if len(pieces) == 1 else [replace(block, text=piece) for piece in pieces])
    return out


def split_answers(text: str) -> list[str]:
    """One text cut after each question's answer boxes."""
    marks = _boxes(text)
    if not marks:
        return [text]
    cuts: list[int] = []
    for i, mark in enumerate(marks):
        before = text[marks[i - 1].end() if i else 0 : mark.start()]
        after = text[mark.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)]
        if len(after.split()) < LONG_WORDS or not _NEW_ITEM_RE.match(after):
            continue  # a label follows (the next option), or the text ends
        label = _label(before)
        if 0 < len(label) <= LABEL_WORDS:
            cuts.append(mark.end())  # "… Yes ☒ No ☐ | Indicate …"
        elif not label and before.rstrip().endswith((".", "?")) and _asks(after):
            cuts.append(mark.end())  # "… of the Act. ☐ | Indicate by check mark whether … Yes ☐ No ☒"
    pieces = [text[a:b].strip() for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return [p for p in pieces if p] or [text]


def _boxes(text: str) -> list[re.Match[str]]:
    """The check boxes in a text; "[ ]" only beside a ticked "[X]" (alone it is a blank to fill in)."""
    marks = list(_BOX_RE.finditer(text))
    if not any(m.group(0) in "☐☑☒" or m.group(0) in ("[x]", "[X]") for m in marks):
        return []
    if not any(m.group(0) in ("[x]", "[X]") for m in marks):
        marks = [m for m in marks if not m.group(0).startswith("[")]
    return marks


def _label(before: str) -> list[str]:
    """The words of an option's label before its box: those after the last sentence's end."""
    return _SENTENCE_END_RE.split(before)[-1].split()


def _asks(after: str) -> bool:
    """Whether the text after a box with no label is a question of its own rather than the box's
    label: it runs on past a sentence's end ("☐ Indicate by check mark whether … Act. Yes ☐ No ☒")."""
    return bool(_SENTENCE_END_RE.search(after.rstrip()))
