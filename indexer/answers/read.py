"""read_section: a section's paragraphs in order, from `start_para`, to the token budget.

The answer stops before the paragraph that would overflow and names the exact call
that continues; a single paragraph longer than the budget is cut, and says so. A
caller's stale coordinates (an older document version) are answered with a note.
With images, each figure, chart and table paragraph that has a page and a box also
brings its region of the PDF page (`indexer.answers.pages`), and a picture kept from an office file
comes as it is (`indexer.parse.pictures`); their tokens count against the same budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from indexer.answers.pages import PdfPages, Rendered, StoredPictures, image_tokens
from indexer.errors import InvalidArgument, NotFound
from indexer.models import PageImage, ParagraphText, SectionText
from indexer.store.database import DocumentRow, ParagraphRow, SectionRow, Store
from indexer.tokens import clip_to_tokens, count_tokens

SECTION_OVERHEAD = 150  # the answer's first line and notes
CHILDREN_LISTED = 20  # a section without text of its own names this many sub-sections
PICTURED = ("figure", "table")  # paragraph kinds whose region is shown as an image
IMAGE_NOTE = 8  # " — image 2 below" and the image's own framing


class _Head(TypedDict):
    """What every answer about one section starts with, whichever way it is read."""

    doc_id: int
    sec_id: int
    version: int
    title: str
    level: int
    n_paras: int
    start_para: int


@dataclass
class Images:
    """Where a section's images come from, when they are asked for: the regions of the PDF's
    pages (`pages`, None when it cannot be rendered, and `why_not` says why) and the pictures
    kept from an office file."""

    pages: PdfPages | None
    stored: StoredPictures
    why_not: str | None = None

    def size(self, row: ParagraphRow) -> tuple[int, int] | None:
        """The pixel size of the paragraph's image; None when it has none to show."""
        if row.picture:
            return self.stored.size(row.picture)
        if self.pages is not None and row.kind in PICTURED and row.page is not None and row.box is not None:
            return self.pages.size(row.page, row.box)
        return None

    def render(self, row: ParagraphRow) -> Rendered:
        if row.picture:
            return self.stored.render(row.picture)
        assert self.pages is not None and row.page is not None and row.box is not None
        return self.pages.render(row.page, row.box)


def read_section(
    store: Store,
    doc: DocumentRow,
    sec_id: int,
    start_para: int,
    end_para: int | None,
    version: int | None,
    token_budget: int,
    images: Images | None = None,
    part: int | None = None,
) -> tuple[SectionText, list[ParagraphRow]]:
    """The answer, and the paragraphs whose images it announces: `images` (set when the caller
    asked for them) sizes them here, and `render_images` makes them once the caller has let go
    of the store's snapshot (rendering takes tens of ms an image; a commit need not wait).
    `part`: the part (1-based) of paragraph `start_para` to read, when it is longer than the budget."""
    changed = _changed(doc, version)
    section = _checked(store, doc.doc_id, sec_id, start_para, end_para, changed)
    head: _Head = {
        "doc_id": doc.doc_id,
        "sec_id": sec_id,
        "version": doc.version,
        "title": section.title,
        "level": section.level,
        "n_paras": section.n_paras,
        "start_para": start_para,
    }
    if section.n_paras == 0:
        return _empty(store, head, changed), []
    end = section.n_paras - 1 if end_para is None else min(end_para, section.n_paras - 1)
    available = token_budget - SECTION_OVERHEAD - count_tokens(section.title)
    if part is not None:
        return _part(store, doc, section, start_para, part, available, head, changed), []
    rows = store.paragraphs(doc.doc_id, sec_id, start_para, end)
    packed = _pack(rows, available, images)
    notes = _notes(packed, rows, head, end, changed, images)
    end_read = packed.paragraphs[-1].para_idx
    answer = SectionText(
        **head,
        end_para=end_read,
        paragraphs=packed.paragraphs,
        next_start_para=end_read + 1 if end_read < section.n_paras - 1 else None,
        hint=" ".join(notes) or None,
    )
    return answer, packed.pictured


def _changed(doc: DocumentRow, version: int | None) -> str:
    """What a caller whose coordinates came from an older version should know first ("" if nothing)."""
    if version is None or version == doc.version:
        return ""
    return (
        f"Document {doc.doc_id} changed since version {version} (now version {doc.version}); "
        "coordinates from earlier answers may have shifted. "
    )


