"""Document titles: how many are just the file's name, on every document of `../shared/bench`.

    python -m benchmarks.titles [--bench ../shared/bench] [--cache DIR] [--show]
                                [--out benchmarks/results/titles.md]

Each file is parsed by the server's own code (`DocumentParser` → `structure.build`) and its
title compared with the title the file name alone gives (`title_from_name`). In a folder of
downloads a file name is often an archive id, a hash or a slug, and the title is how an agent
picks a document: every title that is the file stem is one the agent must guess from.
`--cache` reuses MinerU's parses (e.g. the retrieval benchmark's) so a rerun takes seconds;
`--show` prints every file's title.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
from datetime import date
from pathlib import Path

from benchmarks import append_result
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


def title_of(parser: DocumentParser, path: Path) -> str | None:
    data = path.read_bytes()
    try:
        parsed = parser.parse(path, data, hashlib.sha256(data).hexdigest())
    except ParseError:
        return None
    return build(parsed, fallback_title=title_from_name(path)).title


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--cache", type=Path, help="MinerU's parse cache to reuse (default: a fresh one)")
    parser.add_argument("--show", action="store_true", help="print every file's title")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "titles.md")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="deepread-titles-"))
    doc_parser = DocumentParser(MineruOptions(cache_dir=args.cache or work / "cache", home=work / "mineru"))
    lines = [
        f"Titles on `../shared/bench` ({date.today()}): documents whose title is their file name",
        "",
        "| set | files | parsed | title = file name |",
        "|---|---|---|---|",
    ]
    total = [0, 0, 0]
    for name, folder in SETS.items():
        files = sorted(p for p in (args.bench / folder).rglob("*") if p.is_file() and is_supported(p))
        titles = {p: title_of(doc_parser, p) for p in files}
        parsed = {p: t for p, t in titles.items() if t is not None}
        stems = [p for p, t in parsed.items() if t == title_from_name(p)]
        lines.append(f"| {name} | {len(files)} | {len(parsed)} | {len(stems)} ({100 * len(stems) / max(len(parsed), 1):.0f} %) |")
        for i, n in enumerate((len(files), len(parsed), len(stems))):
            total[i] += n
        if args.show:
            for p, t in parsed.items():
                print(f"{name} | {p.name[:50]} | {'=' if p in stems else ' '} {t}", flush=True)
    lines.append(f"| all | {total[0]} | {total[1]} | {total[2]} ({100 * total[2] / max(total[1], 1):.0f} %) |")
    append_result(args.out, "# Titles from the document, not the file name (`python -m benchmarks.titles`)\n",
                  "\n" + "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
