"""What a person keeps out of the index: a `.deepreadignore` at a served folder's root, and the
exclude and include patterns of the settings (for a folder they cannot write into).

Both are gitignore patterns, matched by pathspec's `GitIgnoreSpec` (git's own rules: `build/`
is a folder anywhere, `/build/` only at the root, `!keep.md` takes one back, `**` crosses
folders) against paths relative to the served folder. A folder that matches is not walked
into; a file that matches is not parsed. Include patterns keep only the files they match (a
folder is never left out for not matching them: files under it may). The file is read again
whenever the folder is walked whole; `Rules.changed` tells a file event that it changed, so the
change is applied by a reconcile (`indexer.ingest.reconcile`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from pathspec import GitIgnoreSpec

from indexer.errors import EXCLUDE_PATTERNS, INCLUDE_PATTERNS

log = logging.getLogger(__name__)

IGNORE_FILE = ".deepreadignore"
MAX_IGNORE_BYTES = 1_000_000  # an ignore file is a few lines; a larger one is read this far
INCLUDE_SHOWN = 3  # a reason names this many include patterns


def _spec(lines: Iterable[str]) -> GitIgnoreSpec:
    return GitIgnoreSpec.from_lines([line.rstrip("\r") for line in lines])


def _matched(spec: GitIgnoreSpec, relpath: str) -> str | None:
    """The pattern that leaves `relpath` out (its last match, a `!` one taking it back), or None."""
    if not spec.patterns:
        return None
    result = spec.check_file(relpath)
    if not result.include or result.index is None:
        return None
    return str(spec.patterns[result.index].pattern).strip()


class Rules:
    """The patterns that keep paths of the served roots out of the index, and why."""

    def __init__(self, roots: list[Path], exclude: Iterable[str] = (), include: Iterable[str] = ()):
        self.roots = roots
        self.exclude = [p for p in exclude if p.strip()]
        self.include = [p for p in include if p.strip()]
        self._exclude = _spec(self.exclude)
        self._include = _spec(self.include)
        self._ignore: dict[Path, tuple[str | None, GitIgnoreSpec]] = {}  # root → (the file's text, its spec)
        for root in roots:
            self.load(root)

    @staticmethod
    def _read(root: Path) -> str | None:
        """The ignore file's text; None when there is none (or it cannot be read: then it is said once)."""
        path = root / IGNORE_FILE
        try:
            with path.open("rb") as f:
                return f.read(MAX_IGNORE_BYTES).decode("utf-8", "replace")
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("cannot read %s (%s): its patterns are not applied", path, exc.strerror or exc)
            return None

    def load(self, root: Path) -> bool:
        """Read `root`'s ignore file again; True when its patterns changed."""
        text = self._read(root)
        before = self._ignore.get(root)
        if before is not None and before[0] == text:
            return False
        self._ignore[root] = (text, _spec((text or "").splitlines()))
        return before is not None

    def changed(self, root: Path) -> bool:
        """Whether `root`'s ignore file differs from the patterns applied (read, not loaded)."""
        applied = self._ignore.get(root)
        return applied is None or applied[0] != self._read(root)

    def why(self, root: Path, relpath: str, is_dir: bool = False) -> str | None:
        """Why this path (a file, or a folder when `is_dir`) is kept out; None when it is not.
        (`why_under` says which of its folders it is, when one is.)"""
        key = relpath + "/" if is_dir else relpath
        ignored = self._ignore.get(root)
        if ignored is not None and (pattern := _matched(ignored[1], key)):
            return f"ignored by {IGNORE_FILE}: {pattern}"
        if pattern := _matched(self._exclude, key):
            return f"excluded by {EXCLUDE_PATTERNS}: {pattern}"
        if not is_dir and self.include and not self._include.match_file(relpath):
            shown = ", ".join(self.include[:INCLUDE_SHOWN]) + (", …" if len(self.include) > INCLUDE_SHOWN else "")
            return f"not matched by {INCLUDE_PATTERNS}: {shown}"
        return None

    def why_under(self, root: Path, relpath: str, is_dir: bool = False) -> tuple[str, str] | None:
        """The first of a path's folders kept out, or the path itself: (its relpath, ending in "/"
        for a folder, and why); None when nothing keeps it out."""
        parts = relpath.split("/")
        for n in range(1, len(parts)):
            folder = "/".join(parts[:n])
            if reason := self.why(root, folder, is_dir=True):
                return folder + "/", reason
        reason = self.why(root, relpath, is_dir)
        return (relpath + ("/" if is_dir else ""), reason) if reason else None