def _checked(store: Store, doc_id: int, sec_id: int, start_para: int, end_para: int | None, changed: str) -> SectionRow:
    """The section asked for, when the range asked of it can be read; else an error that says what is valid."""
    sections = {r.sec_id: r for r in store.sections(doc_id)}
    section = sections.get(sec_id)
    if section is None:
        raise NotFound(
            f"{changed}doc {doc_id} has no section {sec_id}; its sections are 0–{max(sections)} "
            f"(call get_toc(doc_id={doc_id}) to see them)"
        )
    last = section.n_paras - 1
    if start_para < 0 or (end_para is not None and end_para < start_para):
        raise InvalidArgument(
            f"start_para must be ≥ 0 and end_para ≥ start_para; section {sec_id} has paragraphs 0–{last}"
        )
    if section.n_paras and start_para > last:
        raise InvalidArgument(
            f"{changed}start_para {start_para} is past the end: section {sec_id} has paragraphs 0–{last}"
        )
    return section


def _empty(store: Store, head: _Head, changed: str) -> SectionText:
    """A section without text of its own: which sub-sections to read instead."""
    doc_id, sec_id = head["doc_id"], head["sec_id"]
    children = [r.sec_id for r in store.sections(doc_id) if r.parent == sec_id]
    listed = ", ".join(map(str, children[:CHILDREN_LISTED]))
    if len(children) > CHILDREN_LISTED:
        listed += f", … ({len(children):,} in all)"
    hint = (
        f"Section {sec_id} has no text of its own; its sub-sections are [{listed}]: "
        f"read_section(doc_id={doc_id}, sec_id=N) for each."
        if children
        else "Section is empty."
    )
    return SectionText(**head, end_para=-1, paragraphs=[], next_start_para=None, hint=changed + hint)


@dataclass
class _Packed:
    """The paragraphs that fit, and what was left out to make them fit."""

    paragraphs: list[ParagraphText]
    pictured: list[ParagraphRow]  # those whose image comes too, in order
    n_parts: int  # the first paragraph alone was longer than the budget: its parts (else 1)
    images_left_out: int  # images that would not fit beside their paragraph


def _pack(rows: list[ParagraphRow], available: int, images: Images | None) -> _Packed:
    """Paragraphs in order while they fit `available` tokens (with their images, when asked for);
    the first one always, in parts when it alone is longer."""
    out: list[ParagraphText] = []
    pictured: list[ParagraphRow] = []
    used = too_big = 0
    n_parts = 1
    for row in rows:
        cost = _paragraph_line(row) + row.n_tokens
        picture = 0
        if images is not None and (size := images.size(row)) is not None:
            picture = image_tokens(*size) + IMAGE_NOTE
        if out and used + cost + picture > available:
            break
        if picture and cost + picture > available:  # alone with its image it would not fit: text only
            too_big += 1
            picture = 0
        parts = [row.text] if cost <= available else _parts(row.text, available - _paragraph_line(row))
        n_parts = len(parts) if not out else n_parts
        out.append(
            ParagraphText(
                para_idx=row.para_idx,
                text=parts[0],
                kind=row.kind,
                page=row.page,
                page_end=row.page_end,
                bbox=row.box,
                image=len(pictured) + 1 if picture else None,
            )
        )
        if picture:
            pictured.append(row)
        used += cost + picture
    return _Packed(out, pictured, n_parts, too_big)


def _notes(
    packed: _Packed, rows: list[ParagraphRow], head: _Head, end: int, changed: str, images: Images | None
) -> list[str]:
    """What the answer says after the paragraphs: where the document changed, the exact call for
    what did not fit, the next part of a long paragraph, images left out or missing."""
    doc_id, sec_id, last = head["doc_id"], head["sec_id"], head["n_paras"] - 1
    first, end_read = packed.paragraphs[0], packed.paragraphs[-1].para_idx
    notes = [changed.strip()] if changed else []
    if end_read < end:
        rest = sum(r.n_tokens for r in rows if r.para_idx > end_read)
        notes.append(
            f"Stopped at paragraph {end_read} to stay within the token budget; call "
            f"read_section(doc_id={doc_id}, sec_id={sec_id}, start_para={end_read + 1}) for paragraphs "
            f"{end_read + 1}–{end} (~{rest} tokens)."
        )
    elif end_read < last:
        notes.append(f"Section continues: paragraphs {end_read + 1}–{last} remain (start_para={end_read + 1}).")
    if first.text != rows[0].text:  # alone and longer than the budget: read in parts
        notes.append(
            f"Paragraph {first.para_idx} is longer than the token budget: this is part 1 of {packed.n_parts}; "
            f"read_section(doc_id={doc_id}, sec_id={sec_id}, start_para={first.para_idx}, part=2) reads the next."
        )
    if packed.images_left_out:
        notes.append(
            f"{packed.images_left_out} image(s) left out: with its paragraph, one would not fit the token budget."
        )
    if images is not None and not packed.pictured and not packed.images_left_out:
        notes.extend(_why_no_image(images, [r for r in rows if r.para_idx <= end_read]))
    return notes


