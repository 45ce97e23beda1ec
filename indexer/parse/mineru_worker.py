"""The child process that runs MinerU on one file: `python -m indexer.parse.mineru_worker REQUEST RESULT`.

It runs apart from the server because MinerU starts a spawn process pool,
may print, takes a lot of memory on big files and can crash: none of that may
touch the MCP stdio stream or take the server down. The parent
(`indexer.parse.mineru`) sets the environment (no model downloads), a memory
ceiling and a timeout; this side checks a PDF cheaply with pypdfium2 first
(corrupt, encrypted, no text layer: `indexer.parse.pdf_layers`), picks the best tier whose models are
installed, parses (a scan without model tiers goes to `indexer.parse.ocr`, a picture of a
document to `indexer.parse.images`), and
writes a JSON result: the content list (an office file's pictures kept apart by
`indexer.parse.pictures`, a PDF's dropped: its pages are rendered instead), the page count,
the PDF outline, the tier used and `warnings`: what went wrong without failing the
file (an outline or type sizes that could not be read, pages OCR could not read),
which the parent logs and `get_toc` shows with the document.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.errors import OUT_OF_MEMORY_SIGNS, PARSE_MEMORY_LIMIT
from indexer.models import Item
from indexer.parse.heavy_pages import HEAVY_PAGE_OBJECTS, heavy_pages, heavy_warning, simple_items, without_pages
from indexer.parse.images import IMAGE_FORMATS
from indexer.parse.pdf_layers import (
    PROBE_PAGES,
    check_pdf,
    declared,
    fill_from_text_layer,
    pages_by_text_layer,
    read_font_sizes,
    read_outline,
    stamped_pages,
)

if TYPE_CHECKING:  # the client is imported only when a server parses
    from indexer.parse.remote import MineruClient

RESERVE_BYTES = 1 << 20  # address space a child sets aside, and gives back when it fails, to say why
NEAR_CEILING = 0.9  # an allocation-shaped failure while the address space is past this share of the ceiling: memory
MODEL_TIERS = ("standard", "basic")  # MinerU's tiers that need models, best first; flash needs none


def tier_status() -> dict[str, dict]:
    """Per model tier, whether its files are installed (`ready`), how many are `missing`, and
    the `error` a half-installed model folder raised."""
    from mineru.model.download import verify_model_repo
    from mineru.model.registry import model_repos_for_tier

    status: dict[str, dict] = {}
    for tier in MODEL_TIERS:
        missing: list[str] = []
        try:
            for repo in model_repos_for_tier(tier):
                check = verify_model_repo(repo)
                if not check.ready:
                    missing.extend(str(p) for p in getattr(check, "missing_paths", []) or [repo])
        except Exception as exc:  # a half-installed model dir must not stop parsing
            status[tier] = {"ready": False, "missing": len(missing), "error": f"{type(exc).__name__}: {exc}"[:200]}
            continue
        status[tier] = {"ready": not missing, "missing": len(missing)}
    return status


def best_tier(status: dict[str, dict]) -> str:
    """The best tier whose models are installed; flash when none is."""
    return next((tier for tier in MODEL_TIERS if status.get(tier, {}).get("ready")), "flash")


def usable_tier(pdf: bool, warnings: list[str]) -> str:
    """The tier to parse with: office and web formats are read natively (models add nothing
    offline); a PDF gets the best tier installed."""
    if not pdf:
        return "flash"
    try:
        status = tier_status()
    except ImportError as exc:  # MinerU's model registry moved: parse with what needs no models
        warnings.append(f"MinerU's model tiers could not be checked ({exc}); flash tier used")
        return "flash"
    for tier, state in status.items():
        if "error" in state:
            warnings.append(f"MinerU's {tier} models could not be checked ({state['error']}); not used")
    return best_tier(status)


def _remote(request: dict) -> MineruClient | None:
    """A client of the MinerU server the request names (`url`), or None to parse here."""
    if not request.get("url"):
        return None
    from indexer.parse.remote import MineruClient

    return MineruClient(request["url"], request.get("api_key"), timeout_s=float(request.get("timeout_s") or 600))


def run_text(request: dict) -> dict:
    """A large Markdown or plain-text file, parsed here so that its memory is bounded too."""
    from dataclasses import asdict

    from indexer.errors import ParseError
    from indexer.parse.formats import parse_text_file

    try:
        parsed = parse_text_file(Path(request["path"]), request["max_bytes"])
    except ParseError as exc:
        return {"ok": False, "reason": str(exc)}
    return {"ok": True, "tier": "text", "title": parsed.title, "blocks": [asdict(b) for b in parsed.blocks]}


def run_upgrade(request: dict) -> dict:
    """A PDF's parse cached by an earlier version (`request["version"]`), brought up to this one
    without MinerU: what the PDF declares of itself, read from its document information
    (`pdf_layers.declared`), the pages flash misread read again from the text layer (`page_text`;
    done since version 8), its pages whose text layer is not text and its scanned pages under a
    stamp's line read by OCR, its symbol fonts' glyphs read as what they draw (`symbols`), its
    type sizes read again where the page is turned or cropped (`page_frame`), and its pages whose
    words flash lost read from the text layer (`lost_text`). (Text a picture's box holds is left as
    read: OCR may have read it since.)"""
    raw = request["upgrade"]
    raw["declared"] = declared(request["path"])
    warnings = raw.setdefault("warnings", [])
    items = raw["content_list"]
    # (one pass over the text layer for the steps below; a scan's parse, OCR's, needs none)
    blank, garbled = pages_by_text_layer(request["path"]) if raw.get("tier") != "ocr" else ([], [])
    if request.get("version", 0) < REPAIRED_SINCE:
        items = _repaired_pages(request["path"], items, warnings)
        raw["content_list"] = items  # (its sizes are read below, as every version before FRAMED_SINCE's are)
    if raw.get("tier") == "flash" and request.get("version", 0) < GARBLED_SINCE:  # the model tiers OCR themselves
        raw["content_list"] = items = read_garbled_pages(request["path"], items, garbled, warnings)
    if raw.get("tier") == "flash" and request.get("version", 0) < STAMPED_SINCE:
        raw["content_list"] = items = read_blank_pages(request["path"], items, stamped_pages(request["path"]), warnings)
    if request.get("version", 0) < FRAMED_SINCE and raw.get("tier") != "ocr":  # a scan's sizes are OCR's
        _read_font_sizes(request["path"], items, warnings, skip={*blank, *garbled})
    if request.get("version", 0) < LOST_SINCE and raw.get("tier") != "ocr":
        known = {id(it) for it in items}
        raw["content_list"] = items = _read_lost_pages(request["path"], items, garbled, warnings)
        _read_font_sizes(request["path"], [it for it in items if id(it) not in known], warnings)
    _read_symbols(request["path"], items, warnings)
    return raw


REPAIRED_SINCE = 8  # a parse cached by this version or later has had its misread pages read again
GARBLED_SINCE = 9  # … and its pages whose text layer is not text read by OCR
STAMPED_SINCE = 10  # … and its scanned pages whose text layer is only a stamp's line
FRAMED_SINCE = 11  # … and its type sizes read where a turned or cropped page shows them
LOST_SINCE = 12  # … and its pages whose text flash lost read from the text layer


def _read_lost_pages(path: str, items: list[Item], skip: Collection[int], warnings: list[str]) -> list[Item]:
    """Pages whose text flash lost, read from the text layer (`lost_text`), but for those in `skip`
    (a text layer that is not text, which OCR reads; a heavy page, read without flash); a quirk of
    the text layer there costs those pages' words, never the parse."""
    from indexer.parse.lost_text import lost_pages, read_lost_pages

    try:
        pages = lost_pages(path, items, skip=set(skip))
        if pages:
            shown = ", ".join(str(p + 1) for p in pages[:10]) + (", …" if len(pages) > 10 else "")
            warnings.append(f"{_pages(pages)} ({shown}) read from the text layer: the parser gave few of their words")
        return read_lost_pages(path, items, pages)
    except Exception as exc:
        warnings.append(f"pages with lost text left as read ({type(exc).__name__}: {exc})"[:300])
        return items


