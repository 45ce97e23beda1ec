"""A file the server may not read fails with that reason, a folder it may not open is named as
skipped, and both are indexed once made readable, though a chmod leaves size and mtime as they were.

Tests run as root, who reads any file; so the library runs in a child process in a user
namespace of its own (`unshare --user`), where root's files are checked by their owner bits
like anyone's. A real watchdog observer sees the chmod.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, write

CHILD = r"""
import json, os, sys, time
from pathlib import Path
from indexer.service.follow import Follower
from indexer.library import Library, LibraryConfig

folder, data, models = map(Path, sys.argv[1:4])
secret = folder / "secret.md"
library = Library(LibraryConfig(roots=[folder], data_dir=data, models_dir=models))
background = library.follower(debounce=0.3)
background.start()
background.wait_idle(120)
toc = library.toc()
before = {"failed": [(f.path, f.reason) for f in toc.failed], "docs": [d.path for d in toc.documents],
          "skipped": [(s.path, s.reason) for s in library.toc(skipped=True).skipped]}
os.chmod(secret, 0o644)
os.chmod(folder / "locked", 0o755)
deadline = time.monotonic() + 60
while time.monotonic() < deadline and len([d for d in library.toc().documents if d.status == "ready"]) < 3:
    time.sleep(0.2)
hits = library.retrieve("walrus", top_k=1).results
after = {"docs": [d.path for d in library.toc().documents], "hit": hits[0].text if hits else None,
         "skipped": library.toc().n_skipped}
background.stop()
library.close()
print(json.dumps({"before": before, "after": after}))
"""


def _no_user_namespaces() -> str | None:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return "needs Linux and unshare(1)"
    probe = subprocess.run(["unshare", "--user", "true"], capture_output=True, check=False)
    return None if probe.returncode == 0 else "user namespaces are not allowed here"


@pytest.mark.skipif(bool(_no_user_namespaces()), reason=str(_no_user_namespaces()))
def test_a_file_made_readable_is_indexed(folder: Path, tmp_path: Path, models_dir: Path) -> None:
    write(folder, "open.md", "# Open\n\nAnyone may read about otters.")
    secret = write(folder, "secret.md", "# Secret\n\nThe walrus keeps the key.")
    secret.chmod(0o000)
    write(folder, "locked/inside.md", "# Inside\n\nA locked folder holds this.")
    (folder / "locked").chmod(0o000)
    run = subprocess.run(
        ["unshare", "--user", sys.executable, "-c", CHILD, str(folder), str(tmp_path / "data"), str(models_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["before"]["docs"] == ["open.md"]
    assert result["before"]["failed"] == [["secret.md", result["before"]["failed"][0][1]]]
    assert "permission denied" in result["before"]["failed"][0][1]
    assert result["before"]["skipped"] == [["locked/", "cannot open folder: Permission denied"]]
    assert sorted(result["after"]["docs"]) == ["locked/inside.md", "open.md", "secret.md"], "made readable: indexed"
    assert result["after"]["skipped"] == 0
    assert result["after"]["hit"] and "walrus" in result["after"]["hit"]
