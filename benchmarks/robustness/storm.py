"""Many hosts, one folder, under faults: servers killed -9 while the folder changes, until it settles.

    python -m benchmarks.robustness.storm [--minutes 10] [--servers 4] [--kill-every 5]
        [--writer-share 0.75] [--change-every 0.7] [--files 200] [--settle-limit 600] [--work DIR]
        [--out benchmarks/results/storm.md]

`--servers` stdio servers (`python -m server serve FOLDER --data-dir DATA`, each talked to with the
official MCP client) share one folder of generated Markdown files and one index: the first to open
it writes, the others read it and take over writing when the writer dies. Every `--kill-every`
seconds one of them is killed with SIGKILL (the writer `--writer-share` of the time, a reader
otherwise) and started again at once; every `--change-every` seconds a file is added, overwritten
(with new words, or with another file's bytes: a copy, which the map lists on its document's
line), renamed (to a new name, or over another file) or deleted, written at once, in two halves
or by a rename from a temporary file; every server answers `get_toc` and `retrieve` throughout.

After `--minutes` the changes and kills stop. Reported: the kills (of the writer), the take-overs
(a server that became the writer), the changes, the time from the last change until the index
(read directly) holds every file's newest bytes with nothing pending and every vector in, and every
server's map lists every file (a copy on its document's line); then what is missing, stale, extra,
failed or damaged: each file searched for by its newest words on every server and with the CLI
(`toc` and `search`), and words of deleted or overwritten versions, which nothing may find.
Each server's log is kept in `--work` (a temporary folder by default) as `server-N.log`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from benchmarks import common

MARK = "STORM_SERVER"  # in each server's environment: which start of which server it is
FOLDERS = ("", "notes/", "notes/old/", "shared/")
WORDS = "river otter heron marsh willow stone bridge lantern harbour meadow orchard cedar falcon tide".split()
MAX_GROUP = 4  # files with the same bytes at most: a document's line names its first three copies
CONSONANTS, VOWELS = "bdfgklmnprstvz", "aeiou"


def token(n: int) -> str:
    """A word of letters only that no other version of any file holds ("zybakodefa"): a keyword
    search for it finds that version alone."""
    syllables = []
    for _ in range(4):
        syllables.append(CONSONANTS[n % 14] + VOWELS[(n // 14) % 5])
        n //= 70
    return "zy" + "".join(syllables)


@dataclass
class StormConfig:
    minutes: float = 10.0
    servers: int = 4
    kill_every: float = 5.0  # seconds between two kills
    writer_share: float = 0.75  # of the kills, the writer's
    change_every: float = 0.7  # seconds between two changes of the folder
    files: int = 200  # in the folder at first; it stays about this size
    settle_limit: float = 600.0  # seconds after the last change to wait for it to settle
    cli_searches: int | None = None  # files searched for with the CLI, the last changed first (None: every one)
    seed: int = 47


@dataclass
class Found:
    """What one server (or the CLI) answers once the folder settled."""

    who: str
    missing: list[str] = field(default_factory=list)  # files on disk its map does not list
    extra: list[str] = field(default_factory=list)  # paths its map lists that are not on disk
    pending: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)  # files a search for their newest words misses
    gone_found: list[str] = field(default_factory=list)  # words of deleted versions a search finds
    searched: int = 0

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.pending or self.failed or self.not_found or self.gone_found)

    def summary(self) -> str:
        if self.clean:
            return f"every file listed and found ({self.searched} searched), nothing deleted found"
        told = {k: v for k, v in vars(self).items() if isinstance(v, list) and v}
        return "; ".join(f"{k} {len(v)}: {', '.join(v[:5])}" for k, v in told.items())


@dataclass
class IndexState:
    """The index read directly, against the folder as it is."""

    missing: list[str] = field(default_factory=list)  # no row
    extra: list[str] = field(default_factory=list)  # a row, no file
    busy: list[str] = field(default_factory=list)  # pending or being indexed
    failed: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # a row of other bytes than the file's
    unembedded: list[str] = field(default_factory=list)  # readable, its vectors not all in

    @property
    def settled(self) -> bool:
        return not (self.missing or self.extra or self.busy or self.failed or self.stale or self.unembedded)

    def summary(self) -> str:
        parts = [f"{name} {len(v)}: {', '.join(sorted(v)[:5])}" for name, v in vars(self).items() if v]
        return "; ".join(parts) or "settled"


@dataclass
class StormReport:
    config: StormConfig
    commit: str = ""  # of the library that ran
    storm_s: float = 0.0
    kills: int = 0
    writer_kills: int = 0
    takeovers: int = 0  # servers that took over writing from one that died
    takeover_s: list[float] = field(default_factory=list)  # a kill of the writer → the next one writes
    changes: dict[str, int] = field(default_factory=dict)
    files: int = 0  # in the folder at the end
    queries: int = 0  # answered during the storm
    query_errors: list[str] = field(default_factory=list)  # tool errors during the storm (not a killed server)
    settle_s: float | None = None  # last change → settled (None: not within the limit)
    index: IndexState = field(default_factory=IndexState)  # at the end
    found: list[Found] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)
    unexpected_exits: list[str] = field(default_factory=list)  # a server that ended without being killed
    log_lines: dict[str, int] = field(default_factory=dict)  # errors and warnings of the servers' logs, by kind

    @property
    def clean(self) -> bool:
        return (
            self.settle_s is not None
            and self.index.settled
            and all(f.clean for f in self.found)
            and not self.damaged
            and not self.unexpected_exits
        )


# --- the folder ----------------------------------------------------------------------------


class Folder:
    """The served folder and what it should hold: every change is made here and remembered."""

    def __init__(self, root: Path, files: int, rnd: random.Random):
        self.root = root
        self.rnd = rnd
        self.target = files
        self.files: dict[str, str] = {}  # relpath → its text, as written last
        self.gone: list[str] = []  # words of versions no file holds any more
        self.touched: list[str] = []  # the paths written, in order
        self.counts: dict[str, int] = {}
        self._names = 0
        self._versions = 0

    def fill(self) -> None:
        for _ in range(self.target):
            path = self._new_path()
            self._write_now(path, self._text())

    def _text(self) -> str:
        self._versions += 1
        word = token(self._versions * 7919 % 4_900_000)  # spread: neighbouring versions share no syllables
        body = [" ".join(self.rnd.choice(WORDS) for _ in range(30)) + "." for _ in range(2)]
        return f"# Note {word}\n\nThe {word} entry: {body[0]}\n\n{body[1]}\n"

    def _new_path(self) -> str:
        self._names += 1
        return f"{self.rnd.choice(FOLDERS)}note-{self._names:05d}.md"

    def _write_now(self, relpath: str, text: str) -> None:
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self._set(relpath, text)

    def _set(self, relpath: str, text: str | None) -> None:
        old = self.files.pop(relpath, None)
        if text is not None:
            self.files[relpath] = text
            self.touched.append(relpath)
        if old is not None and old not in self.files.values():
            self.gone.append(word_of(old))

    def _group(self, text: str) -> int:
        return sum(t == text for t in self.files.values())

    async def _write(self, relpath: str, text: str) -> None:
        """At once, in two halves a moment apart (a slow save), or by a rename from a hidden file."""
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        how = self.rnd.random()
        if how < 0.5:
            path.write_text(text, encoding="utf-8")
        elif how < 0.75:
            data = text.encode()
            with path.open("wb") as f:
                f.write(data[: len(data) // 2])
                f.flush()
                await anyio.sleep(0.05)
                f.write(data[len(data) // 2 :])
        else:
            temporary = path.with_name(f".{path.name}.{self.rnd.randrange(10**6)}.tmp")
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, path)
        self._set(relpath, text)

    async def change(self) -> str:
        """One change of the folder; returns its kind."""
        n = len(self.files)
        kinds = ["add", "overwrite", "copy", "same", "rename", "rename-over", "delete"]
        weights = [2, 3, 1, 1, 1.5, 0.5, 2]
        if n < 0.9 * self.target:
            weights[0] += 4
        elif n > 1.1 * self.target:
            weights[-1] += 4
        kind = self.rnd.choices(kinds, weights)[0] if n > 2 else "add"
        paths = sorted(self.files)
        if kind == "add":
            await self._write(self._new_path(), self._text())
        elif kind == "overwrite":
            await self._write(self.rnd.choice(paths), self._text())
        elif kind in ("copy", "same"):  # a new file, or an existing one, with another file's bytes
            source = self.rnd.choice(paths)
            text = self.files[source]
            if self._group(text) >= MAX_GROUP:
                kind = "overwrite"
                await self._write(source, self._text())
            else:
                others = [p for p in paths if p != source and self.files[p] != text]
                target = self.rnd.choice(others) if kind == "same" and others else self._new_path()
                await self._write(target, text)
        elif kind in ("rename", "rename-over"):
            source = self.rnd.choice(paths)
            others = [p for p in paths if p != source]
            target = self.rnd.choice(others) if kind == "rename-over" else self._new_path()
            (self.root / target).parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.root / source, self.root / target)
            text = self.files[source]
            self.files.pop(source)
            self._set(target, text)
        else:
            path = self.rnd.choice(paths)
            (self.root / path).unlink()
            self._set(path, None)
        self.counts[kind] = self.counts.get(kind, 0) + 1
        return kind


def word_of(text: str) -> str:
    return text.split()[2]  # "# Note WORD"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- the index, read directly ---------------------------------------------------------------


def index_state(data: Path, root: Path, files: dict[str, str]) -> IndexState:
    """The index's rows against the folder's files: nothing missing, extra, busy, failed or stale."""
    state = IndexState()
    try:
        db = sqlite3.connect(f"file:{data / 'index.sqlite3'}?mode=ro", uri=True, timeout=10)
        try:
            db.row_factory = sqlite3.Row
            rows = db.execute(
                "SELECT doc_id, relpath, status, content_hash, copy_of, embedded, n_sections FROM documents"
                " WHERE root = ?",
                (str(root),),
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        state.busy.append(f"(index unreadable: {exc})")
        return state
    by_path = {r["relpath"]: r for r in rows}
    by_id = {r["doc_id"]: r for r in rows}
    state.extra = [p for p in by_path if p not in files]
    for relpath, text in files.items():
        row = by_path.get(relpath)
        if row is None:
            state.missing.append(relpath)
            continue
        if row["status"] in ("pending", "indexing"):
            state.busy.append(relpath)
            continue
        if row["status"] == "failed":
            state.failed.append(relpath)
            continue
        document = by_id.get(row["copy_of"]) if row["status"] == "copy" else row
        if document is None or document["status"] != "ready" or document["content_hash"] != sha(text):
            state.stale.append(relpath)
        elif row["status"] == "ready" and not row["embedded"]:
            state.unembedded.append(relpath)
    return state


def damaged_files(data: Path) -> list[str]:
    """Files of the index set aside as damaged, and SQLite files whose integrity check fails."""
    found = [p.name for p in data.rglob("*") if ".damaged-" in p.name]
    for name in ("index.sqlite3", "vectors.sqlite3"):
        try:
            db = sqlite3.connect(f"file:{data / name}?mode=ro", uri=True, timeout=30)
            try:
                result = db.execute("PRAGMA integrity_check").fetchone()[0]
            finally:
                db.close()
        except sqlite3.Error as exc:
            result = str(exc)
        if result != "ok":
            found.append(f"{name}: {result}")
    return found


# --- the servers ----------------------------------------------------------------------------


def children() -> dict[str, int]:
    """This process's children by the MARK in their environment."""
    found = {}
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if stat.rsplit(")", 1)[1].split()[1] != me:
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
        except (OSError, IndexError):
            continue
        for item in environ:
            if item.startswith(MARK.encode() + b"="):
                found[item.split(b"=", 1)[1].decode()] = int(entry.name)
    return found


