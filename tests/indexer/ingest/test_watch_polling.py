"""FolderWatcher's polling: asked for (`poll=True`), and as the fallback when inotify runs out.

Running out is real here: a child process in a user namespace of its own lowers its
inotify limits (`/proc/sys/user/max_inotify_watches`, `max_inotify_instances`, which the
namespace's owner may set) and runs a real FolderWatcher there, so the host is untouched.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from watchdog.observers.inotify import InotifyObserver
from watchdog.observers.polling import PollingObserver

from indexer.ingest.watch import FolderWatcher
from tests.conftest import REPO, write

INTERVAL = 0.2  # seconds between polls in these tests
SETTLE = 5.0  # a change must be reported within this


class Touched:
    """The paths a watcher reported, collected from watchdog's thread."""

    def __init__(self) -> None:
        self._paths: set[Path] = set()
        self._changed = threading.Condition()

    def __call__(self, paths: list[Path]) -> None:
        with self._changed:
            self._paths.update(paths)
            self._changed.notify_all()

    def wait_for(self, *expected: Path, timeout: float = SETTLE) -> set[Path]:
        with self._changed:
            self._changed.wait_for(lambda: set(expected) <= self._paths, timeout)
            return set(self._paths)

    def clear(self) -> None:
        with self._changed:
            self._paths.clear()


@pytest.fixture
def touched() -> Touched:
    return Touched()


@pytest.fixture
def polling(folder: Path, touched: Touched, tmp_path: Path) -> Iterator[FolderWatcher]:
    data = folder / ".deepread"  # a data dir inside the watched folder is never reported
    data.mkdir()
    watcher = FolderWatcher([folder], touched, poll=True, poll_interval=INTERVAL, excluded=[data])
    watcher.start()
    yield watcher
    watcher.stop()


def test_poll_true_uses_a_polling_observer(polling: FolderWatcher) -> None:
    assert polling.poll and isinstance(polling._observer, PollingObserver)


def test_polling_reports_create_modify_and_delete(polling: FolderWatcher, folder: Path, touched: Touched) -> None:
    note = write(folder, "note.md", "# Note\n\nfirst")
    assert note in touched.wait_for(note), "a new file is reported"

    touched.clear()
    note.write_text("# Note\n\nthe second, longer version")
    assert touched.wait_for(note) == {note}, "an edit reports the file alone"

    touched.clear()
    deep = write(folder, "a/b/deep.md", "# Deep")
    assert deep in touched.wait_for(deep), "a file in new sub-folders is reported"

    touched.clear()
    note.unlink()
    assert note in touched.wait_for(note), "a deleted file is reported"


def test_polling_reports_both_ends_of_a_rename(polling: FolderWatcher, folder: Path, touched: Touched) -> None:
    old = write(folder, "old.md", "# Old")
    touched.wait_for(old)
    touched.clear()
    new = folder / "new.md"
    old.rename(new)
    assert {old, new} <= touched.wait_for(old, new)


def test_polling_ignores_the_excluded_data_dir(polling: FolderWatcher, folder: Path, touched: Touched) -> None:
    write(folder, ".deepread/index.sqlite", "not a document")
    write(folder, ".deepread/parse-cache/x.json.gz", "cache")
    marker = write(folder, "after.md", "# After")  # reported after the data dir's changes, in the same poll or later
    seen = touched.wait_for(marker)
    assert marker in seen
    assert not [p for p in seen if ".deepread" in p.parts], seen


def test_a_stopped_watcher_reports_nothing(folder: Path, touched: Touched) -> None:
    watcher = FolderWatcher([folder], touched, poll=True, poll_interval=INTERVAL)
    watcher.start()
    first = write(folder, "first.md", "# First")
    assert first in touched.wait_for(first)
    watcher.stop()
    touched.clear()
    late = write(folder, "late.md", "# Late")
    assert late not in touched.wait_for(late, timeout=4 * INTERVAL)
    assert watcher._observer is None


def test_a_missing_root_is_an_error_not_a_silent_fallback(tmp_path: Path, touched: Touched) -> None:
    """Only inotify's limits make the watcher poll; another OSError reaches the caller."""
    watcher = FolderWatcher([tmp_path / "missing"], touched, poll_interval=INTERVAL)
    with pytest.raises(FileNotFoundError):
        watcher.start()
    assert not watcher.poll


# --- the fallback, for real: inotify limits lowered in a user namespace ---------------

