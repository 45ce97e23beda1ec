"""The days a document's stated date covers, from its card's date as text (`indexer.titles.card`).

A card says when a document is from in the document's own words: "fiscal year ended December 31,
2021", "March 4, 2021", "July 9-14, 2023", "March 2021", "2021-03-04", "2021", or "version 1.1".
`date_range` turns that into the first and last day it covers: a day, a span of days, a month, a
year or a span of years; a period that ended on a day ("quarter ended March 31, 2021") is dated that day, the day
its report speaks from. A version, or text with no year in it, states no date: None.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from indexer.parse.dates import MONTH, MONTHS

YEAR = r"((?:1[5-9]|20|21)\d{2})"  # the years documents date themselves in

_ISO_RE = re.compile(rf"(?<![\d.]){YEAR}-(\d{{1,2}})(?:-(\d{{1,2}}))?(?![\d.])")  # "2021-03-04", "2021-03"
# "March 4, 2021", "Monday, March 4 2021", "July 9-14, 2023", "July 30 - August 2, 2023"
_MONTH_DAY_RE = re.compile(
    rf"\b({MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:\s*[-–—]\s*(?:({MONTH})\s+)?(\d{{1,2}})(?:st|nd|rd|th)?)?"
    rf"\s*,?\s+{YEAR}\b",
    re.I,
)
# "4 March 2021", "9-14 July 2023"
_DAY_MONTH_RE = re.compile(rf"\b(\d{{1,2}})(?:\s*[-–—]\s*(\d{{1,2}}))?\s+({MONTH})\s*,?\s+{YEAR}\b", re.I)
_MONTH_YEAR_RE = re.compile(rf"\b({MONTH})\s*,?\s+{YEAR}\b", re.I)  # "March 2021", "Sept. 2021"
_YEARS_RE = re.compile(rf"(?<![\d.]){YEAR}\s*[-–—]\s*{YEAR}(?![\d.])")  # "2019-2021", "2019 – 2021"
_YEAR_RE = re.compile(rf"(?<![\d.]){YEAR}(?![\d.])")
_VERSION_RE = re.compile(r"^\s*(?:version|ver\.|rev\.|revision|release|edition)\b|^\s*v\d", re.I)


def date_range(text: str | None) -> tuple[date, date] | None:
    """The first and last day `text` dates a document to (inclusive); None when it states no date."""
    if not text or _VERSION_RE.match(text):
        return None
    if found := _MONTH_DAY_RE.search(text):
        first_month, first_day, last_month, last_day, year = found.groups()
        start = _day(int(year), _month(first_month), int(first_day))
        end = _day(int(year), _month(last_month or first_month), int(last_day)) if last_day else start
        if start and end and start <= end:
            return start, end
        return _whole_month(int(year), _month(first_month))
    if found := _DAY_MONTH_RE.search(text):
        first_day, last_day, month, year = found.groups()
        start = _day(int(year), _month(month), int(first_day))
        end = _day(int(year), _month(month), int(last_day)) if last_day else start
        if start and end and start <= end:
            return start, end
        return _whole_month(int(year), _month(month))
    if (found := _YEARS_RE.search(text)) and int(found.group(1)) < int(found.group(2)):
        return date(int(found.group(1)), 1, 1), date(int(found.group(2)), 12, 31)
    if (found := _ISO_RE.search(text)) and 1 <= (number := int(found.group(2))) <= 12:
        year_of, day = int(found.group(1)), found.group(3)
        return (one, one) if day and (one := _day(year_of, number, int(day))) else _whole_month(year_of, number)
    if found := _MONTH_YEAR_RE.search(text):
        return _whole_month(int(found.group(2)), _month(found.group(1)))
    years = {int(y) for y in _YEAR_RE.findall(text)}
    if len(years) == 1:
        year = years.pop()
        return date(year, 1, 1), date(year, 12, 31)
    return None


def _month(name: str) -> int:
    return MONTHS.index(name[:3].lower()) + 1


def _day(year: int, month: int, day: int) -> date | None:
    """That day, or None when the month has no such day (a misread "February 30")."""
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _whole_month(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
