"""Peak memory and time of indexing a hostile folder, and of the worst single file.

    python -m benchmarks.robustness.hostile [--out benchmarks/results/hostile.md]

The folder is the one `tests/e2e/test_hostile.py` checks (link loops, a FIFO, a socket, a
non-UTF-8 name, UTF-16, a 1 MB word, a giant table row, 20,000 headings, a large text file,
a zip bomb, bad PDFs); the worst single file is a 45 MB Markdown file of one 27 MB line of
figures and a 500,000-row table. Each is indexed in a fresh process (a real Library: SQLite,
Chroma, MiniLM, the MinerU child) and reports the server process's peak RSS and the parser
child's, so the memory bound the README states is measured, not assumed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from datetime import date
from pathlib import Path

from fpdf import FPDF

from benchmarks import common

MB = 1_000_000


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _zero_page_pdf(path: Path) -> None:
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out, offsets = b"%PDF-1.4\n", []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    path.write_bytes(out)


def _pdf(path: Path, text: str, password: str | None = None) -> None:
    pdf = FPDF()
    if password:
        pdf.set_encryption(owner_password="owner", user_password=password)
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, text)
    pdf.output(str(path))


def _zip_bomb(path: Path) -> None:
    """A .docx whose one member expands 60 MB of zeros from ~60 kB (small enough for CI)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\0" * 60 * MB)
    path.write_bytes(buffer.getvalue())


