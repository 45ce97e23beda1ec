"""The benchmark sets with questions (FinanceBench, MMLongBench, QASPER, SyllabusQA):
their questions and golds as loaded from the data folder, QASPER papers written as
Markdown, and the evenly spaced `--limit` subset.

Kept apart from the rankers and the scoring: this is everything that reads the
benchmark data, and what a question and its gold are.
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.retrieval.shared import SCOPES, bag

# --- data sets -----------------------------------------------------------------------------


@dataclass
class Question:
    qid: str
    doc: str  # file name inside the corpus folder
    text: str
    golds: list[Counter[str]]  # token bags of the gold spans (SyllabusQA) or evidence paragraphs (QASPER)
    pages: frozenset[int] = frozenset()  # gold evidence pages, 1-based (FinanceBench, MMLongBench)
    subsets: tuple[str, ...] = ()  # extra tables this question is counted in (e.g. text evidence)


@dataclass
class Corpus:
    name: str
    folder: Path
    questions: list[Question]
    available: int  # usable questions before --limit
    with_recall: bool  # report evidence recall@k (QASPER)
    paged: bool = False  # gold = pages: match units by page, the baseline reads the PDF text layer
    scopes: tuple[str, ...] = SCOPES


def clean(text: str) -> str:
    return " ".join(text.split())


def qasper_markdown(paper: dict) -> str:
    """One QASPER paper as Markdown: `#` title, abstract, `A ::: B` sections as nested headings.

    A heading missing from the source (`A ::: B` without a preceding `A`) is
    written once so the tree keeps its shape; a section with an empty name
    gets no heading (its paragraphs continue the previous section).
    """
    out = [f"# {clean(paper['title'])}", clean(paper["abstract"])]
    open_path: list[str] = []
    full_text = paper["full_text"]
    for name, paragraphs in zip(full_text["section_name"], full_text["paragraphs"], strict=True):
        parts = [part.strip() for part in (name or "").split(":::")]
        if parts[-1]:
            common = 0
            while common < min(len(parts), len(open_path)) and parts[common] == open_path[common]:
                common += 1
            out.extend("#" * (depth + 2) + " " + parts[depth] for depth in range(common, len(parts)) if parts[depth])
            open_path = parts
        out.extend(p for p in map(clean, paragraphs) if p)
    return "\n\n".join(part for part in out if part) + "\n"


def qasper_evidence(annotations: list[dict]) -> list[str]:
    """Distinct gold evidence paragraphs over all annotators (figures/tables and empties dropped)."""
    seen: dict[str, None] = {}
    for annotation in annotations:
        for evidence in annotation["evidence"]:
            text = clean(evidence)
            if text and not text.startswith("FLOAT SELECTED"):
                seen.setdefault(text, None)
    return list(seen)


def load_qasper(bench: Path, workdir: Path) -> Corpus:
    """Write each paper as `<id>.md` under `workdir`; questions with usable evidence."""
    folder = workdir / "qasper-md"
    folder.mkdir(parents=True, exist_ok=True)
    questions: list[Question] = []
    for line in (bench / "qasper" / "qasper_train_sample10_hf_format.jsonl").read_text().splitlines():
        paper = json.loads(line)
        doc = f"{paper['id']}.md"
        (folder / doc).write_text(qasper_markdown(paper), encoding="utf-8")
        qas = paper["qas"]
        for qid, text, answers in zip(qas["question_id"], qas["question"], qas["answers"], strict=True):
            golds = [b for b in map(bag, qasper_evidence(answers["answer"])) if b]
            if golds:
                questions.append(Question(qid, doc, text, golds))
    return Corpus("QASPER", folder, questions, len(questions), with_recall=True)


def load_syllabusqa(bench: Path) -> Corpus:
    """The syllabi as plain text (indexed in place, read-only); questions with at least one span."""
    root = bench / "syllabusqa"
    questions: list[Question] = []
    for item in json.loads((root / "questions_val.json").read_text()):
        spans = [item.get(f"answer_span_{i}") or "" for i in range(1, 6)]
        golds = [b for b in map(bag, spans) if b]
        if golds:
            questions.append(Question(item["id"], f"{item['syllabus_name']}.txt", item["question"], golds))
    return Corpus("SyllabusQA", root / "syllabi" / "text", questions, len(questions), with_recall=False)


def load_financebench(bench: Path) -> Corpus:
    """SEC filings as PDF; gold = the evidence pages (0-based in the source)."""
    root = bench / "financebench"
    questions: list[Question] = []
    for line in (root / "questions.jsonl").read_text().splitlines():
        item = json.loads(line)
        evidence = ast.literal_eval(item["evidence"]) if isinstance(item["evidence"], str) else item["evidence"]
        pages = frozenset(int(e["evidence_page_num"]) + 1 for e in evidence)
        if pages:
            questions.append(Question(item["financebench_id"], f"{item['doc_name']}.pdf", item["question"], [], pages))
    return Corpus(
        "FinanceBench", root / "pdfs", questions, len(questions), False, paged=True, scopes=("single", "collection")
    )


TEXT_EVIDENCE = "text-evidence questions"


def load_mmlongbench(bench: Path) -> Corpus:
    """Long PDFs; gold = the evidence pages (1-based); unanswerable questions (no pages) are skipped.

    Questions whose evidence includes plain text are also reported on their own:
    charts and figures are out of reach of any text index.
    """
    root = bench / "mmlongbench"
    questions: list[Question] = []
    for n, item in enumerate(json.loads((root / "questions.json").read_text())):
        pages = frozenset(int(p) for p in ast.literal_eval(item["evidence_pages"] or "[]"))
        if pages:
            subsets = (TEXT_EVIDENCE,) if "Pure-text" in item["evidence_sources"] else ()
            questions.append(Question(f"mmlb-{n}", item["doc_id"], item["question"], [], pages, subsets))
    return Corpus(
        "MMLongBench", root / "pdfs", questions, len(questions), False, paged=True, scopes=("single", "collection")
    )


def spread(items: Sequence[Question], limit: int | None) -> list[Question]:
    """At most `limit` items, evenly spaced (deterministic)."""
    if not limit or len(items) <= limit:
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


LOADERS: dict[str, Callable[[Path, Path], Corpus]] = {
    "financebench": lambda bench, work: load_financebench(bench),
    "mmlongbench": lambda bench, work: load_mmlongbench(bench),
    "qasper": load_qasper,
    "syllabusqa": lambda bench, work: load_syllabusqa(bench),
}


def load_sets(names: list[str], bench: Path, work: Path, limit: int | None) -> list[Corpus]:
    corpora: list[Corpus] = []
    for name in names:
        if name not in LOADERS:
            raise SystemExit(f"unknown set {name!r}; choose from {', '.join(LOADERS)}")
        corpus = LOADERS[name](bench, work)
        corpus.questions = spread(corpus.questions, limit)
        corpora.append(corpus)
    return corpora
