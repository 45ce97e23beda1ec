"""The command line shows a person what the agent sees; Streamable HTTP serves the same tools."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.conftest import REPO, free_port, wait_for_port, write

DOC = "# Field Notes\n\n## Birds\n\nThe heron waits in the shallows at dawn.\n\n## Trees\n\nOaks keep their leaves late.\n"
WEATHER = "# Weather\n\nRain at noon.\n\nWind from the west.\n\nFog by evening.\n"  # one section: one passage


BIN = Path(sys.executable).parent  # the installation's console scripts


def run(
    *args: str, env: dict[str, str] | None = None, program: str = "deepread-mcp"
) -> subprocess.CompletedProcess[str]:
    """The command as a person runs it: by its name on PATH (the commands it prints then name it
    so), or by the path given as `program`."""
    return subprocess.run(
        [program, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **(env or {})},
        check=False,
    )


def printed(command: str, text: str) -> list[str]:
    """The arguments of the first `deepread-mcp COMMAND …` printed in `text`, up to the words after it."""
    line = text[text.index(f"deepread-mcp {command} ") :].splitlines()[0]
    words = shlex.split(line)[1:]
    return words[: next(i for i, w in enumerate(words) if w in ("reads", "says", "to"))]


def test_a_query_on_a_folder_with_copies_indexes_nothing_again(tmp_path: Path) -> None:
    """Identical files are one document and its copies: settled, as documents are, so a query
    after `index` neither reconciles nor prints a summary."""
    docs, data = tmp_path / "docs", ["--data-dir", str(tmp_path / "data")]
    write(docs, "notes.md", DOC)
    write(docs, "notes (1).md", DOC)
    assert run("index", str(docs), *data).returncode == 0
    toc = run("toc", str(docs), *data)
    assert toc.returncode == 0 and toc.stderr == "", toc.stderr
    assert "| also at " in toc.stdout


@pytest.mark.slow
def test_index_toc_search_read(tmp_path: Path) -> None:
    from filelock import FileLock

    docs = tmp_path / "docs"
    write(docs, "notes.md", DOC)
    write(docs, "weather.md", WEATHER)
    (docs / "photos.zip").write_bytes(b"PK")
    data = ["--data-dir", str(tmp_path / "data")]

    index = run("index", str(docs), *data)
    assert index.returncode == 0, index.stderr
    assert "2 indexed, 0 unchanged, 0 failed, 0 removed; 3 passages embedded for 5 paragraphs" in index.stderr
    assert index.stdout.startswith("(1) notes.md — Field Notes | 15 tokens | +2 sections")

    toc = run("toc", str(docs), *data)  # the folder named after the command, as for `index`
    assert toc.returncode == 0 and toc.stderr == "", "an index in line with the folder: no reconcile, no summary"
    assert "\n  [1] Birds\n" in toc.stdout
    assert toc.stdout == run("toc", "-f", str(docs), *data).stdout, "-f names the same folder"
    one = run("toc", str(docs), *data, "--doc", "1", "--sec", "2")
    assert "[2] Trees" in one.stdout and "[1] Birds" not in one.stdout

    # What the CLI prints names commands a person can type, and they work.
    assert "get_toc" not in toc.stdout and "read_section" not in toc.stdout
    assert f"| deepread-mcp read {docs} 2 0 --data-dir {tmp_path / 'data'} reads it" in toc.stdout
    assert f"deepread-mcp toc {docs} --skipped --data-dir {tmp_path / 'data'} says why" in toc.stdout
    assert "Fog by evening." in run(*printed("read", toc.stdout)).stdout
    assert "Skipped: photos.zip — not a supported type (.zip)" in run(*printed("toc", toc.stdout)).stdout

    search = run("search", str(docs), "where does the heron wait", "-k", "1", *data)
    assert search.returncode == 0 and search.stderr == ""
    assert "#1 score=" in search.stdout and "(1, 1, 0) v1 | Field Notes > Birds" in search.stdout

    read = run("read", str(docs), "1", "2", *data)
    assert "(1) [2] Trees | level 1 | paragraphs 0–0 of 0–0 | v1" in read.stdout
    assert "Oaks keep their leaves late." in read.stdout and read.stderr == ""

    bad = run("read", "-f", str(docs), "1", "7", *data)
    assert bad.returncode == 1 and "doc 1 has no section 7; its sections are 0–2" in bad.stderr
    assert f"(run deepread-mcp toc {docs} --doc 1 --data-dir {tmp_path / 'data'} to see them)" in bad.stderr

    # Beside a process that writes the index (a server), a query answers from it as it is.
    write(docs, "notes.md", DOC.replace("Oaks", "Elms"))
    with FileLock(str(tmp_path / "data" / "index.lock")):
        beside = run("read", str(docs), "1", "2", *data)
    assert beside.returncode == 0 and beside.stderr == "" and "Oaks keep" in beside.stdout
    # With none, a query brings the changed file in first, and says so.
    changed = run("read", str(docs), "1", "2", *data)
    assert "Elms keep their leaves late." in changed.stdout
    assert changed.stderr.startswith("1 indexed, 1 unchanged, 0 failed, 0 removed; 1 passage embedded for 1 paragraph")


@pytest.mark.slow
def test_index_waits_for_a_file_being_saved(tmp_path: Path) -> None:
    """A file truncated by a save that has not written its text yet keeps its last version, and
    the one-shot command (no watcher) reads it again once the save is done."""
    import threading
    import time

    docs = tmp_path / "docs"
    write(docs, "notes.md", DOC)
    data = ["--data-dir", str(tmp_path / "data")]
    assert run("index", str(docs), *data).returncode == 0
    (docs / "notes.md").write_text("")  # the save truncates first …
    done = threading.Event()

    def save() -> None:
        start = time.monotonic()
        while time.monotonic() - start < 8:  # … and is still writing while the command starts
            os.utime(docs / "notes.md")
            time.sleep(0.3)
        (docs / "notes.md").write_text(DOC.replace("Field Notes", "Field Notes, revised"))
        done.set()

    writer = threading.Thread(target=save)
    writer.start()
    index = run("index", str(docs), *data)
    writer.join()
    assert index.returncode == 0, index.stderr
    assert done.is_set() and "1 indexed, 0 unchanged, 0 failed" in index.stderr
    assert index.stdout.startswith("(1) notes.md — Field Notes, revised")


def test_bad_arguments_are_explained(tmp_path: Path) -> None:
    missing = run("index", str(tmp_path / "nope"), "--data-dir", str(tmp_path / "d"))
    assert missing.returncode == 2 and f"{tmp_path / 'nope'} does not exist" in missing.stderr
    nothing = run("serve", env={"DEEPREAD_FOLDERS": ""})
    assert nothing.returncode == 2 and "give a folder" in nothing.stderr
    budget = run("index", str(tmp_path), "--token-budget", "5", "--data-dir", str(tmp_path / "d"))
    assert budget.returncode == 2 and "token_budget" in budget.stderr


def test_streamable_http_transport(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs, "notes.md", DOC)
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server",
            "serve",
            str(docs),
            "--data-dir",
            str(tmp_path / "data"),
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)

        async def ask() -> str:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                with anyio.fail_after(60):
                    while True:
                        toc = await client.call_tool("get_toc", {})
                        if toc.structured_content["documents"]:
                            break
                        await anyio.sleep(0.2)
                result = await client.call_tool("read_section", {"doc_id": 1, "sec_id": 1})
                return result.content[0].text

        assert "The heron waits in the shallows at dawn." in anyio.run(ask)
        assert "The heron waits" in anyio.run(ask), "a second HTTP session shares the same open index"
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert server.returncode is not None


def test_a_port_in_use_is_an_error_before_the_index_opens(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs, "notes.md", DOC)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "server",
                "serve",
                str(docs),
                "--data-dir",
                str(tmp_path / "data"),
                "--transport",
                "http",
                "--port",
                str(port),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 1
    assert f"deepread-mcp: port {port} is in use; choose another with --port" in done.stderr
    assert not list((tmp_path / "data").rglob("index.sqlite3")), "the index was never opened"


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help(argv: list[str]) -> None:
    result = run(*argv)
    assert result.returncode == 0 and "deepread-mcp" in result.stdout


def test_doctor_says_what_parses_what(tmp_path: Path) -> None:
    result = run("doctor", "--data-dir", str(tmp_path / "d"))
    assert result.returncode == 0, result.stderr
    assert "loads offline: ok" in result.stdout
    assert "reads: English only; for documents or questions in other languages set DEEPREAD_EMBEDDING_MODEL" in (
        result.stdout
    )
    assert "basic tier models: not installed" in result.stdout
    assert ".pdf: MinerU flash tier" in result.stdout
    assert ".webp: pictures of documents, RapidOCR, offline, a page per image" in result.stdout
    assert ".eml .msg: built-in (each attachment by its own format's parser)" in result.stdout
    kit = Path(sys.executable).parent / "mineru-kit"  # by its path: a venv's bin is seldom on PATH
    assert kit.is_absolute() and os.access(kit, os.X_OK)
    assert f"MINERU_HOME={tmp_path / 'd' / 'mineru'} {kit} models download --tier basic" in result.stdout
    assert not (Path.home() / ".mineru").exists(), "nothing is written to the user's home"


def test_index_waits_for_every_file_and_fails_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`index` ends with every file indexed or failed, never "still indexing": a parse that
    outlives its batch (here every PDF parse: the batch's patience is cut to 0.5 s) is waited
    for; a failure is printed with its reason and the exit status is 1."""
    from server import cli
    from tests.indexer.parse.test_documents import make_report

    monkeypatch.setattr("indexer.service.writing.SLOW_PARSE_S", 0.5)
    docs = tmp_path / "docs"
    docs.mkdir()
    make_report(docs / "report.pdf")
    data = ["--data-dir", str(tmp_path / "data")]
    assert cli.main(["index", str(docs), *data]) == 0
    out = capsys.readouterr()
    assert "1 indexed, 0 unchanged, 0 failed" in out.err and "Still indexing" not in out.out
    assert out.out.startswith("(1) report.pdf")

    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really a PDF")
    assert cli.main(["index", str(docs), *data]) == 1
    out = capsys.readouterr()
    assert "0 indexed, 1 unchanged, 1 failed" in out.err
    assert "failed: broken.pdf — not a readable PDF" in out.err