def _read_font_sizes(path: str, items: list[Item], warnings: list[str], skip: Collection[int] = ()) -> None:
    """Type sizes from the text layer (`pdf_layers.read_font_sizes`; pages in `skip` keep OCR's);
    sizes only refine headings, so a quirk of the text layer there is no reason to fail the parse."""
    try:
        read_font_sizes(path, items, skip=skip)
    except Exception as exc:
        warnings.append(f"type sizes could not be read ({type(exc).__name__}); heading depth from numbering only")


def _read_symbols(path: str, items: list[Item], warnings: list[str]) -> None:
    """A symbol font's boxes and bullets read as what they draw (`symbols`); a quirk of the text
    layer there costs them, never the parse."""
    from indexer.parse.symbols import read_symbol_glyphs

    try:
        read_symbol_glyphs(path, items)
    except Exception as exc:
        warnings.append(f"symbol-font glyphs left as their letters ({type(exc).__name__}: {exc})"[:300])


def _repaired_pages(path: str, items: list[Item], warnings: list[str]) -> list[Item]:
    """Pages flash misread (margin line numbers, an item across columns) read again
    from the text layer (`page_text`); a failure there costs the repair, never the document."""
    from indexer.parse.page_text import repair_pages

    try:
        return repair_pages(path, items)
    except Exception as exc:
        warnings.append(f"line numbers and columns left as read ({type(exc).__name__}: {exc})"[:300])
        return items