class Server:
    """One server, started again at once each time it is killed, answering queries in a loop."""

    def __init__(self, number: int, folder: Path, data: Path, logs: Path, storm: Storm):
        self.number = number
        self.folder, self.data = folder, data
        self.log = logs / f"server-{number}.log"
        self.storm = storm
        self.starts = 0
        self.marker = ""
        self.client: Client | None = None
        self._scope: anyio.CancelScope | None = None
        self._killed = False
        self.stopping = False
        self.querying = True

    @property
    def pid(self) -> int | None:
        return children().get(self.marker) if self.marker else None

    def kill(self, pid: int) -> None:
        self._killed = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        if self._scope is not None:
            self._scope.cancel()

    async def run(self) -> None:
        while not self.stopping:
            self.starts += 1
            self.marker = f"{self.number}.{self.starts}.{os.getpid()}"
            self._killed = False
            env = {**os.environ, "DEEPREAD_LOG_LEVEL": "INFO", MARK: self.marker}
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "server", "serve", str(self.folder), "--data-dir", str(self.data)],
                env=env,
                cwd=str(common.REPO),
            )
            with self.log.open("a") as errlog, anyio.CancelScope() as scope:
                errlog.write(f"=== start {self.marker} at {time.strftime('%H:%M:%S')}\n")
                errlog.flush()
                self._scope = scope
                try:
                    async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
                        self.client = client
                        await self._queries(client)
                except Exception as exc:  # noqa: BLE001 (killed: the connection closes; else it failed, and is told)
                    if not self._killed and not self.stopping:
                        self.storm.report.unexpected_exits.append(f"server {self.number}: {exc!r}"[:300])
                finally:
                    self.client = None
                    self._scope = None

    async def _queries(self, client: Client) -> None:
        rnd = random.Random(self.number)
        while True:
            if self.querying and self.storm.folder.files:
                word = word_of(rnd.choice(list(self.storm.folder.files.values())))
                for name, arguments in (("get_toc", {"max_depth": 0}), ("retrieve", {"query": word, "top_k": 3})):
                    result = await client.call_tool(name, arguments)
                    self.storm.report.queries += 1
                    if result.is_error:
                        text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
                        self.storm.report.query_errors.append(f"server {self.number} {name}: {text}"[:300])
            await anyio.sleep(1.0)


