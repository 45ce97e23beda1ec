"""Document titles as the map shows them, scored on every document of `../shared/bench`: filings,
papers (MMLongBench's PDFs, QASPER's as Markdown), manuals and guides, brochures and handbooks,
reports, slide decks, syllabi and documentation trees.

    python -m benchmarks.titles [--bench ../shared/bench] [--cache DIR] [--pages 8] [--sets …] [--show]
                                [--label TEXT] [--out benchmarks/results/titles.md] [--checkout CHECKOUT]

Each file is parsed by the server's own code (`DocumentParser` → `structure.build`) and its
title shown as the map of its folder shows it (`indexer.titles.shown.shown_titles`). Scored:

* **file name**: the title is the file's name (nothing in the document named it), and **page 1
  titled**: of those, the ones whose first page prints a line that could be a title;
* what a reader would not accept (`benchmarks.titles.flags`): a **contact** line, a **person**'s
  name, a **banner** (the SEC header, "Table of Contents", "FOR IMMEDIATE RELEASE", …), a
  metadata or file system **leftover**, a line-break **hyphen** kept in a word, a title in
  **capitals**;
* **alike**: documents of one set whose own titles read the same although their contents differ,
  and **shared**: those whose titles in the map still do;
* FinanceBench, against its questions' `company` and the file's name (`ADOBE_2015_10K`,
  `AMCOR_2023Q2_10Q`, `PEPSICO_2023_8K_dated-2023-05-05`): **issuer** (the company's name),
  **kind** (Form 10-K / 10-Q / 8-K; an earnings release says results or earnings) and **period**
  (the year, ±1 for fiscal years, and for quarters and 8-Ks a month or a quarter);
* SyllabusQA, against `syllabi_meta_info.csv`: **course** (half the course name's words).

The kinds come from the sets: MMLongBench's `doc_type` (its questions' label of each PDF),
FinanceBench filings, QASPER papers, SyllabusQA syllabi, Markdown documentation; a second table
counts the flags by kind.

`--pages N` parses each PDF's first N pages only (a copy with its metadata; titles come from the
first pages, the whole set then parses in minutes, not hours); 0 parses whole files, and so does
any file whose whole parse `--cache` already holds (a shared cache of MinerU's parses: nothing
is parsed again). `--show` prints every title with its flags.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks import common
from benchmarks.retrieval.sets import qasper_markdown
from benchmarks.titles.flags import FLAGS, Printed, flags
from indexer.errors import ParseError
from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser, is_supported
from indexer.parse.mineru import MineruOptions
from indexer.structure.sections import build
from indexer.titles.decide import title_from_name
from indexer.titles.shown import shown_titles

SETS = {
    "FinanceBench PDFs": "financebench/pdfs",
    "MMLongBench PDFs": "mmlongbench/pdfs",
    "SyllabusQA PDF": "syllabusqa/syllabi/pdf",
    "SyllabusQA DOCX": "syllabusqa/syllabi/word",
    "SyllabusQA text": "syllabusqa/syllabi/text",
    "QASPER papers": "qasper",  # written as Markdown (`qasper_markdown`) into the work folder
    "Markdown trees": "markdown",
}
# A document's kind, by set, or by MMLongBench's label of it.
SET_KINDS = {
    "FinanceBench PDFs": "filing",
    "SyllabusQA PDF": "syllabus",
    "SyllabusQA DOCX": "syllabus",
    "SyllabusQA text": "syllabus",
    "QASPER papers": "paper",
    "Markdown trees": "documentation",
}
MMLONGBENCH_KINDS = {
    "Academic paper": "paper",
    "Guidebook": "manual, guide",
    "Brochure": "brochure, handbook",
    "Research report / Introduction": "report",
    "Tutorial/Workshop": "slide deck",
    "Financial report": "filing",
}
FIRST_LINES = 40  # the first page's lines read for what it prints
OPENING_PAGES = 4  # … and the opening pages' text, for how the document writes its words
OPENING_PARAGRAPHS = 400
KINDS = {
    "10K": r"\b10-K\b",
    "10Q": r"\b10-Q\b",
    "8K": r"\b8-K\b",
    "EARNINGS": r"\bresults?\b|\bearnings\b|\breports?\b",
}
MONTHS = r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
QUARTER = rf"\b({MONTHS})[a-z]*\b|\bq[1-4]\b|\b[1-4]q\b|\bquarter|\b(first|second|third|fourth)\b"


@dataclass
class Entry:
    path: Path
    doc_id: int
    title: str
    detail: str | None
    named_by_file: bool
    content_hash: str

    relpath: str  # as the map knows it: relative to the set's folder
    printed: Printed
    kind: str = ""


def first_pages(path: Path, pages: int, work: Path) -> Path:
    """A copy of the PDF's first `pages` pages with its metadata (pypdf, which MinerU installs),
    or the file itself."""
    if not pages or path.suffix.lower() != ".pdf":
        return path
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(path)
    if len(reader.pages) <= pages:
        return path
    writer = PdfWriter()
    for page in reader.pages[:pages]:
        writer.add_page(page)
    if reader.metadata:
        writer.add_metadata({k: str(v) for k, v in reader.metadata.items()})
    copy = work / path.name
    with copy.open("wb") as out:
        writer.write(out)
    return copy


def _prints(paragraph: Any) -> bool:
    """A paragraph of words: text, a list, or a picture's words (a cover that is a picture)."""
    return paragraph.kind in ("text", "list") or (
        paragraph.kind == "figure" and not paragraph.text.startswith("[picture without")
    )


