"""A form's questions and answers kept apart, measured on the covers of SEC filings.

    python -m benchmarks.parsing.forms --index DATA_DIR [--index DATA_DIR …] [--out F] [--label L]
    python -m benchmarks.parsing.forms --pdfs DIR --parse-cache DIR [--label L] [--checkout CHECKOUT]

Every 10-K, 10-Q and 8-K cover asks its check-box questions in one wording, "Indicate by check mark
whether …", which makes them countable from outside the code (the code never looks for it). For
each kept index (a data dir a benchmark or `deepread-mcp index` left, structured before
`indexer.structure.forms`), its stored paragraphs are read in order, as blocks, and put through
`keep_answers_apart` in this process: "before" is the paragraphs as stored, "after" what the
structure builder now makes of them. Counted are the questions whose answer boxes are in the text
(a cover whose boxes are pictures, or glyphs of a symbol font read as letters, "Yes x No ¨", has
none to keep); one is read apart when its paragraph holds no other question and its box. Also
counted: paragraphs that open with an answer ("No ☐ …", whose question is in the paragraph before).

With `--pdfs`, each PDF of DIR whose parse the cache holds (MinerU is never run: the others are
left out) is parsed and structured by this tree's library (a cache of an earlier version is
brought up to it, as the server does), and its paragraphs counted so; `--checkout` measures an
earlier commit's library on the same files, for a before.
"""

from __future__ import annotations

import re
import sqlite3
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.models import Block
from indexer.structure.forms import keep_answers_apart

QUESTION_RE = re.compile(r"indicate by check mark", re.IGNORECASE)
BOX_RE = re.compile(r"[☐☑☒]|\[[ xX]?\]")
OPENS_WITH_ANSWER_RE = re.compile(r"^\s*(?:\S+\s+){0,3}?\S+\s*(?:[☐☑☒]|\[[ xX]?\])")


@dataclass
class Count:
    asked: int = 0  # questions, answered in the text or not
    questions: int = 0  # questions whose answer boxes the text holds (many covers draw them as pictures)
    apart: int = 0
    opening_answers: int = 0

    def add(self, texts: list[str]) -> None:
        stream = "\n".join(texts)
        asked = list(QUESTION_RE.finditer(stream))
        self.asked += len(asked)
        ends = [m.start() for m in asked[1:]] + [len(stream)] * bool(asked)
        self.questions += sum(1 for m, end in zip(asked, ends, strict=True) if BOX_RE.search(stream, m.end(), end))
        for text in texts:
            inside = list(QUESTION_RE.finditer(text))
            if len(inside) == 1 and BOX_RE.search(text, inside[0].end()):
                self.apart += 1
            if OPENS_WITH_ANSWER_RE.match(text) and not BOX_RE.match(text.strip()):
                self.opening_answers += 1


def measure(data_dir: Path) -> tuple[int, Count, Count]:
    db = sqlite3.connect(f"file:{data_dir / 'index.sqlite3'}?mode=ro", uri=True)
    docs = [
        d for (d,) in db.execute("SELECT DISTINCT doc_id FROM paragraphs WHERE text LIKE '%ndicate by check mark%'")
    ]
    before, after = Count(), Count()
    for doc_id in docs:
        rows = db.execute(
            "SELECT kind, page, text FROM paragraphs WHERE doc_id = ? ORDER BY sec_id, para_idx", (doc_id,)
        ).fetchall()
        blocks = [Block(kind, text, page=page) for kind, page, text in rows]
        before.add([b.text for b in blocks if b.kind == "text"])
        after.add([b.text for b in keep_answers_apart(blocks) if b.kind == "text"])
    return len(docs), before, after


def measure_pdfs(pdfs: Path, cache: Path) -> tuple[int, int, Count]:
    """PDFs parsed and structured by the library measured, from the parse cache: how many were,
    how many the cache did not hold, and their paragraphs counted."""
    import hashlib

    from indexer.parse.formats import DocumentParser
    from indexer.parse.mineru import MineruOptions
    from indexer.structure.sections import build

    home = Path(tempfile.mkdtemp(prefix="forms-mineru-"))
    parser = DocumentParser(MineruOptions(cache_dir=cache, home=home, timeout_s=600))
    count, parsed, missing = Count(), 0, 0
    for path in sorted(pdfs.glob("*.pdf")):
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if not any(cache.glob(f"{digest}.*.json.gz")):
            missing += 1
            continue
        structure = build(parser.parse(path, data, digest), fallback_title=path.stem)
        texts = [p.text for p in structure.paragraphs if p.kind == "text"]
        if any(QUESTION_RE.search(t) for t in texts):
            parsed += 1
            count.add(texts)
    return parsed, missing, count


def main() -> None:
    parser = common.script_parser(__doc__ or "")
    parser.add_argument("--index", type=Path, action="append", help="a kept index's data dir")
    parser.add_argument("--pdfs", type=Path, help="a folder of PDFs, parsed from --parse-cache")
    common.add_parse_cache(parser, text="the MinerU parse cache --pdfs are read from (never parsed again)")
    common.add_checkout(parser)
    common.add_out(parser, "forms.md")
    common.add_label(parser, "run")
    args = common.parse_args(parser)
    if not args.index and not (args.pdfs and args.parse_cache):
        parser.error("give --index DATA_DIR, or --pdfs DIR with --parse-cache DIR")
    lines = [f"## {args.label}: {common.commit_stamp('indexer')} ({date.today().isoformat()})", ""]
    if args.index:
        lines += [
            (
                "| index | filings | questions | read apart, before → after | paragraphs opening with an answer, "
                "before → after |"
            ),
            "|---|---|---|---|---|",
        ]
    for data_dir in args.index or []:
        docs, before, after = measure(data_dir)
        lines.append(
            f"| {data_dir.name} | {docs} | {before.questions} | "
            f"{before.apart} ({before.apart / max(1, before.questions):.0%}) → "
            f"{after.apart} ({after.apart / max(1, after.questions):.0%}) | "
            f"{before.opening_answers} → {after.opening_answers} |"
        )
    if args.pdfs and args.parse_cache:
        parsed, missing, count = measure_pdfs(args.pdfs, args.parse_cache)
        lines += [
            f"{args.pdfs.name}: {parsed} filings with check-box questions ({missing} PDFs not in the cache, left out)",
            "",
            "| questions | answer boxes in the text | read apart | paragraphs opening with an answer |",
            "|---|---|---|---|",
            (
                f"| {count.asked} | {count.questions} | {count.apart} ({count.apart / max(1, count.questions):.0%}) | "
                f"{count.opening_answers} |"
            ),
        ]
    common.append_lines(
        args.out, "# A form's questions and answers kept apart (`python -m benchmarks.parsing.forms`)\n", lines
    )


if __name__ == "__main__":
    main()
