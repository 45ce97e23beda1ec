"""Document titles as the map shows them, against the title a reader wrote for each document from
its first page (`benchmarks/titles/labels/`, written blind, from page images, before the code was
changed): every document of `../shared/bench` (MMLongBench's reports, papers, manuals, brochures
and decks; FinanceBench's filings; SyllabusQA's syllabi as PDF, DOCX and text; QASPER's papers)
and of `../shared/corpora` (e-mails, office files, forms, government PDFs, images of documents).

    python -m benchmarks.titles [--bench ../shared/bench] [--corpora ../shared/corpora] [--cache DIR]
                                [--pages 8] [--sets …] [--show] [--label TEXT] [--out FILE] [--checkout CHECKOUT]

Each file is parsed by the server's own code (`DocumentParser` → `structure.build`) and its title
shown as the map of its folder shows it (`shown_titles`). Per set and per kind of document (the
reader's): **accepted** (`benchmarks.titles.accept`: most of the reader's words and little else),
what is wrong with the rest (**file name** though page 1 prints a title, **split** or **run
together** words, **partial**, **other text**), and the label-free checks of
`benchmarks.titles.flags` (a contact line, a person, a banner, a leftover, a hyphen, capitals).
Documents whose page 1 prints no title are counted apart: accepted when the map shows the reader's
title or says the name is the file's. Files not indexed (an unsupported type, a failure) are
counted as such, not judged.

`--pages N` parses each PDF's first N pages only (a copy with its metadata; titles come from the
first pages); 0 parses whole files, and so does any file whose whole parse `--cache` already holds.
`--show` prints each document not accepted with the reader's title. `--checkout` measures an
older tree's library (its "before").
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks import common
from benchmarks.retrieval.sets import qasper_markdown
from benchmarks.titles.accept import Label, judge
from benchmarks.titles.flags import FLAGS, Printed, flags
from benchmarks.titles.opening import first_pages
from indexer.errors import ParseError
from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser, is_supported
from indexer.parse.mineru import CACHE_VERSION, UPGRADABLE, MineruOptions
from indexer.structure.sections import build

try:  # today's tree
    from indexer.titles.decide import title_from_name
    from indexer.titles.shown import shown_titles
except ImportError:  # a checkout from before the titles package
    from indexer.answers.titles import shown_titles  # type: ignore[no-redef]
    from indexer.ingest.files import title_from_name  # type: ignore[no-redef]

LABELS = Path(__file__).resolve().parent / "labels"
DEFAULT_CORPORA = common.REPO.parent / "shared" / "corpora"


@dataclass(frozen=True)
class Set:
    name: str
    data: str  # "bench" or "corpora"
    folder: str  # under it
    labels: str  # the label file's set ("" : QASPER's own titles)


SETS = [
    Set("MMLongBench", "bench", "mmlongbench/pdfs", "mmlongbench"),
    Set("FinanceBench", "bench", "financebench/pdfs", "financebench"),
    Set("SyllabusQA PDF", "bench", "syllabusqa/syllabi/pdf", "syllabusqa"),
    Set("SyllabusQA DOCX", "bench", "syllabusqa/syllabi/word", "syllabusqa"),
    Set("SyllabusQA text", "bench", "syllabusqa/syllabi/text", "syllabusqa"),
    Set("QASPER", "bench", "qasper", ""),
    Set("unstructured", "corpora", "unstructured", "unstructured"),
    Set("pdfplumber", "corpora", "pdfplumber", "pdfplumber"),
]
FIRST_LINES = 40  # the first page's lines read for what it prints (the label-free checks)
OPENING_PAGES = 4  # … and the opening pages' text, for how the document writes its words
OPENING_PARAGRAPHS = 400
WRONG = ("file name", "split", "run together", "partial", "other text")


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
    label: Label


def load_labels() -> dict[tuple[str, str], Label]:
    """(set, file) → the reader's label: bench files by name (a syllabus by its stem, for all three
    formats), corpora files by their path in the corpus; documents only."""
    found: dict[tuple[str, str], Label] = {}
    for name in ("bench.jsonl", "corpora.jsonl"):
        for line in (LABELS / name).read_text().splitlines():
            row = json.loads(line)
            if not row.get("is_document", True) or not row.get("title"):
                continue
            label = Label(
                row["title"],
                row.get("accept") or [],
                row.get("kind") or "",
                row.get("issuer"),
                row.get("date"),
                row.get("shapes") or [],
            )
            key = row.get("set") or row["corpus"]
            found[(key, Path(row["file"]).stem if key == "syllabusqa" else row["file"])] = label
    return found


def _prints(paragraph: Any) -> bool:
    """A paragraph of words: text, a list, or a picture's words (a cover that is a picture)."""
    return paragraph.kind in ("text", "list") or (
        paragraph.kind == "figure" and not paragraph.text.startswith("[picture without")
    )


