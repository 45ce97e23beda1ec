"""The Python API of deepread: `Library.toc()`, `.retrieve()`, `.read_section()`.

It owns the data directory (one writer process, enforced by a lock file),
opens the store, the vectors and the embedding model, and answers the three
questions of the tool contract in DESIGN.md. The MCP server and the CLI are
thin layers over it.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from indexer.embedder import DEFAULT_MODEL, Embedder
from indexer.errors import IndexLocked, InvalidArgument, NotFound, NotReady
from indexer.models import (
    ParagraphText,
    RetrievedParagraph,
    RetrieveResult,
    SectionText,
    Toc,
)
from indexer.parse import DocumentParser
from indexer.parse.mineru import MINERU_FORMATS, MineruOptions
from indexer.pipeline import Indexer, Progress, ProgressCallback, ReconcileReport
from indexer.rerank import Reranker
from indexer.search import HybridSearch, SearchMode
from indexer.store import DocumentRow, ParagraphRow, Store
from indexer.toc import TocBuilder
from indexer.tokens import count_tokens
from indexer.vectors import VectorIndex

log = logging.getLogger(__name__)

MAX_TOP_K = 50
MAX_WINDOW = 10


@dataclass
class LibraryConfig:
    roots: list[Path]
    data_dir: Path
    models_dir: Path
    embedding_model: str = DEFAULT_MODEL
    chroma_url: str | None = None
    token_budget: int = 8000
    max_file_bytes: int = 50_000_000
    heading_context: bool = True
    search_mode: SearchMode = "hybrid"
    embed_threads: int | None = None
    mineru_home: Path | None = None  # MinerU's models and config (default: in the data dir)
    parse_timeout_s: float = 900
    parse_memory_mb: int = 8192
    parse_cache_dir: Path | None = None  # MinerU results by content hash (default: in the data dir); shareable
    reranker: str | None = None  # fastembed cross-encoder name; None = no reranking
    reranker_path: Path | None = None  # its ONNX folder, when it cannot be downloaded


class Library:
    def __init__(self, config: LibraryConfig):
        self.config = config
        self.progress: Progress | None = None  # set while a reconcile runs
        config.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock = _acquire(config.data_dir)
        try:
            self.store = Store(config.data_dir / "index.sqlite3")
            self.embedder = Embedder(config.models_dir, config.embedding_model, threads=config.embed_threads)
            # A shared Chroma server holds many indexes: name the collection after this one.
            collection = _collection_name(config.data_dir) if config.chroma_url else "paragraphs"
            self.vectors = VectorIndex(collection, path=config.data_dir / "chroma", url=config.chroma_url)
            self._check_signature()
            parser = DocumentParser(
                MineruOptions(
                    cache_dir=config.parse_cache_dir or config.data_dir / "parse-cache",
                    home=config.mineru_home or config.data_dir / "mineru",
                    timeout_s=config.parse_timeout_s,
                    memory_mb=config.parse_memory_mb,
                )
            )
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
            )
            reranker = (
                Reranker(config.reranker, config.models_dir, config.reranker_path, config.embed_threads)
                if config.reranker
                else None
            )
            self.search = HybridSearch(self.store, self.vectors, self.embedder, config.search_mode, reranker)
        except BaseException:
            self._lock.release()
            raise

    def close(self) -> None:
        self.store.close()
        self._lock.release()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_signature(self) -> None:
        """Vectors of another model (or other embedded text) must never be mixed in: rebuild."""
        signature = (
            f"model={self.embedder.name}{self.embedder.revision};dim={self.embedder.dim};"
            f"context={self.config.heading_context}"
        )
        previous = self.store.get_meta("index_signature")
        if previous != signature:
            if previous is not None:
                log.warning("index was built with %s; rebuilding vectors for %s", previous, signature)
                self.store.forget_file_facts()
            self.vectors.reset()
            self.store.set_meta("index_signature", signature)

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

    def reconcile(self, progress: ProgressCallback | None = None) -> ReconcileReport:
        """Bring the index in line with the folders; `toc()` reports progress meanwhile."""
        return self._tracked(lambda record: self.indexer.reconcile(record), progress)

    def sync_paths(self, paths: list[Path], progress: ProgressCallback | None = None) -> ReconcileReport:
        """Re-index or remove just these paths (file events)."""
        return self._tracked(lambda record: self.indexer.sync_paths(paths, record), progress)

    def _tracked(self, work: Callable[[ProgressCallback], ReconcileReport], progress: ProgressCallback | None) -> ReconcileReport:
        def record(p: Progress) -> None:
            self.progress = p if p.done < p.total else None
            if progress:
                progress(p)

        try:
            return work(record)
        finally:
            self.progress = None

    # --- paths -----------------------------------------------------------------------

    def display_path(self, doc: DocumentRow) -> str:
        if len(self.config.roots) == 1:
            return doc.relpath
        return f"{Path(doc.root).name}/{doc.relpath}"

    # --- get_toc ---------------------------------------------------------------------

    def toc(self, doc_id: int | None = None, max_depth: int | None = None) -> Toc:
        """The map: all documents (cut to the token budget), or one document's full TOC."""
        with self.store.snapshot():
            return self._toc(doc_id, max_depth)

    def _toc(self, doc_id: int | None, max_depth: int | None) -> Toc:
        if max_depth is not None and max_depth < 0:
            raise InvalidArgument("max_depth must be 0 or more (0 = document lines only)")
        maps = TocBuilder(self.store, self.display_path, self.config.token_budget)
        if doc_id is not None:
            return maps.document(self._ready_document(doc_id), max_depth)
        toc = maps.all_documents(max_depth)
        if self.progress is not None:
            note = f"Indexing in progress: {self.progress.done} of {self.progress.total} files checked."
            toc.hint = f"{note} {toc.hint}" if toc.hint else note
        return toc

    # --- retrieve --------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        top_k: int = 5,
        doc_ids: list[int] | None = None,
        before: int = 0,
        after: int = 0,
    ) -> RetrieveResult:
        """Rank single paragraphs, expand each hit by neighbours of its section, dedupe."""
        with self.store.snapshot():
            return self._retrieve(query, top_k, doc_ids, before, after)

    def _retrieve(self, query: str, top_k: int, doc_ids: list[int] | None, before: int, after: int) -> RetrieveResult:
        query = " ".join(query.split())
        if not query:
            raise InvalidArgument("query is empty: give a few words or a question to search for")
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidArgument(f"top_k must be between 1 and {MAX_TOP_K} (got {top_k})")
        for name, value in (("before", before), ("after", after)):
            if not 0 <= value <= MAX_WINDOW:
                raise InvalidArgument(f"{name} must be between 0 and {MAX_WINDOW} paragraphs (got {value})")
        if doc_ids is not None:
            doc_ids = sorted(set(doc_ids))
            for doc_id in doc_ids:
                self._ready_document(doc_id)

        hits = self.search.search(query, top_k, doc_ids)
        rows = self.store.paragraphs_by_id([h.paragraph_id for h in hits])
        docs = _DocumentCache(self.store)
        results: list[RetrievedParagraph] = []
        seen: dict[tuple[int, int, int], RetrievedParagraph] = {}
        used = 0
        omitted = 0
        for rank, hit in enumerate(hits, start=1):
            row = rows.get(hit.paragraph_id)
            if row is None:  # replaced between the search and now
                continue
            window = self.store.paragraphs(row.doc_id, row.sec_id, row.para_idx - before, row.para_idx + after)
            new = [p for p in window if (p.doc_id, p.sec_id, p.para_idx) not in seen]
            cost = sum(p.n_tokens + 20 for p in new)
            if results and used + cost > self.config.token_budget:
                omitted += 1
                continue
            used += cost
            for p in new:
                item = _retrieved(p, docs.section_path(p.doc_id, p.sec_id), docs.version(p.doc_id))
                seen[(p.doc_id, p.sec_id, p.para_idx)] = item
                results.append(item)
            kept = seen[(row.doc_id, row.sec_id, row.para_idx)]
            kept.is_hit, kept.rank, kept.score = True, rank, round(hit.score, 5)

        hint = None
        if not results:
            hint = "No paragraph matched. Rephrase with words the document would use, or browse get_toc."
            if self._pending_count():
                hint += f" {self._pending_count()} document(s) are still being indexed."
        elif omitted:
            hint = (
                f"{omitted} lower-ranked hit(s) left out to stay within the token budget; "
                "lower top_k/before/after, or read a section with read_section."
            )
        return RetrieveResult(query=query, results=results, hint=hint)

    def _pending_count(self) -> int:
        return sum(1 for d in self.store.documents() if d.status in ("pending", "indexing"))

    # --- read_section ----------------------------------------------------------------

    def read_section(
        self,
        doc_id: int,
        sec_id: int,
        start_para: int = 0,
        end_para: int | None = None,
        version: int | None = None,
    ) -> SectionText:
        """A section's paragraphs in order, clipped to what exists and to the token budget.

        `version` is the document version the caller's coordinates came from; when
        the document changed since, the answer says so.
        """
        with self.store.snapshot():
            return self._read_section(doc_id, sec_id, start_para, end_para, version)

    def _read_section(
        self, doc_id: int, sec_id: int, start_para: int, end_para: int | None, version: int | None
    ) -> SectionText:
        doc = self._ready_document(doc_id)
        changed = ""
        if version is not None and version != doc.version:
            changed = (
                f"Document {doc_id} changed since version {version} (now version {doc.version}); "
                "coordinates from earlier answers may have shifted. "
            )
        sections = {r["sec_id"]: r for r in self.store.sections(doc_id)}
        section = sections.get(sec_id)
        if section is None:
            raise NotFound(
                f"{changed}doc {doc_id} has no section {sec_id}; its sections are 0–{max(sections)} "
                f"(call get_toc(doc_id={doc_id}) to see them)"
            )
        n_paras = section["n_paras"]
        last = n_paras - 1
        if start_para < 0 or (end_para is not None and end_para < start_para):
            raise InvalidArgument(
                f"start_para must be ≥ 0 and end_para ≥ start_para; section {sec_id} has paragraphs 0–{last}"
            )
        if n_paras and start_para > last:
            raise InvalidArgument(
                f"{changed}start_para {start_para} is past the end: section {sec_id} has paragraphs 0–{last}"
            )
        base = dict(
            doc_id=doc_id, sec_id=sec_id, version=doc.version, title=section["title"], level=section["level"],
            n_paras=n_paras, start_para=start_para,
        )
        if n_paras == 0:
            children = [s for s, r in sections.items() if r["parent"] == sec_id]
            hint = (
                f"Section {sec_id} has no text of its own; its sub-sections are {children}: "
                f"read_section(doc_id={doc_id}, sec_id=N) for each."
                if children
                else "Section is empty."
            )
            return SectionText(**base, end_para=-1, paragraphs=[], next_start_para=None, hint=changed + hint)

        end = last if end_para is None else min(end_para, last)
        rows = self.store.paragraphs(doc_id, sec_id, start_para, end)
        out: list[ParagraphText] = []
        used = 0
        for row in rows:
            if out and used + row.n_tokens > self.config.token_budget:
                break
            text = row.text if row.n_tokens <= self.config.token_budget else _clip(row.text, self.config.token_budget)
            out.append(
                ParagraphText(
                    para_idx=row.para_idx, text=text, kind=row.kind, page=row.page, page_end=row.page_end, bbox=row.box
                )
            )
            used += row.n_tokens
        end_read = out[-1].para_idx
        next_start = end_read + 1 if end_read < last else None
        notes = [changed.strip()] if changed else []
        if end_read < end:
            rest = sum(r.n_tokens for r in rows if r.para_idx > end_read)
            notes.append(
                f"Stopped at paragraph {end_read} to stay within the token budget; call "
                f"read_section(doc_id={doc_id}, sec_id={sec_id}, start_para={end_read + 1}) for paragraphs "
                f"{end_read + 1}–{end} (~{rest} tokens)."
            )
        elif next_start is not None:
            notes.append(f"Section continues: paragraphs {next_start}–{last} remain (start_para={next_start}).")
        if out[0].text != rows[0].text:
            notes.append(f"Paragraph {out[0].para_idx} is longer than the token budget and was cut.")
        return SectionText(
            **base, end_para=end_read, paragraphs=out, next_start_para=next_start, hint=" ".join(notes) or None
        )

    # --- shared checks ---------------------------------------------------------------

    def _ready_document(self, doc_id: int) -> DocumentRow:
        doc = self.store.document(doc_id)
        if doc is None:
            ids = [d.doc_id for d in self.store.documents() if d.n_paras > 0]
            raise NotFound(f"there is no document {doc_id}; {_describe_ids(ids)} (call get_toc to list them)")
        if doc.n_paras == 0:
            if doc.status == "failed":
                raise NotReady(f"document {doc_id} ({self.display_path(doc)}) failed to index: {doc.reason}")
            raise NotReady(f"document {doc_id} ({self.display_path(doc)}) is still being indexed; try again shortly")
        return doc


