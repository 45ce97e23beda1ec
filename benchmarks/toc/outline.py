"""The map against each PDF's own bookmarks: the author's table of contents as the yardstick.

    python -m benchmarks.toc.outline [--bench ../shared/bench] [--cache DIR] [--min-entries 4]
                                     [--label TEXT] [--show STEM] [--out benchmarks/results/outline.md]
                                     [--checkout CHECKOUT]

Every PDF of FinanceBench and MMLongBench whose outline has at least `--min-entries` entries is
parsed by the server's own code (`DocumentParser` → `structure.build`) twice: with its outline
(as the server reads it) and with the outline withheld (headings as found, which is what the
many PDFs without bookmarks get). Scored per document, an outline entry against the map's
sections (titles compared in lower case, without leading numbering, spaces or punctuation):

* **found**: the entry is a section, in the outline's order (the longest common subsequence of
  the entries' and the sections' titles, so one stray match cannot hide the entries after it);
* **nested**: of the found entries, those whose nearest found outline ancestor is the nearest
  ancestor among the found sections (a top-level entry sits under no found section);
* **on page**: of the found entries, those whose section starts on the entry's page (±1);
* **strays**: sections at the map's top level whose title no entry has.

`--cache` reuses MinerU's parses (nothing is parsed again); `--show STEM` prints that document's
outline beside its map. The time the map takes (MinerU's content list to sections, from the
cache: all the outline changes; MinerU's own parse, seconds a document, is the same either way)
is timed both ways in the same process, the median of `--rounds` runs per document.
"""

from __future__ import annotations

import hashlib
import re
import statistics
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.models import DocumentStructure
from indexer.parse.formats import DocumentParser
from indexer.parse.mineru import MineruOptions
from indexer.parse.pdf_layers import read_outline
from indexer.structure.sections import build

SETS = ("financebench/pdfs", "mmlongbench/pdfs")

# Leading numbering an outline and a heading may write differently: "3.2", "A.1", "IV.", "A)", "(b)".
_NUMBERING = re.compile(r"^\s*(?:\(?(?:(?:\d+|[a-z])(?:\.\d+)*|[ivxlcdm]{1,6})[.)]?(?:\s+|$))+", re.I)


def norm(title: str) -> str:
    """A title as compared: lower case, no leading numbering, only letters and digits."""
    title = _NUMBERING.sub("", title.strip())
    return re.sub(r"[\W_]+", "", title.lower())


@dataclass
class Score:
    name: str
    entries: int
    found: int
    nested: int
    on_page: int
    strays: int
    sections: int


def score(name: str, outline: list[dict], structure: DocumentStructure) -> Score:
    sections = structure.sections[1:]  # the root is the document, not an entry
    parent = {s.sec_id: s.parent for s in structure.sections}
    found = _in_order([norm(entry["title"]) for entry in outline], [norm(s.title) for s in sections])
    match = {e: sections[k].sec_id for e, k in found.items()}
    matched = set(match.values())
    nested = on_page = 0
    for e, sec_id in match.items():
        ancestor = _outline_ancestor(outline, e, match)
        above = parent[sec_id]
        while above not in (None, 0) and above not in matched:
            above = parent[above]
        expected = match[ancestor] if ancestor is not None else None
        nested += (above if above not in (None, 0) else None) == expected
        page, start = outline[e].get("page"), structure.sections[sec_id].page_start
        on_page += page is not None and start is not None and abs(start - page) <= 1
    titles = {norm(entry["title"]) for entry in outline}
    strays = sum(1 for s in sections if s.parent == 0 and norm(s.title) not in titles)
    return Score(name, len(outline), len(match), nested, on_page, strays, len(sections))


def _in_order(entries: list[str], titles: list[str]) -> dict[int, int]:
    """The longest common subsequence of two title lists: entry index → section index."""
    n, m = len(entries), len(titles)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            same = entries[i] and entries[i] == titles[j]
            best[i][j] = best[i + 1][j + 1] + 1 if same else max(best[i + 1][j], best[i][j + 1])
    match: dict[int, int] = {}
    i = j = 0
    while i < n and j < m:
        if entries[i] and entries[i] == titles[j]:
            match[i] = j
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return match


