"""The confined parser child: a real `python -m indexer.parse.mineru_worker` under its time
limit and memory ceiling, the processes it leaves (none), and the parse cache it fills.

Where a test needs the child to hang or to start a helper process of its own (as MinerU's
render workers are), a `sitecustomize` on the child's PYTHONPATH does it: the parent, its
limits and its clean-up are the real ones.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fpdf import FPDF

from indexer.errors import ParseError
from indexer.parse.mineru import (
    BASE_TIMEOUT_S,
    TIMEOUT_S_PER_MB,
    TIMEOUT_S_PER_PAGE,
    MineruOptions,
    MineruParser,
    time_limit,
)
from tests.conftest import REPO, write

WORKER = "indexer.parse.mineru_worker"
SENTENCE = "Otters hold hands while they sleep so that they do not drift apart."
NOTES = "# Otters\n\nOtters hold hands while they sleep.\n\n## Diet\n\nSea urchins and clams.\n"


def make_pdf(path: Path) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, " ".join([SENTENCE] * 6))
    pdf.output(str(path))
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def options(tmp_path: Path, **overrides: object) -> MineruOptions:
    """The work dir is the test's own, so the child's command line names it (see `Processes`)."""
    return MineruOptions(
        cache_dir=tmp_path / "cache",
        home=tmp_path / "home",
        work_dir=tmp_path / "work",
        **overrides,  # type: ignore[arg-type]
    )


# --- processes, read from /proc ------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, process group) of a live process, None when it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in "ZXx" else (fields[0], int(fields[1]), int(fields[2]))


def alive(pid: int) -> bool:
    return _stat(pid) is not None


def in_group(pgid: int) -> list[int]:
    """Live processes in process group `pgid`."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and (stat := _stat(int(name))) is not None and stat[2] == pgid:
            found.append(int(name))
    return found


def workers(marker: str) -> list[int]:
    """Live parser children whose command line names `marker` (the test's work dir)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if WORKER in cmdline and marker in cmdline and alive(int(name)):
            found.append(int(name))
    return found


class Processes:
    """Records, from a thread, every parser child started under `marker` while it runs."""

    def __init__(self, marker: str):
        self.marker = marker
        self.seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.seen.update(workers(self.marker))
            time.sleep(0.02)

    def __enter__(self) -> Processes:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def child_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path | None]:
    """Make the next parser children hang and/or start a helper process (`sleep`) in their
    process group, as MinerU's render workers are; returns the file the helper's pid is written to."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import os, subprocess, sys, time\n"
        f"if {WORKER!r} in ' '.join(sys.orig_argv):\n"
        "    if os.environ.get('DEEPREAD_TEST_HELPER_PID'):\n"
        "        helper = subprocess.Popen(['sleep', '300'])\n"
        "        with open(os.environ['DEEPREAD_TEST_HELPER_PID'], 'w') as f:\n"
        "            f.write(str(helper.pid))\n"
        "    if os.environ.get('DEEPREAD_TEST_HANG'):\n"
        "        time.sleep(300)\n"
    )

    def _hooks(hang: bool = False, helper: bool = False) -> Path | None:
        monkeypatch.setenv("PYTHONPATH", str(site))
        if hang:
            monkeypatch.setenv("DEEPREAD_TEST_HANG", "1")
        pid_file = tmp_path / "helper.pid" if helper else None
        if pid_file is not None:
            monkeypatch.setenv("DEEPREAD_TEST_HELPER_PID", str(pid_file))
        return pid_file

    return _hooks


# --- the time limit ------------------------------------------------------------------


def test_time_limit_grows_with_size_and_pages_up_to_the_ceiling() -> None:
    assert time_limit(10_000, 900) == pytest.approx(BASE_TIMEOUT_S + TIMEOUT_S_PER_MB * 0.01)
    assert time_limit(2_000_000, 900) == pytest.approx(BASE_TIMEOUT_S + 2 * TIMEOUT_S_PER_MB)
    assert time_limit(10_000, 900, pages=100) == pytest.approx(BASE_TIMEOUT_S + 100 * TIMEOUT_S_PER_PAGE)
    assert time_limit(2_000_000, 900, pages=10) == time_limit(2_000_000, 900), "the larger of size and pages counts"
    assert time_limit(50_000_000, 900) == 900 and time_limit(10_000, 900, pages=5_000) == 900
    assert time_limit(10_000, 0.3) == 0.3, "a tiny configured ceiling is the limit"


