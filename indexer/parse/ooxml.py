"""What MinerU leaves out of PowerPoint and Excel files, read from the package itself: a chart's title,
the comments on a slide or a cell, and the name of a workbook's only sheet. Runs in the parser's
child (`mineru_worker`), on MinerU's content list.

Checked against MinerU 4.0.12 (docs/libraries.md): it keeps a slide's speaker notes (as a page
footnote, which becomes text on the slide's page) and names each sheet of a workbook of several,
but a chart comes out as its data alone (its title dropped), comments are dropped, and a workbook
of one sheet has no heading. Here, from the OOXML parts ([ECMA-376]):

* a chart's title (`c:chart/c:title`) becomes its caption, for the charts of each slide or sheet in
  the order they stand in it, matched to MinerU's chart items of that page in order;
* a slide's comments (legacy `p:cm` and modern threaded ones) and a sheet's cell comments become
  text on that page, after its content: "Comment (Ana): …", "Comment on B2 (Ana): …";
* the only sheet of a workbook heads it with its name, unless the name is a default ("Sheet1").
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from xml.etree import ElementTree

from indexer.models import Item

_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
DEFAULT_SHEET_RE = re.compile(r"(sheet|feuil|tabelle|hoja|foglio|planilha|blad|arkusz|лист|工作表)\s*\d*", re.I)
MAX_COMMENTS = 500  # per file: a review with thousands of comments still indexes its content first


def add_extras(path: str, suffix: str, items: list[Item]) -> list[Item]:
    """`items` with the chart titles, comments and sheet name MinerU left out (see the module)."""
    if suffix not in (".pptx", ".xlsx", ".xlsm"):
        return items
    with zipfile.ZipFile(path) as package:
        pages = _slides(package) if suffix == ".pptx" else _sheets(package)
    for page_idx, (name, titles, comments) in enumerate(pages):
        page = page_idx if suffix == ".pptx" else _sheet_page(items, name, page_idx, len(pages))
        if page is None:
            continue
        charts = [it for it in items if it.get("type") == "chart" and it.get("page_idx") == page]
        for chart, title in zip(charts, titles, strict=False):
            if title and not chart.get("chart_caption"):
                chart["chart_caption"] = [title]
        if comments:
            at = max((i for i, it in enumerate(items) if it.get("page_idx") == page), default=len(items) - 1) + 1
            items[at:at] = [{"type": "text", "text": text, "page_idx": page} for text in comments]
    if suffix != ".pptx":
        _name_lone_sheet([name for name, _, _ in pages], items)
    return items


# --- the package ------------------------------------------------------------------------------


def _xml(package: zipfile.ZipFile, part: str) -> ElementTree.Element | None:
    try:
        return ElementTree.fromstring(package.read(part))
    except (KeyError, ElementTree.ParseError):
        return None


def _rels(package: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """A part's relationships: id → (type, the target part's path in the package)."""
    folder, name = posixpath.split(part)
    root = _xml(package, posixpath.join(folder, "_rels", f"{name}.rels"))
    found: dict[str, tuple[str, str]] = {}
    for rel in root.iter(f"{{{_PKG}}}Relationship") if root is not None else []:
        target = rel.get("Target") or ""
        if rel.get("TargetMode") == "External" or not target:
            continue
        path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        found[rel.get("Id") or ""] = (rel.get("Type") or "", path)
    return found


def _texts(element: ElementTree.Element, tag: str) -> str:
    return " ".join("".join(t.text or "" for t in element.iter(tag)).split())


def _chart_titles(package: zipfile.ZipFile, part: str, rels: dict[str, tuple[str, str]]) -> list[str]:
    """The titles of the charts a slide or drawing shows, in the order it shows them ("" untitled)."""
    root = _xml(package, part)
    titles = []
    for ref in root.iter(f"{{{_C}}}chart") if root is not None else []:
        target = rels.get(ref.get(f"{{{_R}}}id") or "")
        chart = _xml(package, target[1]) if target else None
        title = chart.find(f"{{{_C}}}chart/{{{_C}}}title") if chart is not None else None
        titles.append(_texts(title, f"{{{_A}}}t") if title is not None else "")
    return titles


def _authors(package: zipfile.ZipFile, *parts: str) -> dict[str, str]:
    names: dict[str, str] = {}
    for part in parts:
        root = _xml(package, part)
        for element in root.iter() if root is not None else []:
            if element.tag.rsplit("}", 1)[-1] in ("cmAuthor", "author") and element.get("id") is not None:
                names[element.get("id") or ""] = element.get("name") or element.get("initials") or ""
    return names


# --- slides -----------------------------------------------------------------------------------


Page = tuple[str, list[str], list[str]]  # a slide's or sheet's name, its charts' titles, its comments


def _slides(package: zipfile.ZipFile) -> list[Page]:
    """Per slide, in the deck's order: its charts' titles and its comments."""
    presentation = "ppt/presentation.xml"
    root, rels = _xml(package, presentation), _rels(package, presentation)
    authors = _authors(package, "ppt/commentAuthors.xml", "ppt/authors.xml")
    slides: list[Page] = []
    for ref in root.iter(f"{{{_P}}}sldId") if root is not None else []:
        target = rels.get(ref.get(f"{{{_R}}}id") or "")
        if target is None:
            slides.append(("", [], []))
            continue
        slide_rels = _rels(package, target[1])
        comments = []
        for kind, part in slide_rels.values():
            if kind.endswith("/comments"):
                comments += _slide_comments(package, part, authors)
        slides.append(("", _chart_titles(package, target[1], slide_rels), comments[:MAX_COMMENTS]))
    return slides


def _slide_comments(package: zipfile.ZipFile, part: str, authors: dict[str, str]) -> list[str]:
    root = _xml(package, part)
    found = []
    for comment in root.iter() if root is not None else []:
        if comment.tag.rsplit("}", 1)[-1] != "cm":
            continue
        plain = next((e for e in comment if e.tag.rsplit("}", 1)[-1] == "text"), None)
        text = " ".join((plain.text or "").split()) if plain is not None else _texts(comment, f"{{{_A}}}t")
        if text:
            who = authors.get(comment.get("authorId") or "", "")
            found.append(f"Comment ({who}): {text}" if who else f"Comment: {text}")
    return found


# --- sheets -----------------------------------------------------------------------------------


def _sheets(package: zipfile.ZipFile) -> list[Page]:
    """Per sheet, in the workbook's order: its charts' titles and its cells' comments."""
    workbook = "xl/workbook.xml"
    root, rels = _xml(package, workbook), _rels(package, workbook)
    sheets: list[Page] = []
    for sheet in root.iter(f"{{{_S}}}sheet") if root is not None else []:
        name = sheet.get("name") or ""
        target = rels.get(sheet.get(f"{{{_R}}}id") or "")
        if target is None:
            sheets.append((name, [], []))
            continue
        titles: list[str] = []
        comments: list[str] = []
        for kind, part in _rels(package, target[1]).values():
            if kind.endswith("/drawing"):
                titles += _chart_titles(package, part, _rels(package, part))
            elif kind.endswith("/comments"):
                comments += _cell_comments(package, part)
        sheets.append((name, titles, comments[:MAX_COMMENTS]))
    return sheets