def run(request: dict) -> dict:
    if request.get("text"):
        return run_text(request)
    if request.get("upgrade"):
        return run_upgrade(request)
    path = request["path"]
    is_pdf = Path(path).suffix.lower() == ".pdf"
    warnings: list[str] = []
    result: dict = {
        "ok": False,
        "reason": None,
        "page_count": None,
        "content_list": [],
        "outline": [],
        "tier": None,
        "warnings": warnings,
    }
    if Path(path).suffix.lower() in IMAGE_FORMATS:  # read here by OCR, with a MinerU server too
        from indexer.parse.images import read_image

        pictures = request.get("pictures_dir")
        return read_image(path, Path(pictures) if pictures else None, result, lambda n: _report_pages(request, n))
    remote = _remote(request)
    if remote is not None:
        from indexer.parse.remote import RemoteRejected, RemoteUnavailable

        try:
            tier = request.get("tier") or remote.best_tier()
        except RemoteUnavailable as exc:
            return {**result, "reason": str(exc), "transient": True}
        except RemoteRejected as exc:
            return {**result, "reason": str(exc)}
    else:
        tier = request.get("tier") or usable_tier(is_pdf, warnings)
    from indexer.parse.damage import LISTED, PACKAGE_FORMATS, damaged_pictures, mend_pdf

    original = path
    if is_pdf:  # a page that does not load costs that page (`damage`): the rest is read from a mended copy
        path, broken, mended = mend_pdf(path, os.path.abspath("mended.pdf"))
        if broken and mended is None:
            result["reason"] = f"not a readable PDF: none of its {len(broken)} pages can be loaded (damaged)"
            return result
        if mended:
            warnings.append(mended)
        pages, reason, scanned = check_pdf(path)
        _report_pages(request, pages)
        result["page_count"] = pages
        if reason:
            result["reason"] = reason
            return result
        if scanned and tier == "flash":  # flash would return the pages as empty images
            return read_scan(path, pages, result, warnings)
    limit = int(request.get("heavy_page_objects", HEAVY_PAGE_OBJECTS))
    heavy = heavy_pages(path, limit) if is_pdf else {}
    parse_path, page_of = path, None
    if heavy and len(heavy) < result["page_count"]:  # MinerU reads a copy without them
        parse_path = os.path.abspath("without-heavy-pages.pdf")  # in the parse's own temporary folder
        page_of = without_pages(path, set(heavy), parse_path)
    if heavy and page_of is None:  # every page is heavy: nothing for MinerU
        items, title = [], None
    else:
        from mineru.render.api import render
        from mineru.render.contracts import RenderFormat

        if remote is not None:  # parsed on the MinerU server; everything after is as for a local parse
            from mineru.parser.base import ParseResult

            try:
                parsed = ParseResult.from_dict(remote.middle_json(Path(parse_path), tier))
            except RemoteUnavailable as exc:
                return {**result, "reason": str(exc), "transient": True}
            except RemoteRejected as exc:
                return {**result, "reason": str(exc)}
            result["server"] = remote.url
        else:
            from mineru import parse

            try:
                parsed = parse(parse_path, tier=tier, ocr_mode="txt")
            except Exception:  # a malformed part of an office file: read a copy with it mended
                mended_path = _mended_package(path, warnings)
                if mended_path is None:
                    raise
                parse_path = mended_path
                parsed = parse(mended_path, tier=tier, ocr_mode="txt")
        items = render(parsed.middle_json, RenderFormat.CONTENT_LIST)
        if not is_pdf:
            from indexer.parse.ooxml import add_extras

            try:  # chart titles, comments, a lone sheet's name: extras, whose loss fails nothing
                items = add_extras(parse_path, Path(path).suffix.lower(), items)
            except Exception as exc:
                warnings.append(f"chart titles and comments could not be read ({type(exc).__name__}: {exc})"[:300])
        document = parsed.middle_json.metadata.document
        title = document.title
        result["declared"] = document.model_dump(
            include={"title", "authors", "subject", "publisher", "created_at"}, mode="json"
        )
        if result["page_count"] is None:
            result["page_count"] = document.page_count or len(parsed.pages)
    if heavy or path != original:  # MinerU read a copy, or nothing: what it declares is the original's
        result["declared"] = declared(original)
        title = result["declared"]["title"]
    if not is_pdf and Path(path).suffix.lower() in PACKAGE_FORMATS and (bad := damaged_pictures(path)):
        shown = ", ".join(bad[:LISTED]) + (f" and {len(bad) - LISTED} more" if len(bad) > LISTED else "")
        warnings.append(f"{len(bad)} picture(s) damaged in the file and left out: {shown}")
    if page_of is not None:  # and the pages are the original's
        for item in items:
            item["page_idx"] = page_of[int(item.get("page_idx", 0))]
    if is_pdf or not request.get("pictures_dir"):
        for item in items:  # inline JPEG crops: megabytes we never index
            if str(item.get("img_path", "")).startswith("data:"):
                item["img_path"] = None
    else:
        from indexer.parse.pictures import keep

        keep(items, Path(request["pictures_dir"]), warnings)
        result["pictures_kept"] = True
    if is_pdf:
        items = _repaired_pages(path, items, warnings)
        fill_from_text_layer(path, items)
        blank, garbled = pages_by_text_layer(path)  # one pass over the text layer for both
        # (a picture's words in the text layer count as read; a heavy page's text is the text layer's, below)
        items = _read_lost_pages(path, items, [*garbled, *heavy], warnings)
        _read_symbols(path, items, warnings)
        _read_font_sizes(path, items, warnings)
        if tier == "flash":  # the model tiers read scanned pages and pictures themselves
            items = read_blank_pages(path, items, blank, warnings)
            items = read_garbled_pages(path, items, garbled, warnings)
            read_pictures(path, items, warnings)
        if heavy:  # after the steps above: the text layer is all these pages give
            items = sorted([*items, *simple_items(path, heavy)], key=lambda it: int(it.get("page_idx", 0)))
            warnings.append(heavy_warning(heavy, limit))
        result["outline"] = read_outline(original, warnings)
    result.update(ok=True, tier=tier, content_list=items, title=title)
    return result