def printed(structure: DocumentStructure) -> Printed:
    """What the document prints (`flags.Printed`): its first page's lines in reading order (the
    first page with text), or for a file without pages its opening line, and its opening text."""
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


@dataclass
class Outcome:
    entries: list[Entry]
    labelled: int  # documents of the set a reader labelled
    not_indexed: list[str]  # labelled documents the server did not index (unsupported, failed)


def parse_set(
    parser: DocumentParser, root: Path, files: list[Path], labels: dict[str, Label], pages: int, work: Path
) -> Outcome:
    entries: list[Entry] = []
    missed: list[str] = []
    labelled = [p for p in files if _key(p, root) in labels]
    for n, path in enumerate(labelled):
        label = labels[_key(path, root)]
        if not is_supported(path):
            missed.append(f"{path.relative_to(root)} (not a supported type)")
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        # Parsed whole already (by this version or one it upgrades from): read that.
        whole = any(parser.mineru._cache_path(digest, v).exists() for v in (CACHE_VERSION, *UPGRADABLE))
        source = path if whole else first_pages(path, pages, work)
        data = source.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        try:
            structure = build(parser.parse(source, data, digest), fallback_title=title_from_name(path))
        except ParseError as failure:
            missed.append(f"{path.relative_to(root)} ({str(failure)[:80]})")
            continue
        entries.append(
            Entry(
                path,
                n,
                structure.title,
                getattr(structure, "detail", None),
                bool(getattr(structure, "named_by_file", structure.title == title_from_name(path))),
                digest,
                path.relative_to(root).as_posix(),
                printed(structure),
                label,
            )
        )
    return Outcome(entries, len(labelled), missed)