def printed(structure: DocumentStructure) -> Printed:
    """What the document prints (`flags.Printed`): its first page's lines in reading order
    (the first page with text), or for a file without pages its opening line (its first heading,
    else its first paragraph's first line), and its opening pages' text."""
    by_section: dict[int, list[Any]] = {}
    for p in structure.paragraphs:
        by_section.setdefault(p.sec_id, []).append(p)
    pages = [p.page for p in structure.paragraphs if p.page is not None and _prints(p)]
    first = min(pages) if pages else None
    lines: list[str] = []
    if first is None:
        opening = by_section.get(0, [])
        if opening and opening[0].text.strip():
            lines = [opening[0].text.strip().splitlines()[0]]
        elif len(structure.sections) > 1:
            lines = [structure.sections[1].title]
    for section in structure.sections if first is not None else []:
        if section.sec_id and section.page_start == first:
            lines.append(section.title)
        for p in by_section.get(section.sec_id, []):
            if _prints(p) and p.page == first:
                lines.extend(line.strip() for line in p.text.splitlines() if line.strip())
        if len(lines) >= FIRST_LINES:
            break
    opening = [p.text for p in structure.paragraphs if (p.page or 0) <= OPENING_PAGES][:OPENING_PARAGRAPHS]
    text = "\n".join([s.title for s in structure.sections[1:]] + opening)
    return Printed(lines[:FIRST_LINES], text)


def parsed_entries(
    parser: DocumentParser, root: Path, files: list[Path], pages: int, work: Path, kinds: dict[str, str]
) -> list[Entry]:
    entries = []
    for n, path in enumerate(files):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        whole = parser.mineru._cache_path(digest).exists()  # parsed whole already: read that
        source = path if whole else first_pages(path, pages, work)
        data = source.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        try:
            structure = build(parser.parse(source, data, digest), fallback_title=title_from_name(path))
        except ParseError:
            continue
        entries.append(
            Entry(
                path,
                n,
                structure.title,
                getattr(structure, "detail", None),
                getattr(structure, "named_by_file", structure.title == title_from_name(path)),
                digest,
                path.relative_to(root).as_posix(),
                printed(structure),
                kinds.get(path.name, ""),
            )
        )
    return entries


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def finance_scores(title: str, company: str, doc_name: str) -> tuple[bool, bool, bool]:
    """(issuer, kind, period) named by the title of the filing `doc_name`."""
    issuer = _norm(company) in _norm(title)
    label = re.match(r"[A-Za-z]+_(\d{4})(Q[1-4])?_(10K|10Q|8K|EARNINGS)", doc_name)
    if label is None:
        return issuer, False, False
    year, quarter, kind = int(label.group(1)), label.group(2), label.group(3)
    kind_ok = re.search(KINDS[kind], title, re.I) is not None
    years = {int(y) for y in re.findall(r"\b(?:19|20)(\d{2})\b", title)} | {
        int(y) for y in re.findall(r"\bfy\s*'?(\d{2})\b", title, re.I)
    }
    period = any(abs(2000 + y - year) <= 1 for y in years)
    if quarter or kind in ("8K", "EARNINGS"):
        period = period and re.search(QUARTER, title, re.I) is not None
    return issuer, kind_ok, period


def _shared(entries: list[Entry], titles: dict[int, str]) -> int:
    """Documents whose title reads like another's (case and punctuation aside) though their contents differ."""
    readings: dict[str, set[str]] = {}
    key = {e.doc_id: " ".join(re.findall(r"\w+", titles[e.doc_id].lower())) for e in entries}
    for e in entries:
        readings.setdefault(key[e.doc_id], set()).add(e.content_hash)
    return sum(1 for e in entries if len(readings[key[e.doc_id]]) > 1)


