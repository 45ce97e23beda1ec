"""PDF, office and web formats through MinerU, in an isolated child process, cached by content hash.

The child (`indexer.parse.mineru_worker`) gets its own process group, a
memory ceiling (RLIMIT_AS), a timeout after which the whole group is killed,
and the kernel's promise (PR_SET_PDEATHSIG) that it dies with the server,
even after a kill -9; all it prints goes to a log file (read when it dies),
so nothing can reach the MCP stream. What it reports without failing the
file (`warnings`) is logged here and kept with the document. Its working
folders live in the data dir's `tmp/`, which the next start empties.
`MINERU_MODEL_SOURCE=local` and a private `MINERU_HOME` make sure nothing is
downloaded or written to the user's home behind their back.

Results are cached in the data dir by the file's sha256, so a restart, a
rename or an embedding-model change never parses an unchanged file again.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from indexer.errors import OUT_OF_MEMORY_SIGNS, PARSE_MEMORY_LIMIT, PARSE_TIME_LIMIT, ParseError
from indexer.models import Block, Declared, ParsedDocument
from indexer.parse import pictures
from indexer.parse.heavy_pages import HEAVY_PAGE_OBJECTS
from indexer.parse.hygiene import repair_items
from indexer.parse.images import IMAGE_FORMATS
from indexer.parse.items import one_picture_per_place
from indexer.parse.layout import blocks_from_content_list
from indexer.parse.outline import OutlineEntry
from indexer.parse.sheets import SHEET_FORMATS, charts_as_markdown, sheets_as_markdown

log = logging.getLogger(__name__)

# suffix → (pages mean something, heading levels come from the format itself). MinerU reads the
# legacy binary Office formats and RTF natively too, and tells a file by its bytes (a .doc that is
# really a .docx is read as one); a macro-enabled workbook is an .xlsx with macros beside it.
MINERU_FORMATS: dict[str, tuple[bool, bool]] = {
    ".pdf": (True, False),
    ".pptx": (True, True),
    ".ppt": (True, True),
    ".odp": (True, True),
    ".docx": (False, True),
    ".doc": (False, True),
    ".odt": (False, True),
    ".rtf": (False, True),
    ".xlsx": (False, True),
    ".xlsm": (False, True),
    ".xls": (False, True),
    ".ods": (False, True),
    ".csv": (False, True),
    ".tsv": (False, True),
    ".html": (False, True),
    ".htm": (False, True),
    ".epub": (False, True),
}
# What the child reads without MinerU: a picture of a document, by OCR (`indexer.parse.images`), a page per frame.
CHILD_FORMATS: dict[str, tuple[bool, bool]] = {**MINERU_FORMATS, **dict.fromkeys(sorted(IMAGE_FORMATS), (True, False))}
# Bump when the worker's output or its mapping changes, so cached parses are redone (history: git).
CACHE_VERSION = 12
# Earlier versions whose PDF parses `_upgraded` brings up to this one without MinerU, newest first
# (12 reads from the text layer the pages whose words flash lost; 11 reads type sizes where a
# turned or cropped page shows them; 10 reads by OCR the scanned pages whose text layer is only a
# stamp's line; 9 reads a symbol font's boxes and bullets as what they draw, and by OCR the pages
# whose text layer is not text;
# 8 read again from the text layer the PDF pages flash misreads: margin line numbers, an item
# across columns; 7 changed office files only: chart titles, comments, a lone sheet's name; 6
# added what a PDF declares).
UPGRADABLE = (11, 10, 9, 8, 7, 6, 5)
OFFICE_UNCHANGED_SINCE = 7  # an office file's parse cached by this version or later is this version's


# A file's parse may take this long plus so much per MB of file, or per page of a PDF once
# the child has counted them, up to the configured ceiling: a 100 kB zip bomb or a
# pathological page cannot hold the queue for 15 minutes, while a 300-page scan (OCR at
# 1–3 s a page) still has the time it needs.
BASE_TIMEOUT_S = 120.0
TIMEOUT_S_PER_MB = 120.0
TIMEOUT_S_PER_PAGE = 3.0


def time_limit(size_bytes: int, ceiling_s: float, pages: int | None = None, patience: float = 1.0) -> float:
    """Seconds of CPU time a file's parse may take; `patience` scales the limit and its ceiling."""
    by_size = TIMEOUT_S_PER_MB * size_bytes / 1e6
    by_pages = TIMEOUT_S_PER_PAGE * (pages or 0)
    return patience * min(ceiling_s, BASE_TIMEOUT_S + max(by_size, by_pages))


