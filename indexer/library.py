"""The Python API of deepread: `Library.toc()`, `.retrieve()`, `.read_section()`, `.view_page()`.

A `Library` holds an open index (`indexer.service`: the data directory, its store, vectors and
model, the writer's role and its work) and answers the questions of the tool contract in
docs/design.md, each built in its own module (`indexer.answers.toc`, `indexer.search.retrieve`,
`indexer.answers.read`, `indexer.answers.pages`) from one consistent snapshot of the store. It
also says what the service is doing (`status`), and indexes when asked (`reconcile`, `follow`).
The MCP server and the CLI are thin layers over it.
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any, Self

from indexer.answers.failures import failure, kept_note
from indexer.answers.filters import Filters
from indexer.answers.folders import normalise_folder, shorten_path, subfolders
from indexer.answers.pages import PdfPages, StoredPictures, image_tokens, open_pdf
from indexer.answers.paths import ShownPaths
from indexer.answers.read import Images, read_section, render_images
from indexer.answers.toc import TocBuilder, check_depth
from indexer.errors import InvalidArgument, NotFound, NotReady
from indexer.ingest.reconcile import ProgressCallback, ReconcileReport
from indexer.models import PageImage, PageView, RetrieveResult, SectionText, Toc
from indexer.parse.images import IMAGE_FORMATS
from indexer.search.retrieve import Retriever, check_window, clean_query
from indexer.service.config import LibraryConfig
from indexer.service.follow import Follower
from indexer.service.open_index import OpenIndex
from indexer.service.status import Status
from indexer.store.database import DocumentRow, Store
from indexer.titles.shown import folder_titles
from indexer.tokens import count_tokens

__all__ = ["MAX_ID", "Library", "LibraryConfig"]

MAX_ID = 2**31 - 1  # ids, paragraph indexes and versions are far below this (SQLite stops at 2**63)
MAX_IGNORED = 5  # doc_ids a retrieve answer names as ignored, with their reason; the rest are counted


class Library:
    """The questions of the tool contract, each answered from one consistent snapshot of the store."""

    def __init__(self, config: LibraryConfig, write: bool = True):
        """`write=False`: open to answer, not to follow the folders (`indexer.service.open_index`)."""
        self.index = OpenIndex(config, write)
        self.paths = ShownPaths(self.index.config.roots)

    @property
    def config(self) -> LibraryConfig:
        return self.index.config

    @property
    def writer(self) -> bool:
        """This process writes the index and follows its folders."""
        return self.index.writer

    def status(self) -> Status:
        """What the service is doing now: indexing, paused, rebuilt, semantic search catching up."""
        return Status(self.index)

    def embedding_on(self) -> str:
        """Where the embedding model runs (ONNX Runtime's providers, best first); loads the model."""
        return ", ".join(self.index.embedder.providers) or "an unknown provider"

    def display_path(self, doc: DocumentRow) -> str:
        return self.paths.of(doc)

    def skipped(self) -> list[tuple[str, str]]:
        """What the folder walk passed over that a user may look for: (shown path, why), by path."""
        return sorted((self.paths.shown(root, relpath), why) for root, relpath, why in self.index.skipped())

    @property
    def _store(self) -> Store:
        return self.index.store

    # --- get_toc ---------------------------------------------------------------------

    def toc(
        self,
        doc_id: int | None = None,
        max_depth: int | None = None,
        sec_id: int | None = None,
        after: int | None = None,
        path: str | None = None,
        page: int = 1,
        skipped: bool = False,
        file_types: list[str] | None = None,
        modified_after: str | None = None,
        modified_before: str | None = None,
        dated_after: str | None = None,
        dated_before: str | None = None,
    ) -> Toc:
        """The map: all documents (or those under a folder, `path`), one document, or one
        section's subtree; folded to the token budget.

        `after` pages on through a section whose direct sub-sections do not fit in one answer;
        `page` through the documents of a folder too large for their sections; `skipped`: the
        files of the folder that are not indexed, and why. `file_types`, `modified_…` and
        `dated_…` keep the documents of the map that pass them (`indexer.answers.filters`).
        """
        filters = Filters.given(file_types, modified_after, modified_before, dated_after, dated_before)
        if skipped:
            if (doc_id, sec_id, after, path, max_depth, page, filters) != (None, None, None, None, None, 1, None):
                raise InvalidArgument("skipped=true lists the files not indexed: give it alone")
            return TocBuilder(self._store, self.display_path, self.config.token_budget).skipped(self.skipped())
        with self._store.snapshot():
            return self._toc(doc_id, max_depth, sec_id, after, path, page, filters)

    def _toc(
        self,
        doc_id: int | None,
        max_depth: int | None,
        sec_id: int | None,
        after: int | None,
        path: str | None,
        page: int,
        filters: Filters | None = None,
    ) -> Toc:
        check_depth(max_depth)
        if page < 1:
            raise InvalidArgument("page must be 1 or more")
        if (sec_id is not None or after is not None) and doc_id is None:
            given = " and ".join(name for name, value in (("sec_id", sec_id), ("after", after)) if value is not None)
            raise InvalidArgument(f"{given} needs a doc_id: get_toc(doc_id=D, sec_id=S)")
        if doc_id is not None:
            if path is not None or page != 1:
                raise InvalidArgument("doc_id shows one document: give it without path and page")
            if filters is not None:
                raise InvalidArgument(
                    "file_types, modified_after/before and dated_after/before choose the documents of the map: "
                    "give them without doc_id"
                )
            maps = TocBuilder(self._store, self.display_path, self.config.token_budget)
            return maps.document(self._ready_document(doc_id), max_depth, sec_id, after)
        folder, docs = self._folder(path)
        lead = None
        if filters is not None:
            scoped = docs if docs is not None else [d for d in self._store.documents() if not d.is_copy]
            docs = filters.apply(scoped, f"under {folder}/" if folder else "here")
            lead = f"Filtered to the documents {filters.describe()}: {len(docs):,} of {len(scoped):,}."
        maps = TocBuilder(
            self._store, self.display_path, self.config.token_budget, lead, filters.call_args() if filters else ""
        )
        toc = maps.all_documents(max_depth, folder, page, docs)
        notes = []
        status = self.status()
        if (progress := status.progress) is not None:
            if progress.action == "scanning":
                notes.append("Scanning the folder for documents; more may appear shortly.")
            else:
                notes.append(f"Indexing in progress: {progress.done} of {progress.total} files checked.")
        if (paused := status.paused) is not None:
            notes.append(
                f"Indexing is paused: {paused.fact}. Reading and search answer from what is indexed; "
                f"indexing resumes by itself once you {paused.remedy}."
            )
        notes += [rebuilt.note() for rebuilt in status.rebuilt]
        if (left := status.vectors_left) is not None:
            eta = f", about {_duration(left.eta_s)}" if left.eta_s is not None else ""
            notes.append(
                f"Semantic search is catching up: {left.paragraphs:,} paragraphs of {left.documents} document(s) "
                f"left{eta}; reading and keyword search work now."
            )
        if passed := self._skipped_under(folder):
            toc.n_skipped = len(passed)
            example = shorten_path(passed[0], 20)
            notes.append(
                f"{len(passed):,} file(s) here are not indexed (e.g. {example}): get_toc(skipped=true) says why."
            )
        if notes:
            toc.hint = " ".join([*notes, toc.hint] if toc.hint else notes)
        return toc

    def _folder(self, path: str | None) -> tuple[str | None, list[DocumentRow] | None]:
        """A folder the host names (`reports/2023`), checked against the paths shown, and the
        documents under it; (None, None) for the whole collection."""
        folder = normalise_folder(path)
        if folder is None:
            return None, None
        docs = self.paths.documents_under(self._store, folder)
        if not docs and (passed := self._skipped_under(folder)):
            raise NotFound(
                f"no document under {path!r}: its {len(passed):,} file(s) are not indexed "
                "(get_toc(skipped=true) says why)"
            )
        if not docs:
            tops = subfolders([d for d in self._store.documents() if d.readable], self.display_path, None)
            valid = ", ".join(list(tops)[:12]) + (", …" if len(tops) > 12 else "")
            raise NotFound(
                f"no document under {path!r}; paths are as get_toc shows them"
                + (f", e.g. the top folders {valid}" if valid else " (the folder has no sub-folders)")
            )
        return folder, docs

    def _skipped_under(self, folder: str | None) -> list[str]:
        """The shown paths of the skipped files at `folder` or under it (None: all of them)."""
        return [p for p, _ in self.skipped() if folder is None or p == folder or p.startswith(folder + "/")]

    # --- retrieve --------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        top_k: int = 5,
        doc_ids: list[int] | None = None,
        before: int = 0,
        after: int = 0,
        path: str | None = None,
        file_types: list[str] | None = None,
        modified_after: str | None = None,
        modified_before: str | None = None,
        dated_after: str | None = None,
        dated_before: str | None = None,
    ) -> RetrieveResult:
        """Rank single paragraphs, expand each hit by neighbours of its section, dedupe; `doc_ids`,
        `path` (a folder) and the filters (`indexer.answers.filters`) limit the search."""
        filters = Filters.given(file_types, modified_after, modified_before, dated_after, dated_before)
        with self._store.snapshot():
            return self._retrieve(query, top_k, doc_ids, before, after, path, filters)

    def _retrieve(
        self,
        query: str,
        top_k: int,
        doc_ids: list[int] | None,
        before: int,
        after: int,
        path: str | None = None,
        filters: Filters | None = None,
    ) -> RetrieveResult:
        query = clean_query(query)
        check_window(top_k, before, after)
        ignored: list[str] = []
        given_ids = doc_ids is not None
        if doc_ids is not None:
            if not doc_ids:
                raise InvalidArgument("doc_ids is empty: omit it to search every document, or give ids from get_toc")
            readable = []
            for doc_id in sorted(set(doc_ids)):
                try:
                    readable.append(self._ready_document(doc_id).doc_id)
                except (NotFound, NotReady) as exc:
                    if len(set(doc_ids)) == 1:
                        raise
                    ignored.append(str(exc).split(" (call get_toc")[0])
            if not readable:  # nothing to search: the first reason says what is valid
                raise NotFound(
                    "none of doc_ids can be searched: " + "; ".join(ignored) + " (call get_toc to list them)"
                )
            doc_ids = readable
        folder, docs = self._folder(path)
        if folder is not None and docs is not None:
            under = [d.doc_id for d in docs if d.readable]
            if not under:
                raise NotReady(
                    f'no document under {folder}/ is readable yet (call get_toc(path="{folder}/") to see why)'
                )
            if doc_ids is not None:
                outside = sorted(set(doc_ids) - set(under))
                if outside == sorted(set(doc_ids)):
                    raise InvalidArgument(
                        f'none of doc_ids is under {folder}/: give ids from get_toc(path="{folder}/"), '
                        "or omit one of the two"
                    )
                ignored += [f"doc {d} is not under {folder}/" for d in outside]
                doc_ids = sorted(set(doc_ids) & set(under))
            else:
                doc_ids = under
        filtered = None
        if filters is not None:
            rows = {d.doc_id: d for d in self._store.documents() if d.readable}
            pool = list(rows.values()) if doc_ids is None else [rows[i] for i in doc_ids if i in rows]
            where = f"under {folder}/" if folder else "among doc_ids" if given_ids else "in the folder"
            doc_ids = [d.doc_id for d in filters.apply(pool, "here" if where == "in the folder" else where)]
            filtered = f"Searched the {len(doc_ids):,} document(s) {filters.describe()}, of {len(pool):,} {where}."
        answer = Retriever(self._store, self.index.search, self.config.token_budget).answer(
            query,
            top_k,
            doc_ids,
            before,
            after,
            lambda: folder_titles(self._store.documents()),
            reserved=count_tokens(filtered) if filtered else 0,
        )
        if filtered is not None:
            answer.hint = f"{filtered} {answer.hint}" if answer.hint else filtered
        elif folder is not None and docs is not None and doc_ids is not None:  # doc_ids: those under the folder
            one = len(docs) == 1 and self.display_path(docs[0]) == folder  # the folder is a file's path
            note = f"Searched {folder}." if one else f"Searched the {len(doc_ids):,} document(s) under {folder}/."
            answer.hint = f"{note} {answer.hint}" if answer.hint else note
        elif doc_ids is not None and not ignored:  # scoped: which documents the hits come from
            note = f"Searched doc_ids {_describe_searched(doc_ids)}."
            answer.hint = f"{note} {answer.hint}" if answer.hint else note
        if ignored and doc_ids is not None:  # only a caller's doc_ids are ignored
            more = f"; and {len(ignored) - MAX_IGNORED} more" if len(ignored) > MAX_IGNORED else ""
            ignored = ignored[:MAX_IGNORED]
            note = f"Searched doc_ids {_describe_searched(doc_ids)}; ignored: " + "; ".join(ignored) + more + "."
            answer.hint = f"{note} {answer.hint}" if answer.hint else note
            answer.ignored = ignored
        return answer

    # --- read_section ----------------------------------------------------------------

    def read_section(
        self,
        doc_id: int,
        sec_id: int,
        start_para: int = 0,
        end_para: int | None = None,
        version: int | None = None,
        images: bool = False,
        part: int | None = None,
    ) -> SectionText:
        """A section's paragraphs in order, clipped to what exists and to the token budget.

        `version` is the document version the caller's coordinates came from; when
        the document changed since, the answer says so. `images`: figures, charts and
        tables also as crops of their PDF page, and an office file's pictures, within the same budget.
        `part`: part N of paragraph `start_para`, when it alone is longer than the budget.
        """
        with self._store.snapshot():
            doc = self._ready_document(doc_id)
            if not images or part is not None:
                answer, _ = read_section(
                    self._store, doc, sec_id, start_para, end_para, version, self.config.token_budget, part=part
                )
                return answer
        pages, why_not = self._open_pages(doc)
        if Path(doc.relpath).suffix.lower() != ".pdf":  # open_pdf's reason would be about pages alone
            why_not = (
                f"{self.display_path(doc)} is not a PDF, so only the pictures kept from it can be shown, "
                "and the paragraphs read here have none."
            )
        shown = Images(pages, StoredPictures(self.config.parse_options().pictures_dir), why_not)
        with pages or nullcontext():
            with self._store.snapshot():
                checked, doc = doc, self._ready_document(doc_id)
                if doc.version != checked.version:  # indexed again since the PDF was checked: its crops may not match
                    shown = Images(None, shown.stored, "the file changed while it was read; ask again.")
                answer, pictured = read_section(
                    self._store, doc, sec_id, start_para, end_para, version, self.config.token_budget, shown
                )
            answer.images = render_images(shown, doc_id, pictured)  # outside the snapshot: commits need not wait
        return answer

    def view_page(self, doc_id: int, page: int) -> PageView:
        """One page of a PDF as an image: the evidence where the text has no box (a scan, a
        slide that is one picture) or where layout matters; a picture of a document's page is the
        picture kept when it was read (`indexer.parse.images`)."""
        with self._store.snapshot():
            doc = self._ready_document(doc_id)
            if Path(doc.relpath).suffix.lower() in IMAGE_FORMATS:
                kept = {r.page: r.picture for r in self._store.document_paragraphs(doc_id) if r.picture is not None}
        if Path(doc.relpath).suffix.lower() in IMAGE_FORMATS:
            return self._picture_page(doc, page, kept)
        pages, why_not = self._open_pages(doc)
        if pages is None:
            raise NotReady(f"no page image for document {doc_id}: {why_not}")
        with pages:
            n_pages = len(pages)
            if not 1 <= page <= n_pages:
                raise InvalidArgument(f"document {doc_id} has pages 1–{n_pages} (got {page})")
            rendered = pages.render(page)
        image = PageImage(
            doc_id=doc_id,
            page=page,
            width=rendered.width,
            height=rendered.height,
            tokens=image_tokens(rendered.width, rendered.height),
            data=rendered.data,
        )
        return PageView(
            doc_id=doc_id, path=self.display_path(doc), version=doc.version, page=page, n_pages=n_pages, image=image
        )

    def _picture_page(self, doc: DocumentRow, page: int, kept: dict[int | None, str]) -> PageView:
        n_pages = doc.n_pages or len(kept)
        if not 1 <= page <= n_pages:
            raise InvalidArgument(f"document {doc.doc_id} has pages 1–{n_pages} (got {page})")
        stored = StoredPictures(self.config.parse_options().pictures_dir)
        name = kept.get(page)
        if not name or stored.size(name) is None:
            raise NotReady(
                f"no page image for document {doc.doc_id}: the picture kept of page {page} is gone (the parse "
                "cache was cleared); it returns when the file changes or the index is built again."
            )
        rendered = stored.render(name)
        image = PageImage(
            doc_id=doc.doc_id,
            page=page,
            width=rendered.width,
            height=rendered.height,
            tokens=image_tokens(rendered.width, rendered.height),
            mime_type=rendered.mime_type,
            data=rendered.data,
        )
        return PageView(
            doc_id=doc.doc_id, path=self.display_path(doc), version=doc.version, page=page, n_pages=n_pages, image=image
        )

    def _open_pages(self, doc: DocumentRow) -> tuple[PdfPages | None, str | None]:
        return open_pdf(Path(doc.root) / doc.relpath, doc.size, doc.mtime_ns, self.display_path(doc))

    # --- shared checks ---------------------------------------------------------------

    def _ready_document(self, doc_id: int) -> DocumentRow:
        doc = self._store.document(doc_id) if 0 <= doc_id <= MAX_ID else None
        if doc is not None and doc.is_copy:  # its id is never shown; its document's is
            raise NotFound(
                f"{self.display_path(doc)} is a copy of document {doc.copy_of} (the same bytes): "
                f"use doc_id={doc.copy_of}"
            )
        if doc is None:
            ids = [d.doc_id for d in self._store.documents() if d.readable]
            raise NotFound(f"there is no document {doc_id}; {_describe_ids(ids)} (call get_toc to list them)")
        if not doc.readable:
            if doc.status == "failed":
                raise NotReady(f"document {doc_id} ({self.display_path(doc)}) failed to index: {failure(doc)}")
            raise NotReady(f"document {doc_id} ({self.display_path(doc)}) is still being indexed; try again shortly")
        return doc

    # --- indexing --------------------------------------------------------------------

    def reconcile(self, progress: ProgressCallback | None = None, wait: bool = True) -> ReconcileReport:
        """Bring the index in line with the folders (`indexer.service.writing`); `toc()` reports
        progress meanwhile. `wait`: return once semantic search covers the documents too. Nothing
        is done when another process writes the index: it follows the folders."""
        writing = self.index.writing
        return writing.reconcile(progress, wait) if writing is not None else ReconcileReport()

    def sync_paths(
        self, paths: list[Path], progress: ProgressCallback | None = None, wait: bool = True
    ) -> ReconcileReport:
        """Re-index or remove just these paths (file events)."""
        writing = self.index.writing
        return writing.sync_paths(paths, progress, wait) if writing is not None else ReconcileReport()

    def finish_parses(self, progress: ProgressCallback | None = None) -> ReconcileReport:
        """Wait for the parses a reconcile left running and commit them."""
        writing = self.index.writing
        return writing.finish_parses(progress) if writing is not None else ReconcileReport()

    def retry_failed(self, progress: ProgressCallback | None = None) -> ReconcileReport:
        """Parse again, once a run, the files whose failure may pass (`Writing.retry_failed`)."""
        writing = self.index.writing
        return writing.retry_failed(progress) if writing is not None else ReconcileReport()

    def wait_for_vectors(self, timeout: float | None = None) -> bool:
        """True once semantic search covers every document this process indexed (or it does not write)."""
        writing = self.index.writing
        return writing is None or writing.catchup.wait(timeout)

    def take_over(self) -> bool:
        """Write the index from now on, if the process that wrote it is gone; True once writing."""
        return self.index.take_over()

    def changed_files(self) -> int:
        """How many files differ from what the index holds (`OpenIndex.changed_files`)."""
        return self.index.changed_files()

    def follower(self, **options: Any) -> Follower:
        """The background worker that keeps this index in line with its folders (not started):
        `indexer.service.follow.Follower`'s options."""
        return Follower(self.index, **options)

    def failures(self) -> list[tuple[str, str]]:
        """(shown path, reason) of every file that failed, or whose last version failed while an
        earlier one stays readable."""
        failed = []
        for doc in self._store.documents():
            reason = failure(doc) if doc.status == "failed" else kept_note(doc)
            if reason:
                failed.append((self.display_path(doc), reason))
        return failed

    def busy_files(self) -> int:
        """Files registered and not yet indexed (pending or being indexed)."""
        return sum(d.status in ("pending", "indexing") for d in self._store.documents())

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _describe_ids(ids: list[int]) -> str:
    if not ids:
        return "no documents are indexed yet"
    if len(ids) <= 20:
        return "valid doc_ids are " + ", ".join(map(str, ids))
    return f"valid doc_ids range over {ids[0]}–{ids[-1]} ({len(ids)} documents)"


def _describe_searched(ids: list[int]) -> str:
    return ", ".join(map(str, ids)) if len(ids) <= 20 else f"{', '.join(map(str, ids[:20]))} and {len(ids) - 20} more"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"
