"""Which documents a map or a search keeps: by file type, by when the file was modified, by the
date the document states (`get_toc(file_types=…, modified_after=…)`, the same for `retrieve`).

A bound is an ISO date or date-time ("2023-01-01", "2023-01-01T09:30", with or without a zone;
also a year "2023" or a month "2023-03"), in local time when it names no zone. Bounds are
inclusive and name a span: `modified_before="2023-01-31"` keeps a file modified on that day.
A document's own date (`indexer.titles.dated`) is a span too (a day, a month, a year), and it is
kept only when it lies wholly within the bounds: a document dated "2021" is after 2020-12-31
and after 2021-01-01, before 2022-01-01 and before 2021-12-31, but neither after nor before
2021-06-01. One that states no date is left out by a date bound. When no document remains,
the error says which filter left none and what the documents have instead.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import TypeVar

from indexer.errors import InvalidArgument, NotFound
from indexer.store.database import DocumentRow
from indexer.titles.dated import date_range

T = TypeVar("T", int, date)
MAX_TYPES = 20  # file_types a call may give
TYPES_SHOWN = 8  # an error names this many of the types the documents have

_EXTENSION_RE = re.compile(r"^[a-z0-9][a-z0-9_+-]{0,15}$")
_YEAR_RE = re.compile(r"^\d{4}$")
_MONTH_RE = re.compile(r"^(\d{4})-(\d{2})$")


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Bound:
    """A bound as given, and the span it names: its first and last nanosecond since the epoch
    (local time when it names no zone), and its first and last day."""

    text: str
    first_ns: int
    last_ns: int
    first_day: date
    last_day: date


def _ns(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(microseconds=1) * 1000


def parse_bound(name: str, value: str) -> Bound:
    """`2023-01-01`, `2023-01-01T09:30:00Z`, `2023-03` or `2023` as the span it names."""
    text = value.strip()
    example = f'{name} takes an ISO date or date-time, e.g. "2023-01-31" or "2023-01-31T09:30" (got {value[:40]!r})'
    try:
        if _YEAR_RE.match(text):
            start, end = date(int(text), 1, 1), date(int(text) + 1, 1, 1)
        elif month := _MONTH_RE.match(text):
            year, number = int(month.group(1)), int(month.group(2))
            start = date(year, number, 1)
            end = date(year + number // 12, number % 12 + 1, 1)
        elif len(text) <= 10:
            start = date.fromisoformat(text)
            end = start + timedelta(days=1)
        else:
            instant = datetime.fromisoformat(text.replace(" ", "T", 1))
            instant = instant if instant.tzinfo else instant.astimezone()
            return Bound(text, _ns(instant), _ns(instant), instant.date(), instant.date())
        first, after = (_ns(datetime.combine(day, time()).astimezone()) for day in (start, end))
    except (ValueError, OverflowError):
        raise InvalidArgument(example) from None
    return Bound(text, first, after - 1, start, end - timedelta(days=1))


def normalise_types(file_types: list[str]) -> list[str]:
    """`["PDF", ".eml"]` as `[".pdf", ".eml"]`, each once."""
    if not file_types:
        raise InvalidArgument('file_types is empty: give extensions such as ["pdf", "eml"], or omit it')
    if len(file_types) > MAX_TYPES:
        raise InvalidArgument(f"file_types takes at most {MAX_TYPES} extensions (got {len(file_types)})")
    found = []
    for given in file_types:
        bare = given.strip().lower().lstrip("*.")
        if not _EXTENSION_RE.match(bare):
            raise InvalidArgument(f'file_types holds {given[:30]!r}: give extensions such as "pdf" or ".eml"')
        found.append("." + bare)
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Filters:
    """The filters a call gives (None: that one is not given)."""

    file_types: list[str] | None = None
    modified_after: Bound | None = None
    modified_before: Bound | None = None
    dated_after: Bound | None = None
    dated_before: Bound | None = None

    @classmethod
    def given(
        cls,
        file_types: list[str] | None = None,
        modified_after: str | None = None,
        modified_before: str | None = None,
        dated_after: str | None = None,
        dated_before: str | None = None,
    ) -> Filters | None:
        """The filters of a call, checked; None when it gives none."""
        if file_types is None and not any((modified_after, modified_before, dated_after, dated_before)):
            return None
        bounds = {
            name: parse_bound(name, value) if value else None
            for name, value in (
                ("modified_after", modified_after),
                ("modified_before", modified_before),
                ("dated_after", dated_after),
                ("dated_before", dated_before),
            )
        }
        for kind in ("modified", "dated"):
            after, before = bounds[f"{kind}_after"], bounds[f"{kind}_before"]
            if after and before and after.first_ns > before.last_ns:
                raise InvalidArgument(
                    f"{kind}_after ({after.text}) is later than {kind}_before ({before.text}): no document is both"
                )
        types = normalise_types(file_types) if file_types is not None else None
        return cls(types, **bounds)

    def describe(self) -> str:
        """`of type .pdf or .eml, modified on or after 2023-01-01, dated before 2022`."""
        parts = []
        if self.file_types:
            parts.append("of type " + " or ".join(self.file_types))
        for kind, after, before in (
            ("modified", self.modified_after, self.modified_before),
            ("dated", self.dated_after, self.dated_before),
        ):
            if after and before:
                parts.append(f"{kind} {after.text} to {before.text}")
            elif after:
                parts.append(f"{kind} {after.text} or later")
            elif before:
                parts.append(f"{kind} {before.text} or earlier")
        return ", ".join(parts)

    def call_args(self) -> str:
        """The filters as a call writes them, for the calls an answer names (the next page)."""
        args = []
        if self.file_types:
            args.append("file_types=[" + ", ".join(f'"{t[1:]}"' for t in self.file_types) + "]")
        for name in ("modified_after", "modified_before", "dated_after", "dated_before"):
            if (bound := getattr(self, name)) is not None:
                args.append(f'{name}="{bound.text}"')
        return ", ".join(args)

    def apply(self, docs: list[DocumentRow], where: str) -> list[DocumentRow]:
        """The documents that pass every filter, in their order. None passing is an error that
        says which filter left none and what the documents it was given have (`where`: "here",
        "under reports/")."""
        kept = docs
        said = ""
        if self.file_types:
            types = " or ".join(self.file_types)
            given, kept = kept, [d for d in kept if Path(d.relpath).suffix.lower() in self.file_types]
            if not kept:
                raise NotFound(f"no document {where} is of type {types}: {_types(given, where)}")
            said = f" of type {types}"
        if self.modified_after or self.modified_before:
            first = self.modified_after.first_ns if self.modified_after else None
            last = self.modified_before.last_ns if self.modified_before else None
            given, kept = kept, [d for d in kept if d.mtime_ns is not None and _within(d.mtime_ns, first, last)]
            if not kept:
                bounds = _bounds_said(self.modified_after, self.modified_before)
                raise NotFound(f"no document {where}{said} was modified {bounds}: {_modified(given)}")
            said += " modified " + _bounds_said(self.modified_after, self.modified_before)
        if self.dated_after or self.dated_before:
            given, kept = kept, [d for d in kept if self._dated_within(d)]
            if not kept:
                bounds = _bounds_said(self.dated_after, self.dated_before)
                raise NotFound(f"no document {where}{said} is dated {bounds}: {_dated(given)}")
        return kept

    def _dated_within(self, doc: DocumentRow) -> bool:
        """Its own date lies wholly within the bounds (one that states none does not)."""
        span = date_range(doc.detail)
        if span is None:
            return False
        first = self.dated_after.first_day if self.dated_after else None
        last = self.dated_before.last_day if self.dated_before else None
        return _within(span[0], first, None) and _within(span[1], None, last)


def _within(value: T, first: T | None, last: T | None) -> bool:
    return (first is None or value >= first) and (last is None or value <= last)


def _bounds_said(after: Bound | None, before: Bound | None) -> str:
    if after and before:
        return f"from {after.text} to {before.text}"
    return f"on or after {after.text}" if after else f"on or before {before.text}" if before else ""


def _types(docs: list[DocumentRow], where: str) -> str:
    """`the documents here are of type .md (3), .pdf (2)`."""
    if not docs:
        return f"there is no document {where}"
    counts = Counter(Path(d.relpath).suffix.lower() or "(no extension)" for d in docs)
    shown = ", ".join(f"{t} ({n:,})" for t, n in counts.most_common(TYPES_SHOWN))
    more = f" and {len(counts) - TYPES_SHOWN} more" if len(counts) > TYPES_SHOWN else ""
    return f"the documents {where} are of type {shown}{more}"


def _modified(docs: list[DocumentRow]) -> str:
    """`their files were modified from 2023-01-04 09:12 to 2024-02-01 17:40`."""
    times = sorted(d.mtime_ns for d in docs if d.mtime_ns is not None)
    if not times:
        return "none of them is indexed yet, so when their files were modified is not known"
    first, last = (datetime.fromtimestamp(t / 1e9).strftime("%Y-%m-%d %H:%M") for t in (times[0], times[-1]))
    if first == last:
        return f"{'its file was' if len(times) == 1 else 'their files were all'} modified at {first} (local time)"
    return f"their files were modified from {first} to {last} (local time)"


def _dated(docs: list[DocumentRow]) -> str:
    """`their own dates run from "March 4, 2021" to "2023" (2 state none)`: a document's date
    must lie wholly within the bounds."""
    spans = sorted((span, d.detail or "") for d in docs if (span := date_range(d.detail)) is not None)
    if not spans:
        return f"none of the {len(docs):,} states a date of its own"
    latest = max(spans, key=lambda s: s[0][1])[1]
    none = len(docs) - len(spans)
    unstated = f" ({none:,} {'states' if none == 1 else 'state'} none)" if none else ""
    stated = f'run from "{spans[0][1]}" to "{latest}"' if latest != spans[0][1] else f'are all "{latest}"'
    return f"their own dates {stated}{unstated}, and must lie wholly within the bounds"
