"""A card's date as text turned into the days it covers (`indexer.titles.dated`)."""

from __future__ import annotations

from datetime import date

import pytest

from indexer.titles.dated import date_range

D = date


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fiscal year ended December 31, 2021", (D(2021, 12, 31), D(2021, 12, 31))),  # a period: the day it ended
        ("quarter ended March 31, 2021", (D(2021, 3, 31), D(2021, 3, 31))),
        ("March 4, 2021", (D(2021, 3, 4), D(2021, 3, 4))),
        ("Monday, Mar. 4 2021", (D(2021, 3, 4), D(2021, 3, 4))),
        ("4 March 2021", (D(2021, 3, 4), D(2021, 3, 4))),
        ("July 9-14, 2023", (D(2023, 7, 9), D(2023, 7, 14))),
        ("9–14 July 2023", (D(2023, 7, 9), D(2023, 7, 14))),
        ("July 30 - August 2, 2023", (D(2023, 7, 30), D(2023, 8, 2))),
        ("March 2021", (D(2021, 3, 1), D(2021, 3, 31))),
        ("Sept. 2020", (D(2020, 9, 1), D(2020, 9, 30))),
        ("February 2024", (D(2024, 2, 1), D(2024, 2, 29))),
        ("2021-03-04", (D(2021, 3, 4), D(2021, 3, 4))),
        ("2021-03", (D(2021, 3, 1), D(2021, 3, 31))),
        ("2021", (D(2021, 1, 1), D(2021, 12, 31))),
        ("Q3 2021", (D(2021, 1, 1), D(2021, 12, 31))),  # no quarter arithmetic: the year it names
        ("2019-2021", (D(2019, 1, 1), D(2021, 12, 31))),
        ("February 30, 2021", (D(2021, 2, 1), D(2021, 2, 28))),  # a misread day: the month
        ("version 1.1", None),
        ("v2.3", None),
        ("2021.1", None),
        ("market 4, 2021", (D(2021, 1, 1), D(2021, 12, 31))),  # "market" is no month
        ("the years 2021 and 2022", None),  # which one is not said
        ("", None),
        (None, None),
    ],
)
def test_a_stated_date_is_the_days_it_covers(text: str | None, expected: tuple[date, date] | None) -> None:
    assert date_range(text) == expected