DEFAULT_TIMEOUT_S = 900.0
DEFAULT_MEMORY_MB = 8192


@dataclass
class MineruOptions:
    cache_dir: Path
    home: Path  # MINERU_HOME: its models and config live here, not in ~/.mineru
    work_dir: Path | None = None  # the child's temporary folders (default: the system's)
    timeout_s: float = DEFAULT_TIMEOUT_S  # the most any file may take; a small file gets less (`time_limit`)
    memory_mb: int = DEFAULT_MEMORY_MB  # the child's address-space ceiling
    url: str | None = None  # a MinerU server (mineru-api or mineru-router) that parses instead (`remote`)
    api_key: str | None = None
    heavy_page_objects: int = HEAVY_PAGE_OBJECTS  # a PDF page with more is read from its text layer; 0: never
    use_outline: bool = True  # a PDF's bookmarks are its map; off: headings as found (`benchmarks.toc.outline`)

    @property
    def pictures_dir(self) -> Path:
        """Pictures kept from office files (`indexer.parse.pictures`), beside the parses that refer to them."""
        return self.cache_dir / "pictures"


def mineru_environment(home: Path) -> dict[str, str]:
    return {
        "MINERU_MODEL_SOURCE": "local",  # never download; a missing model is an error we report
        "MINERU_HOME": str(home),
        "MINERU_LOG_LEVEL": "warning",
        "MINERU_PDF_RENDER_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }


class MineruParser:
    def __init__(self, options: MineruOptions):
        self.options = options

    def parse(self, path: Path, content_hash: str, patience: float = 1.0) -> ParsedDocument:
        """`patience` scales the time limit (a retry of a file that ran out of time gets more)."""
        suffix = path.suffix.lower()
        paged, levels_reliable = CHILD_FORMATS[suffix]
        raw = (
            self._cached(content_hash, pdf=suffix == ".pdf")
            or self._upgraded(path, content_hash, pdf=suffix == ".pdf", patience=patience)
            or self._run(
                path, content_hash, {"pictures_dir": os.path.abspath(self.options.pictures_dir)}, patience=patience
            )
        )
        if not raw.get("ok"):
            raise ParseError(raw.get("reason") or "MinerU returned no result", transient=bool(raw.get("transient")))
        listed = raw.get("outline", []) if self.options.use_outline else []
        outline = [OutlineEntry(e["title"], e["level"], e.get("page")) for e in listed]
        # mojibake and symbol-font glyphs (`hygiene`); a picture's layers as one picture
        items = one_picture_per_place(repair_items(raw["content_list"]))
        parsed = blocks_from_content_list(
            items,
            raw.get("page_count"),
            paged=paged,
            heading_levels_reliable=levels_reliable,
            outline=outline,
        )
        if suffix in SHEET_FORMATS:  # a grid of cells: Markdown pipes, not HTML (`sheets`)
            parsed.blocks = sheets_as_markdown(parsed.blocks)
        parsed.blocks = charts_as_markdown(parsed.blocks)
        if parsed.blocks and all(b.kind == "heading" for b in parsed.blocks):  # a deck of titles alone: its text
            parsed.blocks = [Block("text", b.text, page=b.page, bbox=b.bbox) for b in parsed.blocks]
        if not any(b.kind != "heading" for b in parsed.blocks):
            reader = "OCR" if raw.get("tier") == "ocr" else f"MinerU {raw.get('tier')} tier"
            count = raw.get("page_count") or 0
            unit = "sheet" if suffix in SHEET_FORMATS else "slide" if suffix in (".pptx", ".ppt", ".odp") else "page"
            read = f"{count} {unit}s, and no words in them" if count != 1 else f"1 {unit}, and no words in it"
            raise ParseError(f"no text found ({reader} read {read})")
        parsed.items, parsed.paged, parsed.format = items, paged, suffix
        parsed.declared = Declared.of(raw.get("declared") or {"title": raw.get("title")})
        parsed.warnings = [*(raw.get("warnings") or []), *parsed.warnings]
        return parsed

    # --- cache -----------------------------------------------------------------------

    def models_fingerprint(self) -> str:
        """Which MinerU model sets are installed: it changes after `mineru-kit models download`;
        with a MinerU server, which server (its tiers are its own)."""
        if self.options.url:
            return hashlib.sha1(self.options.url.encode()).hexdigest()[:8]
        models = self.options.home / "models"
        installed = sorted(p.name for p in models.iterdir() if p.is_dir()) if models.is_dir() else []
        return hashlib.sha1("\n".join(installed).encode()).hexdigest()[:8]

    def _cache_path(self, content_hash: str, version: int = CACHE_VERSION) -> Path:
        """Keyed by the file's bytes and the installed models, so a better tier parses again."""
        return self.options.cache_dir / f"{content_hash}.{self.models_fingerprint()}.v{version}.json.gz"

    def _upgraded(self, path: Path, content_hash: str, pdf: bool, patience: float) -> dict | None:
        """A PDF's parse cached by an earlier version (`UPGRADABLE`), brought up to this one in the child
        without MinerU (its declared metadata read from its document information), and cached; None
        when there is none. An office file's parse from before OFFICE_UNCHANGED_SINCE is parsed again: what
        it declares is MinerU's to read, in seconds; one since is this version's as it is."""
        if not pdf:
            kept = next(
                (
                    r
                    for v in range(CACHE_VERSION - 1, OFFICE_UNCHANGED_SINCE - 1, -1)
                    if (r := self._cached(content_hash, pdf, version=v))
                ),
                None,
            )
            if kept is not None:
                self._store(content_hash, kept)
            return kept
        cached = ((v, self._cached(content_hash, pdf, version=v)) for v in UPGRADABLE)
        version, raw = next(((v, r) for v, r in cached if r is not None), (0, None))
        if raw is None:
            return None
        upgraded = self._run(path, content_hash, {"upgrade": raw, "version": version}, patience=patience)
        return upgraded if upgraded.get("ok") else None

    def _cached(self, content_hash: str, pdf: bool, version: int = CACHE_VERSION) -> dict | None:
        path = self._cache_path(content_hash, version)
        try:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                raw = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, EOFError, ValueError, zlib.error):  # torn: bad gzip, truncated stream, broken JSON or UTF-8
            log.warning("unreadable parse cache file %s: parsing again", path.name)
            path.unlink(missing_ok=True)
            return None
        # An office file parsed before pictures were kept, or whose pictures were deleted since:
        # parse again rather than answer without them (a PDF's pictures come from its pages).
        if not pdf and not (
            raw.get("pictures_kept") and pictures.all_kept(raw["content_list"], self.options.pictures_dir)
        ):
            return None
        return raw

    def _store(self, content_hash: str, raw: dict) -> None:
        """Cache a successful parse (failures are cheap to find again, or may be passing). A cache
        that cannot be written (a full disk, a read-only shared cache) costs a parse later, not this one."""
        path = self._cache_path(content_hash)
        tmp = path.with_name(f"{path.name}.{threading.get_ident()}.part")  # two lanes may parse equal files
        try:
            self.options.cache_dir.mkdir(parents=True, exist_ok=True)
            with gzip.open(tmp, "wt", encoding="utf-8") as f:
                json.dump(raw, f, ensure_ascii=False)
            tmp.replace(path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            log.warning("could not keep the parse in the cache %s: %s", self.options.cache_dir, exc.strerror or exc)

    # --- the child process -----------------------------------------------------------

    def parse_text_isolated(
        self, path: Path, content_hash: str, max_bytes: int, patience: float = 1.0
    ) -> ParsedDocument:
        """A large text file parsed in the child, under its memory ceiling and timeout: a parser's
        objects take ~40× the file's size (a 45 MB Markdown table took 1.7 GB)."""
        raw = self._run(path, content_hash, {"text": True, "max_bytes": max_bytes}, cache=False, patience=patience)
        if not raw.get("ok"):
            raise ParseError(raw.get("reason") or "the parser returned no result", transient=bool(raw.get("transient")))
        return ParsedDocument(blocks=[Block(**b) for b in raw["blocks"]], title=raw.get("title"))

    def _run(
        self, path: Path, content_hash: str, extra: dict | None = None, cache: bool = True, patience: float = 1.0
    ) -> dict:
        """The child's result; a failure that says nothing about the file is marked `transient`.

        The time limit is on the CPU time the child and its workers use, not on the clock, so a
        machine busy with other work does not fail files a quiet one parses; a child that hangs
        without computing is still stopped after WALL_CLOCK_FACTOR times the limit."""
        options = self.options
        options.home.mkdir(parents=True, exist_ok=True)
        size = path.stat().st_size
        limit_s = time_limit(size, options.timeout_s, patience=patience)
        if options.work_dir is not None:
            options.work_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="deepread-parse-", dir=options.work_dir) as made:
            tmp = os.path.abspath(made)  # the child runs in it: every path it is given is absolute
            request, result, errors = Path(tmp, "request.json"), Path(tmp, "result.json"), Path(tmp, "stderr.log")
            pages_file = Path(tmp, "pages")  # the child writes a PDF's page count here
            server = {"url": options.url, "api_key": options.api_key, "timeout_s": 0.9 * WALL_CLOCK_FACTOR * limit_s}
            request.write_text(
                json.dumps(
                    {
                        "path": os.path.abspath(path),
                        "pages_file": str(pages_file),
                        "heavy_page_objects": options.heavy_page_objects,
                        **(server if options.url else {}),
                        **(extra or {}),
                    }
                )
            )
            with errors.open("wb") as stderr:
                confined = [str(options.memory_mb * 1024 * 1024), str(os.getpid())]
                child = subprocess.Popen(
                    [
                        sys.executable,
                        "-I",
                        "-c",
                        _CONFINE,
                        *confined,
                        "-m",
                        "indexer.parse.mineru_worker",
                        str(request),
                        str(result),
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=stderr,
                    env={**os.environ, **mineru_environment(options.home), "PYTHONPATH": _package_root()},
                    start_new_session=True,
                    close_fds=True,
                    cwd=tmp,  # what MinerU writes where it runs (a service lock, blobs/) goes with the folder
                )
                timed_out = ""
                started = time.monotonic()
                pages: int | None = None
                try:
                    while child.poll() is None:  # a PDF's page count, once the child knows it, can extend the limit
                        if pages is None and pages_file.exists():
                            pages = int(pages_file.read_text() or 0)
                            limit_s = max(limit_s, time_limit(size, options.timeout_s, pages, patience))
                        elapsed = time.monotonic() - started
                        if elapsed > WALL_CLOCK_FACTOR * limit_s:
                            timed_out = (
                                f"ran {elapsed:.0f} s without finishing, {WALL_CLOCK_FACTOR:.0f}× {PARSE_TIME_LIMIT}"
                            )
                        elif elapsed > limit_s and (used := cpu_seconds(child.pid, default=elapsed)) > limit_s:
                            timed_out = f"used {used:.0f} s of CPU time, over {PARSE_TIME_LIMIT} of {limit_s:.0f} s"
                        if timed_out:
                            break
                        time.sleep(0.1 if elapsed < 2 else 0.5)
                finally:
                    _kill_group(child.pid)  # also ends MinerU's render workers after a normal exit
                    child.wait()
            if timed_out:
                of = (f"{pages} page" + "s" * (pages != 1)) if pages else f"{size / 1e6:.1f} MB"
                return {
                    "ok": False,
                    "transient": True,
                    "reason": f"parsing {timed_out} for a file of {of} "
                    f"({BASE_TIMEOUT_S:.0f} s + {TIMEOUT_S_PER_MB:.0f} s per MB "
                    f"or {TIMEOUT_S_PER_PAGE:.0f} s per page, "
                    f"at most {options.timeout_s * patience:.0f} s)",
                }
            if result.exists():
                raw = json.loads(result.read_text(encoding="utf-8"))
                for warning in raw.get("warnings") or []:
                    log.warning("%s: %s", path, warning)
                if raw.get("ok") and cache:
                    self._store(content_hash, raw)
                return raw
            tail = errors.read_text(errors="replace")[-400:]
            if shutil.disk_usage(tmp).free < FULL_DISK_BYTES:  # it died writing its result: not the file's fault
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), tmp)
            log.warning("MinerU worker died on %s (exit %s): %s", path, child.returncode, tail)
            if child.returncode is not None and child.returncode < 0:
                why = f"the parser was killed ({signal.Signals(-child.returncode).name})"
            else:
                why = f"the parser exited with code {child.returncode}"
            if any(s in tail for s in OUT_OF_MEMORY_SIGNS) or child.returncode == -6:
                why += f", probably over {PARSE_MEMORY_LIMIT} of {options.memory_mb} MB"
            return {"ok": False, "reason": why, "transient": True}


