"""The benchmark's scoring rules, on hand-built outcomes (no index needed)."""

from collections import Counter

from benchmarks.retrieval.metrics import Outcome, equal_reading, finders, summarize
from benchmarks.retrieval.rankers import Unit
from benchmarks.retrieval.sets import Question


def outcome(found_at: int | None, words: list[int]) -> Outcome:
    return Outcome(unit=[found_at], section=[found_at], words=words)


def test_hit_at_k_counts_the_first_rank_that_holds_a_gold() -> None:
    scores = summarize([outcome(1, [10] * 10), outcome(4, [10] * 10), outcome(None, [10] * 10)], with_recall=False)
    assert scores["hit@1"] == 1 / 3
    assert scores["hit@3"] == 1 / 3
    assert scores["hit@5"] == 2 / 3
    assert scores["words@5"] == 50


def test_equal_reading_reads_passages_while_they_fit_the_baselines_words() -> None:
    baseline = [outcome(1, [600] * 10), outcome(1, [600] * 10)]
    # 3,000 words of budget: seven 400-word passages fit (2,800), the eighth does not.
    reader = [outcome(7, [400] * 10), outcome(8, [400] * 10)]
    e = equal_reading(reader, baseline)
    assert e.baseline_hit5 == 1.0 and e.baseline_words == 3000
    assert e.read_hit5 == 0.0
    assert e.hit == 0.5  # found at 7 is read, found at 8 is not
    assert e.words == 2800 and e.passages == 7


def test_equal_reading_always_reads_the_first_passage() -> None:
    baseline = [outcome(None, [100] * 10)]  # 500 words of budget
    reader = [outcome(1, [2000, 50])]  # the first passage alone is larger than the budget
    e = equal_reading(reader, baseline)
    assert e.hit == 1.0 and e.passages == 1 and e.words == 2000


def test_whole_folder_landing_and_reading_within_a_word_budget() -> None:
    landed = Outcome(unit=[3], section=[3], words=[200, 300, 400, 900], doc=2)
    missed = Outcome(unit=[None], section=[None], words=[600] * 4, doc=None)
    scores = summarize([landed, missed], with_recall=False)
    assert scores["doc@1"] == 0.0 and scores["doc@10"] == 0.5
    assert scores["page@300w"] == 0.0  # 200 words read: the evidence is third
    assert scores["page@1000w"] == 0.5  # 200 + 300 + 400 words: the third is read
    # A gold page counts only in the question's own file when hits come from the whole folder.
    q = Question(qid="q1", doc="a.pdf", text="capex?", golds=[], pages=frozenset({5}))
    (found,), _ = finders(q)
    empty: Counter[str] = Counter()
    assert found(Unit(empty, empty, 10, frozenset({5}), frozenset(), "a.pdf"))
    assert not found(Unit(empty, empty, 10, frozenset({5}), frozenset(), "b.pdf"))


def test_the_titles_scorer_flags_what_a_reader_would_not_accept() -> None:
    from benchmarks.titles.flags import Printed, flags

    cover = Printed(["Jane Roe", "Governor", "Strategic Plan 2031–2033"], "The plan's abstraction of goals.")
    assert flags("x1f5 (file name)", True, cover) == ["file name"]  # page 1 prints a title
    assert flags("scan-0042 (file name)", True, Printed(["#$%& '", "!"], "")) == []  # it prints none
    assert flags("Jane Roe", False, cover) == ["person"]
    assert flags("Jane Roe, Director, Global Attitudes Research", False, cover) == ["contact", "person"]
    assert flags("Table of Contents", False, cover) == ["banner"]
    assert flags("Campaign_038_Introducing_AC_Whitepaper_v5e", False, cover) == ["leftover"]
    assert flags("The Limes NewApproachComprehensive Report", False, cover) == ["leftover"]
    assert flags("Skill Composition via Ab-straction", False, cover) == ["hyphen"]
    assert flags("SKILL COMPOSITION VIA ABSTRACTION", False, cover) == ["capitals"]
    assert flags("NASA Strategic Plan 2031–2033", False, cover) == []


def test_a_title_is_accepted_when_it_holds_the_readers_words_and_little_else() -> None:
    from benchmarks.titles.accept import Label, judge

    paper = Label("Towards Verifiable Generation: A Benchmark for Knowledge-aware Language Model Attribution")
    assert judge(
        "Towards Verifiable Generation: A Benchmark for Knowledge-Aware Language Model Attribution", False, paper
    )[0]
    assert judge(
        "Digital Crisis Analysis", False, Label("Germanwings 9525: The First 6 Hours — Digital Crisis Analysis")
    ) == (
        False,
        "partial",
    )
    assert judge("x1f5 (file name)", True, paper) == (False, "file name"), "page 1 prints a title"
    assert judge("scan-0042 (file name)", True, Label("Receipt", shapes=["no printed title"])) == (True, None)
    assert judge("Rider ship Report", False, Label("Ridership Report 2023")) == (False, "split")
    assert judge("HUAWEINOVa Y70", False, Label("Huawei Nova Y70 User Guide")) == (False, "run together")
    court = Label("Smith v. Jones — Complaint", issuer="Superior Court of California")
    assert judge("Superior Court", False, court) == (False, "other text"), "the court alone is not the paper"
    assert judge("Superior Court of California — Smith v. Jones, Complaint", False, court)[0], "the issuer may come too"
    assert judge("保护眼睛指南", False, Label("保护眼睛指南"))[0], "CJK titles compare by characters"
    assert judge("2018 年第一季度报告", False, Label("2018年第一季度报告"))[0], "a number beside them is one word"
    assert not judge("2018 年年度报告", False, Label("2018年第一季度报告"))[0], (
        "the annual report is not the first quarter's"
    )


def test_the_held_out_titles_labels_say_where_each_file_comes_from() -> None:
    import json
    import re

    from benchmarks.titles.heldout import LABELS, SETS

    for name in SETS:
        rows = [json.loads(line) for line in (LABELS / f"heldout-{name}.jsonl").read_text().splitlines() if line]
        assert rows and len({r["file"] for r in rows}) == len(rows), name
        for row in rows:
            assert row["set"] == name and "/" in row["repo"] and row["path"], row
            assert re.fullmatch(r"[0-9a-f]{40}", row["commit"]), row
            assert isinstance(row["title"], str) and isinstance(row["page1_prints_title"], bool), row


def test_the_held_out_questions_are_asked_of_labelled_files_without_naming_them() -> None:
    """Each held-out question belongs to a file the titles labels name (so its source is known), with
    the passage that answers it, and does not name its file."""
    import json

    from benchmarks.retrieval.heldout import QUESTIONS
    from benchmarks.titles.heldout import LABELS, SETS

    labelled = {
        (row["set"], row["file"])
        for name in SETS
        for row in map(json.loads, filter(None, (LABELS / f"heldout-{name}.jsonl").read_text().splitlines()))
    }
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line]
    assert len(questions) >= 300
    for q in questions:
        assert (q["set"], q["file"]) in labelled, q
        assert q["question"].strip() and q["evidence"].strip(), q
        assert q["file"].rsplit(".", 1)[0].lower() not in q["question"].lower(), q
        for other in q.get("also", []):
            assert tuple(other.split("/", 1)) in labelled, q
