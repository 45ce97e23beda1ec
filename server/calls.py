"""One tool call, the same way for every tool: tell the host that indexing is under way, run the
library's question on a worker thread, turn domain errors into text that says what is valid, keep
the answer within the token budget, and attach the images it carries."""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, ImageContent, TextContent
from pydantic import BaseModel

from indexer.errors import DeepreadError
from indexer.library import Library
from indexer.models import PageImage, PageView, SectionText
from indexer.tokens import clip_to_tokens, count_tokens
from server.settings import explain

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


@dataclass
class ServerState:
    library: Library


async def answer(ctx: Context[ServerState], ask: Callable[[Library], T], render: Callable[[T], str]) -> CallToolResult:
    """`ask` the library, on a worker thread; the answer as `render` writes it for the model, and
    as structured content."""
    library = ctx.request_context.lifespan_context.library
    await _report_indexing(ctx, library)
    try:
        result = await anyio.to_thread.run_sync(ask, library)
    except DeepreadError as exc:
        raise ToolError(explain(str(exc))) from None
    except Exception as exc:  # a bug: say what broke rather than a bare "Error executing tool"
        log.exception("tool call failed")
        raise ToolError(
            f"internal error ({type(exc).__name__}: {str(exc)[:200]}); the server keeps running — "
            "try other arguments, and report this if it persists"
        ) from None
    images = _images(result)
    text = _within_budget(render(result), library.config.token_budget - sum(i.tokens for i in images))
    pictures = [
        ImageContent(type="image", data=base64.b64encode(i.data).decode(), mime_type=i.mime_type) for i in images
    ]
    return CallToolResult(
        content=[TextContent(type="text", text=text), *pictures],
        structured_content=result.model_dump(mode="json"),
    )


async def _report_indexing(ctx: Context[ServerState], library: Library) -> None:
    """Let the host show that indexing, or semantic search catching up, is under way."""
    status = library.status()
    if (progress := status.progress) is not None:
        if progress.action == "scanning":  # the number of files is not known yet
            await ctx.report_progress(0, None, "indexing: scanning the folders")
        else:
            await ctx.report_progress(progress.done, progress.total, f"indexing: {progress.path or 'starting'}")
    elif status.embedding and (left := status.vectors_left) is not None:
        eta = f", ~{left.eta_s:.0f} s left" if left.eta_s is not None else ""
        await ctx.report_progress(
            status.embedded,
            status.embedded + left.paragraphs,
            f"semantic search catching up: {left.paragraphs:,} paragraphs of {left.documents} document(s){eta}",
        )


def _within_budget(text: str, budget: int) -> str:
    """The answers fit the budget by their own estimates (images included); where those missed, the
    budget is a promise all the same."""
    if (tokens := count_tokens(text)) > budget:
        log.warning("answer of %d tokens over the budget of %d; cut", tokens, budget)
        text = clip_to_tokens(text, budget - 30) + "\n[…answer cut to the token budget: ask for less at once]"
    return text


def _images(result: BaseModel) -> list[PageImage]:
    """The images an answer carries: a section's crops, or a page."""
    if isinstance(result, SectionText):
        return result.images
    if isinstance(result, PageView):
        return [result.image]
    return []
