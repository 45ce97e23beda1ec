"""retrieve: ranked single paragraphs, each with its neighbours, packed into the token budget.

Each hit is expanded by up to `before`/`after` paragraphs of its own section; a
paragraph already shown (as a hit or a neighbour) is not shown twice. Header lines
are fixed costs and the texts share what is left (water-filling, `fair_share`): a
giant paragraph is cut to an equal share with the exact `read_section` call that
reads it whole, and only when even the least share does not fit do the
lowest-ranked hits go. Costs are estimates of the rendered text
(`server/render.py`), kept on the high side.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from indexer import languages
from indexer.errors import InvalidArgument
from indexer.models import Coverage, RetrievedParagraph, RetrieveResult, section_paths
from indexer.search.hybrid import HybridSearch, Ranked
from indexer.store.database import ParagraphRow, Store
from indexer.tokens import clip_to_tokens, count_tokens, shorten

MAX_TOP_K = 50
MAX_WINDOW = 10
MAX_QUERY_CHARS = 2000  # a question, not a document: longer queries are refused with this limit
QUERY_ECHO_CHARS = 120  # the query is echoed back this long at most
# Token accounting of an answer: its first line and hint, each result's header line (plus
# its section path), the note on a cut paragraph; the least a paragraph is cut to before
# lower-ranked hits are dropped instead.
RETRIEVE_OVERHEAD = 120
# Hits are in rank order, which is not always their fused score's: a document's further hits
# follow the other documents' best ones, look-alikes and junk follow exact matches (`HybridSearch.arrange`).
RANK_ORDER_NOTE = (
    "Hits are in rank order: a document's further hits follow other documents' best ones, and near-duplicates "
    "follow exact matches, so a later hit may score higher."
)
RESULT_LINE_TOKENS = 30
CUT_NOTE_TOKENS = 45
MIN_SHARE = 120
MAX_PATH_TITLES = 3  # a result's section path shows at most its last three headings …
MAX_PATH_TITLE_TOKENS = 16  # … each cut to about this many tokens
MAX_DOCUMENT_TOKENS = 40  # a document's title on its first result, cut to about this many tokens
MAX_ABSENT = 5  # names the query writes that no document holds, said at most this many


def clean_query(query: str) -> str:
    """The query on one line without control characters; refused when there is nothing to search for."""
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
    return query


def check_window(top_k: int, before: int, after: int) -> None:
    if not 1 <= top_k <= MAX_TOP_K:
        raise InvalidArgument(f"top_k must be between 1 and {MAX_TOP_K} (got {top_k})")
    for name, value in (("before", before), ("after", after)):
        if not 0 <= value <= MAX_WINDOW:
            raise InvalidArgument(f"{name} must be between 0 and {MAX_WINDOW} paragraphs (got {value})")


@dataclass
class _Entry:
    """A paragraph on its way into an answer, with what it costs to show."""

    row: ParagraphRow
    path: list[str]
    line: int  # tokens of its header line
    n_tokens: int
    rank: int | None = None
    score: float | None = None
    document: str | None = None  # the document's title, on its first entry when the search spans several


class Retriever:
    def __init__(self, store: Store, search: HybridSearch, token_budget: int):
        self.store = store
        self.search = search
        self.token_budget = token_budget

    def answer(
        self,
        query: str,
        top_k: int,
        doc_ids: list[int] | None,
        before: int,
        after: int,
        titles: Callable[[], Mapping[int, str]] | None = None,
        reserved: int = 0,
    ) -> RetrieveResult:
        """`query` cleaned (`clean_query`), `doc_ids` checked by the caller. `titles`: gives each
        document's title as the map shows it; when the search spans several documents, the
        first result from each says which document it is in (paths start at a section).
        `reserved`: tokens of the notes the caller adds to the answer."""
        found = self.search.search(query, top_k, doc_ids)
        groups = self._windows(found.hits, before, after)
        if titles is not None and (doc_ids is None or len(doc_ids) > 1):
            _name_documents(groups, titles())
        shown_query = query if len(query) <= QUERY_ECHO_CHARS else query[:QUERY_ECHO_CHARS].rstrip() + "…"
        crossing = self._languages_apart(query, doc_ids)  # said before the hits, and paid for like them
        available = self.token_budget - RETRIEVE_OVERHEAD - count_tokens(shown_query) - count_tokens(crossing or "")
        available -= reserved
        # While even the least share does not fit, the lowest-ranked hits go (and, for a lone
        # hit, its farthest neighbours).
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

        versions = {d: self._version(d) for d in {e.row.doc_id for group in groups for e in group}}
        results: list[RetrievedParagraph] = []
        clipped = 0
        for e in (e for group in groups for e in group):
            item = _retrieved(e, versions[e.row.doc_id])
            if e.n_tokens > cap:
                clipped += 1
                p = e.row
                item.text = clip_to_tokens(p.text, max(cap - CUT_NOTE_TOKENS, 1)) + (
                    f" […cut: {e.n_tokens:,} tokens in all; read_section(doc_id={p.doc_id}, sec_id={p.sec_id}, "
                    f"start_para={p.para_idx}, end_para={p.para_idx}) shows more]"
                )
                item.clipped = True
            results.append(item)

        # What qualifies every hit is said before them, so a host need not read hits it would discard.
        cautions = []
        coverage = self._coverage(doc_ids, found.waiting)
        if coverage is not None:
            cautions.append(
                f"Semantic search covers {coverage.semantic} of {coverage.documents} documents so far (the rest are "
                "being embedded); keyword search covers all."
            )
        if results and found.lexical_matched is False and not crossing:
            cautions.append(
                "None of the query's words occurs in the documents searched: these hits are only near in meaning; "
                "check them, or search with the words the document would use."
            )
        elif results and found.absent:
            names = " or ".join(f'"{name}"' for name in found.absent[:MAX_ABSENT])
            cautions.append(
                f"No document searched contains {names}: these hits match the query's other words "
                '(check the spelling, or write it out as the documents would: "free cash flow" for FCF).'
            )
        if crossing:
            cautions.append(crossing)
        notes = []
        if not results:
            notes.append("No paragraph matched. Rephrase with words the document would use, or browse get_toc.")
            if pending := sum(1 for d in self.store.documents() if d.status in ("pending", "indexing")):
                notes.append(f"{pending} document(s) are still being indexed.")
        if omitted:
            notes.append(
                f"{omitted} lower-ranked hit(s) left out to stay within the token budget; "
                "lower top_k/before/after, or read a section with read_section."
            )
        if clipped:
            notes.append(f"{clipped} long paragraph(s) cut to share the token budget; each says how to read it.")
        scores = [r.score for r in results if r.rank is not None and r.score is not None]
        if any(later > earlier for earlier, later in itertools.pairwise(scores)):
            notes.append(RANK_ORDER_NOTE)
        return RetrieveResult(
            query=shown_query,
            results=results,
            coverage=coverage,
            caution=" ".join(cautions) or None,
            hint=" ".join(notes) or None,
        )

    def _languages_apart(self, query: str, doc_ids: list[int] | None) -> str | None:
        """What the query cannot find for being in another language than documents searched."""
        counts = self.store.languages(doc_ids)
        reads = self.search.embedder.languages
        apart = {code: n for code, n in counts.items() if code is not None and languages.apart(query, code, reads)}
        if not apart:
            return None
        said = languages.language_of(query)
        query_in = f"This query is in {languages.name(said)}" if said else "This query is in Latin letters"
        theirs = " or ".join(
            languages.name(code) for code in sorted(apart, key=lambda c: (-apart[c], languages.name(c)))
        )
        reads_only = ", ".join(sorted(languages.name(code) for code in reads or ()))
        why = (
            f"keyword search cannot match them and the embedding model ({self.search.embedder.name}) reads "
            f"{reads_only} only"
        )
        how = f"Search in {theirs}, or index with a multilingual model (DEEPREAD_EMBEDDING_MODEL; see the README)."
        total, other = sum(counts.values()), sum(apart.values())
        if other == total:
            unrelated = "so these hits are likely unrelated"
            return f"{query_in} and the documents searched are in {theirs}: {why}, {unrelated}. {how}"
        are = "is" if other == 1 else "are"
        return f"{query_in}; {other} of the {total} documents searched {are} in {theirs}, not found by it: {why}. {how}"

    def _coverage(self, doc_ids: list[int] | None, waiting: set[int]) -> Coverage | None:
        """How many of the documents searched semantic search covers, while it does not cover all
        (`waiting`: readable documents without all their vectors; `doc_ids` were checked readable)."""
        missing = waiting if doc_ids is None else waiting.intersection(doc_ids)
        if not missing:
            return None
        searched = len(doc_ids) if doc_ids is not None else sum(1 for d in self.store.documents() if d.readable)
        return Coverage(documents=searched, semantic=searched - len(missing))

    def _windows(self, hits: list[Ranked], before: int, after: int) -> list[list[_Entry]]:
        """Each hit with its window, in rank order; a paragraph already shown is not shown again
        (a hit that was a neighbour of a better hit marks that entry as a hit)."""
        rows = self.store.paragraphs_by_id([h.paragraph_id for h in hits])
        paths: dict[int, dict[int, list[str]]] = {}
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
                    if p.doc_id not in paths:
                        paths[p.doc_id] = section_paths(self.store.sections(p.doc_id))
                    path = paths[p.doc_id].get(p.sec_id, [])
                    seen[key] = _Entry(p, path, _line_tokens(path), p.n_tokens)
                    group.append(seen[key])
                if p.para_idx == row.para_idx and seen[key].rank is None:
                    seen[key].rank, seen[key].score = rank, round(hit.score, 5)
            if group:
                groups.append(group)
        return groups

    def _version(self, doc_id: int) -> int:
        doc = self.store.document(doc_id)
        return doc.version if doc else 0


def _name_documents(groups: list[list[_Entry]], titles: Mapping[int, str]) -> None:
    """The first entry from each document carries its title, and pays for it."""
    named: set[int] = set()
    for e in (e for group in groups for e in group):
        if e.row.doc_id not in named and e.row.doc_id in titles:
            named.add(e.row.doc_id)
            e.document = titles[e.row.doc_id]
            e.line = _line_tokens(e.path, e.document)


def _line_tokens(path: list[str], document: str | None = None) -> int:
    """What a result's header line costs, its section path (and document) included."""
    return RESULT_LINE_TOKENS + count_tokens(shown_path(path, document))


