"""Compact text for a model to read: coordinates first, no JSON noise.

The same text is what the CLI prints, so a person sees what the agent sees. A limit the
indexer names (a failure's reason, a warning) gets the setting that raises it (`explain`).
Coordinates are written `(doc_id, sec_id, para_idx)`; in the map, each document's line
carries its `(doc_id)` and its sections below it their `[sec_id]`.
"""

from __future__ import annotations

from indexer.models import DocumentInfo, PageView, RetrieveResult, SectionInfo, SectionText, Toc
from indexer.parse.formats import SUPPORTED_EXTENSIONS
from indexer.search.retrieve import shown_path
from indexer.titles.shown import repeats_path
from server.settings import explain


def render_toc(toc: Toc) -> str:
    lines: list[str] = []
    if toc.shows == "skipped":
        lines.extend(f"Skipped: {s.path} — {s.reason}" for s in toc.skipped)
    elif not toc.documents and not toc.pending and not toc.failed and not toc.truncated:
        lines.append(f"No documents in the folder yet (supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))}).")
    if toc.folders:
        lines.append(
            "Folders: "
            + "; ".join(
                f"{f.path} — {f.documents:,} documents" + (f", {f.n_pages:,} pages" if f.n_pages else "")
                for f in toc.folders
            )
        )
    for doc in toc.documents:
        if toc.brief or toc.compact:
            lines.extend(_brief_document(doc, toc.compact))
            continue
        lines.append(_document_line(doc) + _opens(doc))
        if card := _card(doc):
            lines.append(card)
        if doc.warnings:
            lines.append("  Warnings: " + "; ".join(doc.warnings))
        if not doc.root_alone:
            lines.extend(_section_line(doc.doc_id, s, doc.title) for s in doc.sections if not _is_empty_root(s))
    if toc.pending:
        lines.append(f"Still indexing ({len(toc.pending)}): " + ", ".join(toc.pending))
    for failed in toc.failed:
        retry = f" ({failed.retry})" if failed.retry else ""
        lines.append(f"Failed: ({failed.doc_id}) {failed.path} — {failed.reason}{retry}")
    if toc.hint:
        lines.append(f"Note: {toc.hint}")
    return explain("\n".join(lines))


def _document_line(doc: DocumentInfo) -> str:
    pages = f" | {doc.n_pages} pages" if doc.n_pages else ""
    pending = "" if doc.semantic else " | vectors pending"
    return (
        f"({doc.doc_id}) {doc.path} — {doc.title}{pages} | {counted(doc.n_sections, 'section')}, "
        f"{counted(doc.n_paras, 'paragraph')}, {doc.n_tokens:,} tokens | v{doc.version}{pending}{_copies(doc)}"
    )


def _card(doc: DocumentInfo) -> str | None:
    """`  Card: paper; by Jane Roe, Ann Lee; July 2023. About: We show that …` in a document's own map."""
    said = "; ".join(part for part in (doc.kind, f"by {doc.issuer}" if doc.issuer else None, doc.date) if part)
    if not said and not doc.about:
        return None
    about = f" About: {doc.about}" if doc.about else ""
    return f"  Card: {said}.{about}" if said else f"  About: {doc.about}"


def _copies(doc: DocumentInfo) -> str:
    """Files with the document's bytes, listed on its line: `| also at a.pdf, b/a.pdf (+2 more)`."""
    if not doc.copies:
        return ""
    more = f" (+{doc.n_copies - len(doc.copies)} more)" if doc.n_copies > len(doc.copies) else ""
    return f" | also at {', '.join(doc.copies)}{more}"


