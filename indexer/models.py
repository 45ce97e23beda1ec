"""Data shapes.

Parsers produce `ParsedDocument` (a flat list of blocks); `indexer.structure.sections.build`
turns it into a `DocumentStructure` (sections and paragraphs with coordinates);
the `Library` answers with the pydantic models at the bottom, which the MCP
server publishes unchanged as structured content.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypedDict

from pydantic import BaseModel, Field

ParagraphKind = Literal["text", "list", "table", "code", "equation", "figure"]
DocumentStatus = Literal["pending", "indexing", "ready", "failed"]


# --- parser output -----------------------------------------------------------------


class Item(TypedDict, total=False):
    """One element of MinerU's content list, as the parser child gives it back (and as the OCR and
    the PDF text layer fill it in): what `indexer.parse.layout` turns into blocks and what a title
    is read from (`indexer.titles`). Keys are MinerU's own; an item has those its type has."""

    type: str  # text, list, table, image, chart, equation, code, header, footer, page_number, page_footnote, …
    text: str  # its text (Markdown-flavoured: `indexer.parse.items.clean`)
    text_level: int  # set on a heading: 1 is the top level (flash sets every PDF heading at 2)
    page_idx: int  # 0-based
    bbox: list[int]  # x0, y0, x1, y1 in 0–1000 page units, origin top left (PDFs)
    font_size: float  # the text layer's size of its type (PDFs; 1.0 where unknown)
    content: str  # a picture's words as OCR read them
    text_layer: str  # a picture's words in the PDF's text layer
    img_path: str | None  # a picture's file, as MinerU wrote it (cleared once an office picture is kept)
    picture: str  # a picture kept from an office file (`indexer.parse.pictures`)
    table_body: str  # a table as HTML
    table_caption: list[str]
    table_footnote: list[str]
    image_caption: list[str]
    chart_caption: list[str]
    image_footnote: list[str]
    chart_footnote: list[str]
    list_items: list[str]
    code_body: str
    code_caption: list[str]
    latex: str  # an equation


@dataclass
class Block:
    """One block in reading order: a heading or a paragraph.

    `level` is the heading level the source states (1 for `#`), None for
    paragraphs. `inferred` marks headings guessed from typography or
    numbering rather than declared by the format; only those may be demoted
    back to text by the structure builder.
    """

    kind: Literal["heading"] | ParagraphKind
    text: str
    level: int | None = None
    page: int | None = None
    inferred: bool = False
    bbox: list[int] | None = None  # x0, y0, x1, y1 in 0–1000 page units (PDFs), on `page`
    last_page: int | None = None  # where a block that runs over a page break ends (a continued table)
    size: float | None = None  # font size relative to the document's body text (PDF headings), 1.0 = body
    picture: str | None = (
        None  # a picture the parser kept from an office file (its name in `indexer.answers.pages.StoredPictures`)
    )