CHILD = textwrap.dedent(
    """
    import json, logging, sys, threading, time
    from pathlib import Path
    from indexer.ingest.watch import FolderWatcher

    limits, roots, settle = json.loads(sys.argv[1]), [Path(p) for p in json.loads(sys.argv[2])], float(sys.argv[3])
    for name, value in limits.items():
        Path("/proc/sys/user", name).write_text(str(value))
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s %(message)s")
    seen, lock = set(), threading.Lock()

    def on_paths(paths):
        with lock:
            seen.update(str(p) for p in paths)

    watcher = FolderWatcher(roots, on_paths, poll_interval=INTERVAL)
    watcher.start()
    time.sleep(0.3)  # the observer's threads are running before the first write
    expected = []
    for root in roots:
        for folder in [root, *sorted(p for p in root.rglob("*") if p.is_dir())]:
            expected.append(str(folder / "new.md"))
            (folder / "new.md").write_text("# New")
    deadline = time.monotonic() + settle
    while time.monotonic() < deadline and not set(expected) <= seen:
        time.sleep(0.05)
    observer = type(watcher._observer).__name__
    watcher.stop()
    time.sleep(0.3)
    from watchdog.observers.api import EventEmitter
    emitters = [type(x).__name__ for x in threading.enumerate() if isinstance(x, EventEmitter) and x.is_alive()]
    print(json.dumps({"poll": watcher.poll, "observer": observer, "missed": sorted(set(expected) - seen),
                      "emitters_after_stop": emitters}))
    """
).replace("INTERVAL", repr(INTERVAL))


def _user_namespaces() -> str | None:
    """Why inotify limits cannot be lowered in a user namespace here, or None when they can."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return "needs Linux and unshare(1)"
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "sh", "-c", "echo 0 > /proc/sys/user/max_inotify_watches"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return None if probe.returncode == 0 else f"cannot lower inotify limits in a user namespace: {probe.stderr.strip()}"


_NO_USERNS = _user_namespaces()
needs_userns = pytest.mark.skipif(_NO_USERNS is not None, reason=_NO_USERNS or "")


def run_limited(limits: dict[str, int], roots: list[Path], settle: float = SETTLE) -> tuple[dict, str]:
    """Run CHILD in a user namespace with `limits`; its report and its log. It waits up to
    `settle` seconds for a file written in each folder of the roots to be reported."""
    result = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            sys.executable,
            "-c",
            CHILD,
            json.dumps(limits),
            json.dumps([str(r) for r in roots]),
            str(settle),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr


@needs_userns
@pytest.mark.parametrize(
    ("limit", "why"),
    [
        # No watch at all: the folders are counted against the limit before inotify is tried.
        ("max_inotify_watches", "the folders hold more sub-folders than the inotify watch limit (0)"),
        ("max_inotify_instances", "native file events unavailable (inotify instance limit reached"),
    ],
)
def test_out_of_inotify_watches_or_instances_falls_back_to_polling(folder: Path, limit: str, why: str) -> None:
    write(folder, "sub/existing.md", "# Existing")
    report, log = run_limited({limit: 0}, [folder])
    assert report["poll"] is True and report["observer"] == "PollingObserver"
    assert report["missed"] == [], "polling reports new files in the root and in sub-folders"
    assert why in log and "polling every" in log, log


@needs_userns
def test_a_tree_larger_than_the_watch_limit_is_still_followed(folder: Path) -> None:
    for i in range(10):
        (folder / f"part{i}").mkdir()
    # The root and 3 of its 10 sub-folders fit; 2 s is ten polls, or plenty for inotify.
    report, _ = run_limited({"max_inotify_watches": 4}, [folder], settle=2.0)
    assert report["missed"] == [], f"not reported: {report['missed']} (observer: {report['observer']})"


@needs_userns
def test_a_fallback_with_several_roots_leaves_no_native_emitter_running(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for root, n in ((first, 1), (second, 5)):
        for i in range(n):
            (root / f"d{i}").mkdir(parents=True)
    report, _ = run_limited({"max_inotify_watches": 2}, [first, second])  # the first root fits, the second does not
    assert report["poll"] is True and report["missed"] == []
    assert report["emitters_after_stop"] == [], "no watchdog emitter outlives stop()"


# --- the fallback where user namespaces are not available ------------------------------


def test_enospc_from_the_native_observer_falls_back_to_polling(
    folder: Path, touched: Touched, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The same fallback with the failure injected into watchdog's inotify observer."""

    def out_of_watches(self: InotifyObserver) -> None:
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(InotifyObserver, "start", out_of_watches)
    watcher = FolderWatcher([folder], touched, poll_interval=INTERVAL)
    with caplog.at_level(logging.WARNING, logger="indexer.ingest.watch"):
        watcher.start()
    try:
        assert watcher.poll and isinstance(watcher._observer, PollingObserver)
        assert "native file events unavailable (inotify watch limit reached" in caplog.text
        assert "polling every" in caplog.text
        note = write(folder, "note.md", "# Note")
        assert note in touched.wait_for(note)
    finally:
        watcher.stop()