def test_doctor_names_the_files_it_will_not_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from server import cli, doctor

    docs = tmp_path / "docs"
    write(docs, "notes.md", DOC)
    for i in range(doctor.SKIPPED_SHOWN + 1):
        (docs / f"photos-{i:02}.zip").write_bytes(b"PK")
    cli.main(["doctor", str(docs), "--data-dir", str(tmp_path / "data")])
    out = capsys.readouterr().out
    assert f"folders: 1 document(s) to index, {doctor.SKIPPED_SHOWN + 1} file(s) not indexed" in out
    assert "  photos-00.zip — not a supported type (.zip)" in out
    toc = Path(sys.executable).parent / "deepread-mcp"
    assert f"… and 1 more ({toc} toc {docs} --skipped --data-dir {tmp_path / 'data'} lists them all" in out


def isolated(tmp_path: Path, **env: str) -> dict[str, str]:
    """A user data dir of the test's own, and no folders from the outer environment."""
    return {"XDG_DATA_HOME": str(tmp_path / "share"), "DEEPREAD_FOLDERS": "", **env}


@pytest.mark.parametrize("query", [["toc"], ["search", "heron"], ["read", "1", "0"]])
def test_a_folder_never_indexed_is_not_indexed_by_a_query(tmp_path: Path, query: list[str]) -> None:
    docs = tmp_path / "docs"
    write(docs, "notes.md", DOC)
    named = run(query[0], str(docs), *query[1:], env=isolated(tmp_path))
    assert named.returncode == 2 and named.stdout == ""
    assert f"{docs} is not indexed yet: run `deepread-mcp index {docs}`" in named.stderr
    by_variable = run(*query, env=isolated(tmp_path, DEEPREAD_FOLDERS=str(docs)))
    assert by_variable.returncode == 2 and "is not indexed yet" in by_variable.stderr
    elsewhere = run(*query, "-f", str(docs), "--data-dir", str(tmp_path / "data"), env=isolated(tmp_path))
    assert elsewhere.returncode == 2
    assert f"run `deepread-mcp index {docs} --data-dir {tmp_path / 'data'}`" in elsewhere.stderr
    assert not (tmp_path / "share").exists() and not (tmp_path / "data").exists(), "nothing indexed, nothing made"


