"""The MCP server: four read-only tools (`server.tools`), a page resource and one prompt over a `Library`.

Tools validate, call the library on a worker thread, and answer with compact text plus the same
data as structured content (and PNG image content for the pages and crops a host asks to see):
`server.calls`. Domain errors become tool errors whose text says what is valid; so do arguments
that do not fit a tool (`server.arguments`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import ValidationError

from indexer.errors import DeepreadError
from indexer.library import Library
from server import __version__
from server.arguments import bad_arguments, unknown_arguments
from server.calls import ServerState
from server.prompts import locate_then_read_prompt
from server.render import render_toc
from server.settings import explain
from server.tools import READ_ONLY, TOOLS

INSTRUCTIONS = """\
deepread answers questions over a folder of documents by locating, then reading.
1. get_toc() shows every document with its top-level sections: the map. get_toc(doc_id=N) shows one document's
   sections with their sizes (what reading each costs) and pages.
2. retrieve finds the paragraphs that match a query; each hit has coordinates (doc_id, sec_id, para_idx).
3. read_section reads a section in order, from a hit's coordinates, to get the whole passage.
Prefer reading the section a hit lands in over stitching many small hits together.
To look at a chart, figure or table, read its section with images=true; view_page shows a whole page
(of a PDF or a picture)."""


class _Server(MCPServer[ServerState]):
    """An unknown tool name is answered with the names that exist, an argument the tool does not
    take with the ones it does (rather than dropped), and arguments that do not fit the schema
    with what is wrong and what the tool takes (not pydantic's report)."""

    async def call_tool(self, name, arguments, context=None):
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            known = ", ".join(t.name for t in self._tool_manager.list_tools())
            raise ToolError(f"there is no tool {name[:80]!r}; the tools are {known}")
        if isinstance(arguments, dict) and (unknown := unknown_arguments(name, tool.parameters, arguments)):
            raise ToolError(unknown)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(bad_arguments(name, tool.parameters, exc.__cause__)) from None
            raise


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
    for tool, description in TOOLS:
        server.tool(annotations=READ_ONLY, description=description)(tool)

    @server.resource(
        "deepread://doc/{doc_id}/page/{page}.png",
        name="page",
        title="A page of a PDF or a picture",
        description="One page of an indexed PDF, or of a picture of a document, as a PNG (1-based page; doc_id "
        "from get_toc), to attach by hand.",
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
        if view.image.mime_type == "image/png":
            return view.image.data
        return await anyio.to_thread.run_sync(_as_png, view.image.data)  # a kept JPEG or WebP page

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


def _as_png(data: bytes) -> bytes:
    """A picture as PNG, as the page resource declares (a picture of a document is kept as it came)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    with Image.open(io.BytesIO(data)) as image:
        image.save(out, format="PNG")
    return out.getvalue()