def test_a_pdf_parse_over_its_time_limit_fails_and_leaves_no_process(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "otters.pdf")
    parser = MineruParser(options(tmp_path, timeout_s=0.3))  # MinerU alone takes seconds to import
    started = time.monotonic()
    with Processes(str(tmp_path / "work")) as spy, pytest.raises(ParseError) as failure:
        parser.parse(pdf, sha256(pdf))
    elapsed = time.monotonic() - started

    reason = str(failure.value)
    assert reason.startswith("parsing used") and "s of CPU time, over the parse time limit" in reason, reason
    assert failure.value.transient, "a time limit says nothing about the file: it is retried"
    assert "time limit" in reason, "the reason names the limit (the server adds the setting that raises it)"
    assert elapsed < 3, f"the child was stopped at its limit, not waited for ({elapsed:.1f} s)"
    assert spy.seen, "a child process ran"
    for pid in spy.seen:  # started in a session of its own: its process group is its pid
        assert not alive(pid) and not in_group(pid), f"parser child {pid} or its group outlived the timeout"
    assert not list((tmp_path / "work").iterdir()), "the child's temporary folder is removed"
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir()), "a failure is not cached"


@pytest.mark.parametrize("hang", [False, True], ids=["normal-exit", "timed-out"])
def test_the_childs_own_processes_end_with_it(
    tmp_path: Path, child_hooks: Callable[..., Path | None], hang: bool
) -> None:
    """What the child starts (MinerU's render workers) is killed with its process group,
    after a normal exit as after a timeout."""
    pid_file = child_hooks(hang=hang, helper=True)
    assert pid_file is not None
    notes = write(tmp_path, "notes.md", NOTES)
    parser = MineruParser(options(tmp_path, timeout_s=2 if hang else 60))
    if hang:
        # A child that hangs without computing is stopped by the clock, at three times its limit.
        with pytest.raises(ParseError, match=r"parsing ran [67] s without finishing, 3× the parse time limit"):
            parser.parse_text_isolated(notes, sha256(notes), 10_000)
    else:
        parsed = parser.parse_text_isolated(notes, sha256(notes), 10_000)
        assert [b.text for b in parsed.blocks] == [
            "Otters",
            "Otters hold hands while they sleep.",
            "Diet",
            "Sea urchins and clams.",
        ]
    helper = int(pid_file.read_text())
    assert wait_until(lambda: not alive(helper), 2), f"the child's helper process {helper} outlived the parse"


def test_the_child_dies_with_the_process_that_started_it(
    tmp_path: Path, child_hooks: Callable[..., Path | None]
) -> None:
    """kill -9 of the server: the kernel kills its parser child (PR_SET_PDEATHSIG)."""
    child_hooks(hang=True)
    notes = write(tmp_path, "notes.md", NOTES)
    work = tmp_path / "work"
    code = (
        "from pathlib import Path\n"
        "from indexer.parse.mineru import MineruOptions, MineruParser\n"
        f"options = MineruOptions(cache_dir=Path({str(tmp_path / 'cache')!r}), home=Path({str(tmp_path / 'home')!r}),"
        f" work_dir=Path({str(work)!r}))\n"
        f"MineruParser(options).parse_text_isolated(Path({str(notes)!r}), 'h', 10_000)\n"
    )
    server = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdin=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: bool(workers(str(work))), 30), "the parser child started"
        (child,) = workers(str(work))
        assert _stat(child) is not None and _stat(child)[1] == server.pid  # type: ignore[index]
    finally:
        server.kill()
        server.wait()
    assert wait_until(lambda: not alive(child), 5), f"parser child {child} outlived its parent's kill -9"


# --- the memory ceiling --------------------------------------------------------------