def course_named(title: str, course: str) -> bool:
    words = [w for w in re.findall(r"[a-z0-9]+", course.lower()) if len(w) > 3 or w.isdigit()]
    have = set(re.findall(r"[a-z0-9]+", title.lower()))
    return bool(words) and sum(w in have for w in words) >= max(1, len(words) / 2)


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument("--cache", type=Path, help="MinerU's parse cache to reuse (default: a fresh one)")
    parser.add_argument("--pages", type=int, default=8, help="parse each PDF's first N pages (0: whole files)")
    parser.add_argument("--sets", nargs="*", default=list(SETS), help="which sets (names start so)")
    parser.add_argument("--show", action="store_true", help="print every file's title and its flags")
    common.add_label(parser, "", "what this run measures, for the results file")
    common.add_out(parser, "titles.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    work = Path(tempfile.mkdtemp(prefix="deepread-titles-"))
    doc_parser = DocumentParser(MineruOptions(cache_dir=args.cache or work / "cache", home=work / "mineru"))
    companies = {}
    for line in (args.bench / "financebench" / "questions.jsonl").read_text().splitlines():
        row = json.loads(line)
        companies[row["doc_name"]] = row["company"]
    with (args.bench / "syllabusqa" / "syllabi_meta_info.csv").open(newline="") as f:
        courses = {row["filename"]: row["course"] for row in csv.DictReader(f)}
    labels = json.loads((args.bench / "mmlongbench" / "questions.json").read_text())
    mmlongbench = {q["doc_id"]: MMLONGBENCH_KINDS.get(q["doc_type"], q["doc_type"]) for q in labels}

    pages = f"first {args.pages} pages of each PDF not cached whole" if args.pages else "whole files"
    lines = [
        f"{args.label or 'Titles'} ({date.today()}, {pages}): titles as the map shows them",
        "",
        "| set | parsed | issuer | kind | period | course | file name | page 1 titled | "
        + " | ".join(FLAGS[1:])
        + " | alike | shared |",
        "|---" * (9 + len(FLAGS)) + "|",
    ]
    by_kind: dict[str, list[list[str]]] = {}
    for name, folder in SETS.items():
        if not any(name.lower().startswith(s.lower()) for s in args.sets):
            continue
        root = args.bench / folder
        if name.startswith("QASPER"):
            root = work / "qasper-md"
            root.mkdir()
            for row in (args.bench / "qasper" / "qasper_train_sample10_hf_format.jsonl").read_text().splitlines():
                paper = json.loads(row)
                (root / f"{paper['id']}.md").write_text(qasper_markdown(paper), encoding="utf-8")
        files = sorted(p for p in root.rglob("*") if p.is_file() and is_supported(p))
        kinds = mmlongbench if name.startswith("MMLongBench") else {p.name: SET_KINDS[name] for p in files}
        entries = parsed_entries(doc_parser, root, files, args.pages, work, kinds)
        shown = shown_titles(entries)
        n = max(len(entries), 1)
        cells = dict.fromkeys(("issuer", "kind", "period", "course"), "")
        if name.startswith("FinanceBench"):
            scores = [finance_scores(shown[e.doc_id], companies.get(e.path.stem, ""), e.path.stem) for e in entries]
            for i, key in enumerate(("issuer", "kind", "period")):
                cells[key] = f"{sum(s[i] for s in scores)}/{len(entries)}"
        if name.startswith("SyllabusQA"):
            named = [course_named(shown[e.doc_id], courses.get(e.path.stem, "")) for e in entries]
            cells["course"] = f"{sum(named)}/{len(entries)}"
        by_file = sum(e.named_by_file for e in entries)
        # The map's own additions (a period, a file's name that tells alike titles apart) aside.
        found = {e.doc_id: flags(e.title, bool(e.named_by_file), e.printed) for e in entries}
        for e in entries:
            by_kind.setdefault(e.kind, []).append(found[e.doc_id])
        counts = [sum(flag in found[e.doc_id] for e in entries) for flag in FLAGS]
        lines.append(
            f"| {name} | {len(entries)}/{len(files)} | {cells['issuer']} | {cells['kind']} | {cells['period']} | "
            f"{cells['course']} | {by_file} ({100 * by_file / n:.0f} %) | "
            + " | ".join(str(c) for c in counts)
            + f" | {_shared(entries, {e.doc_id: e.title for e in entries})} | {_shared(entries, shown)} |"
        )
        if args.show:
            for e in entries:
                mark = "=" if e.named_by_file else " "
                said = f"  [{', '.join(found[e.doc_id])}]" if found[e.doc_id] else ""
                print(f"{name[:14]} | {e.path.name[:44]:44} | {mark} {shown[e.doc_id]}{said}", flush=True)
    lines += [
        "",
        "| kind | documents | " + " | ".join(FLAGS) + " | flagged |",
        "|---" * (3 + len(FLAGS)) + "|",
    ]
    for kind, found_flags in sorted(by_kind.items()):
        counts = [sum(flag in f for f in found_flags) for flag in FLAGS]
        lines.append(
            f"| {kind} | {len(found_flags)} | "
            + " | ".join(str(c) for c in counts)
            + f" | {sum(bool(f) for f in found_flags)} |"
        )
    common.append_lines(
        args.out, "# Titles from the document, not the file name (`python -m benchmarks.titles`)\n", lines
    )


if __name__ == "__main__":
    main()
