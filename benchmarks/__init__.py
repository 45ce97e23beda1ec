"""Benchmark scripts; each appends its results to a file in `benchmarks/results/`."""

from __future__ import annotations

from pathlib import Path


def append_result(out: Path, header: str, text: str) -> None:
    """Append `text` to the results file `out`, starting it with `header` when it is new."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists():
        out.write_text(header)
    with out.open("a") as f:
        f.write(text)