def structured(result: Any) -> dict:
    if result.is_error:
        raise RuntimeError(result.content[0].text if result.content else "tool error")
    return result.structured_content


async def listing(client: Client) -> tuple[dict[str, set[str]], list[str], list[str]]:
    """A server's map, every page: doc_id → its paths (a copy's on its document's line), pending, failed."""
    docs: dict[str, set[str]] = {}
    pending: list[str] = []
    failed: list[str] = []
    page, pages = 1, 1
    short: list[str] = []
    while page <= pages:
        toc = structured(await client.call_tool("get_toc", {"max_depth": 0, "page": page}))
        pages = toc["n_pages"]
        for d in toc["documents"]:
            docs[str(d["doc_id"])] = {d["path"], *d["copies"]}
            if d["n_copies"] > len(d["copies"]):
                short.append(str(d["doc_id"]))
        pending += toc["pending"]
        failed += [f["path"] for f in toc["failed"]]
        page += 1
    for doc_id in short:  # a map in pages names no copies: the document's own map does
        toc = structured(await client.call_tool("get_toc", {"doc_id": int(doc_id), "max_depth": 0}))
        for d in toc["documents"]:
            docs[doc_id] |= set(d["copies"])
    return docs, pending, failed


def check(found: Found, docs: dict[str, set[str]], files: dict[str, str]) -> None:
    listed = {p for paths in docs.values() for p in paths}
    found.missing = sorted(set(files) - listed)
    found.extra = sorted(listed - set(files))