def _retrieved(e: _Entry, doc_version: int) -> RetrievedParagraph:
    p = e.row
    return RetrievedParagraph(
        doc_id=p.doc_id,
        sec_id=p.sec_id,
        para_idx=p.para_idx,
        text=p.text,
        kind=p.kind,
        page=p.page,
        page_end=p.page_end,
        bbox=p.box,
        section_path=e.path,
        document=e.document,
        score=e.score,
        rank=e.rank,
        is_hit=e.rank is not None,
        doc_version=doc_version,
    )


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


def shown_path(path: list[str], document: str | None = None) -> str:
    """A section path as a result's line shows it: the nearest headings below the document's
    root, each kept short; the root's title only for a paragraph before the first heading. With
    `document`, that title in the root's place ("PepsiCo, Inc. — Form 10-K, fiscal year ended
    December 25, 2021 > … > Item 8 > Consolidated Statement of Cash Flows"); without, "…" stands
    for it, since a root cut short ("… fiscal year ended December 31…") could name a sibling."""
    below = path[1:]
    if not below:
        root = document or (path[0] if path else "")
        return shorten(root, MAX_DOCUMENT_TOKENS if document else MAX_PATH_TITLE_TOKENS)
    titles = [shorten(t, MAX_PATH_TITLE_TOKENS) for t in below[-MAX_PATH_TITLES:]]
    if document is None:
        return " > ".join(["…", *titles])
    skipped = ["…"] if len(below) > MAX_PATH_TITLES else []
    return " > ".join([shorten(document, MAX_DOCUMENT_TOKENS), *skipped, *titles])
