"""The map of many documents, one line each in pages of a fixed size, and the folders a host
may name (`get_toc(path=...)`, `retrieve(path=...)`): how a path is written, what lies under it.
"""

from __future__ import annotations

from collections.abc import Callable

from indexer.store.database import DocumentRow
from indexer.tokens import count_tokens, shorten

NOTES = 200  # the answer's notes (indexing progress, semantic catch-up, what was cut); kept free on every page

COMPACT_LINE = 24  # (id) path — title | N pages | N tokens | vectors pending | N warnings, beyond path and title
COMPACT_PATH = 24  # a path in a compact line is cut to this many tokens (its end kept: the file name)
COMPACT_TITLE = 20
FOLDER_LINE = 16  # FOLDER/ — N documents, N pages: get_toc(path="FOLDER/"), beyond the name (twice)
FOLDERS_SHARE = 4  # page 1 gives the sub-folders at most this share of the budget


def page_sizes(token_budget: int, spent: int) -> tuple[int, int]:
    """Documents on page 1 (whose folders, files still indexing and failed files took `spent`)
    and on each later page of a compact map: fixed by the budget, not by the titles, so the
    pages stay put while nothing is added, removed or failing."""
    line = COMPACT_LINE + COMPACT_PATH + COMPACT_TITLE
    body = token_budget - NOTES
    return max((body - spent) // line, 1), max(body // line, 1)


def compact_cost(path: str, title: str) -> int:
    return COMPACT_LINE + count_tokens(shorten_path(path, COMPACT_PATH)) + count_tokens(compact_title(title))


def compact_title(title: str, budget: int = COMPACT_TITLE) -> str:
    """A title cut to `budget` tokens in its first part, so what tells it from its neighbours
    stays: the issuer is cut in `ACME WATER WORKS COMPANY, INC. — Form 10-K, fiscal year ended
    December 31, 2020`, the title before `(quarter ended March 31, 2021)` or `(file name)`."""
    if count_tokens(title) <= budget:
        return title
    head, sep, tail = title.rpartition(" (") if title.endswith(")") else title.partition(" — ")
    if sep and tail and count_tokens(sep + tail) + 4 <= budget:
        cut = shorten(head, budget - count_tokens(sep + tail) - 1) + sep + tail  # tokens do not add up exactly
        if count_tokens(cut) <= budget:
            return cut
    return shorten(title, budget)


def shorten_path(path: str, budget: int) -> str:
    """A path cut to `budget` tokens from its start, so the file name stays: `…/2023/q4/memo.md`."""
    if count_tokens(path) <= budget:
        return path
    parts = path.split("/")
    while len(parts) > 1 and count_tokens("…/" + "/".join(parts)) > budget:
        parts.pop(0)
    return shorten("…/" + "/".join(parts), budget)


def normalise_folder(path: str | None) -> str | None:
    """A path prefix as the host may write it (`reports`, `./reports/`, `/reports`): `reports/`;
    None or "" for the whole folder. A file's path is kept as it is."""
    if path is None:
        return None
    cleaned = "/".join(part for part in path.strip().replace("\\", "/").split("/") if part not in ("", "."))
    return cleaned or None


def in_folder(
    docs: list[DocumentRow], display_path: Callable[[DocumentRow], str], path: str | None
) -> list[DocumentRow]:
    """The documents whose shown path is `path` or lies under it (a folder, or a served root)."""
    if path is None:
        return docs
    return [d for d in docs if (shown := display_path(d)) == path or shown.startswith(path + "/")]


def subfolders(
    ready: list[DocumentRow], display_path: Callable[[DocumentRow], str], path: str | None
) -> dict[str, tuple[int, int]]:
    """The folders right under `path` with their documents (at any depth) and pages, by name."""
    counts: dict[str, list[int]] = {}
    skip = len(path) + 1 if path else 0
    for d in ready:
        rest = display_path(d)[skip:]
        if "/" in rest:
            name = (path + "/" if path else "") + rest.split("/", 1)[0] + "/"
            entry = counts.setdefault(name, [0, 0])
            entry[0] += 1
            entry[1] += d.n_pages or 0
    return {name: (n, pages) for name, (n, pages) in sorted(counts.items())}


def scope(path: str | None) -> str:
    return f"the map of {path}/" if path else "the map"


def path_arg(path: str | None, *more: str) -> str:
    return ", ".join(([f'path="{path}/"'] if path else []) + list(more))
