"""Parsing real documents: speed, success, page coverage of gold evidence, TOC shape.

    python -m benchmarks.parsing [--bench ../shared/bench] [--sets financebench,mmlongbench,syllabi-pdf,syllabi-docx]
                                 [--limit N] [--jobs 2] [--out benchmarks/results/parsing.md]

Every file is parsed cold (a fresh parse cache) by the same code the server uses
(`DocumentParser` → MinerU in a child process → `structure.build`). Reported per set:
files parsed / failed (with reasons), pages per second (total pages / total parse
seconds of the files, with `--jobs` parsers at once), and, for FinanceBench and
MMLongBench, the share of gold evidence pages that are the `page` of at least one
paragraph (a page no paragraph cites cannot be found by a page-level search).
`--toc FILE_STEM` prints the top two levels of that document's TOC.
"""

from __future__ import annotations

import ast
import hashlib
import json
import statistics
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.errors import ParseError
from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions
from indexer.structure.sections import build


@dataclass
class FileResult:
    name: str
    seconds: float
    pages: int = 0
    reason: str | None = None
    sections: int = 0
    paragraphs: int = 0
    cited_pages: set[int] = field(default_factory=set)
    structure: DocumentStructure | None = None


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument("--sets", default="financebench,mmlongbench,syllabi-pdf,syllabi-docx")
    parser.add_argument("--limit", type=int, default=0, help="at most N files per set (0 = all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--toc", action="append", default=[], help="print this document's TOC (file stem)")
    common.add_out(parser, "parsing.md")
    parser.add_argument(
        "--cache",
        type=Path,
        help="keep MinerU's parses here (must start empty for cold numbers; benchmarks.retrieval --work reuses it)",
    )
    args = common.parse_args(parser)

    work = Path(tempfile.mkdtemp(prefix="deepread-parsing-"))
    cache = args.cache or work / "cache"
    warm = cache.is_dir() and any(cache.iterdir())
    doc_parser = DocumentParser(MineruOptions(cache_dir=cache, home=work / "mineru", timeout_s=1800))
    scope = f"first {args.limit} files of each set" if args.limit else "every file"
    state = "warm cache: pages/s are not parsing speeds, the rest is as cold" if warm else "cold cache"
    sections = [
        (
            f"Parsing on `../shared/bench`, {scope} ({date.today()}, 2-core machine, {args.jobs} parser processes, "
            f"{state})"
        ),
        "",
    ]
    sections += [
        (
            "| set | files | parsed | failed | pages | pages/s | s/file (median) | gold pages cited | median sections "
            "| median paragraphs |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    notes: list[str] = []
    for name in args.sets.split(","):
        files = _files(args.bench, name)[: args.limit or None]
        start = time.perf_counter()
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda f: _parse(doc_parser, f), files))
        wall = time.perf_counter() - start
        ok = [r for r in results if r.reason is None]
        pages = sum(r.pages for r in ok)
        gold = _gold_pages(args.bench, name)
        cited = covered = 0
        for r in ok:
            for page in gold.get(r.name, set()):
                cited += 1
                covered += page in r.cited_pages
        coverage = f"{covered / cited:.1%} of {cited}" if cited else "–"
        sections.append(
            f"| {name} | {len(files)} | {len(ok)} | {len(results) - len(ok)} | {pages} | {pages / wall:.2f} "
            f"| {statistics.median([r.seconds for r in results]):.1f} | {coverage} "
            f"| {_median([r.sections for r in ok])} | {_median([r.paragraphs for r in ok])} |"
        )
        reasons = Counter((r.reason or "")[:90] for r in results if r.reason)
        notes += [f"- {name}: {count} × {reason}" for reason, count in reasons.most_common()]
        for r in results:
            if r.structure is not None and r.name in args.toc:
                _print_toc(r)
        print(sections[-1], flush=True)
    text = "\n".join(sections + (["", "Failures:", *notes] if notes else []))
    print(text)
    common.write_result(args.out, text + "\n")


def _files(bench: Path, name: str) -> list[Path]:
    folders = {
        "financebench": (bench / "financebench" / "pdfs", "*.pdf"),
        "mmlongbench": (bench / "mmlongbench" / "pdfs", "*.pdf"),
        "syllabi-pdf": (bench / "syllabusqa" / "syllabi" / "pdf", "*.pdf"),
        "syllabi-docx": (bench / "syllabusqa" / "syllabi" / "word", "*.docx"),
    }
    folder, pattern = folders[name]
    return sorted(folder.glob(pattern))


def _parse(doc_parser: DocumentParser, path: Path) -> FileResult:
    data = path.read_bytes()
    start = time.perf_counter()
    try:
        parsed = doc_parser.parse(path, data, hashlib.sha256(data).hexdigest())
        structure = build(parsed, fallback_title=path.stem)
    except ParseError as exc:
        return FileResult(path.stem, time.perf_counter() - start, reason=str(exc))
    return FileResult(
        path.stem,
        time.perf_counter() - start,
        pages=structure.n_pages or 0,
        sections=len(structure.sections),
        paragraphs=len(structure.paragraphs),
        cited_pages={
            page for p in structure.paragraphs if p.page is not None for page in range(p.page, p.page_end + 1)
        },
        structure=structure,
    )


def _gold_pages(bench: Path, name: str) -> dict[str, set[int]]:
    """Gold evidence pages per document stem, 1-based."""
    gold: dict[str, set[int]] = {}
    if name == "financebench":
        for line in (bench / "financebench" / "questions.jsonl").read_text().splitlines():
            q = json.loads(line)
            for ev in q.get("evidence", []):
                if ev.get("evidence_page_num") is not None:
                    gold.setdefault(q["doc_name"], set()).add(int(ev["evidence_page_num"]) + 1)
    elif name == "mmlongbench":
        for q in json.loads((bench / "mmlongbench" / "questions.json").read_text()):
            pages = ast.literal_eval(q.get("evidence_pages") or "[]")
            gold.setdefault(Path(q["doc_id"]).stem, set()).update(int(p) for p in pages)
    return gold


def _print_toc(result: FileResult) -> None:
    assert result.structure is not None
    print(f"\nTOC of {result.name} ({len(result.structure.sections)} sections):")
    for s in result.structure.sections:
        if s.level <= 2:
            print(f"{'  ' * s.level}[{s.sec_id}] {s.title[:80]} (p.{s.page_start}, {s.n_paras} paragraphs)")


def _median(values: list[int]) -> str:
    return f"{statistics.median(values):.0f}" if values else "–"


if __name__ == "__main__":
    main()
