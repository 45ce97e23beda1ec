"""Which files in a served folder are documents, and the names they are known by.

Hidden, temporary and lock files are never indexed; a file name that is not valid
UTF-8 is kept with `\\xNN` escapes; links are followed to where they lead. `Folders`
walks the served roots for them, and keeps what it passed over that a user would look for
(`skipped`: a file of a type it does not read, a folder it may not open, a link out of the
served folder, a file or folder a person kept out: `indexer.ingest.rules`), so that the map can
say "not indexed, and why" rather than nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from indexer.errors import InvalidArgument
from indexer.ingest.rules import Rules
from indexer.parse.formats import is_supported, not_read

# Names editors, office suites and browsers give to temporary and lock files.
_TEMP_PREFIXES = ("~$", ".#", ".~lock.")
_TEMP_SUFFIXES = (".swp", ".swo", ".tmp", ".temp", ".part", ".crdownload", ".download", "~", ".bak")


def is_scratch(path: Path) -> bool:
    """A hidden, temporary or lock file: passed over without a word."""
    name = path.name
    return name.startswith(".") or name.startswith(_TEMP_PREFIXES) or name.endswith(_TEMP_SUFFIXES)


def is_indexable(path: Path) -> bool:
    """A supported extension and not a hidden, temporary or lock file."""
    return not is_scratch(path) and is_supported(path)


def unsupported(path: Path) -> str:
    return not_read(path)


OUTSIDE = "a link to outside the served folder: not followed"


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


def check_roots(roots: list[Path]) -> list[Path]:
    """Each root once, resolved (events name real paths); a root inside another would index
    its files twice, under two names, and is refused."""
    resolved = list(dict.fromkeys(r.expanduser().resolve() for r in roots))
    for root in resolved:
        for other in resolved:
            if other != root and other.is_relative_to(root):
                raise InvalidArgument(f"folder {other} is inside {root}, which is served already: serve {root} alone")
    return resolved


class Folders:
    """The served roots: which of their files are documents, and which root a path is under.

    Roots are resolved; `excluded` folders (the data dir) are never looked into; `exclude` and
    `include` are the settings' patterns, applied with each root's ignore file (`rules`)."""

    def __init__(
        self,
        roots: list[Path],
        excluded: list[Path] | None = None,
        exclude: Iterable[str] = (),
        include: Iterable[str] = (),
    ):
        self.roots = [r.resolve() for r in roots]
        self.excluded = [e.resolve() for e in excluded or []]
        self.rules = Rules(self.roots, exclude, include)
        self.skipped: dict[tuple[str, str], str] = {}  # (root, relpath) → why it is not indexed

    def scan(self) -> dict[tuple[str, str], Path]:
        """Every indexable file under the roots, as `(root, relpath) → path`.

        Hidden folders and excluded ones (the data dir) are skipped, and what a root's ignore
        file or the settings keep out (read again first); symbolic links are followed only when
        they stay inside their root, and a link to a file that is indexed under its own name is
        skipped (one document, not two).
        """
        found: dict[tuple[str, str], Path] = {}
        self.skipped = {}
        for root in self.roots:
            self.rules.load(root)
            found.update(self.scan_dir(root, root))
        return dict(sorted(found.items()))  # new files get ids in path order

    def scan_dir(self, root: Path, top: Path) -> dict[tuple[str, str], Path]:
        """The documents under `top`; what it passes over replaces `skipped` under `top`."""
        found: dict[tuple[str, str], Path] = {}
        self._drop_under(str(root), "" if top == root else relative_key(top, root) + "/")
        if top != root and (kept_out := self.rules.why_under(root, relative_key(top, root), is_dir=True)):
            self.skipped[(str(root), kept_out[0])] = kept_out[1]  # the folder, or the one it lies in
            return found

        def unreadable(error: OSError) -> None:
            if error.filename and Path(error.filename) != root:
                key = (str(root), relative_key(Path(error.filename), root) + "/")
                self.skipped[key] = f"cannot open folder: {error.strerror or error}"

        for dirpath, dirnames, filenames in os.walk(top, onerror=unreadable, followlinks=False):
            here = Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not self.is_excluded(here / d))
            for name in list(dirnames):  # a folder kept out is named, and not walked into
                relpath = relative_key(here / name, root)
                if reason := self.rules.why(root, relpath, is_dir=True):
                    self.skipped[(str(root), relpath + "/")] = reason
                    dirnames.remove(name)
            for name in sorted(filenames):
                path = here / name
                if is_scratch(path):
                    continue
                if reason := self.rules.why(root, relative_key(path, root)):
                    self.skipped[(str(root), relative_key(path, root))] = reason
                elif is_indexable(path) and self.within_root(path, root):
                    if not self.is_duplicate_link(path, root):
                        found[(str(root), relative_key(path, root))] = path
                elif reason := self.skip_reason(path, root):
                    self.skipped[(str(root), relative_key(path, root))] = reason
        return found

    def skip_reason(self, path: Path, root: Path) -> str | None:
        """Why a file a user may look for is not a document (None: it is one, or it is scratch)."""
        if is_scratch(path) or self.is_excluded(path):
            return None
        if kept_out := self.rules.why_under(root, relative_key(path, root)):
            return kept_out[1]
        if not is_supported(path):
            return unsupported(path)
        return None if self.within_root(path, root) else OUTSIDE

    def note(self, path: Path, root: Path) -> None:
        """Keep `skipped` right for one path a file event names (a file, or one that is gone)."""
        key = (str(root), relative_key(path, root))
        if (kept_out := self.rules.why_under(root, key[1])) and kept_out[0] != key[1]:
            self.skipped.pop(key, None)  # in a folder kept out: that folder is named, not each file
            if path.parent.exists():
                self.skipped[(key[0], kept_out[0])] = kept_out[1]
        elif path.exists() or path.is_symlink():
            if reason := self.skip_reason(path, root):
                self.skipped[key] = reason
            else:
                self.skipped.pop(key, None)
        else:  # gone, and whatever was under it if it was a folder
            self.skipped.pop(key, None)
            self._drop_under(key[0], key[1] + "/")

    def _drop_under(self, root: str, prefix: str) -> None:
        """Forget what was skipped in `root` at relative paths starting with `prefix`."""
        self.skipped = {k: v for k, v in self.skipped.items() if not (k[0] == root and k[1].startswith(prefix))}

    def within_root(self, path: Path, root: Path) -> bool:
        return real_path(path).is_relative_to(root)

    def is_duplicate_link(self, path: Path, root: Path) -> bool:
        """A symbolic link to a file of the same root that is indexed under its own name."""
        if not path.is_symlink():
            return False
        target = real_path(path)
        if target == path or not target.is_relative_to(root) or not is_indexable(target):
            return False
        hidden = any(part.startswith(".") for part in target.relative_to(root).parts)
        try:
            regular = target.is_file() and not target.is_symlink()
        except OSError:
            return False
        kept_out = self.rules.why_under(root, relative_key(target, root)) is not None
        return regular and not hidden and not kept_out and not self.is_excluded(target)

    def is_excluded(self, path: Path) -> bool:
        return any(path == e or e in path.parents for e in self.excluded) or real_path(path) in self.excluded

    def root_of(self, path: Path) -> Path | None:
        """The served root a path lies under (lexically: links are judged when indexing)."""
        for root in self.roots:
            if path == root or root in path.parents:
                if any(part.startswith(".") for part in path.relative_to(root).parts) or self.is_excluded(path):
                    return None
                return root
        return None

    def is_document(self, path: Path, root: Path) -> bool:
        """A file event's path (not a folder) that is a document of `root`, or a link that stands for one."""
        return (
            (path.exists() or path.is_symlink())
            and is_indexable(path)
            and self.within_root(path, root)
            and not self.is_excluded(path)
            and self.rules.why_under(root, relative_key(path, root)) is None
            and not self.is_duplicate_link(path, root)
        )
