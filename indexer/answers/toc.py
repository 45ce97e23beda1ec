"""get_toc: the map of the folder, folded per branch to fit the token budget.

One document's sections are folded by `indexer.answers.folding`; the map of many documents
is paged and split by folder with `indexer.answers.folders`. Every folded section carries the
size of what it hides and the renderer names the exact call that opens it:
`get_toc(doc_id=D, sec_id=S)` shows one section's subtree. Documents, pending files and
failures are cut to the budget too, and the answer says what was left out and how to get it.

Costs are estimates of the rendered text (`server/render.py`) in the tokens of
`indexer.tokens`, kept on the high side so no answer exceeds the budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from indexer.answers.failures import PERMANENT, kept_note, retry_note
from indexer.answers.folders import (
    COMPACT_PATH,
    FOLDER_LINE,
    FOLDERS_SHARE,
    NOTES,
    compact_cost,
    compact_title,
    page_sizes,
    path_arg,
    scope,
    shorten_path,
    subfolders,
)
from indexer.answers.folding import (
    HIDDEN_MARK,
    Tree,
    ancestors,
    fold_folder,
    more_note,
    unfold,
)
from indexer.errors import InvalidArgument, NotFound
from indexer.models import DocumentInfo, FailedDocument, FolderInfo, SkippedFile, Toc
from indexer.store.database import DocumentRow, Store
from indexer.titles.card import PLAIN, title_says
from indexer.titles.shown import folder_titles, repeats_path
from indexer.tokens import count_tokens, shorten

# Rendered cost of each kind of line, beyond the tokens of its free text (title, path, reason).
DOCUMENT_LINE = 32  # (id) path — title | N pages | N sections, N paragraphs, N tokens | vN
FAILED_LINE = 10  # Failed: (id) path — reason
SKIPPED_LINE = 6  # Skipped: path — reason
REASON_TOKENS = 60  # a failure's reason is cut to this in the map
WARNING_TOKENS = 60  # a document's warning is cut to this in its own map …
BRIEF_WARNING_TOKENS = 24  # … and to this, the first one only, in the map of all documents
WARNINGS_LINE = 8  # Warnings: … (+N more: get_toc(doc_id=D))
PENDING_MARK = 6  # | vectors pending
READS_MARK = 16  # | read_section(doc_id=D, sec_id=0) reads it: a document without headings
BRIEF_DOCUMENT_LINE = 12  # the least a document's line costs in the map of a folder

# The map of a folder, asked without max_depth (the first call every host makes), takes this
# share of the budget: what a model needs to choose a document and a section, not their sizes.
FIRST_MAP_SHARE = 0.3
FOLDER_NOTE = (
    "get_toc(doc_id=D) shows a document's sections with their sizes and pages, get_toc(doc_id=D, sec_id=S) "
    "a section's; read_section(doc_id=D, sec_id=S) reads one (sec_id=0: the text before the first heading)."
)
FOLDED_NOTE = "+N counts the sections not listed."
YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")
TAG_MARK = 2  # " | " before a document's tag in the map of a folder
CARD_LINE = 12  # "  Card: …; by …; … About: …" beyond its fields' words
COPIES_SHOWN = 3  # a document's line names this many of its copies' paths, and counts the rest
COPIES_MARK = 8  # | also at …, … (+N more)
LEAD_TOKENS = 60  # the note that opens a filtered map is cut to this


class TocBuilder:
    def __init__(
        self,
        store: Store,
        display_path: Callable[[DocumentRow], str],
        token_budget: int,
        lead: str | None = None,
        call_args: str = "",
    ):
        """`lead`: a note that opens the map of a folder (what it was filtered to), paid for on
        every page; `call_args`: arguments the calls it names for the map keep (the filters)."""
        self.store = store
        self.display_path = display_path
        self.token_budget = token_budget
        self.lead = shorten(lead, LEAD_TOKENS) if lead else None
        self._lead_cost = count_tokens(self.lead) + 1 if self.lead else 0
        self.call_args = call_args
        self._shown: dict[int, str] | None = None  # a builder answers one request, in one snapshot
        self._copies: dict[int, list[str]] | None = None
        self._kinds: set[str | None] | None = None  # the kinds of the folder's documents

    def title(self, doc: DocumentRow) -> str:
        """The title the map shows: what tells the document from others titled alike in the
        folder (`indexer.titles.shown`), computed over all documents so every view agrees."""
        if self._shown is None:
            self._shown = folder_titles(self.store.documents())
        return self._shown.get(doc.doc_id) or doc.title or doc.relpath

    def tag(self, doc: DocumentRow) -> str | None:
        """What the map of a folder whose documents' lines fit adds to each from its card
        (`indexer.titles.card`): its kind where the folder's documents are of several kinds, its
        year where its title does not say it. (A compact map of many documents keeps its lines to
        a fixed size: its pages stay put.)"""
        year = YEAR_RE.search(doc.detail or "")
        told = doc.kind and doc.kind != PLAIN and len(self._folder_kinds()) > 1
        parts = [doc.kind if told and doc.kind and not title_says(self.title(doc), doc.kind) else None]
        parts.append(year.group(0) if year and year.group(0) not in self.title(doc) else None)
        return ", ".join(p for p in parts if p) or None

    def _folder_kinds(self) -> set[str | None]:
        if self._kinds is None:
            self._kinds = {d.kind for d in self.store.documents() if d.readable}
        return self._kinds

    def copies(self, doc: DocumentRow) -> list[str]:
        """The shown paths of a document's copies (files with its bytes), read once per answer."""
        if self._copies is None:
            found = self.store.copies_of()
            self._copies = {i: [self.display_path(c) for c in rows] for i, rows in found.items()}
        return self._copies.get(doc.doc_id, [])

    def _copies_cost(self, doc: DocumentRow) -> int:
        paths = self.copies(doc)
        return COPIES_MARK + sum(count_tokens(p) + 1 for p in paths[:COPIES_SHOWN]) if paths else 0

    def all_documents(
        self, max_depth: int | None, path: str | None = None, page: int = 1, docs: list[DocumentRow] | None = None
    ) -> Toc:
        """Every document of the folder shown (`path`, a prefix of the paths shown, and `docs`,
        the documents under it; all when None), each with its sections as the map of a folder
        shows them (ids and titles, folded with counts). Without `max_depth` (the first call a host
        makes) it takes FIRST_MAP_SHARE of the budget: each document's line and its top-level
        sections, deeper ones where room remains; with it, up to the whole budget. When the
        documents' lines alone do not fit, one compact line each, in pages, with the sub-folders
        and their counts (`_compact`)."""
        if docs is None:
            docs = self.store.documents()
            self._shown = folder_titles(docs)  # the titles need every document: these are all of them
        else:
            docs = sorted(docs, key=lambda d: d.doc_id)
        ready = [d for d in docs if d.readable]
        pending_rows = [d for d in docs if d.status in ("pending", "indexing")]
        failed_rows = [d for d in docs if d.status == "failed"]
        share = self.token_budget if max_depth is not None else int(self.token_budget * FIRST_MAP_SHARE)
        budget = share - NOTES - self._lead_cost
        notes: list[str] = []

        # Files still indexing and failed files (on page 1 of a paged map; later pages count them
        # all the same, so every page starts where the previous one ended).
        pending, cost = self._listed([self.display_path(d) for d in pending_rows], budget // 8)
        budget -= cost
        if len(pending) < len(pending_rows):
            notes.append(f"{len(pending_rows) - len(pending):,} more file(s) are still being indexed.")
        failed: list[FailedDocument] = []
        for d in failed_rows:
            reason = shorten(d.reason or "unknown", REASON_TOKENS)
            retry = retry_note(d)
            line = FAILED_LINE + count_tokens(self.display_path(d)) + count_tokens(reason) + count_tokens(retry or "")
            if line > budget // 2 - cost or cost + line > share // 4:
                notes.append(
                    f"{len(failed_rows) - len(failed):,} more file(s) failed; get_toc(doc_id=N) gives one's reason."
                )
                break
            failed.append(FailedDocument(doc_id=d.doc_id, path=self.display_path(d), reason=reason, retry=retry))
            cost += line
            budget -= line
        if any(f.retry is None for f in failed):
            notes.append(PERMANENT)

        fits = self._fits(ready, budget)
        if page > 1 and fits:
            raise InvalidArgument(f"page={page}: {scope(path)} fits in one page; get_toc({self._args(path)}) shows it")
        if not fits:
            toc = self._compact(ready, max_depth, path, page, notes if page == 1 else [], cost)
            if page == 1:
                toc.pending, toc.failed = pending, failed
            toc.truncated = toc.truncated or len(pending) < len(pending_rows) or len(failed) < len(failed_rows)
            toc.hint = self._led(toc.hint)
            return toc
        budget -= sum(self._line_cost(d) for d in ready)
        trees = [Tree.load(self.store, d, brief=True) for d in ready]
        opened = fold_folder(trees, budget, max_depth)
        documents = [self._document_info(t, opened.shown[id(t)], brief=True) for t in trees]
        folded = any(s.hidden for d in documents for s in d.sections)
        if ready:
            notes.insert(0, f"{FOLDED_NOTE} {FOLDER_NOTE}" if folded else FOLDER_NOTE)
        if opened.cut:
            notes.append(more_note(trees[0].doc.doc_id, *opened.cut))
        cut = len(pending) < len(pending_rows) or len(failed) < len(failed_rows)
        return Toc(
            documents=documents,
            pending=pending,
            failed=failed,
            path=path,
            n_documents=len(ready),
            brief=True,
            truncated=folded or opened.cut is not None or cut,
            hint=self._led(" ".join(notes) or None),
        )

    def _led(self, hint: str | None) -> str | None:
        """The hint after the lead, if any."""
        return " ".join(h for h in (self.lead, hint) if h) or None

    def _args(self, path: str | None, *more: str) -> str:
        """A map call's arguments: the folder, the filters it keeps, and `more`."""
        return path_arg(path, *([self.call_args] if self.call_args else []), *more)

    def _line_cost(self, d: DocumentRow) -> int:
        """A document's line in the map of a folder, with its mark (`+N sections`, `+N more
        sections`, or the call that reads a document without headings) and its copies' paths."""
        path, title = shorten_path(self.display_path(d), COMPACT_PATH), compact_title(self.title(d))
        title = "" if repeats_path(title, path) else title
        line = count_tokens(f"({d.doc_id}) — | {d.n_pages or d.n_tokens:,} pages") + count_tokens(path)
        line += count_tokens(title) + (
            READS_MARK if d.n_sections <= 1 else count_tokens(f"+{d.n_sections:,} more sections")
        )
        line += self._copies_cost(d) + tag_cost(self.tag(d))
        return line + _warnings_cost(shown_warnings(d, brief=True)) + (0 if d.embedded else PENDING_MARK)

    def _fits(self, ready: list[DocumentRow], budget: int) -> bool:
        """Whether every document's line fits (checked without counting past the budget)."""
        if len(ready) * BRIEF_DOCUMENT_LINE > budget:
            return False
        for d in ready:
            budget -= self._line_cost(d)
            if budget < 0:
                return False
        return True

    def _compact(
        self,
        ready: list[DocumentRow],
        max_depth: int | None,
        path: str | None,
        page: int,
        notes: list[str],
        spent: int,
    ) -> Toc:
        """Too many documents for their lines: page 1 lists the sub-folders (with their counts)
        and every page as many documents as their longest lines would fit, one compact line each,
        in path order, so a host sees every document in a known number of calls (`spent`: what
        page 1's files still indexing and failed files took). Asked for a `max_depth`, what room
        a page has left shows the sections of its documents."""
        ready = sorted(ready, key=self.display_path)
        folders: list[FolderInfo] = []
        counts = subfolders(ready, self.display_path, path)
        room = self.token_budget // FOLDERS_SHARE
        for name, (n, pages) in counts.items():
            line = FOLDER_LINE + 2 * count_tokens(name)
            if line > room:
                notes.append(f"{len(counts) - len(folders):,} more sub-folders are listed in the pages' paths.")
                break
            folders.append(FolderInfo(path=name, documents=n, n_pages=pages))
            room -= line
        spent += self.token_budget // FOLDERS_SHARE - room
        first, rest = page_sizes(self.token_budget - self._lead_cost, spent)
        n_pages = 1 + max(0, -(-(len(ready) - first) // rest))
        if page > n_pages:
            raise InvalidArgument(f"page={page}: {scope(path)} has {n_pages} pages of documents (1–{n_pages})")
        start = 0 if page == 1 else first + (page - 2) * rest
        rows = ready[start : start + (first if page == 1 else rest)]
        budget = self.token_budget - NOTES - self._lead_cost - (spent if page == 1 else 0)
        if page > 1:
            folders = []
        budget -= sum(compact_cost(self.display_path(d), self.title(d)) for d in rows)
        trees = [Tree.load(self.store, d, brief=True) for d in rows]
        shown = fold_folder(trees, budget, 0 if max_depth is None else max_depth).shown
        documents = [self._document_info(t, shown[id(t)], brief=True, compact=True) for t in trees]
        last = start + len(rows)
        where = f" under {path}/" if path else ""
        paging = "this is the last page"
        if page < n_pages:
            paging = f"get_toc({self._args(path, f'page={page + 1}')}) lists the next"
        lead = f"{len(ready):,} documents{where}, too many for their sections: one line each, in path order. "
        if folders:
            lead += 'get_toc(path="FOLDER/") shows one sub-folder (its documents, with their sections when they fit). '
        notes.insert(0, lead + f"Page {page} of {n_pages} lists documents {start + 1:,}–{last:,}; {paging}.")
        notes.insert(1, f"{FOLDED_NOTE} {FOLDER_NOTE}")
        return Toc(
            documents=documents,
            path=path,
            folders=folders,
            compact=True,
            brief=True,
            page=page,
            n_pages=n_pages,
            n_documents=len(ready),
            truncated=True,
            hint=" ".join(notes),
        )

    def document(
        self, doc: DocumentRow, max_depth: int | None, sec_id: int | None = None, after: int | None = None
    ) -> Toc:
        """One document's sections, or one section's subtree (with the path down to it), folded to fit."""
        tree = Tree.load(self.store, doc)
        top = 0 if sec_id is None else sec_id
        if top not in tree.by_id:
            raise NotFound(
                f"doc {doc.doc_id} has no section {sec_id}; its sections are 0–{len(tree.sections) - 1} "
                f"(call get_toc(doc_id={doc.doc_id}) to see them)"
            )
        budget = (
            self.token_budget
            - NOTES
            - DOCUMENT_LINE
            - count_tokens(self.display_path(doc))
            - count_tokens(self.title(doc))
            - tree.cost[top]
            - HIDDEN_MARK
            - _warnings_cost(shown_warnings(doc, brief=False))
            - PENDING_MARK
            - self._copies_cost(doc)
            - card_cost(doc)
        )
        path: list[int] = []  # the way down to the section, nearest headings first, within a quarter
        for s in reversed(ancestors(tree, top)):
            if tree.cost[s] > budget // 4 - sum(tree.cost[a] for a in path):
                break
            path.insert(0, s)
        budget -= sum(tree.cost[s] for s in path)
        depth = None if max_depth is None else tree.by_id[top].level + max_depth if sec_id is not None else max_depth
        opened = unfold([(tree, top)], budget, depth, after)
        info = self._document_info(tree, {**dict.fromkeys(path, 0), **opened.shown[id(tree)]}, ancestors=set(path))
        notes = []
        if not info.root_alone and any(s.hidden for s in info.sections):
            notes.append(
                "Sections marked +N hide that many sub-sections to stay within the token budget; "
                f"get_toc(doc_id={doc.doc_id}, sec_id=S) opens one."
            )
        if opened.cut:
            notes.append(more_note(doc.doc_id, *opened.cut))
        return Toc(documents=[info], truncated=bool(notes), hint=" ".join(notes) or None)

    def skipped(self, skipped: list[tuple[str, str]]) -> Toc:
        """The files and folders the folder walk passed over, with why, as many as fit."""
        budget = self.token_budget - NOTES
        listed: list[SkippedFile] = []
        for path, reason in skipped:
            cost = SKIPPED_LINE + count_tokens(path) + count_tokens(reason)
            if cost > budget:
                break
            budget -= cost
            listed.append(SkippedFile(path=path, reason=reason))
        left = len(skipped) - len(listed)
        hint = f"{left:,} more not listed (the budget is full)." if left else None
        if not skipped:
            hint = (
                "Every file of a supported type in the folder is indexed (or listed as pending or failed by get_toc())."
            )
        return Toc(
            documents=[], skipped=listed, n_skipped=len(skipped), shows="skipped", truncated=bool(left), hint=hint
        )

    def _listed(self, names: list[str], budget: int) -> tuple[list[str], int]:
        """As many names as fit in `budget` tokens, and what they cost."""
        shown: list[str] = []
        cost = 8 if names else 0
        for name in names:
            n = count_tokens(name) + 1
            if cost + n > budget:
                break
            shown.append(name)
            cost += n
        return shown, cost

    def _document_info(
        self,
        tree: Tree,
        shown: dict[int, int],
        ancestors: frozenset[int] | set[int] = frozenset(),
        brief: bool = False,
        compact: bool = False,
    ) -> DocumentInfo:
        """`shown` maps each listed section to how many of its descendants stay hidden; `brief`:
        in the map of a folder, where paths, titles and warnings are cut short (as `_line_cost`
        counts them); `compact`: a warning is a count."""
        sections = []
        for s in tree.sections:  # children: those listed here (`hidden` counts the rest)
            if s.sec_id in shown:
                update = {
                    "hidden": 0 if s.sec_id in ancestors else shown[s.sec_id],
                    "children": [c for c in s.children if c in shown],
                }
                sections.append(s.model_copy(update=update))
        doc = tree.doc
        path, title = self.display_path(doc), self.title(doc)
        if brief:
            path, title = shorten_path(path, COMPACT_PATH), compact_title(title)
        return DocumentInfo(
            doc_id=doc.doc_id,
            path=path,
            title=title,
            status=doc.status,
            version=doc.version,
            n_pages=doc.n_pages,
            n_sections=doc.n_sections,
            n_paras=doc.n_paras,
            n_tokens=doc.n_tokens,
            semantic=bool(doc.embedded),
            warnings=[] if compact else shown_warnings(doc, brief),
            n_warnings=len(doc.warning_list),
            copies=[] if compact else self.copies(doc)[:COPIES_SHOWN],
            n_copies=len(self.copies(doc)),
            kind=doc.kind,
            issuer=doc.issuer,
            date=doc.detail,
            about=doc.about,
            tag=self.tag(doc) if brief and not compact else None,  # a compact line keeps to its fixed size
            sections=sections,
        )


def tag_cost(tag: str | None) -> int:
    return TAG_MARK + count_tokens(tag) if tag else 0


def card_cost(doc: DocumentRow) -> int:
    """The card's line in a document's own map (`server.render`)."""
    said = [doc.kind, doc.issuer, doc.detail, doc.about]
    return CARD_LINE + sum(count_tokens(s) for s in said if s) if any(said) else 0


def shown_warnings(doc: DocumentRow, brief: bool) -> list[str]:
    """A document's warnings as the map shows them: in the map of all documents the first one,
    cut short, and how to see the rest; in the document's own map each (cut at WARNING_TOKENS)."""
    warnings = [n for n in [kept_note(doc)] if n] + doc.warning_list
    if not brief or not warnings:
        return [shorten(w, WARNING_TOKENS) for w in warnings]
    first = shorten(warnings[0], BRIEF_WARNING_TOKENS)
    more = f" (+{len(warnings) - 1} more: get_toc(doc_id={doc.doc_id}))" if len(warnings) > 1 else ""
    return [first + more]


def _warnings_cost(warnings: list[str]) -> int:
    return WARNINGS_LINE + sum(count_tokens(w) + 1 for w in warnings) if warnings else 0


def check_depth(max_depth: int | None) -> None:
    if max_depth is not None and max_depth < 0:
        raise InvalidArgument("max_depth must be 0 or more (0 = document lines only)")