def _key(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def labels_of(
    s: Set, root: Path, all_labels: dict[tuple[str, str], Label], bench: Path, work: Path
) -> dict[str, Label]:
    """The set's labels by the file's path in `root` (for QASPER, written as Markdown into `root`)."""
    if not s.labels:
        found = {}
        for row in (bench / "qasper" / "qasper_train_sample10_hf_format.jsonl").read_text().splitlines():
            paper = json.loads(row)
            (root / f"{paper['id']}.md").write_text(qasper_markdown(paper), encoding="utf-8")
            found[f"{paper['id']}.md"] = Label(paper["title"], kind="paper")
        return found
    found = {}
    for path in root.rglob("*"):
        if path.is_file():
            relpath = _key(path, root)
            label = all_labels.get((s.labels, path.stem if s.labels == "syllabusqa" else relpath))
            if label is not None:
                found[relpath] = label
    return found


@dataclass
class Tally:
    documents: int = 0
    judged: int = 0  # page 1 prints a title
    accepted: int = 0
    untitled: int = 0  # page 1 prints no title
    untitled_accepted: int = 0
    not_indexed: int = 0
    wrong: Counter[str] | None = None
    flagged: Counter[str] | None = None

    def add(self, accepted: bool, wrong: str | None, titled: bool, found_flags: list[str]) -> None:
        self.wrong = self.wrong or Counter()
        self.flagged = self.flagged or Counter()
        self.documents += 1
        if titled:
            self.judged += 1
            self.accepted += accepted
        else:
            self.untitled += 1
            self.untitled_accepted += accepted
        if wrong:
            self.wrong[wrong] += 1
        self.flagged.update(found_flags)

    def row(self, name: str) -> str:
        wrong, flagged = self.wrong or Counter(), self.flagged or Counter()
        rate = f"{100 * self.accepted / self.judged:.1f} %" if self.judged else "–"
        return (
            f"| {name} | {self.documents + self.not_indexed} | {self.not_indexed} | {self.accepted}/{self.judged} | "
            f"**{rate}** | "
            + " | ".join(str(wrong[w]) for w in WRONG)
            + f" | {self.untitled_accepted}/{self.untitled} | "
            + " | ".join(str(flagged[f]) for f in FLAGS)
            + " |"
        )


HEADER = (
    "| {what} | labelled | not indexed | accepted | % | "
    + " | ".join(WRONG)
    + " | no printed title: accepted | "
    + " | ".join(FLAGS)
    + " |"
)


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument(
        "--corpora", type=Path, default=DEFAULT_CORPORA, help="../shared/corpora (default: %(default)s)"
    )
    parser.add_argument("--cache", type=Path, help="MinerU's parse cache to reuse (default: a fresh one)")
    parser.add_argument("--pages", type=int, default=8, help="parse each PDF's first N pages (0: whole files)")
    parser.add_argument("--sets", nargs="*", default=[s.name for s in SETS], help="which sets (names start so)")
    parser.add_argument("--show", action="store_true", help="print each document not accepted")
    parser.add_argument("--list", action="store_true", help="print every document's title (to diff two runs)")
    common.add_label(parser, "", "what this run measures, for the results file")
    common.add_out(parser, "titles.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    work = Path(tempfile.mkdtemp(prefix="deepread-titles-"))
    doc_parser = DocumentParser(MineruOptions(cache_dir=args.cache or work / "cache", home=work / "mineru"))
    all_labels = load_labels()
    by_set: dict[str, Tally] = {}
    by_kind: dict[str, Tally] = {}
    shown_lines: list[str] = []
    for s in SETS:
        if not any(s.name.lower().startswith(x.lower()) for x in args.sets):
            continue
        root = (args.bench if s.data == "bench" else args.corpora) / s.folder
        if not s.labels:
            root = work / "qasper-md"
            root.mkdir()
        labels = labels_of(s, root, all_labels, args.bench, work)
        files = sorted(p for p in root.rglob("*") if p.is_file())
        common.log(f"{s.name}: {len(labels)} labelled documents")
        outcome = parse_set(doc_parser, root, files, labels, args.pages, work)
        shown = shown_titles(outcome.entries)
        tally = by_set.setdefault(s.name, Tally())
        tally.not_indexed += len(outcome.not_indexed)
        for e in outcome.entries:
            # The document's own title: what the map adds to tell titles alike apart ("(README.md)") aside.
            own = shown[e.doc_id] if e.named_by_file else e.title
            accepted, wrong = judge(own, e.named_by_file, e.label)
            found = flags(e.title, e.named_by_file, e.printed)
            for t in (tally, by_kind.setdefault(e.label.kind or "other", Tally())):
                t.add(accepted, wrong, e.label.printed, found)
            if args.list:
                shown_lines.append(
                    f"{s.name[:12]:12} | {e.relpath[:40]:40} | {'ok' if accepted else wrong:12} | {own!r}"
                )
            elif args.show and not accepted:
                shown_lines.append(f"{s.name[:12]:12} | {e.relpath[:40]:40} | {wrong:12} | {own!r} ← {e.label.title!r}")
        if args.show:
            shown_lines += [f"{s.name[:12]:12} | not indexed: {m}" for m in outcome.not_indexed]
    total = Tally()
    for t in by_set.values():
        total.documents += t.documents
        total.judged += t.judged
        total.accepted += t.accepted
        total.untitled += t.untitled
        total.untitled_accepted += t.untitled_accepted
        total.not_indexed += t.not_indexed
        total.wrong = (total.wrong or Counter()) + (t.wrong or Counter())
        total.flagged = (total.flagged or Counter()) + (t.flagged or Counter())
    pages = f"first {args.pages} pages of each PDF not cached whole" if args.pages else "whole files"
    lines = [
        (
            f"{args.label or 'Titles'} ({date.today()}, {pages}, {common.commit_stamp('indexer')}): "
            "titles as the map shows them, against the reader's"
        ),
        "",
        HEADER.format(what="set"),
        "|---" * (6 + len(WRONG) + len(FLAGS)) + "|",
        *(t.row(name) for name, t in by_set.items()),
        total.row("**all**"),
        "",
        HEADER.format(what="kind (the reader's)"),
        "|---" * (6 + len(WRONG) + len(FLAGS)) + "|",
        *(t.row(kind) for kind, t in sorted(by_kind.items())),
    ]
    if args.show or args.list:
        print("\n".join(shown_lines))
    common.append_lines(args.out, "# Titles a reader accepts (`python -m benchmarks.titles`)\n", lines)


if __name__ == "__main__":
    main()
