"""SQLite connections whose errors say what they mean for the index.

Every statement of the store and of the vectors' copy runs on one of these, also the reading of
its rows: a damaged file is `IndexDamaged` (told to `on_damage` first, wherever it was met, so
the writer can rebuild it: `indexer.store.repair`), a failure to write `CannotWrite`
(`indexer.store.space`); anything else is SQLite's own error.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator, Sized
from pathlib import Path
from typing import Any, TypeVar

from indexer.errors import DeepreadError, IndexDamaged
from indexer.store.health import is_damage
from indexer.store.space import write_failure

T = TypeVar("T")


def connect(path: Path, on_damage: Callable[[IndexDamaged], None]) -> sqlite3.Connection:
    """A connection whose errors say what they mean for the index (`_Connection`)."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30, factory=_Connection)
    assert isinstance(db, _Connection)
    db.path, db.on_damage = path, on_damage
    return db


def marks(values: Sized) -> str:
    """The placeholders of an `IN (…)` list for these values: `?,?,?`."""
    return ",".join("?" * len(values))


@contextlib.contextmanager
def atomic(db: sqlite3.Connection, begin: str = "BEGIN") -> Iterator[sqlite3.Connection]:
    """One atomic write (the caller holds its lock). One that fails (a full disk) leaves no
    transaction open, so the next write, once there is space, starts clean."""
    db.execute(begin)
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # SQLite rolls back by itself after some errors (a full disk)
            with contextlib.suppress(sqlite3.Error, DeepreadError):
                db.execute("ROLLBACK")
        raise


class _Connection(sqlite3.Connection):
    """Errors of every statement, also those met while reading its rows, in the index's terms:
    a damaged file is `IndexDamaged` (told to `on_damage` first), a failure to write `CannotWrite`."""

    path: Path
    on_damage: Callable[[IndexDamaged], None]

    def cursor(self, factory: Any = None) -> Any:
        return super().cursor(factory or _Cursor)

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        return self.cursor().executemany(sql, parameters)

    def executescript(self, script: str, /) -> Any:
        return self.cursor().executescript(script)

    def said(self, exc: sqlite3.Error) -> Exception:
        if is_damage(exc):
            damaged = IndexDamaged(
                f"the index file {self.path.name} is damaged ({exc}): it is set aside and rebuilt from the folder "
                "by the process that writes the index; ask again shortly",
                self.path.name,
                str(exc),
            )
            self.on_damage(damaged)
            return damaged
        return write_failure(exc, self.path) or exc


class _Cursor(sqlite3.Cursor):
    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return _guarded(self, lambda: sqlite3.Cursor.execute(self, sql, parameters))

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        return _guarded(self, lambda: sqlite3.Cursor.executemany(self, sql, parameters))

    def executescript(self, script: str, /) -> Any:
        return _guarded(self, lambda: sqlite3.Cursor.executescript(self, script))

    def fetchone(self) -> Any:
        return _guarded(self, lambda: sqlite3.Cursor.fetchone(self))

    def fetchall(self) -> list[Any]:
        return _guarded(self, lambda: sqlite3.Cursor.fetchall(self))

    def __next__(self) -> Any:
        return _guarded(self, lambda: sqlite3.Cursor.__next__(self))


def _guarded(cursor: sqlite3.Cursor, call: Callable[[], T]) -> T:
    try:
        return call()
    except sqlite3.Error as exc:
        connection = cursor.connection
        said = connection.said(exc) if isinstance(connection, _Connection) else exc
        if said is exc:
            raise
        raise said from exc
