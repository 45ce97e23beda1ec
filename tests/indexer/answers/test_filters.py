"""The map and search keep the documents that pass the filters: file type, the file's
modification time, the date the document states. Real files, the real store and model."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from indexer.answers.filters import Filters, parse_bound
from indexer.errors import InvalidArgument, NotFound
from indexer.library import Library
from tests.conftest import write


def at(day: str) -> float:
    """Noon of that day, local time, as a file time."""
    return datetime.fromisoformat(f"{day}T12:00").timestamp()


FILES = {  # path: (text, modified on)
    "memo.md": ("# Memo on otters\n\nMarch 4, 2021\n\nOtters were seen in the river.", "2023-01-11"),
    "reports/annual.md": (
        "# Annual report\n\nFor the fiscal year ended December 31, 2022\n\nOtters thrived this year.",
        "2023-02-10",
    ),
    "reports/q1.txt": ("QUARTERLY NOTE\n\nMarch 2023\n\nOtter counts rose in spring.", "2023-04-11"),
    "manual.MD": ("# Kayak manual\n\nVersion 1.1\n\nPaddle past the otters quietly.", "2022-06-15"),
}


@pytest.fixture
def library(folder: Path, open_library: Callable[..., Library]) -> Library:
    for name, (text, day) in FILES.items():
        path = write(folder, name, text)
        os.utime(path, (at(day), at(day)))
    lib = open_library(folder)
    lib.reconcile()
    assert {d.detail for d in lib.index.store.documents()} == {
        "March 4, 2021",
        "fiscal year ended December 31, 2022",
        "March 2023",
        "version 1.1",
    }, "the cards state these dates"
    return lib


def shown(toc_or_hits: object) -> set[str]:
    docs = getattr(toc_or_hits, "documents", None)
    return {d.path for d in docs} if docs is not None else set()


def test_the_map_keeps_the_documents_that_pass(library: Library) -> None:
    md = library.toc(file_types=["md", ".TXT"])
    assert shown(md) == set(FILES), "with or without the dot, any case"
    assert (md.hint or "").startswith("Filtered to the documents of type .md or .txt: 4 of 4.")
    assert shown(library.toc(file_types=["txt"])) == {"reports/q1.txt"}

    recent = library.toc(modified_after="2023-02-10")
    assert shown(recent) == {"reports/annual.md", "reports/q1.txt"}, "a day's bound is the whole day"
    assert shown(library.toc(modified_before="2023-02-10")) == {"memo.md", "reports/annual.md", "manual.MD"}
    assert shown(library.toc(modified_after="2023-02-10T13:00")) == {"reports/q1.txt"}, "a date-time is an instant"

    # A document's own date lies wholly within the bounds; one that states none is left out.
    assert shown(library.toc(dated_after="2022-01-01")) == {"reports/annual.md", "reports/q1.txt"}
    assert shown(library.toc(dated_before="2022-12-31")) == {"memo.md", "reports/annual.md"}
    assert shown(library.toc(dated_after="2023-03-01", dated_before="2023-03-31")) == {"reports/q1.txt"}
    assert shown(library.toc(dated_after="2021", dated_before="2021")) == {"memo.md"}, "a year names a span"

    under = library.toc(path="reports", file_types=["md"], modified_after="2023-01-01")
    assert shown(under) == {"reports/annual.md"}, "filters combine with path"
    assert "of type .md, modified 2023-01-01 or later: 1 of 2." in (under.hint or "")


def test_search_keeps_the_documents_that_pass(library: Library) -> None:
    hits = library.retrieve("otters", top_k=10, file_types=["md"], dated_before="2022-12-31")
    assert {library.index.store.document(r.doc_id).relpath for r in hits.results} == {  # type: ignore[union-attr]
        "memo.md",
        "reports/annual.md",
    }
    assert (hits.hint or "").startswith(
        "Searched the 2 document(s) of type .md, dated 2022-12-31 or earlier, of 4 in the folder."
    )
    ids = {d.path: d.doc_id for d in library.toc().documents}
    scoped = library.retrieve("otters", doc_ids=[ids["memo.md"], ids["reports/q1.txt"]], modified_after="2023-03")
    assert {r.doc_id for r in scoped.results} == {ids["reports/q1.txt"]}, "filters combine with doc_ids"
    assert "of 2 among doc_ids" in (scoped.hint or "")
    under = library.retrieve("otters", path="reports/", file_types=["txt"])
    assert {r.doc_id for r in under.results} == {ids["reports/q1.txt"]} and "of 2 under reports/" in (under.hint or "")


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"file_types": ["pdf", "eml"]}, "no document here is of type .pdf or .eml: the documents here are of type "),
        ({"file_types": ["pdf"]}, ".md (3), .txt (1)"),
        (
            {"path": "reports", "file_types": ["md"], "modified_after": "2024-01-01"},
            (
                "no document under reports/ of type .md was modified on or after 2024-01-01: its file was modified "
                "at 2023-02-10 12:00 (local time)"
            ),
        ),
        (
            {"dated_after": "2030"},
            (
                'no document here is dated on or after 2030: their own dates run from "March 4, 2021" to "March 2023" '
                "(1 states none), and must lie wholly within the bounds"
            ),
        ),
        ({"dated_after": "2023-03-15"}, "is dated on or after 2023-03-15"),  # March 2023 is not wholly after
        ({"modified_after": "last week"}, 'modified_after takes an ISO date or date-time, e.g. "2023-01-31"'),
        ({"dated_after": "2023", "dated_before": "2022"}, "dated_after (2023) is later than dated_before (2022)"),
        ({"file_types": []}, "file_types is empty"),
        ({"file_types": ["p d f"]}, "file_types holds 'p d f'"),
        ({"doc_id": 1, "file_types": ["md"]}, "choose the documents of the map: give them without doc_id"),
        ({"skipped": True, "file_types": ["md"]}, "skipped=true lists the files not indexed: give it alone"),
    ],
)
def test_when_nothing_passes_the_error_says_why_and_what_there_is(
    library: Library, filters: dict, message: str
) -> None:
    with pytest.raises((NotFound, InvalidArgument)) as raised:
        library.toc(**filters)
    assert message in str(raised.value)


def test_a_search_with_nothing_left_says_why(library: Library) -> None:
    with pytest.raises(NotFound, match=r"no document here is of type \.pdf: the documents here are of type \.md"):
        library.retrieve("otters", file_types=["pdf"])


def test_bounds_name_spans_in_local_time() -> None:
    day = parse_bound("modified_after", "2023-01-31")
    assert (day.first_day, day.last_day) == (day.first_day, day.first_day)
    assert day.last_ns - day.first_ns == 86_400 * 10**9 - 1
    month = parse_bound("dated_after", "2024-02")
    assert (month.first_day.isoformat(), month.last_day.isoformat()) == ("2024-02-01", "2024-02-29")
    noon_utc = parse_bound("modified_after", "2023-01-31T12:00:00Z")
    assert noon_utc.first_ns == noon_utc.last_ns == 1675166400 * 10**9
    local = parse_bound("modified_after", "2023-01-31T12:00")
    assert local.first_ns == int(datetime.fromisoformat("2023-01-31T12:00").timestamp()) * 10**9
    assert Filters.given() is None, "no filter given: none applied"
    described = Filters.given(["PDF", "*.eml", "pdf"], "2023-01-01", None, None, "2022")
    assert described is not None and described.file_types == [".pdf", ".eml"]
    assert described.describe() == "of type .pdf or .eml, modified 2023-01-01 or later, dated 2022 or earlier"
    assert described.call_args() == 'file_types=["pdf", "eml"], modified_after="2023-01-01", dated_before="2022"'
