"""Every file a person keeps: each file of ../shared/corpora indexed, failed or skipped, and why.

    python -m benchmarks.parsing.corpora [--corpora ../shared/corpora] [--sets unstructured,pdfplumber]
                                         [--work DIR] [--label after] [--checkout CHECKOUT]

Each corpus folder is served by a real `Library` (a fresh data dir: cold parses, the real store)
and indexed as the server indexes it (`reconcile`, not waiting for semantic search). Every file
under the folder then ends in one of four rows:

* indexed: a readable document (or a copy of one: the same bytes under another name);
* failed: the parser gave up on it, with its reason;
* skipped: the folder walk passed it over and says why (`get_toc(skipped=true)`);
* unaccounted: none of these (a hidden or temporary file is passed over without a word).

Reported per extension: files, indexed, failed and skipped (the reasons, counted), and, for each
e-mail and image the readers' labels give an `expect_text` (benchmarks/titles/labels/corpora.jsonl),
whether the index holds that text: its letters and digits in order in the document's section titles
and paragraphs read in order, case, spacing and punctuation aside (OCR drops and adds spaces, and
a sentence may run over two paragraphs). Writes `benchmarks/results/corpora.md` (appended, headed by `--label`); for a
"before", run with `--checkout CHECKOUT --label before`.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks import common

DEFAULT_CORPORA = common.REPO.parent / "shared" / "corpora"
LABELS = common.REPO / "benchmarks" / "titles" / "labels" / "corpora.jsonl"  # the readers' labels, only read
SETS = ("unstructured", "pdfplumber")
CHECKED = frozenset(
    {".eml", ".msg", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp", ".heic"}
)  # whose expected text is looked for
REASON_WIDTH = 110


@dataclass
class Tally:
    files: int = 0
    indexed: int = 0
    failed: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    unaccounted: int = 0
    expected: int = 0  # files with an expect_text
    found: int = 0  # … whose text the index holds


def _letters(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def load_expected(corpus: str) -> dict[str, str]:
    """relpath → the text a reader expects to find in the file (documents only)."""
    found = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("corpus") == corpus and row.get("expect_text"):
            found[row["file"]] = row["expect_text"]
    return found


def document_text(store: Any, doc_id: int) -> str:
    """Every section title and paragraph of a document in order, its letters and digits only."""
    parts = []
    for section in store.sections(doc_id):
        parts.append(section.title)
        parts.extend(p.text for p in store.paragraphs(doc_id, section.sec_id, 0, 1 << 30))
    return _letters("".join(parts))


def _short(reason: str) -> str:
    reason = " ".join(reason.split())
    reason = re.sub(r"\b\d+(\.\d+)?\b", "N", reason)  # "12 pages", "3.1 MB": one reason, counted
    return reason if len(reason) <= REASON_WIDTH else reason[: REASON_WIDTH - 1] + "…"


def run_corpus(folder: Path, work: Path, models: Path, missed: list[str]) -> dict[str, Tally]:
    from indexer.library import Library, LibraryConfig

    expected = load_expected(folder.name)
    library = Library(LibraryConfig(roots=[folder], data_dir=work / folder.name, models_dir=models))
    tallies: dict[str, Tally] = defaultdict(Tally)
    try:
        started = time.monotonic()
        library.reconcile(wait=False)
        library.finish_parses()  # a slow parse the reconcile left running ends indexed or failed too
        common.log(f"{folder.name}: indexed in {time.monotonic() - started:.0f} s")
        store = common.open_index(library).store
        docs = {d.relpath: d for d in store.documents()}
        skipped = {relpath: why for _, relpath, why in common.open_index(library).skipped()}
        texts: dict[int, str] = {}
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            relpath = path.relative_to(folder).as_posix()
            suffix = path.suffix.lower() if path.suffix else "(none)"
            tally = tallies[suffix]
            tally.files += 1
            doc = docs.get(relpath)
            if doc is not None and doc.status in ("ready", "copy"):
                tally.indexed += 1
            elif doc is not None and doc.status == "failed":
                tally.failed[_short(doc.reason or "no reason")] += 1
            elif relpath in skipped:
                tally.skipped[_short(skipped[relpath])] += 1
            else:
                tally.unaccounted += 1
            want = expected.get(relpath)
            if want is None or suffix not in CHECKED:
                continue
            tally.expected += 1
            if doc is not None and doc.status in ("ready", "copy"):
                doc_id = doc.copy_of if doc.status == "copy" and doc.copy_of else doc.doc_id
                if doc_id not in texts:
                    texts[doc_id] = document_text(store, doc_id)
                if _letters(want) in texts[doc_id]:
                    tally.found += 1
                    continue
            missed.append(f"{folder.name}/{relpath}: {want[:70]!r}")
    finally:
        library.close()
    return tallies


def report(label: str, by_set: dict[str, dict[str, Tally]], missed: list[str]) -> list[str]:
    lines = [
        f"## {label} ({date.today()}, {common.commit_stamp('indexer')})",
        "",
        "| set | ext | files | indexed | failed | skipped | unaccounted | expected text found |",
        "|---|---|---|---|---|---|---|---|",
    ]
    total = Tally()
    reasons: list[str] = []
    for name, tallies in by_set.items():
        for suffix, t in sorted(tallies.items()):
            found = f"{t.found}/{t.expected}" if t.expected else ""
            failed, skipped = sum(t.failed.values()), sum(t.skipped.values())
            lines.append(
                f"| {name} | {suffix} | {t.files} | {t.indexed} | {failed} | {skipped} | {t.unaccounted} | {found} |"
            )
            total.files += t.files
            total.indexed += t.indexed
            total.failed.update(t.failed)
            total.skipped.update(t.skipped)
            total.unaccounted += t.unaccounted
            total.expected += t.expected
            total.found += t.found
            reasons += [f"| {name} | {suffix} | failed | {n} | {why} |" for why, n in t.failed.most_common()]
            reasons += [f"| {name} | {suffix} | skipped | {n} | {why} |" for why, n in t.skipped.most_common()]
    lines.append(
        f"| **all** | | {total.files} | {total.indexed} | {sum(total.failed.values())} | "
        f"{sum(total.skipped.values())} | {total.unaccounted} | {total.found}/{total.expected} |"
    )
    lines += ["", "| set | ext | outcome | files | reason |", "|---|---|---|---|---|", *reasons]
    if missed:
        lines += ["", "Expected text not found:", "", *(f"- {m}" for m in missed)]
    return lines


def main() -> None:
    parser = common.script_parser(__doc__)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA, help="the corpora (default: %(default)s)")
    parser.add_argument("--sets", default=",".join(SETS), help="which corpus folders (default: %(default)s)")
    common.add_work(parser)
    common.add_label(parser, "after")
    common.add_out(parser, "corpora.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    work = args.work or Path(tempfile.mkdtemp(prefix="deepread-corpora-"))
    models = work / "models"
    by_set: dict[str, dict[str, Tally]] = {}
    missed: list[str] = []
    for name in args.sets.split(","):
        if not (args.corpora / name).is_dir():
            raise SystemExit(f"no corpus folder {args.corpora / name}: pass --corpora")
        by_set[name] = run_corpus(args.corpora / name, work, models, missed)
    common.append_lines(
        args.out,
        "# Every file of ../shared/corpora: indexed, failed or skipped (`python -m benchmarks.parsing.corpora`)\n",
        report(args.label, by_set, missed),
    )


if __name__ == "__main__":
    main()
