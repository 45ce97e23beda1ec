"""A form's questions and answers kept apart, measured on the covers of SEC filings.

    python -m benchmarks.parsing.forms --index DATA_DIR [--index DATA_DIR …] [--out F] [--label L]

Every 10-K, 10-Q and 8-K cover asks its check-box questions in one wording, "Indicate by check mark
whether …", which makes them countable from outside the code (the code never looks for it). For
each kept index (a data dir a benchmark or `deepread-mcp index` left, structured before
`indexer.structure.forms`), its stored paragraphs are read in order, as blocks, and put through
`keep_answers_apart` in this process: "before" is the paragraphs as stored, "after" what the
structure builder now makes of them. Counted are the questions whose answer boxes are in the text
(a cover whose boxes are pictures, or glyphs of a symbol font read as letters, "Yes x No ¨", has
none to keep); one is read apart when its paragraph holds no other question and its box. Also
counted: paragraphs that open with an answer ("No ☐ …", whose question is in the paragraph before).
"""

from __future__ import annotations

import re
import sqlite3
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
    questions: int = 0  # questions whose answer boxes the text holds (many covers draw them as pictures)
    apart: int = 0
    opening_answers: int = 0

    def add(self, texts: list[str]) -> None:
        stream = "\n".join(texts)
        asked = list(QUESTION_RE.finditer(stream))
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


def main() -> None:
    parser = common.script_parser(__doc__ or "")
    parser.add_argument("--index", type=Path, action="append", required=True, help="a kept index's data dir")
    common.add_out(parser, "forms.md")
    common.add_label(parser, "run")
    args = common.parse_args(parser)
    lines = [
        f"## {args.label}: {common.commit_stamp()} ({date.today().isoformat()})",
        "",
        "| index | filings | questions | read apart, before → after | paragraphs opening with an answer, before → after |",
        "|---|---|---|---|---|",
    ]
    for data_dir in args.index:
        docs, before, after = measure(data_dir)
        lines.append(
            f"| {data_dir.name} | {docs} | {before.questions} | "
            f"{before.apart} ({before.apart / max(1, before.questions):.0%}) → "
            f"{after.apart} ({after.apart / max(1, after.questions):.0%}) | "
            f"{before.opening_answers} → {after.opening_answers} |"
        )
    common.append_lines(
        args.out, "# A form's questions and answers kept apart (`python -m benchmarks.parsing.forms`)\n", lines
    )


if __name__ == "__main__":
    main()