@pytest.mark.slow
def test_a_query_without_a_folder_answers_from_the_one_indexed(tmp_path: Path) -> None:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    write(alpha, "notes.md", DOC)
    write(beta, "weather.md", WEATHER)
    env = isolated(tmp_path)

    none = run("toc", env=env)
    assert none.returncode == 2
    assert "no folder is indexed yet: run `deepread-mcp index FOLDER`, then `deepread-mcp toc FOLDER`" in none.stderr

    assert run("index", str(alpha), env=env).returncode == 0
    one = run("search", "where does the heron wait", "-k", "1", env=env)
    assert one.returncode == 0 and one.stderr == "" and "Field Notes > Birds" in one.stdout
    assert "(1) notes.md — Field Notes" in run("toc", env=env).stdout

    assert run("index", "-f", str(beta), env=env).returncode == 0
    several = run("toc", env=env)
    assert several.returncode == 2 and several.stdout == ""
    assert f"2 are indexed; name one (`deepread-mcp toc FOLDER`) or set DEEPREAD_FOLDERS:\n  {alpha}\n  {beta}\n" in (
        several.stderr
    )
    assert "to index another: `deepread-mcp index FOLDER`" in several.stderr
    chosen = run("toc", env=isolated(tmp_path, DEEPREAD_FOLDERS=str(beta)))
    assert chosen.returncode == 0 and "(1) weather.md — Weather" in chosen.stdout


