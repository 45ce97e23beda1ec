"""The four tools: each a short function of its arguments (`server.arguments`) that asks the library
one question through the shared call path (`server.calls.answer`) and renders the answer as text
(`server.render`). Their descriptions speak to the model: what each is for, and when to use it."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ToolAnnotations

from indexer.models import PageView, RetrieveResult, SectionText, Toc
from server.arguments import (
    After,
    AfterHit,
    Before,
    DatedAfter,
    DatedBefore,
    DocId,
    DocIds,
    EndPara,
    FileTypes,
    Images,
    MapFolder,
    MapPage,
    MaxDepth,
    ModifiedAfter,
    ModifiedBefore,
    OneDocument,
    Page,
    Part,
    Query,
    SearchFolder,
    SecId,
    Skipped,
    StartPara,
    Subtree,
    TopK,
    Version,
)
from server.calls import ServerState, answer
from server.render import render_page, render_retrieve, render_section, render_toc

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

GET_TOC = (
    "The map of the folder: call this first, with no arguments. It lists every document "
    "(`(doc_id) path — title | N pages`) with its top-level sections (`[sec_id] title`, `+N` where N "
    "sections below are not listed), in a small share of the token budget. Then get_toc(doc_id=D) shows the "
    "document you chose: its sections, lines `[sec_id] Title | N tokens | p.A–B` indented by depth, where "
    "tokens are what read_section costs; with sec_id too, that section's subtree. A branch that does not "
    "fit is folded and marked `+N sections: get_toc(doc_id=D, sec_id=S)`: make that call to open it. "
    'path="FOLDER/" shows only the documents under a folder; a folder of many documents is listed one line '
    "per document, in pages, with its sub-folders and their counts: the note names the call for the next "
    "page. file_types, modified_after/before (the file's time) and dated_after/before (the date a document "
    "states) keep only the documents that pass. A financial statement, a note or a chapter is usually a section "
    "of its own: read it directly with read_section."
)


async def get_toc(
    ctx: Context[ServerState],
    doc_id: OneDocument = None,
    sec_id: Subtree = None,
    max_depth: MaxDepth = None,
    after: After = None,
    path: MapFolder = None,
    page: MapPage = 1,
    skipped: Skipped = False,
    file_types: FileTypes = None,
    modified_after: ModifiedAfter = None,
    modified_before: ModifiedBefore = None,
    dated_after: DatedAfter = None,
    dated_before: DatedBefore = None,
) -> Annotated[CallToolResult, Toc]:
    filters = (file_types, modified_after, modified_before, dated_after, dated_before)
    return await answer(
        ctx, lambda lib: lib.toc(doc_id, max_depth, sec_id, after, path, page, skipped, *filters), render_toc
    )


RETRIEVE = (
    "Search the documents for single paragraphs matching a query (semantic + exact keyword search, fused). "
    "Use it to land in the right place: each hit comes with coordinates (doc_id, sec_id, para_idx), its "
    "page and section path. Query with what the passage would say, in the document's words (numbers, codes "
    "and names match exactly), not with the whole task or its answer-format instructions; search again "
    "with other words when the first hits miss. "
    "before/after add neighbouring paragraphs of the same section; doc_ids, path and the filters of get_toc "
    "(file_types, modified_after/before, dated_after/before) limit the documents searched. To read the whole "
    "passage around a hit, call read_section(doc_id, sec_id) next."
)


async def retrieve(
    ctx: Context[ServerState],
    query: Query,
    top_k: TopK = 5,
    doc_ids: DocIds = None,
    before: Before = 0,
    after: AfterHit = 0,
    path: SearchFolder = None,
    file_types: FileTypes = None,
    modified_after: ModifiedAfter = None,
    modified_before: ModifiedBefore = None,
    dated_after: DatedAfter = None,
    dated_before: DatedBefore = None,
) -> Annotated[CallToolResult, RetrieveResult]:
    filters = (file_types, modified_after, modified_before, dated_after, dated_before)
    return await answer(
        ctx, lambda lib: lib.retrieve(query, top_k, doc_ids, before, after, path, *filters), render_retrieve
    )


READ_SECTION = (
    "Read one section's paragraphs in order, contiguously: the whole passage, not fragments. "
    "Give doc_id and sec_id from get_toc or from a retrieve hit; start_para/end_para (0-based, "
    "inclusive) pick a range, clipped to what exists. Long sections are returned up to a token budget "
    "with next_start_para telling where to continue. Sub-sections are separate sections: get_toc shows them."
)


async def read_section(
    ctx: Context[ServerState],
    doc_id: DocId,
    sec_id: SecId,
    start_para: StartPara = 0,
    end_para: EndPara = None,
    version: Version = None,
    images: Images = False,
    part: Part = None,
) -> Annotated[CallToolResult, SectionText]:
    return await answer(
        ctx,
        lambda lib: lib.read_section(doc_id, sec_id, start_para, end_para, version, images, part),
        render_section,
    )


VIEW_PAGE = (
    "See one page of a PDF, or of a picture of a document (a photographed or scanned page), as an image "
    "(about 1,000 px on its longer side, ~1,300 tokens): for layout, "
    "pictures and scanned pages whose figures have no region of their own. Pages are 1-based, as the "
    "p.N citations in the other tools' answers."
)


async def view_page(ctx: Context[ServerState], doc_id: DocId, page: Page) -> Annotated[CallToolResult, PageView]:
    return await answer(ctx, lambda lib: lib.view_page(doc_id, page), render_page)


TOOLS = ((get_toc, GET_TOC), (retrieve, RETRIEVE), (read_section, READ_SECTION), (view_page, VIEW_PAGE))