def _cell_comments(package: zipfile.ZipFile, part: str) -> list[str]:
    root = _xml(package, part)
    if root is None:
        return []
    authors = [" ".join((a.text or "").split()) for a in root.iter(f"{{{_S}}}author")]
    found = []
    for comment in root.iter(f"{{{_S}}}comment"):
        text = _texts(comment, f"{{{_S}}}t")
        index = int(comment.get("authorId") or -1)
        who = authors[index] if 0 <= index < len(authors) else ""
        if who and text.startswith(f"{who}:"):  # Excel writes the author's name into the note too
            text = text[len(who) + 1 :].strip()
        if text:
            ref = comment.get("ref") or ""
            found.append(f"Comment on {ref} ({who}): {text}" if who else f"Comment on {ref}: {text}")
    return found


def _sheet_page(items: list[Item], name: str, index: int, sheets: int) -> int | None:
    """The page MinerU gave a sheet: the page its name heads, else its place in the workbook."""
    if sheets == 1:
        return 0
    for item in items:
        if item.get("text_level") and item.get("text", "").strip("* ") == name.strip():
            return item.get("page_idx")
    return index if any(it.get("page_idx") == index for it in items) else None


def _name_lone_sheet(names: list[str], items: list[Item]) -> None:
    """A workbook of one sheet is headed by the sheet's name, unless the name says nothing ("Sheet1")."""
    if len(names) != 1 or not names[0].strip() or DEFAULT_SHEET_RE.fullmatch(names[0].strip()):
        return
    if any(it.get("text_level") for it in items) or not items:
        return
    items.insert(0, {"type": "text", "text": names[0].strip(), "text_level": 2, "page_idx": 0})