def make_hostile_folder(folder: Path) -> socket.socket:
    """Fill `folder` with one file of every troublesome kind; returns the bound socket (close it)."""
    write(folder, "good.md", "# Garden\n\n## Watering\n\nWater the tomatoes every morning before nine.\n")
    write(folder, "notes.txt", "NOTES\n\nThe heron waits by the reed bed at dawn.\n")
    # Links: a loop, one to a missing file, one to a file inside the folder (indexed once).
    (folder / "loop-a.md").symlink_to(folder / "loop-b.md")
    (folder / "loop-b.md").symlink_to(folder / "loop-a.md")
    (folder / "dangling.md").symlink_to(folder / "nowhere.md")
    (folder / "alias.md").symlink_to(folder / "good.md")
    # Not regular files, named like documents.
    os.mkfifo(folder / "pipe.md")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "socket.md"))
    # A file name that is not UTF-8.
    with open(os.path.join(os.fsencode(folder), b"caf\xe9.md"), "wb") as f:
        f.write(b"# Menu\n\nThe bistro serves onion soup on Fridays.\n")
    # Encodings.
    (folder / "utf16-bom.txt").write_bytes("Le relevé des comptes arrive en février.\n".encode("utf-16"))
    (folder / "utf16-nobom.md").write_bytes("# Rapport\n\nLa réunion du comité est jeudi.\n".encode("utf-16-le"))
    (folder / "one-bad-byte.md").write_bytes("# Crème\n\nLa crème brûlée est servie tiède. ".encode() + b"\xff\n")
    # Long words: a 1 MB word in a paragraph; a giant table row; 20,000 headings.
    write(folder, "long-word.md", "# Word\n\nBefore the word. " + "x" * MB + " after the word zebrafinch.\n")
    write(
        folder,
        "giant-row.md",
        "# Data\n\n| id | values |\n|---|---|\n| 1 | " + ",".join(map(str, range(60_000))) + " |\n",
    )
    write(folder, "headings.md", "# Many\n\n" + "".join(f"## Heading {i}\n\nline {i}\n\n" for i in range(20_000)))
    write(folder, "only-headings.md", "# Outline\n\n## First part\n\n## Second part\n\n### Detail\n")
    # Over the size limit; a text file large enough to be parsed in the confined child.
    write(folder, "oversized.md", "# Big\n\n" + "word " * (6 * MB // 5 + 10))
    rows = "".join(f"| {i} | row {i} of the inventory of the large file |\n" for i in range(80_000))
    write(folder, "large.md", f"# Large\n\n| n | item |\n|---|---|\n{rows}\nThe lantern festival closes the season.\n")
    # Bad office files and PDFs.
    _zip_bomb(folder / "bomb.docx")
    _pdf(folder / "locked.pdf", "Secret numbers", password="secret")
    full = folder / "whole.pdf"
    _pdf(full, "Quarterly revenue grew in every region.")
    (folder / "truncated.pdf").write_bytes(full.read_bytes()[:300])
    _zero_page_pdf(folder / "zero-pages.pdf")
    (folder / "binary.md").write_bytes(b"\x00\x01\x02" * 1000)
    return sock


def make_worst_file(folder: Path) -> None:
    """45 MB of Markdown: a 27 MB line of figures in a code block, a 500,000-row table, a 1 MB word."""
    rng = random.Random(1)
    with open(folder / "worst.md", "w", encoding="utf-8") as f:
        f.write("# Huge\n\nSome intro text about the data.\n\n## Data\n\n```\n")
        f.write(",".join(str(rng.randint(0, 10**6)) for _ in range(4_000_000)) + "\n```\n\n")
        f.write("| a | b |\n|---|---|\n" + "".join(f"| {i} | {'x' * 20} |\n" for i in range(500_000)))
        f.write("\n\n## Word\n\n" + "y" * MB + "\n")


def measure(folder: Path, max_file_mb: float) -> dict:
    """Index `folder` in this process; called in a fresh child so peaks are its own."""
    from indexer.library import Library, LibraryConfig

    with tempfile.TemporaryDirectory() as data:
        config = LibraryConfig(
            roots=[folder],
            data_dir=Path(data) / "index",
            models_dir=Path(data) / "models",
            max_file_bytes=int(max_file_mb * MB),
        )
        with Library(config) as library:
            baseline = common.peak_mb()
            started = time.monotonic()
            report = library.reconcile()
            seconds = time.monotonic() - started
    return {
        "seconds": round(seconds, 1),
        "indexed": len(report.indexed),
        "failed": len(report.failed),
        "baseline_mb": round(baseline),
        "server_peak_mb": round(common.peak_mb()),
        "parser_peak_mb": round(common.peak_mb(children=True)),
    }


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_out(parser, "hostile.md")
    parser.add_argument("--measure", nargs=2, metavar=("FOLDER", "MAX_FILE_MB"), help=argparse.SUPPRESS)
    args = common.parse_args(parser)
    if args.measure:
        print(json.dumps(measure(Path(args.measure[0]), float(args.measure[1]))))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        hostile, worst = Path(tmp) / "hostile", Path(tmp) / "worst"
        hostile.mkdir()
        worst.mkdir()
        sock = make_hostile_folder(hostile)
        make_worst_file(worst)
        try:
            for name, folder, limit in (
                ("hostile folder (24 entries)", hostile, 6),
                ("worst single file (45 MB Markdown)", worst, 100),
            ):
                out = subprocess.run(
                    [sys.executable, "-m", "benchmarks.robustness.hostile", "--measure", str(folder), str(limit)],
                    cwd=common.REPO,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                result = json.loads(out.stdout.strip().splitlines()[-1])
                rows.append((name, result))
                print(name, result, flush=True)
        finally:
            sock.close()
    lines = [
        f"# Hostile input: time and peak memory ({date.today()}, `python -m benchmarks.robustness.hostile`)",
        "",
        "| input | indexed / failed | time | server RSS: after start → peak | parser child peak RSS |",
        "|---|---|---|---|---|",
    ]
    for name, r in rows:
        lines.append(
            f"| {name} | {r['indexed']} / {r['failed']} | {r['seconds']} s | {r['baseline_mb']} → "
            f"{r['server_peak_mb']} MB | {r['parser_peak_mb']} MB |"
        )
    common.write_result(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