class _DocumentCache:
    """Heading paths and versions per document, loaded once per request."""

    def __init__(self, store: Store):
        self._store = store
        self._paths: dict[int, dict[int, list[str]]] = {}
        self._versions: dict[int, int] = {}

    def section_path(self, doc_id: int, sec_id: int) -> list[str]:
        if doc_id not in self._paths:
            paths: dict[int, list[str]] = {}
            for r in self._store.sections(doc_id):
                paths[r["sec_id"]] = [*(paths[r["parent"]] if r["parent"] is not None else []), r["title"]]
            self._paths[doc_id] = paths
        return self._paths[doc_id].get(sec_id, [])

    def version(self, doc_id: int) -> int:
        if doc_id not in self._versions:
            doc = self._store.document(doc_id)
            self._versions[doc_id] = doc.version if doc else 0
        return self._versions[doc_id]


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


def _retrieved(p: ParagraphRow, section_path: list[str], doc_version: int) -> RetrievedParagraph:
    return RetrievedParagraph(
        doc_id=p.doc_id, sec_id=p.sec_id, para_idx=p.para_idx, text=p.text, kind=p.kind, page=p.page,
        page_end=p.page_end, bbox=p.box,
        section_path=section_path, score=None, rank=None, is_hit=False, doc_version=doc_version,
    )


def _describe_ids(ids: list[int]) -> str:
    if not ids:
        return "no documents are indexed yet"
    if len(ids) <= 20:
        return "valid doc_ids are " + ", ".join(map(str, ids))
    return f"valid doc_ids range over {ids[0]}–{ids[-1]} ({len(ids)} documents)"


def _clip(text: str, budget: int) -> str:
    words = text.split(" ")
    keep = max(1, int(len(words) * budget / max(count_tokens(text), 1)))
    return " ".join(words[:keep]) + " […cut: paragraph exceeds the token budget]"
