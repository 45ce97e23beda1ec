"""Document titles as the map shows them, scored on every document of `../shared/bench`.

    python -m benchmarks.titles [--bench ../shared/bench] [--cache DIR] [--pages 8] [--sets …] [--show]
                                [--out benchmarks/results/titles.md]

Each file is parsed by the server's own code (`DocumentParser` → `structure.build`) and its
title shown as the map of its folder shows it (`indexer.answers.titles.shown_titles`). Scored:

* **file name**: the title is the file's name (nothing in the document named it);
* **banner**: the title is a page's boilerplate (the SEC header, "Table of Contents", "FOR
  IMMEDIATE RELEASE", …), never a document's name;
* **alike**: documents of one set whose own titles read the same although their contents differ,
  and **shared**: those whose titles in the map still do;
* FinanceBench, against its questions' `company` and the file's name (`ADOBE_2015_10K`,
  `AMCOR_2023Q2_10Q`, `PEPSICO_2023_8K_dated-2023-05-05`): **issuer** (the company's name),
  **kind** (Form 10-K / 10-Q / 8-K; an earnings release says results or earnings) and **period**
  (the year, ±1 for fiscal years, and for quarters and 8-Ks a month or a quarter);
* SyllabusQA, against `syllabi_meta_info.csv`: **course** (half the course name's words).

`--pages N` parses each PDF's first N pages only (a copy with its metadata; titles come from the
first pages, the whole set then parses in minutes, not hours); 0 parses whole files. `--cache`
reuses MinerU's parses; `--show` prints every title.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from benchmarks import append_result
from indexer.answers.titles import shown_titles
from indexer.errors import ParseError
from indexer.ingest.files import title_from_name
from indexer.parse.formats import DocumentParser, is_supported
from indexer.parse.mineru import MineruOptions
from indexer.structure.sections import build

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BENCH = REPO.parent / "shared" / "bench"

SETS = {
    "FinanceBench PDFs": "financebench/pdfs",
    "MMLongBench PDFs": "mmlongbench/pdfs",
    "SyllabusQA PDF": "syllabusqa/syllabi/pdf",
    "SyllabusQA DOCX": "syllabusqa/syllabi/word",
    "SyllabusQA text": "syllabusqa/syllabi/text",
    "Markdown trees": "markdown",
}

# Boilerplate that names no document (the scorer's list, not the server's).
BANNER = re.compile(
    r"^\W*(united states\s+)?securities and exchange commission|^\W*table of contents\W*$|^\W*contents\W*$|"
    r"^\W*for (immediate )?release\b|^\W*form\s+10-?[kq]\W*$|^\W*annual report pursuant|^\W*quarterly report pursuant|"
    r"^\W*(news|press) release\W*$|^\W*exhibit\s+\d+(\.\d+)?\W*$",
    re.I,
)
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


def parsed_entries(parser: DocumentParser, root: Path, files: list[Path], pages: int, work: Path) -> list[Entry]:
    entries = []
    for n, path in enumerate(files):
        source = first_pages(path, pages, work)
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
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--cache", type=Path, help="MinerU's parse cache to reuse (default: a fresh one)")
    parser.add_argument("--pages", type=int, default=8, help="parse each PDF's first N pages (0: whole files)")
    parser.add_argument("--sets", nargs="*", default=list(SETS), help="which sets (names start so)")
    parser.add_argument("--show", action="store_true", help="print every file's title")
    parser.add_argument("--label", default="", help="what this run measures, for the results file")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "titles.md")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="deepread-titles-"))
    doc_parser = DocumentParser(MineruOptions(cache_dir=args.cache or work / "cache", home=work / "mineru"))
    companies = {}
    for line in (args.bench / "financebench" / "questions.jsonl").read_text().splitlines():
        row = json.loads(line)
        companies[row["doc_name"]] = row["company"]
    with (args.bench / "syllabusqa" / "syllabi_meta_info.csv").open(newline="") as f:
        courses = {row["filename"]: row["course"] for row in csv.DictReader(f)}

    pages = f"first {args.pages} pages of each PDF" if args.pages else "whole files"
    lines = [
        f"{args.label or 'Titles'} ({date.today()}, {pages}): titles as the map shows them",
        "",
        "| set | parsed | issuer | kind | period | course | file name | banner | alike | shared |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, folder in SETS.items():
        if not any(name.lower().startswith(s.lower()) for s in args.sets):
            continue
        files = sorted(p for p in (args.bench / folder).rglob("*") if p.is_file() and is_supported(p))
        entries = parsed_entries(doc_parser, args.bench / folder, files, args.pages, work)
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
        banner = [e for e in entries if BANNER.search(shown[e.doc_id])]
        lines.append(
            f"| {name} | {len(entries)}/{len(files)} | {cells['issuer']} | {cells['kind']} | {cells['period']} | "
            f"{cells['course']} | {by_file} ({100 * by_file / n:.0f} %) | {len(banner)} | "
            f"{_shared(entries, {e.doc_id: e.title for e in entries})} | {_shared(entries, shown)} |"
        )
        if args.show:
            for e in entries:
                mark = "=" if e.named_by_file else "!" if e in banner else " "
                print(f"{name[:14]} | {e.path.name[:44]:44} | {mark} {shown[e.doc_id]}", flush=True)
    append_result(
        args.out,
        "# Titles from the document, not the file name (`python -m benchmarks.titles`)\n",
        "\n" + "\n".join(lines) + "\n",
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