def counted(n: int, noun: str) -> str:
    """`1 section`, `2,003 sections`."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _opens(doc: DocumentInfo) -> str:
    """The call that opens a document listed without its sections: its map, or its text when the
    root is all it has."""
    if not doc.root_alone:
        return ""
    if doc.sections[0].hidden:
        return f" | get_toc(doc_id={doc.doc_id}) opens it"
    return f" | read_section(doc_id={doc.doc_id}, sec_id=0) reads it"


def _brief_document(doc: DocumentInfo, compact: bool) -> list[str]:
    """A document in the map of a folder: `(id) path — title | N pages` (no title when it is only
    the file's name), then its sections as
    `[sec_id] title +N` (no sizes or pages: its own map has them), indented by level; the root is
    the document's line, and `+N more sections` counts the top-level ones not listed. `compact`
    (one of many documents, paged): a warning is a count."""
    size = f" | {doc.n_pages:,} pages" if doc.n_pages else f" | {doc.n_tokens:,} tokens"
    pending = "" if doc.semantic else " | vectors pending"
    warnings = f" | {doc.n_warnings} warning(s)" if compact and doc.n_warnings else ""
    root = doc.sections[0] if doc.sections and doc.sections[0].sec_id == 0 else None
    mark = ""
    if doc.root_alone and root is not None:
        if root.hidden:
            mark = f" | +{counted(root.hidden, 'section')}"
        else:
            mark = f" | read_section(doc_id={doc.doc_id}, sec_id=0) reads it"
    title = "" if repeats_path(doc.title, doc.path) else f" — {doc.title}"
    tag = f" | {doc.tag}" if doc.tag else ""
    lines = [f"({doc.doc_id}) {doc.path}{title}{tag}{size}{pending}{warnings}{mark}{_copies(doc)}"]
    if doc.warnings:
        lines.append("  Warnings: " + "; ".join(doc.warnings))
    if doc.root_alone:
        return lines
    for s in doc.sections:
        if s.sec_id != 0:
            lines.append(f"{'  ' * s.level}[{s.sec_id}] {s.title}" + (f" +{s.hidden:,}" if s.hidden else ""))
    if root is not None and root.hidden:
        lines.append(f"  +{root.hidden:,} more {'section' if root.hidden == 1 else 'sections'}")
    return lines


ROOT_TITLE = "(opening text)"


def _is_empty_root(s: SectionInfo) -> bool:
    """A root without text whose sub-sections are all listed says nothing its document line does not."""
    return s.sec_id == 0 and s.n_tokens == 0 and not s.hidden


def _section_line(doc_id: int, s: SectionInfo, doc_title: str) -> str:
    """`[sec_id] title | N tokens | p.A–B`, indented by level; `+N` marks a folded branch.
    The root repeats the document's title, which its line already shows: it says what it holds
    (the text before the first heading after the title)."""
    indent = "  " * (s.level + 1)
    title = ROOT_TITLE if s.sec_id == 0 and doc_title.startswith(s.title) else s.title  # the map may add to it
    pages = ""
    if s.page_start is not None:
        pages = f" | p.{_pages(s.page_start, s.page_end)}"
    noun = "section" if s.hidden == 1 else "sections"
    hidden = f" | +{s.hidden} {noun}: get_toc(doc_id={doc_id}, sec_id={s.sec_id})" if s.hidden else ""
    return f"{indent}[{s.sec_id}] {title} | {s.n_tokens} tokens{pages}{hidden}"


def render_retrieve(result: RetrieveResult) -> str:
    hits = sum(1 for r in result.results if r.is_hit)
    if result.results:
        lines = [f'{hits} hit(s) for "{result.query}" — (doc_id, sec_id, para_idx):']
    else:
        lines = [f'No hits for "{result.query}".']
    if result.caution:
        lines.append(f"Note: {result.caution}")
    previous: tuple[int, int] | None = None
    for r in result.results:
        page = f" | p.{_pages(r.page, r.page_end)}" if r.page is not None else ""
        kind = f" {r.kind}" if r.kind != "text" else ""
        head = f"#{r.rank} score={r.score}" if r.is_hit else "  neighbour"
        where = f"({r.doc_id}, {r.sec_id}, {r.para_idx}) v{r.doc_version}{page}{kind}"
        path = "same section" if (r.doc_id, r.sec_id) == previous else shown_path(r.section_path, r.document)
        previous = (r.doc_id, r.sec_id)
        lines.append(f"\n{head} {where} | {path}")
        lines.append(r.text)
    if result.hint:
        lines.append(f"\nNote: {result.hint}")
    return explain("\n".join(lines))


def render_section(section: SectionText) -> str:
    if section.paragraphs:
        span = f"paragraphs {section.start_para}–{section.end_para} of 0–{section.n_paras - 1}"
    else:
        span = "no paragraphs"
    lines = [
        f"({section.doc_id}) [{section.sec_id}] {section.title} | level {section.level} | {span} | v{section.version}"
    ]
    for p in section.paragraphs:
        page = f" p.{_pages(p.page, p.page_end)}" if p.page is not None else ""
        kind = f" {p.kind}" if p.kind != "text" else ""
        image = f" — image {p.image} below" if p.image else ""
        part = f" part {section.part} of {section.n_parts}" if section.part else ""
        lines.append(f"\n[{p.para_idx}]{page}{kind}{image}{part}")
        lines.append(p.text)
    if section.next_start_para is None and section.paragraphs:
        lines.append("\n(end of section)")
    if section.hint:
        lines.append(f"\nNote: {section.hint}")
    return explain("\n".join(lines))


def render_page(view: PageView) -> str:
    image = view.image
    return (
        f"({view.doc_id}) {view.path} | page {view.page} of {view.n_pages} | v{view.version} — the page image below "
        f"({image.width}×{image.height} px, ~{image.tokens:,} tokens)"
    )


def _pages(page: int, page_end: int | None) -> str:
    return f"{page}–{page_end}" if page_end is not None and page_end != page else str(page)