# The child's first moments, in a bare interpreter that then becomes the worker (exec keeps both): an
# address-space ceiling, and the kernel's promise (PR_SET_PDEATHSIG) that it dies with the server, even
# after a kill -9. Set before the worker starts, as a `preexec_fn` would, which is not safe in a server
# with threads (the child may deadlock on a lock another thread held at the fork).
_CONFINE = """
import ctypes, os, resource, signal, sys
limit, parent = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
if sys.platform.startswith("linux"):
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
if os.getppid() != parent:  # the server died before that took effect
    os._exit(1)
os.execv(sys.executable, [sys.executable, *sys.argv[3:]])
"""
FULL_DISK_BYTES = 4 * 1024 * 1024  # a child that died with less than this free beside it: a full disk
WALL_CLOCK_FACTOR = 3.0  # a child that has not finished after this many times its limit, by the clock, is stuck


def cpu_seconds(pgid: int, default: float) -> float:
    """CPU time used by the processes of a group (the child, its workers, and workers it has
    reaped), from /proc; `default` where /proc cannot tell (not Linux)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0
    found = False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return default
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if int(fields[2]) == pgid:  # fields after the command: state, ppid, pgrp, …, utime at 11
            found = True
            total += sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
    return total / tick if found else default


def tier_status(home: Path) -> dict[str, dict]:
    """Which MinerU model tiers are installed under `home` (checked in a child process)."""
    with tempfile.TemporaryDirectory(prefix="deepread-doctor-") as tmp:
        out = Path(tmp, "tiers.json")
        subprocess.run(
            [sys.executable, "-m", "indexer.parse.mineru_worker", "--tiers", str(out)],
            env={**os.environ, **mineru_environment(home), "PYTHONPATH": _package_root()},
            cwd=tmp,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
            check=False,
        )
        return json.loads(out.read_text()) if out.exists() else {}


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _package_root() -> str:
    """So the child imports this very `indexer` package, installed or not."""
    root = str(Path(__file__).resolve().parents[2])
    existing = os.environ.get("PYTHONPATH")
    return f"{root}{os.pathsep}{existing}" if existing else root
