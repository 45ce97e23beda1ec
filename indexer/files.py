"""Which files in a served folder are documents, and the names they are known by.

Hidden, temporary and lock files are never indexed; a file name that is not valid
UTF-8 is kept with `\\xNN` escapes; links are followed to where they lead.
"""

from __future__ import annotations

import os
from pathlib import Path

from indexer.errors import InvalidArgument
from indexer.parse import is_supported

# Names editors, office suites and browsers give to temporary and lock files.
_TEMP_PREFIXES = ("~$", ".#", ".~lock.")
_TEMP_SUFFIXES = (".swp", ".swo", ".tmp", ".temp", ".part", ".crdownload", ".download", "~", ".bak")


def is_indexable(path: Path) -> bool:
    """A supported extension and not a hidden, temporary or lock file."""
    name = path.name
    if name.startswith(".") or name.startswith(_TEMP_PREFIXES) or name.endswith(_TEMP_SUFFIXES):
        return False
    return is_supported(path)


def relative_key(path: Path, root: Path) -> str:
    """The relpath a document is known by. A file name that is not valid UTF-8 (Python holds its
    bad bytes as surrogates, which SQLite refuses) is written with `\\xff` escapes."""
    relpath = path.relative_to(root).as_posix()
    try:
        relpath.encode("utf-8")
    except UnicodeEncodeError:
        relpath = relpath.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return relpath


def real_path(path: Path) -> Path:
    """Where links lead; never raises (a link loop resolves to itself, and fails when read)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return path


def title_from_name(path: Path) -> str:
    """A document's title when nothing in it names one: its file name, readable."""
    return path.stem.replace("_", " ").strip() or path.name


def check_roots(roots: list[Path]) -> list[Path]:
    """Each root once, resolved (events name real paths); a root inside another would index
    its files twice, under two names, and is refused."""
    resolved = list(dict.fromkeys(r.expanduser().resolve() for r in roots))
    for root in resolved:
        for other in resolved:
            if other != root and other.is_relative_to(root):
                raise InvalidArgument(f"folder {other} is inside {root}, which is served already: serve {root} alone")
    return resolved


def root_labels(roots: list[Path]) -> dict[str, str]:
    """Per root, the shortest tail of its path that no other root shares ("notes", or
    "work/notes" beside "home/notes")."""
    labels: dict[str, str] = {}
    for root in roots:
        for n in range(1, len(root.parts) + 1):
            tail = Path(*root.parts[-n:]).as_posix()
            if not any(other != root and Path(*other.parts[-n:]).as_posix() == tail for other in roots):
                break
        labels[str(root)] = tail.lstrip("/") or str(root)
    return labels