def test_a_child_over_its_memory_ceiling_fails_with_a_reason_that_says_so(tmp_path: Path) -> None:
    notes = write(tmp_path, "notes.md", NOTES)
    with pytest.raises(ParseError) as failure:
        MineruParser(options(tmp_path, memory_mb=30)).parse_text_isolated(notes, sha256(notes), 10_000)
    reason = str(failure.value)
    assert reason.startswith("the parser "), reason  # exited with code N / was killed (SIG…)
    assert "memory ceiling" in reason and "30 MB" in reason, reason  # the server adds the setting that raises it
    assert not workers(str(tmp_path / "work"))

    parsed = MineruParser(options(tmp_path)).parse_text_isolated(notes, sha256(notes), 10_000)
    assert parsed.blocks[1].text == "Otters hold hands while they sleep.", "under the default ceiling it parses"


@pytest.mark.xfail(
    reason="a child that dies before its own handler runs (in the loader, at start-up) is recognised only by what "
    "its stderr's tail says; about one run in thirty here, one such death says nothing of memory",
    strict=False,  # which ceilings hit which failure depends on the machine's libraries
)
def test_any_failure_under_a_too_low_ceiling_names_the_ceiling(tmp_path: Path) -> None:
    notes = write(tmp_path, "notes.md", NOTES)
    pdf = make_pdf(tmp_path / "otters.pdf")
    reasons: dict[str, str] = {}
    for memory_mb in (5, 20, 36):
        try:
            MineruParser(options(tmp_path, memory_mb=memory_mb)).parse_text_isolated(notes, "h", 10_000)
        except ParseError as exc:
            reasons[f"text {memory_mb} MB"] = str(exc)
    for memory_mb in (100, 150, 200):
        try:
            MineruParser(options(tmp_path, memory_mb=memory_mb)).parse(pdf, f"pdf-{memory_mb}")
        except ParseError as exc:
            reasons[f"pdf {memory_mb} MB"] = str(exc)
    unclear = {k: v[:120] for k, v in reasons.items() if "memory" not in v}
    assert not unclear, unclear


# --- the parse cache -----------------------------------------------------------------


@pytest.fixture(scope="module")
def good_parse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, list[str], bytes]:
    """A PDF parsed once: (its path, its hash, its blocks' texts, the cache file written for it)."""
    base = tmp_path_factory.mktemp("good")
    pdf = make_pdf(base / "otters.pdf")
    parser = MineruParser(options(base))
    parsed = parser.parse(pdf, sha256(pdf))
    cache = parser._cache_path(sha256(pdf))
    return pdf, sha256(pdf), [b.text for b in parsed.blocks], cache.read_bytes()


