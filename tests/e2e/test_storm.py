"""Many hosts, one folder, under faults: a minute of kill -9 while the folder changes loses nothing.

Three real servers over stdio (`python -m server serve FOLDER --data-dir DATA`, the official MCP
client) share one folder and one index. Every 3 s one is killed with SIGKILL, the writer three
times in four, and started again at once; every 0.4 s a file is added, overwritten (with new words,
or with another file's bytes: a copy, listed on its document's line), renamed (to a new name or
over another file) or deleted, written at once, in two halves or through a temporary file; every
server answers `get_toc` and `retrieve` throughout (`benchmarks/robustness/storm.py`, which
`python -m benchmarks.robustness.storm` runs for ten minutes and more).

Then, within two minutes of the last change: the index holds every file's newest bytes, nothing
pending, failed or left over; every server and the CLI (`toc`, `search`) list every file and find
it by its newest words, and find no word of a deleted or overwritten version; no file is damaged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.robustness.storm import StormConfig, load, render, run_storm

pytestmark = pytest.mark.slow  # a minute of storm, and the checks after it: `pytest -m "not slow"` skips it


def test_a_minute_of_kill_9_and_changes_loses_nothing(tmp_path: Path) -> None:
    config = StormConfig(
        minutes=1, servers=3, kill_every=3, writer_share=0.75, change_every=0.4, files=24, settle_limit=120
    )
    before = load()
    report = run_storm(config, tmp_path)
    print("\n".join(render(report, before, load())))
    assert report.writer_kills >= 10, "the writer was killed again and again"
    assert report.takeovers >= report.writer_kills // 2, "readers took over writing from the killed writer"
    assert {"add", "overwrite", "rename", "delete"} <= set(report.changes), report.changes
    assert report.changes.get("copy", 0) + report.changes.get("same", 0) > 0, "files with another's bytes"
    assert not report.unexpected_exits and not report.query_errors, "every server answered throughout"
    assert report.settle_s is not None and report.settle_s < 120, report.index.summary()
    assert report.index.settled, report.index.summary()
    for found in report.found:
        assert found.clean and found.searched == report.files, found.summary()
    assert [f.who for f in report.found] == ["server 0", "server 1", "server 2", "CLI"]
    assert not report.damaged
