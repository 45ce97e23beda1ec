"""The writer's lock: one process at a time holds it, the kernel frees it when that process dies
(even by kill -9), and the holder writes down its pid. Real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from indexer.service.lock import take_lock, writer_pid

HOLD = """
import sys, time
from pathlib import Path
from indexer.service.lock import take_lock
lock = take_lock(Path(sys.argv[1]))
print("held" if lock is not None else "taken", flush=True)
time.sleep(60)
"""


def _holder(data_dir: Path) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(data_dir)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def test_one_process_holds_the_lock_and_names_itself(tmp_path: Path) -> None:
    assert writer_pid(tmp_path) == "unknown", "no writer has written itself down yet"
    child = _holder(tmp_path)
    try:
        assert take_lock(tmp_path) is None, "not while another process holds it"
        assert writer_pid(tmp_path) == str(child.pid)
    finally:
        child.kill()
        child.wait()


def test_a_lock_held_by_a_killed_process_is_free(tmp_path: Path) -> None:
    child = _holder(tmp_path)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    lock = take_lock(tmp_path)
    assert lock is not None, "the kernel frees the lock of a process killed -9"
    try:
        assert writer_pid(tmp_path) == str(os.getpid())
    finally:
        lock.release()
