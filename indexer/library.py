"""The Python API of deepread: `Library.toc()`, `.retrieve()`, `.read_section()`, `.view_page()`.

It owns the data directory (one process, enforced by a lock file), opens the
store, the vectors and the embedding model, rebuilds what a changed model or
token count invalidates, runs the lane on which vectors catch up
(`indexer.ingest.catchup`), and answers the questions of the tool contract in
DESIGN.md, each built in its own module (`toc`, `retrieve`, `read`, `pages`)
from one consistent snapshot of the store. The MCP server and the CLI are thin
layers over it.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

from filelock import FileLock, Timeout

from indexer.ingest.catchup import CatchUpState, VectorCatchUp, embed_pending
from indexer.store.embedder import DEFAULT_MODEL, Embedder
from indexer.errors import IndexLocked, InvalidArgument, NotFound, NotReady
from indexer.ingest.files import check_roots, root_labels
from indexer.ingest.lanes import LANES, SLOW_PARSE_S
from indexer.models import PageImage, PageView, RetrieveResult, SectionText, Toc, section_paths
from indexer.answers.pages import PdfPages, image_tokens, open_pdf
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S, MINERU_FORMATS, MineruOptions
from indexer.structure.passages import PASSAGE_VERSION, vector_ids
from indexer.answers.pages import StoredPictures
from indexer.ingest.pipeline import Indexer, Progress, ProgressCallback, ReconcileReport
from indexer.answers.read import Images, read_section, render_images
from indexer.search.rerank import Reranker
from indexer.search.retrieve import Retriever, check_window, clean_query
from indexer.search.hybrid import HybridSearch, SearchMode
from indexer.store.database import DocumentRow, Store
from indexer.structure.sections import STRUCTURE_VERSION
from indexer.answers.toc import TocBuilder, check_depth, failure, in_folder, normalise_folder, subfolders
from indexer.tokens import TOKEN_COUNT_VERSION
from indexer.store.vectors import VectorIndex

log = logging.getLogger(__name__)

MAX_ID = 2**31 - 1
RETRY_PATIENCE = 2.0  # a failure that may pass is retried when idle with this many times the time limit
MAX_IGNORED = 5  # doc_ids a retrieve answer names as ignored, with their reason; the rest are counted  # ids, paragraph indexes and versions are far below this (SQLite stops at 2**63)


@dataclass
class LibraryConfig:
    roots: list[Path]
    data_dir: Path
    models_dir: Path
    embedding_model: str = DEFAULT_MODEL
    chroma_url: str | None = None
    token_budget: int = 8000
    max_file_bytes: int = 100_000_000
    heading_context: bool = True
    search_mode: SearchMode = "hybrid"
    embed_threads: int | None = None
    mineru_home: Path | None = None  # MinerU's models and config (default: in the data dir)
    parse_timeout_s: float = DEFAULT_TIMEOUT_S
    parse_memory_mb: int = DEFAULT_MEMORY_MB
    parse_cache_dir: Path | None = None  # MinerU results by content hash (default: in the data dir); shareable
    reranker: str | None = None  # fastembed cross-encoder name; None = no reranking
    reranker_path: Path | None = None  # its ONNX folder, when it cannot be downloaded
    mineru_url: str | None = None  # parse on this MinerU server (mineru-api or mineru-router) instead of here
    mineru_api_key: str | None = None  # its --api-key, when it has one
    parse_jobs: int = LANES  # files parsed at once (more make sense with a MinerU server)


class Library:
    def __init__(self, config: LibraryConfig):
        config = replace(config, roots=check_roots(config.roots))
        self.config = config
        self._labels = root_labels(config.roots)
        self.progress: Progress | None = None  # set while a reconcile runs
        self._retry_at_start = True  # the first reconcile parses transient failures again
        self._retried: set[tuple[int, str | None]] = set()  # (doc_id, content hash) retried when idle this run
        config.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock = _acquire(config.data_dir)
        # The parser's temporary folders: what a killed server left is removed now that we own the dir.
        work_dir = config.data_dir / "tmp"
        shutil.rmtree(work_dir, ignore_errors=True)
        try:
            self.store = Store(config.data_dir / "index.sqlite3")
            self.embedder = Embedder(config.models_dir, config.embedding_model, threads=config.embed_threads)
            # A shared Chroma server holds many indexes: name the collection after this one.
            collection = _collection_name(config.data_dir) if config.chroma_url else "paragraphs"
            self.vectors = VectorIndex(
                collection, path=config.data_dir / "chroma", url=config.chroma_url, copy=config.data_dir / "vectors.sqlite3"
            )
            self._check_signature()
            self._check_structure()
            parse_options = MineruOptions(
                cache_dir=config.parse_cache_dir or config.data_dir / "parse-cache",
                home=config.mineru_home or config.data_dir / "mineru",
                work_dir=work_dir,
                timeout_s=config.parse_timeout_s,
                memory_mb=config.parse_memory_mb,
                url=config.mineru_url,
                api_key=config.mineru_api_key,
            )
            self._pictures_dir = parse_options.pictures_dir
            parser = DocumentParser(parse_options)
            self._check_parser_models(parser)
            self.indexer = Indexer(
                self.store,
                self.vectors,
                self.embedder,
                parser,
                config.roots,
                config.max_file_bytes,
                heading_context=config.heading_context,
                excluded=[config.data_dir],
                parse_jobs=config.parse_jobs,
            )
            reranker = (
                Reranker(config.reranker, config.models_dir, config.reranker_path, config.embed_threads)
                if config.reranker
                else None
            )
            self.search = HybridSearch(self.store, self.vectors, self.embedder, config.search_mode, reranker)
            self._lane_model: Embedder | None = None
            self.catchup = VectorCatchUp(
                lambda stop, pace: embed_pending(
                    self.store, self.vectors, self._lane_embedder(), config.heading_context, stop, pace
                )
            )
            self.indexer.on_commit = self.catchup.wake
            if self.store.awaiting_vectors():  # what a stop or a crash left: semantic search catches up
                self.catchup.wake()
        except BaseException:
            self._lock.release()
            raise

    def _lane_embedder(self) -> Embedder:
        """The vector lane's own copy of the model, loaded on the lane's thread (`indexer.ingest.catchup`)."""
        if self._lane_model is None:
            config = self.config
            self._lane_model = Embedder(config.models_dir, config.embedding_model, threads=config.embed_threads)
        return self._lane_model

    def close(self) -> None:
        self.catchup.stop()  # after the batch under way; the next start embeds the rest
        self.store.close()
        self.vectors.close()
        self._lock.release()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_signature(self) -> None:
        """Vectors of another model must never be mixed in: they are dropped. When the passages or
        the text embedded change, every document's paragraphs are packed into passages again and
        the vector lane embeds in the background those whose text is new; reading and keyword
        search work throughout."""
        model = f"model={self.embedder.name}{self.embedder.revision};dim={self.embedder.dim};"
        signature = f"{model}context={self.config.heading_context};passages={PASSAGE_VERSION}"
        previous = self.store.get_meta("index_signature")
        if previous != signature:
            if previous is None or not previous.startswith(model):  # another model: no vector of it may stay
                self.vectors.reset()
            if previous is not None:
                # Vector ids name the text embedded, so a passage packed as before keeps its vector;
                # the vector lane embeds the others and drops those no passage has any more.
                log.warning("index was built with %s; embedding again for %s in the background", previous, signature)
                self._repack()
            self.store.set_meta("index_signature", signature)

    def _repack(self) -> None:
        for doc in self.store.documents():
            if doc.readable:
                rows = self.store.document_paragraphs(doc.doc_id)
                paths = section_paths(self.store.sections(doc.doc_id))
                ids, _ = vector_ids(doc.doc_id, rows, paths, self.config.heading_context)
                self.store.assign_vectors(doc.doc_id, {row.id: vid for row, vid in zip(rows, ids, strict=True)})

    def _check_structure(self) -> None:
        """Sections, paragraphs and their token counts are stored: when the way they are made or
        counted changes, every file is structured again (parses come from the cache, vectors are kept)."""
        version = f"structure {STRUCTURE_VERSION}, tokens {TOKEN_COUNT_VERSION}"
        previous = self.store.get_meta("structure")
        if previous != version:
            if previous is not None or self.store.documents():
                log.info("documents were structured by an earlier version: structuring them again")
                self.store.forget_file_facts()
            self.store.set_meta("structure", version)

    def _check_parser_models(self, parser: DocumentParser) -> None:
        """After MinerU models are installed (or removed), PDFs and office files are parsed again."""
        fingerprint = parser.mineru.models_fingerprint()
        previous = self.store.get_meta("mineru_models")
        if previous != fingerprint:
            if previous is not None:
                log.info("MinerU models changed: documents it parses will be parsed again")
                self.store.forget_file_facts(frozenset(MINERU_FORMATS))
            self.store.set_meta("mineru_models", fingerprint)

    # --- indexing --------------------------------------------------------------------

    def reconcile(self, progress: ProgressCallback | None = None, wait: bool = True) -> ReconcileReport:
        """Bring the index in line with the folders; `toc()` reports progress meanwhile. Each
        document is readable and found by keyword search once parsed; `wait`: return once
        semantic search covers them too (the server does not wait, and leaves a slow parse to
        finish on its own: `indexer.ingest.lanes`). The first reconcile of a run also parses again the
        files whose failure may pass (a time limit, a killed parser)."""
        patience = None if wait else SLOW_PARSE_S
        retry, self._retry_at_start = (1.0 if self._retry_at_start else None), False
        return self._tracked(lambda record: self.indexer.reconcile(record, patience, retry), progress, wait)

    def sync_paths(self, paths: list[Path], progress: ProgressCallback | None = None, wait: bool = True) -> ReconcileReport:
        """Re-index or remove just these paths (file events)."""
        patience = None if wait else SLOW_PARSE_S
        return self._tracked(lambda record: self.indexer.sync_paths(paths, record, patience), progress, wait)

    def retry_failed(self, progress: ProgressCallback | None = None) -> ReconcileReport:
        """Once per run, parse again the files whose failure may pass (a time limit on a busy
        machine, a killed parser; a failed document, or a new version whose previous one
        stays), with RETRY_PATIENCE times their time limit: the server calls
        this when it is idle."""
        due = [
            d for d in self.store.documents()
            if d.transient and (d.doc_id, d.content_hash) not in self._retried
        ]
        self._retried.update((d.doc_id, d.content_hash) for d in due)
        if not due:
            return ReconcileReport()
        log.info("parsing %d failed file(s) again with %g× the time limit", len(due), RETRY_PATIENCE)
        return self._tracked(
            lambda record: self.indexer.retry_failed(due, RETRY_PATIENCE, record, SLOW_PARSE_S), progress, wait=False
        )

    def note_scanning(self) -> None:
        """Until the files found are registered, get_toc says the folder is being scanned."""
        if self.progress is None:
            self.progress = Progress(0, 0, "", "scanning")

    def _tracked(
        self, work: Callable[[ProgressCallback], ReconcileReport], progress: ProgressCallback | None, wait: bool
    ) -> ReconcileReport:
        def record(p: Progress) -> None:
            self.progress = p if p.done < p.total else None
            if progress:
                progress(p)

        self.note_scanning()
        self.indexer.cancel.clear()  # a stop ends the run under way, not every later one
        embedded = self.catchup.embedded
        try:
            report = work(record)
        finally:
            self.progress = None
        if wait:
            self.catchup.wait()
            report.embedded = self.catchup.embedded - embedded
        return report

    def use_search(self, mode: SearchMode, reranker: Reranker | None = None) -> None:
        """Search this way from now on: benchmarks compare modes and rerankers on one open index."""
        self.search.mode, self.search.reranker = mode, reranker

    # --- paths -----------------------------------------------------------------------

    def display_path(self, doc: DocumentRow) -> str:
        """The relpath; with several roots, after the root's label (its name, or as much of its
        path as tells it from the others)."""
        if len(self.config.roots) == 1:
            return doc.relpath
        return f"{self._labels.get(doc.root, Path(doc.root).name)}/{doc.relpath}"

    # --- get_toc ---------------------------------------------------------------------

    def toc(
        self, doc_id: int | None = None, max_depth: int | None = None, sec_id: int | None = None,
        after: int | None = None, path: str | None = None, page: int = 1,
    ) -> Toc:
        """The map: all documents (or those under a folder, `path`), one document, or one
        section's subtree; folded to the token budget.

        `after` pages on through a section whose direct sub-sections do not fit in one answer;
        `page` through the documents of a folder too large for their sections.
        """
        with self.store.snapshot():
            return self._toc(doc_id, max_depth, sec_id, after, path, page)

    def _toc(
        self, doc_id: int | None, max_depth: int | None, sec_id: int | None, after: int | None, path: str | None,
        page: int,
    ) -> Toc:
        check_depth(max_depth)
        if page < 1:
            raise InvalidArgument("page must be 1 or more")
        maps = TocBuilder(self.store, self.display_path, self.config.token_budget)
        if (sec_id is not None or after is not None) and doc_id is None:
            given = " and ".join(name for name, value in (("sec_id", sec_id), ("after", after)) if value is not None)
            raise InvalidArgument(f"{given} needs a doc_id: get_toc(doc_id=D, sec_id=S)")
        if doc_id is not None:
            if path is not None or page != 1:
                raise InvalidArgument("doc_id shows one document: give it without path and page")
            return maps.document(self._ready_document(doc_id), max_depth, sec_id, after)
        folder, docs = self._folder(path)
        toc = maps.all_documents(max_depth, folder, page, docs)
        notes = []
        progress = self.progress
        if progress is not None:
            if progress.action == "scanning":
                notes.append("Scanning the folder for documents; more may appear shortly.")
            else:
                notes.append(f"Indexing in progress: {progress.done} of {progress.total} files checked.")
        if (left := self.vectors_left()) is not None:
            eta = f", about {_duration(left.eta_s)}" if left.eta_s is not None else ""
            notes.append(
                f"Semantic search is catching up: {left.paragraphs:,} paragraphs of {left.documents} document(s) "
                f"left{eta}; reading and keyword search work now."
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
        docs = self._under(folder)
        if not docs:
            tops = subfolders([d for d in self.store.documents() if d.readable], self.display_path, None)
            valid = ", ".join(list(tops)[:12]) + (", …" if len(tops) > 12 else "")
            raise NotFound(
                f"no document under {path!r}; paths are as get_toc shows them"
                + (f", e.g. the top folders {valid}" if valid else " (the folder has no sub-folders)")
            )
        return folder, docs

    def _under(self, folder: str) -> list[DocumentRow]:
        """The documents whose shown path is `folder` or lies under it (`display_path`), found by
        root and relative path in the store rather than by listing every document."""
        if len(self.config.roots) == 1:
            return self.store.documents_under(str(self.config.roots[0]), folder)
        for root, label in self._labels.items():
            if folder == label or folder.startswith(label + "/"):
                return self.store.documents_under(root, folder[len(label) + 1 :])
        return in_folder(self.store.documents(), self.display_path, folder)  # a part of a label ("work" of "work/notes")

    def vectors_left(self) -> CatchUpState | None:
        """What semantic search has yet to cover, and the lane's recent rate; None when it covers all."""
        waiting = self.store.awaiting_vectors()
        if not waiting:
            return None
        return CatchUpState(len(waiting), sum(d.n_paras for d in waiting), self.catchup.rate)

    # --- retrieve --------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        top_k: int = 5,
        doc_ids: list[int] | None = None,
        before: int = 0,
        after: int = 0,
        path: str | None = None,
    ) -> RetrieveResult:
        """Rank single paragraphs, expand each hit by neighbours of its section, dedupe; `doc_ids`
        and `path` (a folder) limit the search."""
        with self.store.snapshot():
            return self._retrieve(query, top_k, doc_ids, before, after, path)

    def _retrieve(
        self, query: str, top_k: int, doc_ids: list[int] | None, before: int, after: int, path: str | None = None
    ) -> RetrieveResult:
        query = clean_query(query)
        check_window(top_k, before, after)
        ignored: list[str] = []
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
                raise NotFound("none of doc_ids can be searched: " + "; ".join(ignored) + " (call get_toc to list them)")
            doc_ids = readable
        folder, docs = self._folder(path)
        if folder is not None and docs is not None:
            under = [d.doc_id for d in docs if d.readable]
            if not under:
                raise NotReady(
                    f"no document under {folder}/ is readable yet (call get_toc(path=\"{folder}/\") to see why)"
                )
            if doc_ids is not None:
                outside = sorted(set(doc_ids) - set(under))
                if outside == sorted(set(doc_ids)):
                    raise InvalidArgument(
                        f"none of doc_ids is under {folder}/: give ids from get_toc(path=\"{folder}/\"), "
                        "or omit one of the two"
                    )
                ignored += [f"doc {d} is not under {folder}/" for d in outside]
                doc_ids = sorted(set(doc_ids) & set(under))
            else:
                doc_ids = under
        answer = Retriever(self.store, self.search, self.config.token_budget).answer(query, top_k, doc_ids, before, after)
        if folder is not None and docs is not None:
            one = len(docs) == 1 and self.display_path(docs[0]) == folder  # the folder is a file's path
            note = f"Searched {folder}." if one else f"Searched the {len(doc_ids):,} document(s) under {folder}/."
            answer.hint = f"{note} {answer.hint}" if answer.hint else note
        elif doc_ids is not None and not ignored:  # scoped: which documents the hits come from
            note = f"Searched doc_ids {_describe_searched(doc_ids)}."
            answer.hint = f"{note} {answer.hint}" if answer.hint else note
        if ignored:
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
        with self.store.snapshot():
            doc = self._ready_document(doc_id)
            if not images or part is not None:
                answer, _ = read_section(
                    self.store, doc, sec_id, start_para, end_para, version, self.config.token_budget, part=part
                )
                return answer
        pages, why_not = self._open_pages(doc)
        if Path(doc.relpath).suffix.lower() != ".pdf":  # open_pdf's reason would be about pages alone
            why_not = (
                f"{self.display_path(doc)} is not a PDF, so only the pictures kept from it can be shown, "
                "and the paragraphs read here have none."
            )
        shown = Images(pages, StoredPictures(self._pictures_dir), why_not)
        with pages or nullcontext():
            with self.store.snapshot():
                checked, doc = doc, self._ready_document(doc_id)
                if doc.version != checked.version:  # indexed again since the PDF was checked: its crops may not match
                    shown = Images(None, shown.stored, "the file changed while it was read; ask again.")
                answer, pictured = read_section(
                    self.store, doc, sec_id, start_para, end_para, version, self.config.token_budget, shown
                )
            answer.images = render_images(shown, doc_id, pictured)  # outside the snapshot: commits need not wait
        return answer

    def view_page(self, doc_id: int, page: int) -> PageView:
        """One page of a PDF as an image: the evidence where the text has no box (a scan, a
        slide that is one picture) or where layout matters."""
        with self.store.snapshot():
            doc = self._ready_document(doc_id)
        pages, why_not = self._open_pages(doc)
        if pages is None:
            raise NotReady(f"no page image for document {doc_id}: {why_not}")
        with pages:
            n_pages = len(pages)
            if not 1 <= page <= n_pages:
                raise InvalidArgument(f"document {doc_id} has pages 1–{n_pages} (got {page})")
            rendered = pages.render(page)
        image = PageImage(
            doc_id=doc_id, page=page, width=rendered.width, height=rendered.height,
            tokens=image_tokens(rendered.width, rendered.height), data=rendered.data,
        )
        return PageView(doc_id=doc_id, path=self.display_path(doc), version=doc.version, page=page, n_pages=n_pages, image=image)

    def _open_pages(self, doc: DocumentRow) -> tuple[PdfPages | None, str | None]:
        return open_pdf(Path(doc.root) / doc.relpath, doc.size, doc.mtime_ns, self.display_path(doc))

    # --- shared checks ---------------------------------------------------------------

    def _ready_document(self, doc_id: int) -> DocumentRow:
        doc = self.store.document(doc_id) if 0 <= doc_id <= MAX_ID else None
        if doc is None:
            ids = [d.doc_id for d in self.store.documents() if d.readable]
            raise NotFound(f"there is no document {doc_id}; {_describe_ids(ids)} (call get_toc to list them)")
        if not doc.readable:
            if doc.status == "failed":
                raise NotReady(f"document {doc_id} ({self.display_path(doc)}) failed to index: {failure(doc)}")
            raise NotReady(f"document {doc_id} ({self.display_path(doc)}) is still being indexed; try again shortly")
        return doc


def _collection_name(data_dir: Path) -> str:
    """Chroma wants 3–512 characters of [a-zA-Z0-9._-], starting and ending alphanumeric."""
    suffix = re.sub(r"[^a-zA-Z0-9._-]", "-", data_dir.name)[-60:].strip("-_.")
    return f"deepread-{suffix or 'index'}"


def _acquire(data_dir: Path) -> FileLock:
    lock = FileLock(str(data_dir / "index.lock"))
    owner_file = data_dir / "owner.pid"
    try:
        lock.acquire(timeout=0)
    except Timeout:
        owner = owner_file.read_text().strip() if owner_file.exists() else "unknown"
        raise IndexLocked(
            f"the index in {data_dir} is in use by another deepread-mcp process (pid {owner}); "
            "stop it, or give this one its own --data-dir"
        ) from None
    owner_file.write_text(str(os.getpid()))
    return lock


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