def test_config_asks_for_a_folder(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    asked = run("config", env=isolated(tmp_path))
    assert asked.returncode == 2 and asked.stdout == ""
    assert "name the folders to serve: deepread-mcp config FOLDER" in asked.stderr
    from_variable = run("config", env=isolated(tmp_path, DEEPREAD_FOLDERS=str(docs)))
    assert from_variable.returncode == 0 and f'"serve",\n        "{docs}"' in from_variable.stdout


def test_commands_printed_back_run_as_printed(tmp_path: Path) -> None:
    """A person who ran the CLI by a path (the README's install puts nothing on PATH) is told
    commands with that path, which run as printed; `python -m server` prints itself so too."""
    docs = tmp_path / "my docs"
    write(docs, "notes.md", DOC)
    script = os.path.relpath(BIN / "deepread-mcp", REPO)  # as typed: `.venv/bin/deepread-mcp`
    bare = isolated(tmp_path, PATH="/usr/bin:/bin")  # as the README's install leaves it: not on PATH
    unindexed = run("toc", str(docs), program=script, env=bare)
    assert unindexed.returncode == 2
    told = unindexed.stderr[unindexed.stderr.index("`") + 1 : unindexed.stderr.rindex("`")]
    assert shlex.split(told)[:2] == [script, "index"], unindexed.stderr
    done = subprocess.run(
        shlex.split(told),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **isolated(tmp_path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    module = subprocess.run(
        [sys.executable, "-m", "server", "toc", str(docs), "--depth", "0"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **isolated(tmp_path)},
        check=False,
    )
    assert f"{shlex.quote(sys.executable)} -m server read" in module.stdout, module.stdout


def test_output_piped_into_head_ends_quietly(tmp_path: Path) -> None:
    docs, data = tmp_path / "docs", ["--data-dir", str(tmp_path / "data")]
    write(docs, "long.md", "# Long\n\n" + "\n\n".join(f"Paragraph {i} about herons and the tide." for i in range(400)))
    assert run("index", str(docs), *data).returncode == 0
    reader = subprocess.Popen(
        ["deepread-mcp", "read", str(docs), "1", "0", *data],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "DEEPREAD_TOKEN_BUDGET": "20000"},
    )
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()
    reader.stdout.close()  # as `head -1` does once it has its line
    assert reader.wait(timeout=120) == 0
    assert b"Traceback" not in reader.stderr.read() and b"BrokenPipeError" not in reader.stderr.read()