@dataclass
class Declared:
    """What a file says of itself in its metadata (a PDF's document information, office core
    properties, an EPUB's package, an HTML page's <title>): often a template's leftover or another
    document's, so `indexer.titles` weighs it against what the document prints."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    subject: str | None = None
    publisher: str | None = None
    created: str | None = None  # ISO 8601, as the file says

    @classmethod
    def of(cls, raw: dict) -> Declared:
        """From the parser child's `declared` (MinerU's document properties)."""
        return cls(
            title=(raw.get("title") or "").strip() or None,
            authors=[a.strip() for a in raw.get("authors") or [] if isinstance(a, str) and a.strip()],
            subject=(raw.get("subject") or "").strip() or None,
            publisher=(raw.get("publisher") or "").strip() or None,
            created=(raw.get("created_at") or "").strip() or None,
        )


@dataclass
class ParsedDocument:
    blocks: list[Block]
    title: str | None = None  # a text parser's front-matter title (`indexer.titles.decide` names the rest)
    items: list[Item] | None = None  # what MinerU gave: the first page's typography, for the title
    declared: Declared = field(default_factory=Declared)  # what the file's metadata says of it
    paged: bool = False  # the items have pages (PDF): page 1's type sizes say what its title is
    format: str = ""  # the file's extension (".pdf", ".pptx", …): some kinds of document are a format
    n_pages: int | None = None
    warnings: list[str] = field(default_factory=list)  # what went wrong without failing the file


# --- structure (what the store holds) ------------------------------------------------


@dataclass
class Paragraph:
    sec_id: int
    para_idx: int
    kind: str
    text: str
    page: int | None
    n_tokens: int
    bbox: list[int] | None = None
    page_end: int | None = None  # the last page it runs on; `page` when it stays on one
    picture: str | None = None  # see Block.picture
    junk: bool = False  # not language (random letters, base64, a dump): not embedded, ranked after real text


@dataclass
class Section:
    sec_id: int
    title: str
    level: int
    parent: int | None
    children: list[int] = field(default_factory=list)
    n_paras: int = 0
    n_tokens: int = 0
    page_start: int | None = None
    page_end: int | None = None


@dataclass
class DocumentStructure:
    title: str
    sections: list[Section]
    paragraphs: list[Paragraph]
    n_pages: int | None = None
    warnings: list[str] = field(default_factory=list)
    detail: str | None = None  # the card's date: the period, date or version it states (`indexer.titles.card`)
    named_by_file: bool = False  # nothing in the document names it: the title is the file's name
    kind: str | None = None  # the card's kind: paper, filing, slides, court paper, …
    issuer: str | None = None  # the card's issuer or authors
    about: str | None = None  # the card's line of what it is about, taken from it

    @property
    def n_tokens(self) -> int:
        return sum(p.n_tokens for p in self.paragraphs)

    def section_paths(self) -> dict[int, list[str]]:
        return section_paths(self.sections)


class _Titled(Protocol):
    sec_id: int
    parent: int | None
    title: str


def section_paths(sections: Iterable[_Titled]) -> dict[int, list[str]]:
    """Heading titles from the root down to each section (parents precede children)."""
    paths: dict[int, list[str]] = {}
    for section in sections:
        parent_path = paths.get(section.parent, []) if section.parent is not None else []
        paths[section.sec_id] = [*parent_path, section.title]
    return paths


# --- answers (the tool contract in docs/design.md) ---------------------------------------


class SectionInfo(BaseModel):
    sec_id: int
    title: str
    level: int
    parent: int | None
    children: list[int] = Field(description="Sub-sections listed in this answer; `hidden` counts the others.")
    n_paras: int
    n_tokens: int
    page_start: int | None = None
    page_end: int | None = None
    hidden: int = Field(0, description="Sub-sections below this one not listed; get_toc(doc_id, sec_id) lists them.")


class DocumentInfo(BaseModel):
    doc_id: int
    path: str
    title: str
    status: DocumentStatus
    version: int = Field(description="Increases each time the file's new content is indexed.")
    n_pages: int | None = None
    n_sections: int
    n_paras: int
    n_tokens: int
    semantic: bool = Field(
        True, description="Semantic search covers this version; until its vectors are in, keyword search finds it."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="What went wrong without failing the document (e.g. pages OCR could not read); cut short in "
        "the map of all documents, whole in get_toc(doc_id).",
    )
    n_warnings: int = Field(0, description="How many warnings it has (the compact map shows the count alone).")
    copies: list[str] = Field(
        default_factory=list,
        description="Other paths of files with the same bytes: one document, indexed and found once (the first few; "
        "n_copies counts them all).",
    )
    n_copies: int = 0
    kind: str | None = Field(None, description="What kind of document it is: paper, filing, report, slides, …")
    issuer: str | None = Field(None, description="Who issued or wrote it: an organisation, a court, authors.")
    date: str | None = Field(None, description="Its own date, period or version, as it states it.")
    about: str | None = Field(None, description="One line of what it is about, taken from it (≤ 25 words).")
    tag: str | None = Field(
        None, description="In the map of a folder: its kind and year, where they tell it from the others listed."
    )
    sections: list[SectionInfo] = Field(default_factory=list)

    @property
    def root_alone(self) -> bool:
        """Only the root is listed (a map at max_depth=0, or one folded to its documents): the
        document's line says what it holds and the call that opens it, with no line of its own."""
        return len(self.sections) == 1 and self.sections[0].sec_id == 0


class FailedDocument(BaseModel):
    doc_id: int
    path: str
    reason: str
    retry: str | None = Field(
        None,
        description="When a failure that may pass (a time limit, a killed parser) is parsed again by itself; "
        "null when only editing or replacing the file retries it.",
    )


class FolderInfo(BaseModel):
    path: str = Field(description="A sub-folder of the folder shown, ending in '/': get_toc(path=...) shows it.")
    documents: int = Field(description="Readable documents under it, at any depth.")
    n_pages: int = Field(0, description="Their pages (PDFs and slide decks).")


class SkippedFile(BaseModel):
    path: str = Field(description="As the map writes paths; a folder ends in '/'.")
    reason: str = Field(description="Why it is not indexed (an unsupported type, a folder that cannot be opened, …).")


