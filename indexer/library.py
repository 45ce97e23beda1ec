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
import shutil
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
from indexer.toc import TocBuilder, check_depth
from indexer.tokens import TOKEN_COUNT_VERSION, clip_to_tokens, count_tokens, shorten
from indexer.vectors import VectorIndex

log = logging.getLogger(__name__)

MAX_TOP_K = 50
MAX_WINDOW = 10
MAX_QUERY_CHARS = 2000  # a question, not a document: longer queries are refused with this limit
MAX_ID = 2**31 - 1  # ids, paragraph indexes and versions are far below this (SQLite stops at 2**63)
QUERY_ECHO_CHARS = 120  # the query is echoed back this long at most
# Token accounting of a retrieve answer (see render_retrieve): its first line and hint, each
# result's header line (plus its section path), the note on a cut paragraph; the least a
# paragraph is cut to before lower-ranked hits are dropped instead.
RETRIEVE_OVERHEAD = 120
RESULT_LINE_TOKENS = 30
CUT_NOTE_TOKENS = 45
MIN_SHARE = 120
# read_section: its first line and notes.
SECTION_OVERHEAD = 150


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
        # The parser's temporary folders: what a killed server left is removed now that we own the dir.
        work_dir = config.data_dir / "tmp"
        shutil.rmtree(work_dir, ignore_errors=True)
        try:
            self.store = Store(config.data_dir / "index.sqlite3")
            self.embedder = Embedder(config.models_dir, config.embedding_model, threads=config.embed_threads)
            # A shared Chroma server holds many indexes: name the collection after this one.
            collection = _collection_name(config.data_dir) if config.chroma_url else "paragraphs"
            self.vectors = VectorIndex(collection, path=config.data_dir / "chroma", url=config.chroma_url)
            self._check_signature()
            self._check_token_count()
            parser = DocumentParser(
                MineruOptions(
                    cache_dir=config.parse_cache_dir or config.data_dir / "parse-cache",
                    home=config.mineru_home or config.data_dir / "mineru",
                    work_dir=work_dir,
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

    def _check_token_count(self) -> None:
        """Token counts are stored (sizes in the map, budgets): when the way they are counted
        changes, every file is structured again (parses come from the cache, vectors are kept)."""
        previous = self.store.get_meta("token_count")
        if previous != TOKEN_COUNT_VERSION:
            if previous is not None or self.store.documents():
                self.store.forget_file_facts()
            self.store.set_meta("token_count", TOKEN_COUNT_VERSION)

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

    def note_scanning(self) -> None:
        """Until the files found are registered, get_toc says the folder is being scanned."""
        if self.progress is None:
            self.progress = Progress(0, 0, "", "scanning")

    def _tracked(self, work: Callable[[ProgressCallback], ReconcileReport], progress: ProgressCallback | None) -> ReconcileReport:
        def record(p: Progress) -> None:
            self.progress = p if p.done < p.total else None
            if progress:
                progress(p)

        self.note_scanning()
        self.indexer.cancel.clear()  # a stop ends the run under way, not every later one
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

    def toc(
        self, doc_id: int | None = None, max_depth: int | None = None, sec_id: int | None = None,
        after: int | None = None,
    ) -> Toc:
        """The map: all documents, one document, or one section's subtree; folded to the token budget.

        `after` pages on through a section whose direct sub-sections do not fit in one answer.
        """
        with self.store.snapshot():
            return self._toc(doc_id, max_depth, sec_id, after)

    def _toc(self, doc_id: int | None, max_depth: int | None, sec_id: int | None, after: int | None) -> Toc:
        check_depth(max_depth)
        maps = TocBuilder(self.store, self.display_path, self.config.token_budget)
        if (sec_id is not None or after is not None) and doc_id is None:
            raise InvalidArgument("sec_id and after need a doc_id: get_toc(doc_id=D, sec_id=S)")
        if doc_id is not None:
            return maps.document(self._ready_document(doc_id), max_depth, sec_id, after)
        toc = maps.all_documents(max_depth)
        progress = self.progress
        if progress is not None:
            if progress.action == "scanning":
                note = "Scanning the folder for documents; more may appear shortly."
            else:
                note = f"Indexing in progress: {progress.done} of {progress.total} files checked."
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
        query = " ".join("".join(ch for ch in query if ch.isprintable() or ch.isspace()).split())
        if not query:
            raise InvalidArgument("query is empty: give a few words or a question to search for")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidArgument(
                f"query is {len(query):,} characters long; the limit is {MAX_QUERY_CHARS:,}: search with the words "
                "the passage would contain (a few words or one question), not the whole task"
            )
        if not any(ch.isalnum() for ch in query):
            raise InvalidArgument(
                "query has no letters or digits to search for: give words or numbers the passage would contain"
            )
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidArgument(f"top_k must be between 1 and {MAX_TOP_K} (got {top_k})")
        for name, value in (("before", before), ("after", after)):
            if not 0 <= value <= MAX_WINDOW:
                raise InvalidArgument(f"{name} must be between 0 and {MAX_WINDOW} paragraphs (got {value})")
        if doc_ids is not None:
            if not doc_ids:
                raise InvalidArgument("doc_ids is empty: omit it to search every document, or give ids from get_toc")
            doc_ids = sorted(set(doc_ids))
            for doc_id in doc_ids:
                self._ready_document(doc_id)

        hits = self.search.search(query, top_k, doc_ids)
        rows = self.store.paragraphs_by_id([h.paragraph_id for h in hits])
        docs = _DocumentCache(self.store)
        # Each hit with its window, in rank order; a paragraph already shown is not shown twice
        # (a hit that was a neighbour of a better hit marks that entry as a hit).
        groups: list[list[_Entry]] = []
        seen: dict[tuple[int, int, int], _Entry] = {}
        for rank, hit in enumerate(hits, start=1):
            row = rows.get(hit.paragraph_id)
            if row is None:  # replaced between the search and now
                continue
            window = self.store.paragraphs(row.doc_id, row.sec_id, row.para_idx - before, row.para_idx + after)
            group: list[_Entry] = []
            for p in window:
                key = (p.doc_id, p.sec_id, p.para_idx)
                if key not in seen:
                    path = docs.section_path(p.doc_id, p.sec_id)
                    seen[key] = _Entry(p, path, RESULT_LINE_TOKENS + count_tokens(shown_path(path)), p.n_tokens)
                    group.append(seen[key])
                if p.para_idx == row.para_idx and seen[key].rank is None:
                    seen[key].rank, seen[key].score = rank, round(hit.score, 5)
            if group:
                groups.append(group)

        shown_query = query if len(query) <= QUERY_ECHO_CHARS else query[:QUERY_ECHO_CHARS].rstrip() + "…"
        available = self.config.token_budget - RETRIEVE_OVERHEAD - count_tokens(shown_query)
        # Header lines are fixed costs; the texts share what is left. While even the least share
        # does not fit, the lowest-ranked hits go (and, for a lone hit, its farthest neighbours).
        omitted = 0
        while True:
            entries = [e for group in groups for e in group]
            room = available - sum(e.line for e in entries)
            cap = fair_share([e.n_tokens for e in entries], room)
            if cap >= MIN_SHARE or not entries or (len(groups) == 1 and len(groups[0]) == 1):
                break
            if len(groups) > 1:
                omitted += sum(1 for e in groups.pop() if e.rank is not None)
            else:
                hit = next(i for i, e in enumerate(groups[0]) if e.rank is not None)
                far = max((i for i in range(len(groups[0])) if i != hit), key=lambda i: abs(i - hit))
                groups[0].pop(far)

        results: list[RetrievedParagraph] = []
        clipped = 0
        for e in (e for group in groups for e in group):
            p = e.row
            item = _retrieved(p, e.path, docs.version(p.doc_id))
            if e.n_tokens > cap:
                clipped += 1
                item.text = clip_to_tokens(p.text, max(cap - CUT_NOTE_TOKENS, 1)) + (
                    f" […cut: {e.n_tokens:,} tokens in all; read_section(doc_id={p.doc_id}, sec_id={p.sec_id}, "
                    f"start_para={p.para_idx}, end_para={p.para_idx}) shows more]"
                )
                item.clipped = True
            item.is_hit, item.rank, item.score = e.rank is not None, e.rank, e.score
            results.append(item)

        notes = []
        if not results:
            notes.append("No paragraph matched. Rephrase with words the document would use, or browse get_toc.")
            if pending := self._pending_count():
                notes.append(f"{pending} document(s) are still being indexed.")
        if omitted:
            notes.append(
                f"{omitted} lower-ranked hit(s) left out to stay within the token budget; "
                "lower top_k/before/after, or read a section with read_section."
            )
        if clipped:
            notes.append(f"{clipped} long paragraph(s) cut to share the token budget; each says how to read it.")
        return RetrieveResult(query=shown_query, results=results, hint=" ".join(notes) or None)

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
            listed = ", ".join(map(str, children[:20])) + (f", … ({len(children):,} in all)" if len(children) > 20 else "")
            hint = (
                f"Section {sec_id} has no text of its own; its sub-sections are [{listed}]: "
                f"read_section(doc_id={doc_id}, sec_id=N) for each."
                if children
                else "Section is empty."
            )
            return SectionText(**base, end_para=-1, paragraphs=[], next_start_para=None, hint=changed + hint)

        end = last if end_para is None else min(end_para, last)
        rows = self.store.paragraphs(doc_id, sec_id, start_para, end)
        out: list[ParagraphText] = []
        available = self.config.token_budget - SECTION_OVERHEAD - count_tokens(section["title"])
        used = 0
        for row in rows:
            cost = _paragraph_line(row) + row.n_tokens
            if out and used + cost > available:
                break
            text = row.text if cost <= available else _clip(row.text, available - _paragraph_line(row) - 12)
            out.append(
                ParagraphText(
                    para_idx=row.para_idx, text=text, kind=row.kind, page=row.page, page_end=row.page_end, bbox=row.box
                )
            )
            used += cost
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
        doc = self.store.document(doc_id) if 0 <= doc_id <= MAX_ID else None
        if doc is None:
            ids = [d.doc_id for d in self.store.documents() if d.readable]
            raise NotFound(f"there is no document {doc_id}; {_describe_ids(ids)} (call get_toc to list them)")
        if not doc.readable:
            if doc.status == "failed":
                raise NotReady(f"document {doc_id} ({self.display_path(doc)}) failed to index: {doc.reason}")
            raise NotReady(f"document {doc_id} ({self.display_path(doc)}) is still being indexed; try again shortly")
        return doc


@dataclass
class _Entry:
    """A paragraph on its way into a retrieve answer, with what it costs to show."""

    row: ParagraphRow
    path: list[str]
    line: int  # tokens of its header line
    n_tokens: int
    rank: int | None = None
    score: float | None = None


def _paragraph_line(row: ParagraphRow) -> int:
    """Tokens of a paragraph's `[12] p.3–4 table` line in render_section (upper bound)."""
    return 4 + (6 if row.page is not None else 0) + (1 if row.kind != "text" else 0)


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


def fair_share(sizes: list[int], available: int) -> int:
    """The largest cap on one text's tokens with which all fit in `available`: texts under the
    cap are shown whole, longer ones are cut to it (the cut note included), so one giant
    paragraph cannot crowd out the others."""
    ordered = sorted(sizes)
    if sum(ordered) <= available:
        return max(available, 0)
    spent = 0
    for i, size in enumerate(ordered):
        left = len(ordered) - i
        if spent + size * left > available:  # this one and all after it are cut to the cap
            return max((available - spent) // left, 0)
        spent += size
    return max(available, 0)


MAX_PATH_TITLES = 3  # a result's section path shows at most its last three headings …
MAX_PATH_TITLE_TOKENS = 16  # … each cut to about this many tokens


def shown_path(path: list[str]) -> str:
    """A section path as a result's line shows it: the nearest headings, each kept short."""
    titles = [shorten(t, MAX_PATH_TITLE_TOKENS) for t in path[-MAX_PATH_TITLES:]]
    return " > ".join((["…"] if len(path) > MAX_PATH_TITLES else []) + titles)


def _clip(text: str, budget: int) -> str:
    return clip_to_tokens(text, budget) + " […cut: paragraph exceeds the token budget]"