def _outline_ancestor(outline: list[dict], e: int, match: dict[int, int]) -> int | None:
    """The nearest entry above `e` in the outline's tree that was found in the map."""
    level = outline[e]["level"]
    for k in range(e - 1, -1, -1):
        if outline[k]["level"] < level:
            if k in match:
                return k
            level = outline[k]["level"]
    return None


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument("--cache", type=Path, default=None, help="MinerU parse cache to reuse")
    parser.add_argument("--min-entries", type=int, default=4)
    common.add_label(parser, "", "what this run measures (before / after …)")
    parser.add_argument("--show", action="append", default=[], help="print this document's outline and map")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per document and way")
    common.add_out(parser, "outline.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    with tempfile.TemporaryDirectory(prefix="deepread-outline-") as tmp:
        cache = args.cache or Path(tmp, "cache")
        parsers = {
            used: DocumentParser(MineruOptions(cache_dir=cache, home=Path(tmp, "mineru"), use_outline=used))
            for used in (True, False)
        }
        results: dict[bool, list[Score]] = {True: [], False: []}
        seconds: dict[bool, float] = {True: 0.0, False: 0.0}
        for folder in SETS:
            for pdf in sorted((args.bench / folder).glob("*.pdf")):
                outline = read_outline(str(pdf), [])
                if len(outline) < args.min_entries:
                    continue
                data = pdf.read_bytes()
                digest = hashlib.sha256(data).hexdigest()
                for used, doc_parser in parsers.items():
                    structure = build(doc_parser.parse(pdf, data, digest), pdf.stem)
                    timed = []
                    for _ in range(args.rounds):
                        started = time.perf_counter()
                        build(doc_parser.parse(pdf, data, digest), pdf.stem)
                        timed.append(time.perf_counter() - started)
                    seconds[used] += statistics.median(timed)
                    results[used].append(score(pdf.stem, outline, structure))
                    if pdf.stem in args.show:
                        _show(pdf.stem, used, outline, structure)
    text = _report(results, args.label) + (
        f"\nThe map from MinerU's cached content list, {len(results[True])} PDFs, median of {args.rounds} runs each: "
        f"outline used {seconds[True]:.2f} s, withheld {seconds[False]:.2f} s ({seconds[True] / seconds[False]:.2f}×).\n"
    )
    print(text)
    common.append_result(
        args.out, "# The map against the PDFs' own bookmarks (`python -m benchmarks.toc.outline`)\n", text
    )


def _show(stem: str, used: bool, outline: list[dict], structure: DocumentStructure) -> None:
    print(f"\n== {stem}, outline {'used' if used else 'withheld'}")
    for entry in outline:
        print(f"  outline {'  ' * (entry['level'] - 1)}{entry['title']} (p.{entry.get('page')})")
    for s in structure.sections[1:]:
        print(f"  map     {'  ' * (s.level - 1)}[{s.sec_id}] {s.title} (p.{s.page_start})")


def _report(results: dict[bool, list[Score]], label: str) -> str:
    lines = [f"\n## {label or 'Run'} ({date.today()})\n"]
    for used, scores in results.items():
        entries = sum(s.entries for s in scores)
        found = sum(s.found for s in scores)
        nested = sum(s.nested for s in scores)
        on_page = sum(s.on_page for s in scores)
        strays = sum(s.strays for s in scores)
        lines += [
            (
                f"\nOutline {'used' if used else 'withheld'}: {len(scores)} PDFs, {entries} entries; "
                f"found **{found / max(entries, 1):.1%}**, nested {nested / max(found, 1):.1%}, "
                f"on its page {on_page / max(found, 1):.1%}, "
                f"top-level strays {strays / max(len(scores), 1):.2f} a document\n"
            ),
            "| document | entries | found | nested | on page | strays | sections |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {s.name[:48]} | {s.entries} | {s.found} | {s.nested} | {s.on_page} | {s.strays} | {s.sections} |"
            for s in scores
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