def _why_no_image(images: Images, rows: list[ParagraphRow]) -> list[str]:
    gone = [r.para_idx for r in rows if r.picture]
    if gone:  # someone emptied the parse cache
        return [
            (
                f"No image: the pictures of paragraph(s) {', '.join(map(str, gone))} are gone: the parse cache was "
                "cleared; they return when the file changes or the index is built again."
            )
        ]
    if images.why_not:
        return [f"No images: {images.why_not}"]
    if any(r.kind in PICTURED for r in rows):
        return ["No image: the figures and tables read here have no box on their page (view_page shows a page)."]
    return []


def render_images(images: Images, doc_id: int, rows: list[ParagraphRow]) -> list[PageImage]:
    """The images read_section announced, in order."""
    out = []
    for row in rows:
        rendered = images.render(row)
        out.append(
            PageImage(
                doc_id=doc_id,
                page=row.page,
                sec_id=row.sec_id,
                para_idx=row.para_idx,
                bbox=row.box,
                width=rendered.width,
                height=rendered.height,
                tokens=image_tokens(rendered.width, rendered.height),
                mime_type=rendered.mime_type,
                data=rendered.data,
            )
        )
    return out


def _paragraph_line(row: ParagraphRow) -> int:
    """Tokens of a paragraph's `[12] p.3–4 table` line in render_section (upper bound)."""
    return 4 + (6 if row.page is not None else 0) + (1 if row.kind != "text" else 0)


PART_NOTE = 40  # "[part 2 of 7]" and the note naming the next call


def _parts(text: str, budget: int) -> list[str]:
    """A paragraph longer than the budget in consecutive parts that each fit it (the same parts for
    the same budget, so `part=N` always names the same text)."""
    budget = max(budget - PART_NOTE, 1)
    parts: list[str] = []
    pos = 0
    while pos < len(text):
        piece = clip_to_tokens(text[pos : pos + budget * 12], budget) or text[pos : pos + budget]
        parts.append(piece)
        pos += len(piece)
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return parts or [""]


def _part(
    store: Store,
    doc: DocumentRow,
    section: SectionRow,
    para_idx: int,
    part: int,
    available: int,
    base: _Head,
    changed: str,
) -> SectionText:
    """One part of a paragraph longer than the token budget, and the call for the next."""
    rows = store.paragraphs(doc.doc_id, section.sec_id, para_idx, para_idx)
    row = rows[0]
    parts = _parts(row.text, available - _paragraph_line(row))
    if not 1 <= part <= len(parts):
        raise InvalidArgument(
            f"paragraph {para_idx} of section {section.sec_id} has parts 1–{len(parts)} "
            f"at this token budget (got {part})"
        )
    notes = [changed.strip()] if changed else []
    last = section.n_paras - 1
    next_start: int | None
    if part < len(parts):
        notes.append(
            f"Part {part} of {len(parts)} of paragraph {para_idx}; read_section(doc_id={doc.doc_id}, "
            f"sec_id={section.sec_id}, start_para={para_idx}, part={part + 1}) reads the next."
        )
        next_start = para_idx
    else:
        notes.append(f"Last part ({part} of {len(parts)}) of paragraph {para_idx}.")
        next_start = para_idx + 1 if para_idx < last else None
        if next_start is not None:
            notes.append(f"Section continues: paragraphs {next_start}–{last} remain (start_para={next_start}).")
    paragraph = ParagraphText(
        para_idx=para_idx, text=parts[part - 1], kind=row.kind, page=row.page, page_end=row.page_end, bbox=row.box
    )
    return SectionText(
        **base,
        end_para=para_idx,
        paragraphs=[paragraph],
        next_start_para=next_start,
        part=part,
        n_parts=len(parts),
        hint=" ".join(notes),
    )