def _mended_package(path: str, warnings: list[str]) -> str | None:
    """A copy of an office file whose malformed XML parts are mended (`damage.mend_package`), in the
    child's own folder; None when it is no such file or nothing in it is malformed."""
    from indexer.parse.damage import PACKAGE_FORMATS, mend_package

    suffix = Path(path).suffix.lower()
    if suffix not in PACKAGE_FORMATS:
        return None
    target = os.path.abspath(f"mended{suffix}")
    damaged = mend_package(path, target)
    if not damaged:
        return None
    warnings.append(f"damaged in the file, read as far as it goes: {', '.join(damaged)}; the rest is indexed")
    return target


def _report_pages(request: dict, pages: int | None) -> None:
    """Tell the parent how many pages the file has: it extends the time limit by them."""
    if request.get("pages_file") and pages:
        Path(request["pages_file"] + ".part").write_text(str(pages))
        os.replace(request["pages_file"] + ".part", request["pages_file"])


def read_blank_pages(path: str, items: list[Item], blank: list[int], warnings: list[str]) -> list[Item]:
    """Pages without a text layer (`blank`) in a PDF that has one (a scanned page bound into a report,
    a slide that is one picture): flash returns them as pictures, OCR reads their text (for
    at most `ocr.BLANK_PAGES_BUDGET_S`). The page's pictures give way to what OCR finds on
    it; nothing changes when OCR cannot run."""
    return _read_by_ocr(path, items, blank, "without a text layer", ("image", "chart"), warnings)