# --- the CLI ---------------------------------------------------------------------------------


def cli(folder: Path, data: Path, *args: str) -> str:
    """`python -m server COMMAND FOLDER --data-dir DATA …`'s output."""
    command, *rest = args
    done = subprocess.run(
        [sys.executable, "-m", "server", command, str(folder), *rest, "--data-dir", str(data)],
        cwd=common.REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {done.returncode}: {done.stderr[-500:]}")
    return done.stdout


DOC_LINE = re.compile(r"^\((\d+)\) (\S+)")
ALSO_AT = re.compile(r" \| also at (.+?)(?: \(\+\d+ more\))?(?: \| |$)")
HIT = re.compile(r"^(?:#\d+ score=\S+|  neighbour) \((\d+), \d+, \d+\)")


def cli_listing(folder: Path, data: Path, files: dict[str, str]) -> tuple[dict[str, set[str]], list[str], list[str]]:
    """The CLI's map (`toc`, every page; `toc --doc` for documents that have copies)."""
    docs: dict[str, set[str]] = {}
    pending: list[str] = []
    failed: list[str] = []
    page, more = 1, True
    while more:
        text = cli(folder, data, "toc", "--depth", "0", "--page", str(page))
        for line in text.splitlines():
            if m := DOC_LINE.match(line):
                docs[m[1]] = {m[2]}
                if also := ALSO_AT.search(line):
                    docs[m[1]] |= set(also[1].split(", "))
            elif line.startswith("Still indexing"):
                pending += line.split(": ", 1)[1].split(", ")
            elif line.startswith("Failed: "):
                failed.append(line.split(") ", 1)[1].split(" — ")[0])
        page += 1
        more = f"--page {page}" in text
    by_path = {p: doc_id for doc_id, paths in docs.items() for p in paths}
    texts = {t for t in files.values() if sum(u == t for u in files.values()) > 1}
    for text in texts:  # a map in pages names no copies: the document's own map does
        held = [by_path[p] for p, t in files.items() if t == text and p in by_path]
        for doc_id in set(held):
            for line in cli(folder, data, "toc", "--doc", doc_id, "--depth", "0").splitlines():
                if (m := DOC_LINE.match(line)) and (also := ALSO_AT.search(line)):
                    docs[m[1]] |= set(also[1].split(", "))
    return docs, pending, failed


# --- the storm -------------------------------------------------------------------------------


class Storm:
    def __init__(self, config: StormConfig, work: Path):
        self.config = config
        self.report = StormReport(config)
        self.rnd = random.Random(config.seed)
        self.root = (work / "docs").resolve()
        self.data = work / "data"
        self.logs = work
        self.root.mkdir(parents=True)
        self.folder = Folder(self.root, config.files, self.rnd)
        self.servers: list[Server] = []
        self.storming = True
        self.changes_done = anyio.Event()  # the last change written whole: the folder is as `folder.files` says
        self.last_change = time.monotonic()

    def writer_pid(self) -> int | None:
        try:
            return int((self.data / "owner.pid").read_text())
        except (OSError, ValueError):
            return None

    async def run(self) -> StormReport:
        self.report.commit = common.commit_stamp("indexer", "server")
        self.folder.fill()
        common.log(f"{len(self.folder.files)} files in {self.root}; starting {self.config.servers} servers")
        async with anyio.create_task_group() as tasks:
            self.servers = [Server(n, self.root, self.data, self.logs, self) for n in range(self.config.servers)]
            for server in self.servers:
                tasks.start_soon(server.run)
                await anyio.sleep(1.0)
            with anyio.fail_after(300):
                while not (self.settled_now() and all(s.client for s in self.servers)):
                    await anyio.sleep(1.0)
            common.log("indexed; the storm begins")
            started = time.monotonic()
            tasks.start_soon(self._changes)
            tasks.start_soon(self._kills, tasks)
            await anyio.sleep(self.config.minutes * 60)
            self.storming = False
            await self.changes_done.wait()  # a change under way (a save in two halves) ends first
            self.report.storm_s = time.monotonic() - started
            common.log(
                f"storm over: {self.report.kills} kills ({self.report.writer_kills} of the writer), "
                f"{sum(self.folder.counts.values())} changes; waiting for it to settle"
            )
            await self._settle()
            for server in self.servers:
                server.querying = False
            await self._verify()
            for server in self.servers:
                server.stopping = True
            tasks.cancel_scope.cancel()
        self.report.changes = dict(self.folder.counts)
        self.report.files = len(self.folder.files)
        self.report.takeovers = sum(s.read_text().count("took over writing the index") for s in self._logs())
        self.report.log_lines = log_lines(self._logs())
        self.report.damaged = damaged_files(self.data)
        return self.report

    def _logs(self) -> list[Path]:
        return [s.log for s in self.servers]

    def settled_now(self) -> bool:
        return index_state(self.data, self.root, self.folder.files).settled

    async def _changes(self) -> None:
        try:
            while self.storming:
                await self.folder.change()
                self.last_change = time.monotonic()
                await anyio.sleep(self.config.change_every)
        finally:
            self.changes_done.set()

    async def _kills(self, tasks: anyio.abc.TaskGroup) -> None:
        due = time.monotonic()
        while True:
            due += self.config.kill_every
            await anyio.sleep(max(0.0, due - time.monotonic()))
            if not self.storming:
                return
            running = children()
            by_marker = {s.marker: s for s in self.servers}
            writer = self.writer_pid()
            writers = [(m, p) for m, p in running.items() if p == writer and m in by_marker]
            readers = [(m, p) for m, p in running.items() if p != writer and m in by_marker]
            pick = writers if writers and (self.rnd.random() < self.config.writer_share or not readers) else readers
            if not pick:
                continue
            marker, pid = self.rnd.choice(pick)
            by_marker[marker].kill(pid)
            self.report.kills += 1
            if pick is writers:
                self.report.writer_kills += 1
                tasks.start_soon(self._next_writer, pid)

    async def _next_writer(self, dead: int) -> None:
        """Until another process holds the lock and has written itself down (at most the kill interval)."""
        killed = time.monotonic()
        with anyio.move_on_after(self.config.kill_every):
            while self.writer_pid() in (dead, None) or self.writer_pid() not in children().values():
                await anyio.sleep(0.05)
            self.report.takeover_s.append(time.monotonic() - killed)

    async def _settle(self) -> None:
        """Until the index holds the folder's newest state and every server's map lists it."""
        deadline = self.last_change + self.config.settle_limit
        while time.monotonic() < deadline:
            state = index_state(self.data, self.root, self.folder.files)
            if state.settled and await self._maps_agree():
                self.report.settle_s = time.monotonic() - self.last_change
                common.log(f"settled {self.report.settle_s:.1f} s after the last change")
                break
            await anyio.sleep(1.0)
        else:
            common.log(f"not settled {self.config.settle_limit:.0f} s after the last change: {state.summary()}")
        self.report.index = index_state(self.data, self.root, self.folder.files)

    async def _maps_agree(self) -> bool:
        for server in self.servers:
            if server.client is None:
                return False
            try:
                docs, pending, failed = await listing(server.client)
            except Exception:  # noqa: BLE001 (killed just now, or starting: not settled yet)
                return False
            found = Found(f"server {server.number}")
            check(found, docs, self.folder.files)
            if pending or failed or found.missing or found.extra:
                return False
        return True

    async def _verify(self) -> None:
        """Every server and the CLI: every file listed and found by its newest words, nothing gone found."""
        files = self.folder.files
        gone = self.rnd.sample(self.folder.gone, min(20, len(self.folder.gone)))
        for server in self.servers:
            found = Found(f"server {server.number}")
            self.report.found.append(found)
            client = server.client
            if client is None:
                found.missing = ["(not running)"]
                continue
            docs, found.pending, found.failed = await listing(client)
            check(found, docs, files)
            for relpath, text in sorted(files.items()):
                word = word_of(text)
                hits = structured(await client.call_tool("retrieve", {"query": word, "top_k": 3}))["results"]
                found.searched += 1
                if not any(word in h["text"] and relpath in docs.get(str(h["doc_id"]), ()) for h in hits):
                    found.not_found.append(relpath)
            for word in gone:
                hits = structured(await client.call_tool("retrieve", {"query": word, "top_k": 3}))["results"]
                if any(word in h["text"] for h in hits):
                    found.gone_found.append(word)
            common.log(f"{found.who}: {found.summary()}")
        found = Found("CLI")
        self.report.found.append(found)
        docs, found.pending, found.failed = await anyio.to_thread.run_sync(cli_listing, self.root, self.data, files)
        check(found, docs, files)
        searched = sorted(files.items())
        if self.config.cli_searches is not None:  # the files changed last first
            recent = list(dict.fromkeys(p for p in reversed(self.folder.touched) if p in files))
            rest = [p for p in sorted(files) if p not in recent]
            chosen = (recent + self.rnd.sample(rest, len(rest)))[: self.config.cli_searches]
            searched = [(p, files[p]) for p in chosen]
        for relpath, text in searched:
            word = word_of(text)
            out = await anyio.to_thread.run_sync(cli_search, self.root, self.data, word)
            found.searched += 1
            hits = cli_hits(out)
            if not any(word in body and relpath in docs.get(doc_id, ()) for doc_id, body in hits):
                found.not_found.append(relpath)
        for word in gone[:5]:
            out = await anyio.to_thread.run_sync(cli_search, self.root, self.data, word)
            if any(word in body for _, body in cli_hits(out)):
                found.gone_found.append(word)
        common.log(f"CLI: {found.summary()}")


def cli_search(folder: Path, data: Path, word: str) -> str:
    return cli(folder, data, "search", word, "-k", "3")


def cli_hits(out: str) -> list[tuple[str, str]]:
    """(doc_id, text) of each result of `search`'s output."""
    hits: list[tuple[str, str]] = []
    for line in out.splitlines():
        if m := HIT.match(line):
            hits.append((m[1], ""))
        elif hits:
            hits[-1] = (hits[-1][0], hits[-1][1] + line + "\n")
    return hits


def log_lines(logs: list[Path]) -> dict[str, int]:
    """The servers' errors and warnings, by their message's first words."""
    kinds: dict[str, int] = {}
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            parts = line.split(" ", 4)
            if len(parts) == 5 and parts[2] in ("ERROR", "WARNING", "CRITICAL"):
                kind = f"{parts[2]} {parts[3]} " + " ".join(re.sub(r"\d+", "N", parts[4]).split()[:6])
                kinds[kind] = kinds.get(kind, 0) + 1
    return dict(sorted(kinds.items(), key=lambda kv: -kv[1]))


def run_storm(config: StormConfig, work: Path) -> StormReport:
    return anyio.run(Storm(config, work).run)


# --- the report ------------------------------------------------------------------------------


def spread(seconds: list[float]) -> str:
    """Median and longest, in seconds."""
    if not seconds:
        return "–"
    ordered = sorted(seconds)
    return f"median {ordered[len(ordered) // 2]:.1f} s, longest {ordered[-1]:.1f} s"


def load() -> str:
    return "load average " + " / ".join(f"{x:.1f}" for x in os.getloadavg())


def render(report: StormReport, load_before: str, load_after: str) -> list[str]:
    c = report.config
    changes = sum(report.changes.values())
    rows = [
        ("storm", f"{report.storm_s / 60:.1f} min, {c.servers} servers, {c.files} files at first"),
        ("kills (-9)", f"{report.kills}, {report.writer_kills} of the writer (every {c.kill_every:g} s)"),
        ("take-overs", f"{report.takeovers}; kill of the writer → the next writes: {spread(report.takeover_s)}"),
        (
            "changes",
            f"{changes} (every {c.change_every:g} s): " + ", ".join(f"{k} {v}" for k, v in report.changes.items()),
        ),
        ("queries answered during the storm", f"{report.queries}, {len(report.query_errors)} errors"),
        (
            "settled after the last change",
            f"{report.settle_s:.0f} s" if report.settle_s is not None else f"not within {c.settle_limit:.0f} s",
        ),
        ("index at the end", f"{report.files} files: {report.index.summary()}"),
        *((f.who, f.summary()) for f in report.found),
        ("damaged", ", ".join(report.damaged) or "none"),
        ("servers that ended unkilled", "; ".join(report.unexpected_exits) or "none"),
        ("load", f"{load_before} before, {load_after} after"),
    ]
    lines = [
        common.measure_table(
            f"Storm of {date.today()} (commit {report.commit}, {os.cpu_count()} cores): "
            + ("settled, nothing lost" if report.clean else "NOT CLEAN"),
            rows,
        )
    ]
    if report.query_errors:
        lines += ["", "Errors answered during the storm (first 5): " + "; ".join(report.query_errors[:5])]
    if report.log_lines:
        lines += [
            "",
            "Servers' log warnings and errors: "
            + "; ".join(f"{k} ×{v}" for k, v in list(report.log_lines.items())[:8]),
        ]
    return lines


def main() -> None:
    parser = common.script_parser(__doc__)
    defaults = StormConfig()
    parser.add_argument("--minutes", type=float, default=defaults.minutes)
    parser.add_argument("--servers", type=int, default=defaults.servers)
    parser.add_argument("--kill-every", type=float, default=defaults.kill_every)
    parser.add_argument("--writer-share", type=float, default=defaults.writer_share)
    parser.add_argument("--change-every", type=float, default=defaults.change_every)
    parser.add_argument("--files", type=int, default=defaults.files)
    parser.add_argument("--settle-limit", type=float, default=defaults.settle_limit)
    parser.add_argument(
        "--cli-searches", type=int, help="files the CLI searches for, the last changed first (default: every file)"
    )
    parser.add_argument("--seed", type=int, default=defaults.seed)
    common.add_work(parser)
    common.add_out(parser, "storm.md")
    args = common.parse_args(parser)
    if args.work is not None and (args.work / "docs").exists():
        parser.error(f"--work {args.work} holds an earlier run's folder: give a new one")
    config = StormConfig(
        args.minutes,
        args.servers,
        args.kill_every,
        args.writer_share,
        args.change_every,
        args.files,
        args.settle_limit,
        args.cli_searches,
        args.seed,
    )
    before = load()
    with contextlib.ExitStack() as stack:
        work = args.work or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="deepread-storm-")))
        report = run_storm(config, work)
    lines = render(report, before, load())
    common.append_lines(
        args.out, "# Many servers on one folder under kill -9 (`python -m benchmarks.robustness.storm`)\n", lines
    )
    raise SystemExit(0 if report.clean else 1)


if __name__ == "__main__":
    main()
