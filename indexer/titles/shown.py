"""Titles as the map shows them: what tells each document from its neighbours in the folder.

A title comes from the document (`indexer.titles.first_page`); two documents may still read alike
(three 10-Qs whose covers name no period the parse found, two editions of a manual). When
several different documents share a title, each gets what tells it apart: the period, date or
version the document states (its `detail`), or else its file's name. Copies of one file (the
same content) keep one title: they are the same document. A title that is the file's name says
so, since a host cannot tell `doc-575ca5a7` from a title otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Protocol

NAMED_BY_FILE = " (file name)"


class Titled(Protocol):
    doc_id: int
    title: str | None
    detail: str | None  # the period, date or version the document states, when its title lacks it
    named_by_file: int  # 1 (true): nothing in the document names it
    content_hash: str | None
    relpath: str


def _key(title: str) -> str:
    return " ".join(re.findall(r"\w+", title.lower()))


def shown_titles(docs: Iterable[Titled]) -> dict[int, str]:
    """`doc_id` → the title the map shows for each of `docs` (the documents of one folder)."""
    groups: dict[str, list[Titled]] = {}
    for doc in docs:
        groups.setdefault(_key(doc.title or doc.relpath), []).append(doc)
    shown: dict[int, str] = {}
    for group in groups.values():
        alike = len(group) > 1 and len({d.content_hash for d in group}) > 1
        details = [_key(d.detail) for d in group if d.detail]
        tails = _short_paths([d.relpath for d in group])
        for doc in group:
            title = doc.title or PurePosixPath(doc.relpath).stem
            where = tails[doc.relpath]
            if doc.named_by_file:
                title = (where if alike else title) + NAMED_BY_FILE
            elif alike and doc.detail and details.count(_key(doc.detail)) == 1 and _key(doc.detail) not in _key(title):
                title += f" ({doc.detail})"
            elif alike:
                title += f" ({where})"
            shown[doc.doc_id] = title
    return shown


def repeats_path(title: str, path: str) -> bool:
    """A title that is only the file's name, which the document's path already shows: the map of a
    folder leaves it out of the document's line."""
    return title.endswith(NAMED_BY_FILE) and title[: -len(NAMED_BY_FILE)] in path


class _Listed(Titled, Protocol):
    @property
    def readable(self) -> bool: ...


def folder_titles(everything: Iterable[_Listed]) -> dict[int, str]:
    """`shown_titles` of a folder's readable documents; `everything` is all of the folder's
    documents, since what tells a title apart depends on every other."""
    return shown_titles(d for d in everything if d.readable)


def _short_paths(paths: list[str]) -> dict[str, str]:
    """Each path's shortest tail that no other path of `paths` ends with: the file's name, or
    `tutorial/middleware.md` beside `reference/middleware.md`."""
    parts = {p: PurePosixPath(p).parts for p in paths}
    tails = {}
    for path, mine in parts.items():
        for n in range(1, len(mine) + 1):
            tail = mine[-n:]
            if not any(other != path and theirs[-n:] == tail for other, theirs in parts.items()):
                break
        tails[path] = "/".join(tail)
    return tails