def read_garbled_pages(path: str, items: list[Item], garbled: list[int], warnings: list[str]) -> list[Item]:
    """Pages whose text layer is not text (`garbled`, from `pdf_layers.pages_by_text_layer`: a font
    whose codes map to no characters) are read by OCR as a scan is, and what OCR finds there replaces
    everything the text layer gave on them; nothing changes when OCR cannot run."""
    return _read_by_ocr(path, items, garbled, "whose text layer is not text", None, warnings)


def _read_by_ocr(
    path: str, items: list[Item], pages: list[int], what: str, replaced: tuple[str, ...] | None, warnings: list[str]
) -> list[Item]:
    """The pages read by OCR (within `ocr.BLANK_PAGES_BUDGET_S`); the items of the `replaced` types
    on a page OCR read (every item, for None) give way to what it found there."""
    from indexer.parse import ocr

    if not pages:
        return items
    if problem := ocr.unavailable():
        warnings.append(f"{_pages(pages)} {what} not read: OCR unavailable ({problem})")
        return items
    try:
        found, unread = ocr.recognise(path, pages, budget_s=ocr.BLANK_PAGES_BUDGET_S)
    except Exception as exc:  # extra text: failing to read it fails nothing
        warnings.append(f"OCR failed on {_pages(pages)} {what} ({type(exc).__name__}: {exc})"[:300])
        return items
    if unread:
        warnings.append(
            f"OCR stopped after {ocr.BLANK_PAGES_BUDGET_S:.0f} s: {unread} of {_pages(pages)} {what} not read"
        )
    read = {it["page_idx"] for it in found}
    kept = [it for it in items if not (it.get("page_idx") in read and (replaced is None or it.get("type") in replaced))]
    return sorted(kept + found, key=lambda it: int(it.get("page_idx", 0)))  # stable: each page keeps its order