def _torn(kind: str, good: bytes) -> bytes:
    if kind == "garbage":
        return b"\x00not a gzip file at all\xff" * 10
    if kind == "empty":
        return b""
    if kind == "torn-json":  # an intact gzip of half the JSON
        text = gzip.decompress(good)
        return gzip.compress(text[: len(text) // 2])
    if kind == "truncated-gzip":  # the file cut off halfway
        return good[: len(good) // 2]
    if kind == "corrupt-deflate":  # bytes flipped in the middle of the compressed stream
        middle = len(good) // 2
        return good[:middle] + bytes(b ^ 0xFF for b in good[middle : middle + 40]) + good[middle + 40 :]
    raise ValueError(kind)


@pytest.mark.parametrize(
    "kind",
    [
        "garbage",
        "empty",
        "torn-json",
        "truncated-gzip",
        "corrupt-deflate",
    ],
)
def test_a_torn_cache_file_is_parsed_again_and_replaced(
    tmp_path: Path, good_parse: tuple[Path, str, list[str], bytes], kind: str
) -> None:
    source, content_hash, expected, good = good_parse
    pdf = tmp_path / "otters.pdf"
    pdf.write_bytes(source.read_bytes())
    parser = MineruParser(options(tmp_path))
    cache = parser._cache_path(content_hash)
    cache.parent.mkdir(parents=True)
    cache.write_bytes(_torn(kind, good))

    with Processes(str(tmp_path / "work")) as spy:
        parsed = parser.parse(pdf, content_hash)
    assert spy.seen, "the torn file was not trusted: the child parsed the PDF again"
    assert [b.text for b in parsed.blocks] == expected
    assert any(SENTENCE in b.text for b in parsed.blocks) and parsed.blocks[0].page == 1

    with gzip.open(cache, "rt", encoding="utf-8") as f:
        raw = json.load(f)
    assert raw["ok"] is True and raw["page_count"] == 1, "the torn file is replaced by a valid one"
    assert [p.name for p in cache.parent.iterdir()] == [cache.name], "no partial file is left beside it"

    pdf.unlink()  # the cache alone now answers: the file is not even read
    assert [b.text for b in parser.parse(pdf, content_hash).blocks] == expected


# --- parse lanes -----------------------------------------------------------------------


def stuck_parser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder whose `stuck.pdf` (the smallest file, so first in the queue) keeps its parser
    computing until the time limit; any other PDF parses as usual."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import json, sys, time\n"
        f"if {WORKER!r} in ' '.join(sys.orig_argv) and len(sys.argv) > 1 and sys.argv[1].endswith('.json'):\n"
        "    if json.load(open(sys.argv[1]))['path'].endswith('/stuck.pdf'):\n"
        "        while True: pass\n"  # a pathological file: the parser computes and never finishes
    )
    monkeypatch.setenv("PYTHONPATH", str(site))
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 6, "Stuck.")
    pdf.output(str(docs / "stuck.pdf"))
    return docs


@pytest.mark.slow
def test_a_stuck_file_holds_one_lane_while_the_others_are_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_library: Callable[..., object]
) -> None:
    """The others are parsed beside the stuck file and are readable before it fails."""
    docs = stuck_parser(tmp_path, monkeypatch)
    for name in ("otters.pdf", "beavers.pdf"):
        make_pdf(docs / name)
    assert (docs / "stuck.pdf").stat().st_size < (docs / "otters.pdf").stat().st_size, "the stuck file is queued first"

    library = open_library(docs, parse_timeout_s=40)
    order: list[tuple[str, str, float]] = []
    started = time.monotonic()
    library.reconcile(lambda p: order.append((p.path, p.action, time.monotonic() - started)) if p.path else None)
    outcomes = {path: (action, at) for path, action, at in order}
    assert outcomes["stuck.pdf"][0] == "failed" and outcomes["stuck.pdf"][1] >= 40
    for name in ("otters.pdf", "beavers.pdf"):
        action, at = outcomes[name]
        assert action == "indexed" and at < outcomes["stuck.pdf"][1], f"{name} waited for the stuck file"
    reason = next(d.reason for d in library.index.store.documents() if d.relpath == "stuck.pdf")
    assert reason and reason.startswith("parsing used") and "over the parse time limit of 40 s" in reason


@pytest.mark.slow
def test_a_parse_outliving_its_batch_is_left_to_finish_while_new_files_are_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_library: Callable[..., object]
) -> None:
    """The server's indexer does not wait for a stuck parse: once the rest of its batch is done
    and it has run past the patience, a file saved meanwhile is indexed, and the stuck one is
    committed (failed, with its reason) when its time limit ends it."""
    from tests.conftest import wait_for

    monkeypatch.setattr("indexer.service.writing.SLOW_PARSE_S", 2.0)
    docs = stuck_parser(tmp_path, monkeypatch)
    library = open_library(docs, parse_timeout_s=40)
    background = library.follower(debounce=0.3)
    background.start()
    try:
        wait_for(
            lambda: any(d.relpath == "stuck.pdf" and d.status == "indexing" for d in library.index.store.documents())
        )
        time.sleep(3)  # past the patience: the startup batch has returned, the parse goes on alone
        write(docs, "later.md", "# Later\n\nSaved while the stuck file was still parsing.\n")
        wait_for(
            lambda: any(d.relpath == "later.md" and d.readable for d in library.index.store.documents()), timeout=25
        )
        stuck = next(d for d in library.index.store.documents() if d.relpath == "stuck.pdf")
        assert stuck.status == "indexing", "the new file did not wait for the stuck one"
        assert background.wait_idle(90), "idle only once the stuck parse is settled"
        stuck = next(d for d in library.index.store.documents() if d.relpath == "stuck.pdf")
        assert stuck.status == "failed" and "over the parse time limit of 40 s" in (stuck.reason or "")
    finally:
        background.stop()