class Toc(BaseModel):
    documents: list[DocumentInfo]
    pending: list[str] = Field(default_factory=list)
    failed: list[FailedDocument] = Field(default_factory=list)
    skipped: list[SkippedFile] = Field(
        default_factory=list, description="Files in the folder that are not indexed, with why: get_toc(skipped=true)."
    )
    n_skipped: int = Field(0, description="How many files and folders of the folder are not indexed.")
    shows: Literal["map", "skipped"] = Field("map", description="The map, or the list get_toc(skipped=true) asks for.")
    path: str | None = Field(None, description="The folder shown (a path prefix), when scoped.")
    folders: list[FolderInfo] = Field(
        default_factory=list, description="With many documents: the sub-folders of the folder shown, with their counts."
    )
    compact: bool = Field(False, description="Too many documents for their sections: one line each, paged.")
    brief: bool = Field(
        False,
        description="The map of a folder: each document's line and its sections' ids and titles, folded with "
        "counts (sizes and pages: get_toc(doc_id)).",
    )
    page: int = Field(1, description="Which page of the document list this is (1-based).")
    n_pages: int = Field(1, description="Pages the document list takes at this token budget.")
    n_documents: int = Field(0, description="Readable documents in the folder shown, on all pages.")
    truncated: bool = False
    hint: str | None = None


class RetrievedParagraph(BaseModel):
    doc_id: int
    sec_id: int
    para_idx: int
    text: str
    kind: str
    page: int | None = None
    page_end: int | None = Field(None, description="Last page, when the paragraph runs over a page break.")
    bbox: list[int] | None = Field(None, description="x0, y0, x1, y1 on the page, 0–1000 (PDFs).")
    section_path: list[str]
    document: str | None = Field(
        None,
        description="The document's title as the map shows it, on the first result from each document "
        "when the search spans several.",
    )
    score: float | None = Field(None, description="Fused relevance score; null for neighbours.")
    rank: int | None = Field(None, description="1-based rank of a hit; null for neighbours.")
    is_hit: bool
    doc_version: int = Field(description="Version of the document these coordinates belong to.")
    clipped: bool = Field(False, description="The text was cut to share the token budget; read_section reads it.")


class Coverage(BaseModel):
    documents: int = Field(description="Documents searched.")
    semantic: int = Field(description="Of those, documents semantic search covers so far (keyword search covers all).")


class RetrieveResult(BaseModel):
    query: str
    results: list[RetrievedParagraph]
    coverage: Coverage | None = Field(None, description="Set while semantic search is still catching up.")
    ignored: list[str] = Field(default_factory=list, description="doc_ids that could not be searched, and why.")
    caution: str | None = Field(None, description="What qualifies every hit; shown before them.")
    hint: str | None = None


class PageImage(BaseModel):
    """A rendered region of a PDF page (a figure, chart or table), a whole page, or a picture
    kept from an office file."""

    doc_id: int
    page: int | None = Field(description="1-based; null for a picture of a file without pages (DOCX, XLSX).")
    sec_id: int | None = None
    para_idx: int | None = Field(None, description="The paragraph shown; null for a whole page.")
    bbox: list[int] | None = Field(
        None, description="The region, 0–1000 page units; null for a whole page or a kept picture."
    )
    width: int
    height: int
    tokens: int = Field(description="What the image costs a host, about width × height / 750.")
    mime_type: str = "image/png"
    data: bytes = Field(b"", exclude=True, repr=False)  # sent as image content, not in the structured data


class ParagraphText(BaseModel):
    para_idx: int
    text: str
    kind: str
    page: int | None = None
    page_end: int | None = Field(None, description="Last page, when the paragraph runs over a page break.")
    bbox: list[int] | None = None
    image: int | None = Field(None, description="1-based position of this paragraph's image in `images`.")


class SectionText(BaseModel):
    doc_id: int
    sec_id: int
    version: int = Field(description="Version of the document read.")
    title: str
    level: int
    n_paras: int
    start_para: int
    end_para: int = Field(description="Inclusive; -1 when the section has no paragraphs.")
    paragraphs: list[ParagraphText]
    next_start_para: int | None = Field(description="Where to continue; null when read to the section's end.")
    part: int | None = Field(None, description="With part=N: which part of a paragraph longer than the budget this is.")
    n_parts: int | None = Field(None, description="With part=N: how many parts that paragraph has at this budget.")
    images: list[PageImage] = Field(
        default_factory=list, description="With images=true: the figure, chart and table regions read, in order."
    )
    hint: str | None = None


class PageView(BaseModel):
    doc_id: int
    path: str
    version: int
    page: int
    n_pages: int
    image: PageImage
