"""get_toc: the map of the folder, cut to the token budget.

Without a doc_id every document is listed with its sections down to the
deepest level that fits the budget (then, if even document lines do not fit,
the first documents only); with a doc_id, that document's sections to the
depth that fits. Either way the answer says what was cut and how to get it.
"""

from __future__ import annotations

from collections.abc import Callable

from indexer.models import DocumentInfo, FailedDocument, SectionInfo, Toc
from indexer.store import DocumentRow, Store
from indexer.tokens import count_tokens


class TocBuilder:
    def __init__(self, store: Store, display_path: Callable[[DocumentRow], str], token_budget: int):
        self.store = store
        self.display_path = display_path
        self.token_budget = token_budget

    def all_documents(self, max_depth: int | None) -> Toc:
        """Every document, with sections to the deepest level that fits the budget."""
        docs = self.store.documents()
        ready = [d for d in docs if d.readable]
        pending = [self.display_path(d) for d in docs if d.status in ("pending", "indexing")]
        failed = [FailedDocument(path=self.display_path(d), reason=d.reason or "unknown") for d in docs if d.status == "failed"]
        sections = {d.doc_id: self.sections(d.doc_id) for d in ready}
        budget = self.token_budget - 40 * len(failed) - 10 * len(pending)

        deepest = max((s.level for secs in sections.values() for s in secs), default=0)
        depth = deepest if max_depth is None else min(max_depth, deepest)
        while depth > 0 and _toc_cost(ready, sections, depth) > budget:
            depth -= 1
        shown = ready
        while len(shown) > 1 and _toc_cost(shown, sections, depth) > budget:
            shown = shown[: max(1, len(shown) * 3 // 4)]

        documents = [self._document_info(d, [s for s in sections[d.doc_id] if s.level <= depth]) for d in shown]
        cut_depth = depth < deepest and (max_depth is None or depth < max_depth)
        truncated = cut_depth or len(shown) < len(ready)
        hint = None
        if len(shown) < len(ready):
            hint = (
                f"Listed {len(shown)} of {len(ready)} documents to stay within the token budget; "
                f"call get_toc(doc_id=N) for any document (ids {ready[len(shown)].doc_id}–{ready[-1].doc_id} not shown)."
            )
        elif cut_depth:
            hint = f"Sections shown to depth {depth} to stay within the token budget; call get_toc(doc_id=N) for a document's full TOC."
        return Toc(documents=documents, pending=pending, failed=failed, truncated=truncated, hint=hint)

    def document(self, doc: DocumentRow, max_depth: int | None) -> Toc:
        """One document's sections, to the depth that fits the budget."""
        sections = self.sections(doc.doc_id)
        deepest = max((s.level for s in sections), default=0)
        depth = deepest if max_depth is None else min(max_depth, deepest)
        while depth > 0 and _toc_cost([doc], {doc.doc_id: sections}, depth) > self.token_budget:
            depth -= 1
        shown = [s for s in sections if s.level <= depth]
        truncated = len(shown) < len(sections) and (max_depth is None or depth < max_depth)
        hint = None
        if truncated:
            parents = [s.sec_id for s in shown if s.level == depth and s.children][:10]
            hint = (
                f"Sections shown to depth {depth} of {deepest} to stay within the token budget. "
                f"Deeper headings are listed in each section's children; read_section(doc_id={doc.doc_id}, sec_id=N) "
                f"reads one (sections with hidden sub-sections include {parents})."
            )
        return Toc(documents=[self._document_info(doc, shown)], truncated=truncated, hint=hint)

    def sections(self, doc_id: int) -> list[SectionInfo]:
        sections = [section_info(r) for r in self.store.sections(doc_id)]
        by_id = {s.sec_id: s for s in sections}
        for s in sections:
            if s.parent is not None and s.parent in by_id:
                by_id[s.parent].children.append(s.sec_id)
        return sections

    def _document_info(self, doc: DocumentRow, sections: list[SectionInfo]) -> DocumentInfo:
        return DocumentInfo(
            doc_id=doc.doc_id,
            path=self.display_path(doc),
            title=doc.title or doc.relpath,
            status=doc.status,  # type: ignore[arg-type]
            version=doc.version,
            n_pages=doc.n_pages,
            n_sections=doc.n_sections,
            n_paras=doc.n_paras,
            n_tokens=doc.n_tokens,
            sections=sections,
        )


def section_info(row) -> SectionInfo:  # noqa: ANN001 (sqlite3.Row)
    return SectionInfo(**{k: row[k] for k in row.keys() if k != "doc_id"}, children=[])


def _toc_cost(docs: list[DocumentRow], sections: dict[int, list[SectionInfo]], depth: int) -> int:
    """Estimated tokens of the rendered TOC: one line per document and per section shown."""
    cost = 0
    for doc in docs:
        cost += 30 + count_tokens(doc.title or "") + count_tokens(doc.relpath)
        for s in sections[doc.doc_id]:
            if s.level <= depth:
                cost += 16 + count_tokens(s.title) + 2 * len(s.children)
    return cost
