"""The retrieval metrics: the first rank at which each gold is found (by unit and by
section), hit@k / section-hit@k / evidence recall@k / words@5 over questions, equal
reading against the baseline's words, and the hit ceiling and random hit@5 of a
segmentation. Definitions: ../shared/bench/README.md.

Kept apart so the scoring rules can be read and tested (tests/test_bench_scoring.py)
without an index.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.retrieval.rankers import Ranker, Unit
from benchmarks.retrieval.sets import Question
from benchmarks.retrieval.shared import DOC_KS, KS, READ_WORDS, WORDS, covers

# --- scoring -------------------------------------------------------------------------------


@dataclass
class Outcome:
    """First rank (1-based) at which each gold is found, by unit and by section; None = not in top k."""

    unit: list[int | None]
    section: list[int | None]
    words: list[int]  # words of the unit at each rank
    doc: int | None = None  # first rank of a unit from the question's own file


def finders(q: Question) -> tuple[list[Callable[[Unit], bool]], list[Callable[[Unit], bool]]]:
    """For each gold: does a unit hold it, does the unit's section hold it (by page or by tokens)."""
    if q.pages:  # a page of the question's own file (whole-folder search ranks every file's pages)
        pages = sorted(q.pages)
        return (
            [lambda u, p=p: p in u.pages and u.doc in (None, q.doc) for p in pages],
            [lambda u, p=p: p in u.section_pages and u.doc in (None, q.doc) for p in pages],
        )
    return (
        [lambda u, g=g: covers(u.tokens, g) for g in q.golds],
        [lambda u, g=g: covers(u.section, g) for g in q.golds],
    )


def first_ranks(q: Question, units: list[Unit]) -> Outcome:
    def first(found: list[Callable[[Unit], bool]]) -> list[int | None]:
        return [next((rank for rank, u in enumerate(units, start=1) if f(u)), None) for f in found]

    in_unit, in_section = finders(q)
    doc = next((rank for rank, u in enumerate(units, start=1) if u.doc == q.doc), None)
    return Outcome(first(in_unit), first(in_section), [u.words for u in units], doc)


def within(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def summarize(outcomes: list[Outcome], with_recall: bool) -> dict[str, float]:
    """Mean hit@k, section-hit@k (and recall@k) over questions, as fractions."""
    scores: dict[str, float] = {}
    if not outcomes:
        return scores
    for k in KS:
        scores[f"hit@{k}"] = statistics.fmean(any(within(r, k) for r in o.unit) for o in outcomes)
    for k in KS:
        scores[f"sec@{k}"] = statistics.fmean(any(within(r, k) for r in o.section) for o in outcomes)
    if with_recall:
        for k in KS:
            scores[f"recall@{k}"] = statistics.fmean(statistics.fmean(within(r, k) for r in o.unit) for o in outcomes)
    scores[WORDS] = statistics.fmean(sum(o.words[:5]) for o in outcomes)
    for k in DOC_KS:
        scores[f"doc@{k}"] = statistics.fmean(within(o.doc, k) for o in outcomes)
    for budget in READ_WORDS:
        scores[f"page@{budget}w"] = statistics.fmean(read_within(o, budget) for o in outcomes)
    return scores


def read_within(outcome: Outcome, budget: int) -> bool:
    """The evidence is read when the units are read in rank order, whole, within `budget` words."""
    used, n = 0, 0
    for w in outcome.words:
        if used + w > budget:
            break
        used, n = used + w, n + 1
    return any(within(r, n) for r in outcome.unit)


@dataclass
class EqualReading:
    """Locate-then-read given, question by question, the words the baseline's top 5 chunks hold."""

    baseline_hit5: float
    baseline_words: float
    read_hit5: float
    read_words: float
    hit: float  # gold in the passages read within the baseline's words
    words: float  # mean words read within that budget
    passages: float  # mean passages read within that budget


def equal_reading(reader: list[Outcome], baseline: list[Outcome]) -> EqualReading:
    """Ranked passages are read in order while their words fit the baseline's words@5 (at least one)."""
    hits: list[bool] = []
    words: list[int] = []
    passages: list[int] = []
    for ours, base in zip(reader, baseline, strict=True):
        budget, used, n = sum(base.words[:5]), 0, 0
        for w in ours.words:
            if n and used + w > budget:
                break
            used, n = used + w, n + 1
        hits.append(any(within(r, n) for r in ours.unit))
        words.append(used)
        passages.append(n)
    summary = summarize(reader, False), summarize(baseline, False)
    return EqualReading(
        baseline_hit5=summary[1]["hit@5"],
        baseline_words=summary[1][WORDS],
        read_hit5=summary[0]["hit@5"],
        read_words=summary[0][WORDS],
        hit=statistics.fmean(hits),
        words=statistics.fmean(words),
        passages=statistics.fmean(passages),
    )


@dataclass
class Reach:
    """What the segmentation alone allows, single-document scope."""

    ceiling: float  # share of questions for which some unit of the document contains a gold
    random_hit5: float  # expected hit@5 of five units drawn at random from the document


def reach(ranker: Ranker, questions: list[Question]) -> Reach:
    by_doc: dict[str, list[Unit]] = {}
    reachable: list[bool] = []
    chance: list[float] = []
    for q in questions:
        units = by_doc.setdefault(q.doc, list(ranker.units_of(q.doc)))
        in_unit, _ = finders(q)
        matching = sum(any(f(u) for f in in_unit) for u in units)
        reachable.append(matching > 0)
        draws = min(5, len(units))
        chance.append(1 - math.comb(len(units) - matching, draws) / math.comb(len(units), draws) if units else 0.0)
    return Reach(statistics.fmean(reachable), statistics.fmean(chance)) if questions else Reach(0.0, 0.0)
