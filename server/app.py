"""The MCP server: four read-only tools, a page resource and one prompt over a `Library`.

Tools validate, call the library on a worker thread, and answer with compact
text plus the same data as structured content (and PNG image content for the
pages and crops a host asks to see). Domain errors become tool errors whose
text says what is valid.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from indexer.errors import DeepreadError
from indexer.library import MAX_ID, Library
from indexer.models import PageImage, PageView, RetrieveResult, SectionText, Toc
from indexer.search.retrieve import MAX_QUERY_CHARS, MAX_TOP_K, MAX_WINDOW
from indexer.tokens import clip_to_tokens, count_tokens
from server import __version__
from server.prompts import locate_then_read_prompt
from server.render import render_page, render_retrieve, render_section, render_toc
from server.settings import explain

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
deepread answers questions over a folder of documents by locating, then reading.
1. get_toc() shows every document with its top-level sections: the map. get_toc(doc_id=N) shows one document's
   sections with their sizes (what reading each costs) and pages.
2. retrieve finds the paragraphs that match a query; each hit has coordinates (doc_id, sec_id, para_idx).
3. read_section reads a section in order, from a hit's coordinates, to get the whole passage.
Prefer reading the section a hit lands in over stitching many small hits together.
To look at a chart, figure or table, read its section with images=true; view_page shows a whole PDF page."""

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

T = TypeVar("T", bound=BaseModel)
DocId = Annotated[int, Field(ge=0, le=MAX_ID, description="Document id (from get_toc or a retrieve hit).")]


@dataclass
class ServerState:
    library: Library


