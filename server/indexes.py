"""Which index a query command (`toc`, `search`, `read`) answers from.

The folders it names, else `DEEPREAD_FOLDERS`, else the one set of folders indexed here (in the
user data dir, one index per set: `Settings.index_dir`; or the one in `--data-dir`). A query
never indexes a folder no index covers: it says which command would, and stops.
"""

from __future__ import annotations

from pathlib import Path

from indexer.ingest.covered import index_folders
from server.cli_text import Scope
from server.settings import Settings, folder_problem


def indexed_sets(settings: Settings) -> list[list[Path]]:
    """The sets of folders with an index here: in `--data-dir` when given, else in the user data dir."""
    if settings.data_dir is not None:
        found = index_folders(settings.index_dir())
        return [found] if found else []
    base = settings.base_dir() / "indexes"
    sets = [index_folders(d) for d in sorted(base.iterdir())] if base.is_dir() else []
    return [s for s in sets if s]


def choose(settings: Settings, command: str, scope: Scope) -> Settings | str:
    """`settings` with the folders a query answers from, or why there are none (the message
    names the indexed folders and the command that indexes one)."""
    if not settings.folder_paths():
        sets = indexed_sets(settings)
        if len(sets) != 1:
            return _which(sets, command, scope)
        settings = settings.model_copy(update={"folders": [str(f) for f in sets[0]]})
    folders = settings.folder_paths()
    if problem := folder_problem(folders):
        return problem
    covered = index_folders(settings.index_dir())
    if covered is None and (settings.index_dir() / "index.sqlite3").is_file():
        covered = folders  # an index that cannot be read (damaged): opening it makes it again
    # One index per set of folders in the user data dir; a --data-dir may hold another set's.
    if covered is None or (settings.data_dir is not None and set(covered) != set(folders)):
        named = " and ".join(str(f) for f in folders)
        return f"{named} {'is' if len(folders) == 1 else 'are'} not indexed yet: run `{scope.command('index')}`"
    return settings


def _which(sets: list[list[Path]], command: str, scope: Scope) -> str:
    where = " in --data-dir" if scope.options and "--data-dir" in scope.options else ""
    if not sets:
        return (
            f"no folder is indexed yet{where}: run `{scope.command('index', 'FOLDER')}`, "
            f"then `{scope.command(command, 'FOLDER')}`"
        )
    listed = "\n".join("  " + "  ".join(str(f) for f in folders) for folders in sets)
    return (
        f"which folder? {len(sets)} are indexed; name one (`{scope.command(command, 'FOLDER')}`) "
        f"or set DEEPREAD_FOLDERS:\n{listed}\nto index another: `{scope.command('index', 'FOLDER')}`"
    )
