"""False positives of the junk test (`indexer.parse.junk`) on real documents, and its catch on junk.

    python -m benchmarks.parsing.junk [--bench DIR] [--parse-cache DIR] [--pdfs 12] [--out FILE]

Every paragraph of the benchmark's Markdown trees, syllabi (plain text), QASPER papers and the
first `--pdfs` PDFs of FinanceBench and of MMLongBench (parsed as the server parses them; give a
warm `--parse-cache` to skip MinerU) is checked: none should be junk. Then generated junk —
random letters in words, base64, hex dumps, minified code, binary decoded as text — should all
be. Prints the counts, every false positive, and the lowest vowel share of real Latin text.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import tempfile
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.parse.formats import DocumentParser, decode_text
from indexer.parse.junk import MIN_CHARS, is_junk, vowel_share, words_of
from indexer.parse.markdown import parse_markdown
from indexer.parse.mineru import MineruOptions
from indexer.parse.text import parse_text
from indexer.structure.sections import build
from indexer.titles.decide import title_from_name


def real_paragraphs(bench: Path, parser: DocumentParser, pdfs: int) -> dict[str, list[tuple[str, str]]]:
    """(kind, text) of every paragraph, by set."""
    from benchmarks.retrieval.sets import qasper_markdown

    sets: dict[str, list[tuple[str, str]]] = {}
    for tree in ("rust-book", "fastapi-docs"):
        for path in sorted((bench / "markdown" / tree).rglob("*.md")):
            sets.setdefault("Markdown docs", []).extend(
                (p.kind, p.text) for p in build(parse_markdown(decode_text(path.read_bytes())), path.stem).paragraphs
            )
    for path in sorted((bench / "syllabusqa" / "syllabi" / "text").glob("*.txt")):
        sets.setdefault("SyllabusQA (text)", []).extend(
            (p.kind, p.text) for p in build(parse_text(decode_text(path.read_bytes())), path.stem).paragraphs
        )
    for line in (bench / "qasper" / "qasper_train_sample10_hf_format.jsonl").read_text().splitlines():
        paper = json.loads(line)
        sets.setdefault("QASPER", []).extend(
            (p.kind, p.text) for p in build(parse_markdown(qasper_markdown(paper)), "paper").paragraphs
        )
    for name, folder in (("FinanceBench PDFs", "financebench"), ("MMLongBench PDFs", "mmlongbench")):
        for pdf in sorted((bench / folder / "pdfs").glob("*.pdf"))[:pdfs]:
            data = pdf.read_bytes()
            parsed = parser.parse(pdf, data, hashlib.sha256(data).hexdigest())
            sets.setdefault(name, []).extend((p.kind, p.text) for p in build(parsed, title_from_name(pdf)).paragraphs)
    return sets


def generated_junk(rng: random.Random) -> dict[str, list[str]]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return {
        "random letters in words": [
            " ".join("".join(rng.choice(letters) for _ in range(rng.randint(2, 10))) for _ in range(50))
            for _ in range(200)
        ],
        "base64": [base64.b64encode(rng.randbytes(600)).decode() for _ in range(200)],
        "base64, wrapped at 76": [
            "\n".join(base64.b64encode(rng.randbytes(57)).decode() for _ in range(8)) for _ in range(200)
        ],
        "hex dump": [
            "\n".join(f"{i * 16:08x}  " + " ".join(f"{b:02x}" for b in rng.randbytes(16)) for i in range(8))
            for _ in range(200)
        ],
        "minified code": [
            "function(a,b){var c=a.map(function(d){return d*b+"
            + str(i)
            + "});return c.filter(function(e){return e>0})};" * 12
            for i in range(200)
        ],
        "binary as text": [rng.randbytes(400).decode("latin-1") for _ in range(200)],
    }


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    common.add_parse_cache(parser)
    parser.add_argument("--pdfs", type=int, default=12, help="how many PDFs of FinanceBench and of MMLongBench")
    common.add_out(parser, "junk.md")
    args = common.parse_args(parser)
    scratch = Path(tempfile.mkdtemp(prefix="deepread-junk-"))
    mineru = DocumentParser(
        MineruOptions(
            cache_dir=args.parse_cache or scratch / "cache", home=scratch / "mineru", work_dir=scratch / "tmp"
        )
    )
    lines = [
        f"\n## {date.today()}\n",
        "| real paragraphs | checked (≥ 160 characters) | junk (false positives) |",
        "|---|---|---|",
    ]
    positives: list[str] = []
    lowest: tuple[float, str] = (1.0, "")
    for name, paragraphs in real_paragraphs(args.bench, mineru, args.pdfs).items():
        judged = [(k, t) for k, t in paragraphs if len(t) >= MIN_CHARS]
        wrong = [t for k, t in judged if is_junk(t, k)]
        positives += [f"{name}: {t[:160]!r}" for t in wrong]
        for k, t in judged:
            share = vowel_share(words_of(t[:20_000]))
            if share is not None and share < lowest[0] and k in ("text", "list"):
                lowest = (share, t[:120])
        lines.append(f"| {name} | {len(judged):,} of {len(paragraphs):,} | {len(wrong)} |")
    lines += ["", "| generated junk | paragraphs | recognised |", "|---|---|---|"]
    for name, texts in generated_junk(random.Random(0)).items():
        lines.append(f"| {name} | {len(texts)} | {sum(is_junk(t) for t in texts)} |")
    lines.append(f"\nLowest vowel share of a real text or list paragraph: {lowest[0]:.3f} ({lowest[1]!r}).")
    text = "\n".join(lines) + "\n" + "".join(f"\n- false positive: {p}" for p in positives) + "\n"
    print(text)
    common.append_result(
        args.out, "# Junk text: false positives on real documents (`python -m benchmarks.parsing.junk`)\n", text
    )


if __name__ == "__main__":
    main()
