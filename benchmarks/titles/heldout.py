"""Titles on documents the title rules were not written on: other projects' public test files,
each labelled blind from its page images before the code saw it (`labels/heldout-*.jsonl`: the
set, the file, the repository, its path and commit there, the reader's title, what else the
reader accepts, whether page 1 prints a title).

* **court**: freelawproject/doctor's court papers (appellate and district filings, opinions,
  clerk's letters, scans with a filing stamp);
* **mixed**: microsoft/markitdown's, pdfminer/pdfminer.six's and tabulapdf/tabula-java's files
  (a paper and its deck, forms, invoices, receipts, statistics tables, HTML pages, an e-mail);
* **fresh**: kermitt2/grobid's, opendatalab/MinerU's, camelot-dev/camelot's,
  Unstructured-IO/unstructured's and jsvine/pdfplumber's files (papers, statistics, a plan, a
  filing in HTML), labelled and first measured after the rules were fitted to the other two;
* **docling**: docling-project/docling's files (a handbook, a Redbook, papers, OpenDocument text
  and slides, Word, PowerPoint, HTML, EPUB, Korean, Arabic and Persian PDFs), labelled and
  measured after every rule for the sets above was written;
* **userfiles**: pymupdf/PyMuPDF's files (documents users attached to bug reports: reports,
  papers, forms, scans, web pages printed to PDF, in several languages), with ocrmypdf/OCRmyPDF's
  scans, py-pdf/sample-files' and apache/tika's office files and e-mails; labelled and measured
  once before any rule was written for them;
* **unseen**: freelawproject/x-ray's court filings, CeON/CERMINE's papers and slides,
  deepset-ai/haystack's, py-pdf/pypdf's and mozilla/pdf.js's files (papers, forms, guides, test
  pages, a web page and an e-mail printed to PDF), picked by name and size alone (a seeded sample
  of pdf.js's), labelled blind by three helpers and measured once (2026-12-07) before this
  session's changes; its misses were then read, so it is held out no longer;
* **unseen2**: freelawproject/courtlistener's court papers, allenai/papermage's papers,
  axa-group/Parsr's, chezou/tabula-py's and pymupdf/pymupdf4llm's files (reports, a policy, a
  ticket, statistics) and apache/poi's real decks, picked the same way, labelled blind and
  measured once before the session's changes and once after them, never read between; its
  misses were read after that (the runs after say so), so it too is held out no longer.

    python -m benchmarks.titles.heldout --folder DIR [--sets court mixed fresh docling userfiles unseen unseen2] [--cache DIR]
                                        [--pages N] [--list] [--label TEXT] [--out FILE] [--checkout CHECKOUT]

DIR holds each set's files as `DIR/<set>/<file>`; a label's `repo`, `path` and `commit` say where
each comes from (`git -C <clone> show <commit>:<path> > DIR/<set>/<file>`). Each file is parsed
whole by the server's own code and judged as `benchmarks.titles` judges (`accept.judge`): a title
is accepted when it holds most of the reader's words and little else (the court, issuer and date
the reader noted may come with it). `--pages N` parses each
PDF's first N pages only, as `benchmarks.titles --pages` does (a fresh machine's quick run; each
recorded run's heading says which it parsed). A file whose page 1 prints
no title is counted apart: accepted when the map shows its file's name or the reader's title.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from benchmarks import common
from benchmarks.titles.accept import Label, judge
from benchmarks.titles.opening import first_pages
from indexer.errors import ParseError
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions
from indexer.structure.sections import build
from indexer.titles.decide import title_from_name

LABELS = Path(__file__).resolve().parent / "labels"
ASKED = ("court", "mixed", "fresh", "docling", "userfiles")  # the sets with blind questions (`retrieval.heldout`)
SETS = (*ASKED, "unseen", "unseen2")


@dataclass
class Tally:
    judged: int = 0
    accepted: int = 0
    untitled: int = 0
    untitled_accepted: int = 0
    not_indexed: int = 0
    wrong: Counter[str] = field(default_factory=Counter)


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--folder", type=Path, required=True, help="the files, as FOLDER/<set>/<file>")
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS, help="which sets")
    parser.add_argument("--cache", type=Path, help="MinerU's parse cache to reuse (default: a fresh one)")
    parser.add_argument("--pages", type=int, default=0, help="parse each PDF's first N pages (0: whole files)")
    parser.add_argument("--list", action="store_true", help="print every document's title (to diff two runs)")
    common.add_label(parser, "", "what this run measures, for the results file")
    common.add_out(parser, "titles-heldout.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    work = Path(tempfile.mkdtemp(prefix="deepread-heldout-"))
    doc_parser = DocumentParser(MineruOptions(cache_dir=args.cache or work / "cache", home=work / "mineru"))
    tallies: dict[str, Tally] = {}
    listed: list[str] = []
    for name in args.sets:
        rows = [json.loads(line) for line in (LABELS / f"heldout-{name}.jsonl").read_text().splitlines() if line]
        tally = tallies.setdefault(name, Tally())
        common.log(f"{name}: {len(rows)} labelled files")
        for row in rows:
            path = args.folder / name / row["file"]
            if not path.is_file():  # (a snapshot without the file: said, not judged)
                common.log(f"{path} is missing: {row['repo']} {row['commit']}:{row['path']} is the file")
                listed.append(f"{name:6} | {row['file'][-36:]:36} | missing      |")
                continue
            source = first_pages(path, args.pages, work)
            data = source.read_bytes()
            try:
                structure = build(
                    doc_parser.parse(source, data, hashlib.sha256(data).hexdigest()),
                    fallback_title=title_from_name(path),
                )
            except ParseError as failure:
                tally.not_indexed += 1
                listed.append(f"{name:6} | {row['file'][-36:]:36} | not indexed  | {str(failure)[:60]}")
                continue
            accepts = [a for a in row.get("accept") or [] if a]
            label = Label(
                row["title"] or "(none)",
                accepts,
                row.get("kind") or "",
                row.get("court") or row.get("issuer"),
                row.get("date"),
            )
            named = bool(getattr(structure, "named_by_file", False))
            accepted, wrong = judge(structure.title, named, label)
            if not row["title"] or not row.get("page1_prints_title", True):
                accepted = accepted or named
                tally.untitled += 1
                tally.untitled_accepted += accepted
                verdict = "ok (untitled)" if accepted else "untitled"
            else:
                tally.judged += 1
                tally.accepted += accepted
                if not accepted:
                    tally.wrong[wrong or "other text"] += 1
                verdict = "ok" if accepted else wrong or "other text"
            listed.append(f"{name:6} | {row['file'][-36:]:36} | {verdict:12} | {structure.title!r} ← {row['title']!r}")
    pages = f"first {args.pages} pages of each PDF" if args.pages else "whole files"
    lines = [
        (
            f"{args.label or 'Held-out titles'} ({date.today()}, {pages}, {common.commit_stamp('indexer')}): "
            "titles as the map shows them, against the reader's, on other projects' test files"
        ),
        "",
        (
            "| set | labelled | not indexed | accepted | % | file name | partial | other text | split / run together "
            "| no printed title: accepted |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in tallies.items():
        share = 100 * t.accepted / t.judged if t.judged else 0.0
        split = t.wrong["split"] + t.wrong["run together"]
        lines.append(
            f"| {name} | {t.judged + t.untitled + t.not_indexed} | {t.not_indexed} | {t.accepted}/{t.judged} | "
            f"**{share:.1f} %** | {t.wrong['file name']} | {t.wrong['partial']} | {t.wrong['other text']} | {split} | "
            f"{t.untitled_accepted}/{t.untitled} |"
        )
    text = "\n".join(lines)
    print(text)
    if args.list:
        print("\n".join(["", *listed]))
    common.append_result(args.out, "# Titles on other projects' test files", "\n" + text + "\n")


if __name__ == "__main__":
    main()