def read_pictures(path: str, items: list[Item], warnings: list[str]) -> None:
    """OCR of the charts and images flash returns without text; skipped when OCR cannot run
    (the words in pictures are extra: a failure to read them fails nothing, and is reported)."""
    from indexer.parse import ocr

    if not any(it.get("type") in ("image", "chart") for it in items):
        return
    if problem := ocr.unavailable():
        warnings.append(f"words in pictures not read: OCR unavailable ({problem})")
        return
    try:
        done, wanted = ocr.read_images(path, items)
    except Exception as exc:
        warnings.append(f"OCR of pictures failed ({type(exc).__name__}: {exc})"[:300])
        return
    if done < wanted:
        warnings.append(f"OCR stopped after {ocr.IMAGE_BUDGET_S:.0f} s: {wanted - done} of {wanted} pictures not read")


def _pages(pages: list[int]) -> str:
    return f"{len(pages)} page" + ("s" if len(pages) != 1 else "")


def read_scan(path: str, pages: int, result: dict, warnings: list[str]) -> dict:
    """A scan when no MinerU model tier is installed: RapidOCR's bundled models read it; a page
    OCR finds nothing on keeps the little text its text layer has (a line under annotations)."""
    from indexer.parse import ocr

    problem = ocr.unavailable()
    if problem:
        result["reason"] = (
            f"scanned PDF: no text layer on its first {min(PROBE_PAGES, pages)} pages, and OCR cannot run: "
            f"{problem} (or install MinerU's models: `deepread-mcp doctor` says how)"
        )
        return result
    items, _ = ocr.recognise(path)  # no time budget: the parse's own time limit applies
    read = {it.get("page_idx") for it in items}
    if unread := {page: 0 for page in range(pages) if page not in read}:  # what little text layer they have
        layer = [it for it in simple_items(path, unread) if it["type"] == "text"]
        items = sorted([*items, *layer], key=lambda it: int(it.get("page_idx", 0)))
    result.update(ok=True, tier="ocr", content_list=items, outline=read_outline(path, warnings))
    return result


def _ceiling() -> str:
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    return PARSE_MEMORY_LIMIT + (f" of {limit // 2**20} MB" if limit != resource.RLIM_INFINITY else "")


def _out_of_memory(exc: Exception) -> bool:
    """Whether a failure came from the memory ceiling: a MemoryError, an error that says so (the
    loader could not map a library), or an error of the kinds Python raises when an allocation
    fails (SystemError, ImportError, OSError) while the address space is near the ceiling."""
    if isinstance(exc, MemoryError) or any(sign in str(exc) for sign in OUT_OF_MEMORY_SIGNS):
        return True
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY or not isinstance(exc, (SystemError, ImportError, OSError)):
        return False
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            size_kb = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError, MemoryError):
        return False
    return size_kb * 1024 > NEAR_CEILING * limit


def main(request_path: str, result_path: str) -> None:
    os.dup2(2, 1)  # whatever the libraries print goes to our stderr, never to a protocol stream
    sys.stdout = sys.stderr
    reserve: bytearray | None = bytearray(RESERVE_BYTES)  # mapped apart (over malloc's mmap threshold), freed at once
    request: dict = {}
    try:
        request = json.loads(Path(request_path).read_text())
        result = run(request)
    except Exception as exc:  # the reason travels back to get_toc's "failed" list
        del reserve
        if _out_of_memory(exc):  # said as the parent says a child killed for want of memory
            result = {
                "ok": False,
                "transient": True,
                "reason": f"the parser ran out of memory, over {_ceiling()} ({type(exc).__name__}: {exc})"[:600],
            }
        else:
            parser = "the text parser" if request.get("text") else "MinerU"
            result = {"ok": False, "reason": f"{parser} could not parse it ({type(exc).__name__}: {exc})"[:600]}
    tmp = result_path + ".part"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)
    os.replace(tmp, result_path)


if __name__ == "__main__":  # the guard MinerU's spawn pool needs
    if sys.argv[1] == "--tiers":
        Path(sys.argv[2]).write_text(json.dumps(tier_status()))
    else:
        main(sys.argv[1], sys.argv[2])
    sys.stderr.flush()
    os._exit(0)  # skip interpreter teardown; MinerU's render workers end with us
