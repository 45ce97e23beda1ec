"""Is the map faithful to the printed one? Items and primary statements of every 10-K and 10-Q.

    python -m benchmarks.toc.structure_check [--work DIR] [--out benchmarks/results/structure-check.md]
                                             [--checkout CHECKOUT]

For each 10-K and 10-Q PDF of FinanceBench, parsed as the server parses it (parses cached
by content hash in `--work`, shared with `benchmarks.toc.map`):

* printed Items: the `Item N[A-C]` labels of the document's own index page(s) — the first
  pages on which at least five distinct Items are named;
* found: those Items that are sections at Item depth (the level most `Item …` sections
  sit at), and Items nested under another Item (never right);
* statements: whether the income statement (or statement of operations / earnings), the
  balance sheet (or statement of financial position / condition) and the statement of cash
  flows are sections of their own.

Nothing here is keyed to a company or a file: the same rules apply to any filing.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from datetime import date

from benchmarks import common
from benchmarks.toc.map import WORK, cached_parser, parse_pdf
from indexer.errors import ParseError
from indexer.models import DocumentStructure

ITEM_RE = re.compile(r"\bitem\s*(\d{1,2}[abc]?)\b", re.I)
TITLE_ITEM_RE = re.compile(r"^\W*item\s*(\d{1,2}[abc]?)\b", re.I)
STATEMENTS = {
    "income": re.compile(r"statements?\s+of\s+(consolidated\s+)?(comprehensive\s+)?(income|operations|earnings)", re.I),
    "balance": re.compile(
        r"balance\s+sheets?|statements?\s+of\s+(consolidated\s+)?financial\s+(position|condition)", re.I
    ),
    "cash flows": re.compile(r"statements?\s+of\s+(consolidated\s+)?cash\s+flows?", re.I),
}


def printed_items(structure: DocumentStructure, max_page: int = 12) -> set[str]:
    """Items named on the index pages: the early pages naming at least five distinct Items."""
    by_page: dict[int, set[str]] = defaultdict(set)
    texts = [(p.page, p.text) for p in structure.paragraphs]
    texts += [(s.page_start, s.title) for s in structure.sections]
    for page, text in texts:
        if page is not None and page <= max_page:
            by_page[page].update(m.upper() for m in ITEM_RE.findall(text))
    found: set[str] = set()
    for page in sorted(by_page):
        if len(by_page[page]) >= 5:
            found |= by_page[page]
    return found


def check(structure: DocumentStructure) -> dict:
    items = printed_items(structure)
    item_sections = [
        (TITLE_ITEM_RE.match(s.title).group(1).upper(), s) for s in structure.sections if TITLE_ITEM_RE.match(s.title)
    ]
    depth = Counter(s.level for _, s in item_sections).most_common(1)[0][0] if item_sections else None
    by_id = {s.sec_id: s for s in structure.sections}
    at_depth = {label for label, s in item_sections if s.level == depth}
    nested = set()
    for label, s in item_sections:  # an Item under another Item
        parent = by_id.get(s.parent) if s.parent is not None else None
        while parent is not None:
            if TITLE_ITEM_RE.match(parent.title):
                nested.add(label)
                break
            parent = by_id.get(parent.parent) if parent.parent is not None else None
    statements = {name: any(rx.search(s.title) for s in structure.sections) for name, rx in STATEMENTS.items()}
    return {
        "printed": items,
        "found": items & at_depth,
        "missing": items - at_depth,
        "nested": nested,
        "depth": depth,
        "statements": statements,
    }


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    common.add_work(parser, WORK, "MinerU's parses are cached here (default: %(default)s)")
    common.add_out(parser, "structure-check.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)
    documents = cached_parser(args.work)

    rows, printed, found, nested, statements, filings = [], 0, 0, 0, 0, 0
    for pdf in sorted((args.bench / "financebench" / "pdfs").glob("*.pdf")):
        if not re.search(r"_10[KQ]", pdf.stem, re.I):
            continue
        try:
            structure = parse_pdf(documents, pdf)
        except ParseError as exc:
            rows.append(f"| {pdf.name} | failed: {exc} | | | |")
            continue
        r = check(structure)
        filings += 1
        printed += len(r["printed"])
        found += len(r["found"])
        nested += len(r["nested"])
        statements += sum(r["statements"].values())
        missing = ", ".join(sorted(r["missing"])) or "–"
        stmts = ", ".join(n for n, ok in r["statements"].items() if not ok) or "all"
        rows.append(
            f"| {pdf.name} | {len(r['found'])} / {len(r['printed'])} (missing: {missing}) | "
            f"{', '.join(sorted(r['nested'])) or '–'} | {r['depth']} | "
            f"{sum(r['statements'].values())} / 3 ({'missing: ' + stmts if stmts != 'all' else 'all'}) |"
        )
        print(rows[-1], flush=True)
    summary = [
        f"# Printed structure of the filings vs the map ({date.today()}, `python -m benchmarks.toc.structure_check`)",
        "",
        (
            f"{filings} 10-K/10-Q filings of FinanceBench. Printed Items found as sections at Item depth: "
            f"**{found} of {printed} ({found / max(printed, 1):.1%})**; Items nested under another Item: {nested}; "
            f"primary statements found as sections: **{statements} of {3 * filings} ({statements / max(3 * filings, 1):.1%})**."
        ),
        "",
        "| filing | printed Items found at Item depth | Items nested under an Item | Item depth | statements |",
        "|---|---|---|---|---|",
    ]
    text = "\n".join([*summary, *rows]) + "\n"
    common.write_result(args.out, text)
    print("\n".join(summary))


if __name__ == "__main__":
    main()