class _Server(MCPServer[ServerState]):
    """An unknown tool name is answered with the names that exist, and arguments that do not
    fit the schema with what is wrong and what the tool takes (not pydantic's report)."""

    async def call_tool(self, name, arguments, context=None):
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            known = ", ".join(t.name for t in self._tool_manager.list_tools())
            raise ToolError(f"there is no tool {name[:80]!r}; the tools are {known}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(bad_arguments(name, tool.parameters, exc.__cause__)) from None
            raise


def bad_arguments(name: str, schema: dict, error: ValidationError) -> str:
    """`retrieve: top_k: input should be less than or equal to 50 (got 500). It takes query (text),
    top_k (integer 1–50, optional), …`: the problems, then the whole signature to retry with."""
    problems = []
    for e in error.errors(include_url=False)[:5]:
        field = ".".join(str(part) for part in e["loc"]) or "the arguments"
        if e["type"] == "missing":
            problems.append(f"{field} is required")
        else:
            got = repr(e.get("input"))
            problems.append(
                f"{field}: {e['msg'][:1].lower()}{e['msg'][1:]} (got {got[:60]}{'…' if len(got) > 60 else ''})"
            )
    required = set(schema.get("required", []))
    takes = ", ".join(
        f"{param} ({_kind(spec)}{'' if param in required else ', optional'})"
        for param, spec in schema.get("properties", {}).items()
    )
    return f"{name}: {'; '.join(problems)}. It takes {takes}."


def _kind(spec: dict) -> str:
    """A parameter's JSON-schema type in a few words: `integer 1–50`, `text`, `list of integers`."""
    spec = next((s for s in spec.get("anyOf", []) if s.get("type") != "null"), spec)
    names = {"string": "text", "integer": "integer", "boolean": "true/false", "number": "number"}
    if spec.get("type") == "array":
        return f"list of {names.get(spec.get('items', {}).get('type', ''), 'value')}s"
    kind = names.get(spec.get("type", ""), "")
    if "minimum" in spec and "maximum" in spec and spec["maximum"] < 10**6:
        kind += f" {spec['minimum']}–{spec['maximum']}"
    elif "minimum" in spec:
        kind += f" ≥ {spec['minimum']}"
    return kind or "value"


def build_server(library: Library, log_level: str = "INFO") -> MCPServer[ServerState]:
    """A server over an open library. Opening, indexing and closing it is the caller's job
    (the CLI), so errors such as a locked index are reported before the protocol starts,
    and every session (HTTP serves many) shares the one library."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[ServerState]) -> AsyncIterator[ServerState]:
        yield ServerState(library)

    server: MCPServer[ServerState] = _Server(
        name="deepread",
        title="deepread: locate, then read",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=lifespan,
        log_level=log_level,  # type: ignore[arg-type]
    )

    async def call(ctx: Context[ServerState], fn: Callable[[Library], T], render: Callable[[T], str]) -> CallToolResult:
        library = ctx.request_context.lifespan_context.library
        if (progress := library.progress) is not None:  # let the host show that indexing is under way
            if progress.action == "scanning":  # the number of files is not known yet
                await ctx.report_progress(0, None, "indexing: scanning the folders")
            else:
                await ctx.report_progress(progress.done, progress.total, f"indexing: {progress.path or 'starting'}")
        elif library.catchup is not None and library.catchup.busy and (left := library.vectors_left()) is not None:
            eta = f", ~{left.eta_s:.0f} s left" if left.eta_s is not None else ""
            await ctx.report_progress(
                library.catchup.embedded,
                library.catchup.embedded + left.paragraphs,
                f"semantic search catching up: {left.paragraphs:,} paragraphs of {left.documents} document(s){eta}",
            )
        try:
            result = await anyio.to_thread.run_sync(fn, library)
        except DeepreadError as exc:
            raise ToolError(explain(str(exc))) from None
        except Exception as exc:  # a bug: say what broke rather than a bare "Error executing tool"
            log.exception("tool call failed")
            raise ToolError(
                f"internal error ({type(exc).__name__}: {str(exc)[:200]}); the server keeps running — "
                "try other arguments, and report this if it persists"
            ) from None
        text = render(result)
        images = _images(result)
        budget = library.config.token_budget - sum(i.tokens for i in images)  # images were fitted to the budget
        if (tokens := count_tokens(text)) > budget:  # the estimates missed: the budget is a promise all the same
            log.warning("answer of %d tokens over the budget of %d; cut", tokens, budget)
            text = clip_to_tokens(text, budget - 30) + "\n[…answer cut to the token budget: ask for less at once]"
        pictures = [
            ImageContent(type="image", data=base64.b64encode(i.data).decode(), mime_type=i.mime_type) for i in images
        ]
        return CallToolResult(
            content=[TextContent(type="text", text=text), *pictures],
            structured_content=result.model_dump(mode="json"),
        )

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "The map of the folder: call this first, with no arguments. It lists every document "
            "(`(doc_id) path — title | N pages`) with its top-level sections (`[sec_id] title`, `+N` where N "
            "sections below are not listed), in a small share of the token budget. Then get_toc(doc_id=D) shows the "
            "document you chose: its sections, lines `[sec_id] Title | N tokens | p.A–B` indented by depth, where "
            "tokens are what read_section costs; with sec_id too, that section's subtree. A branch that does not "
            "fit is folded and marked `+N sections: get_toc(doc_id=D, sec_id=S)`: make that call to open it. "
            'path="FOLDER/" shows only the documents under a folder; a folder of many documents is listed one line '
            "per document, in pages, with its sub-folders and their counts: the note names the call for the next "
            "page. A financial statement, a note or a chapter is usually a section of its own: read it directly "
            "with read_section."
        ),
    )
    async def get_toc(
        ctx: Context[ServerState],
        doc_id: Annotated[
            int | None, Field(ge=0, le=MAX_ID, description="One document's table of contents; omit for all.")
        ] = None,
        sec_id: Annotated[
            int | None, Field(ge=0, le=MAX_ID, description="With doc_id: just this section's subtree.")
        ] = None,
        max_depth: Annotated[
            int | None,
            Field(
                ge=0,
                le=20,
                description="Deepest level to list (with sec_id: levels below it); 0 = document lines "
                "only, each with a +N mark for what it holds. Without doc_id, every document's sections to that "
                "depth, in up to the whole token budget (without max_depth the map keeps to a small share).",
            ),
        ] = None,
        after: Annotated[
            int | None,
            Field(
                ge=0, le=MAX_ID, description="Paging: list sec_id's sub-sections after this one (the note says when)."
            ),
        ] = None,
        path: Annotated[
            str | None,
            Field(
                max_length=1000,
                description="Only the documents under this folder, as the map writes paths "
                '(e.g. "reports/2023/"); omit for all.',
            ),
        ] = None,
        page: Annotated[
            int,
            Field(
                ge=1, le=MAX_ID, description="Page of a folder listed one line per document (the note says how many)."
            ),
        ] = 1,
        skipped: Annotated[
            bool,
            Field(
                description="List the folder's files that are not indexed (unsupported type, unreadable, "
                "links out of the folder) with why, instead of the map; the map's note says how many."
            ),
        ] = False,
    ) -> Annotated[CallToolResult, Toc]:
        return await call(ctx, lambda lib: lib.toc(doc_id, max_depth, sec_id, after, path, page, skipped), render_toc)

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Search the documents for single paragraphs matching a query (semantic + exact keyword search, fused). "
            "Use it to land in the right place: each hit comes with coordinates (doc_id, sec_id, para_idx), its "
            "page and section path. Query with what the passage would say, in the document's words (numbers, codes "
            "and names match exactly), not with the whole task or its answer-format instructions; search again "
            "with other words when the first hits miss. "
            "before/after add neighbouring paragraphs of the same section. To read the whole passage around "
            "a hit, call read_section(doc_id, sec_id) next."
        ),
    )
    async def retrieve(
        ctx: Context[ServerState],
        query: Annotated[
            str,
            Field(
                max_length=MAX_QUERY_CHARS,
                description="What to look for: keywords or a short question, e.g. 'cash from operations 2015'.",
            ),
        ],
        top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K, description="How many paragraphs to rank.")] = 5,
        doc_ids: Annotated[
            list[Annotated[int, Field(ge=0, le=MAX_ID)]] | None,
            Field(
                min_length=1,
                description="Search only these documents (ids from get_toc); omit for all. Ids that cannot be "
                "searched (unknown, failed) are named in the answer and the rest are searched.",
            ),
        ] = None,
        before: Annotated[int, Field(ge=0, le=MAX_WINDOW, description="Paragraphs to add before each hit.")] = 0,
        after: Annotated[int, Field(ge=0, le=MAX_WINDOW, description="Paragraphs to add after each hit.")] = 0,
        path: Annotated[
            str | None,
            Field(
                max_length=1000,
                description="Search only the documents under this folder, as get_toc writes "
                'paths (e.g. "reports/2023/"); omit for all.',
            ),
        ] = None,
    ) -> Annotated[CallToolResult, RetrieveResult]:
        return await call(ctx, lambda lib: lib.retrieve(query, top_k, doc_ids, before, after, path), render_retrieve)

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Read one section's paragraphs in order, contiguously: the whole passage, not fragments. "
            "Give doc_id and sec_id from get_toc or from a retrieve hit; start_para/end_para (0-based, "
            "inclusive) pick a range, clipped to what exists. Long sections are returned up to a token budget "
            "with next_start_para telling where to continue. Sub-sections are separate sections: get_toc shows them."
        ),
    )
    async def read_section(
        ctx: Context[ServerState],
        doc_id: DocId,
        sec_id: Annotated[int, Field(ge=0, le=MAX_ID, description="Section id within the document (0 = the root).")],
        start_para: Annotated[int, Field(ge=0, le=MAX_ID, description="First paragraph to read.")] = 0,
        end_para: Annotated[
            int | None,
            Field(ge=0, le=MAX_ID, description="Last paragraph to read (inclusive); omit for the section's end."),
        ] = None,
        version: Annotated[
            int | None,
            Field(
                ge=0,
                le=MAX_ID,
                description="Document version your coordinates came from (v in retrieve/get_toc); "
                "if the document changed since, the answer says so.",
            ),
        ] = None,
        images: Annotated[
            bool,
            Field(
                description="Also show each figure, chart and table of a PDF as an image of its region "
                "(counted in the token budget); for questions about what a chart or page looks like."
            ),
        ] = False,
        part: Annotated[
            int | None,
            Field(
                ge=1,
                le=MAX_ID,
                description="Part N of paragraph start_para, when that one paragraph is longer "
                "than the token budget (the answer names the call for the next part).",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, SectionText]:
        return await call(
            ctx,
            lambda lib: lib.read_section(doc_id, sec_id, start_para, end_para, version, images, part),
            render_section,
        )

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "See one page of a PDF as an image (about 1,000 px on its longer side, ~1,300 tokens): for layout, "
            "pictures and scanned pages whose figures have no region of their own. Pages are 1-based, as the "
            "p.N citations in the other tools' answers."
        ),
    )
    async def view_page(
        ctx: Context[ServerState],
        doc_id: DocId,
        page: Annotated[int, Field(ge=1, le=MAX_ID, description="Page number, 1-based.")],
    ) -> Annotated[CallToolResult, PageView]:
        return await call(ctx, lambda lib: lib.view_page(doc_id, page), render_page)

    @server.resource(
        "deepread://doc/{doc_id}/page/{page}.png",
        name="page",
        title="A page of a PDF",
        description="One page of an indexed PDF as a PNG (1-based page; doc_id from get_toc), to attach by hand.",
        mime_type="image/png",
    )
    async def page_resource(doc_id: str, page: str) -> bytes:
        if not (doc_id.isdigit() and page.isdigit()):
            raise ResourceError(
                "deepread://doc/{doc_id}/page/{page}.png takes two numbers, e.g. deepread://doc/3/page/12.png"
            )
        try:
            view = await anyio.to_thread.run_sync(library.view_page, int(doc_id), int(page))
        except DeepreadError as exc:
            raise ResourceError(explain(str(exc))) from None
        return view.image.data

    @server.prompt(
        name="locate_then_read",
        title="Locate, then read",
        description="How to answer from these documents (map → search → read), with the current table of contents.",
    )
    async def locate_then_read(ctx: Context[ServerState], question: str | None = None) -> str:
        library = ctx.request_context.lifespan_context.library
        toc = await anyio.to_thread.run_sync(library.toc)
        return locate_then_read_prompt(render_toc(toc), question)

    return server


def _images(result: BaseModel) -> list[PageImage]:
    """The images an answer carries: a section's crops, or a page."""
    if isinstance(result, SectionText):
        return result.images
    if isinstance(result, PageView):
        return [result.image]
    return []
