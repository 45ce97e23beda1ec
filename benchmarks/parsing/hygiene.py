"""Text hygiene on real documents: mojibake, private-use glyphs, Markdown escapes, sheet tokens.

    python -m benchmarks.parsing.hygiene --bench DATA --parse-cache SHARED --cache WORK/cache [--label after]
                                         [--checkout CHECKOUT]

Every file of each set is parsed and structured as the server does (`DocumentParser` →
`structure.build`), and what a model would read and the index would store (the title, the
section titles, the paragraphs) is counted:

* mojibake: a UTF-8 sequence read as Windows-1252 (a lead byte's character followed by a
  continuation byte's: "â€™" for "’", "Â·" for "·"), plus, in text files (decoded here, from
  their bytes), the characters a Mac Roman file's punctuation becomes when read as Windows-1252
  ("¥" for "•", "Õ" for "’", "Ò"/"Ó" for quotes, "Ð" for "–"), which nothing in the text alone
  tells from a yen sign or a capital;
* private-use glyphs (U+E000–U+F8FF and the supplementary private planes);
* Markdown escapes: a backslash before ASCII punctuation outside code and equations;
* for CSV files and spreadsheets, the tokens of their table paragraphs.

PDFs are parsed only from a parse cache: `--cache`, where parses are kept, and the caches named
by `--parse-cache` (read only: their files are linked into `--cache`, never written). A PDF in
none is skipped and counted as such unless `--parse-pdfs` says to parse it; office, CSV and text
files are parsed when not cached. For a "before", run the same command with
`--checkout CHECKOUT` (an earlier commit's checkout) and `--label before`. Results are appended to
`benchmarks/results/hygiene.md`.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from benchmarks import common
from indexer.errors import ParseError
from indexer.models import DocumentStructure
from indexer.parse.formats import TEXT_PARSERS, DocumentParser
from indexer.parse.mineru import MineruOptions
from indexer.structure.sections import build
from indexer.tokens import count_tokens

SETS: dict[str, tuple[str, str]] = {
    "syllabi-text": ("syllabusqa/syllabi/text", "*.txt"),
    "syllabi-docx": ("syllabusqa/syllabi/word", "*.docx"),
    "syllabi-pdf": ("syllabusqa/syllabi/pdf", "*.pdf"),
    "syllabi-csv": ("syllabusqa", "*.csv"),
    "mmlongbench": ("mmlongbench/pdfs", "*.pdf"),
    "financebench": ("financebench/pdfs", "*.pdf"),
}
# Windows-1252's reading of Mac Roman's typographic punctuation: bullet, dashes, quotes, ellipsis,
# no-break space ("¥", "Ð", "Ñ", "Ò", "Ó", "Ô", "Õ", "É", "Ê").
MAC_AS_WINDOWS = frozenset("•–—“”‘’…\xa0".encode("mac_roman").decode("cp1252"))


def _windows(byte: int) -> str:
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:  # the five bytes Windows-1252 leaves undefined read as C1 controls
        return chr(byte)


# A UTF-8 lead byte read as Windows-1252 followed by a continuation byte read the same way.
UTF8_AS_WINDOWS = re.compile(
    "[{}][{}]".format(
        re.escape("".join(_windows(b) for b in range(0xC2, 0xF5))),
        re.escape("".join(_windows(b) for b in range(0x80, 0xC0))),
    )
)
PRIVATE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")
ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")
VERBATIM = ("code", "equation")


@dataclass
class Counts:
    files: int = 0
    skipped: int = 0
    failed: int = 0
    paragraphs: int = 0
    mojibake: int = 0
    private: int = 0
    escapes: int = 0
    sheet_tokens: int = 0
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, structure: DocumentStructure, sheet: bool, decoded: bool) -> None:
        self.files += 1
        self.paragraphs += len(structure.paragraphs)
        texts = [(structure.title or "", "title")] + [(s.title, "heading") for s in structure.sections[1:]]
        texts += [(p.text, p.kind) for p in structure.paragraphs]
        for text, kind in texts:
            moji = len(UTF8_AS_WINDOWS.findall(text)) + (sum(ch in MAC_AS_WINDOWS for ch in text) if decoded else 0)
            private = len(PRIVATE.findall(text))
            escapes = 0 if kind in VERBATIM else len(ESCAPE.findall(text))
            self.mojibake += moji
            self.private += private
            self.escapes += escapes
            for name, n in (("mojibake", moji), ("private", private), ("escapes", escapes)):
                if n and len(self.examples.setdefault(name, [])) < 3:
                    self.examples[name].append(" ".join(text.split())[:90])
            if sheet and kind == "table":
                self.sheet_tokens += count_tokens(text)


def main() -> None:
    parser = common.script_parser(__doc__)
    common.add_bench(parser)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--parse-cache", type=Path, action="append", default=[], help="parse caches to read (linked)")
    parser.add_argument("--cache", type=Path, help="where parses are kept (default: temporary)")
    parser.add_argument("--parse-pdfs", action="store_true", help="parse PDFs that no cache holds (slow)")
    common.add_label(parser, "after")
    common.add_out(parser, "hygiene.md")
    common.add_checkout(parser)
    args = common.parse_args(parser)

    work = Path(tempfile.mkdtemp(prefix="deepread-hygiene-"))
    own = args.cache or work / "cache"
    own.mkdir(parents=True, exist_ok=True)
    for shared in args.parse_cache:  # linked, so that nothing is ever written into a shared cache
        for found in [*shared.glob("*.json.gz"), *shared.glob("pictures/*")]:  # and an office file's pictures
            link = own / found.relative_to(shared)
            if not link.exists():
                link.parent.mkdir(exist_ok=True)
                link.symlink_to(found.resolve())
    doc_parser = _parser(own, work)
    rows = [
        f"`{args.label}` ({date.today()}): per set, what the title, section titles and paragraphs hold",
        "",
        "| set | files | paragraphs | mojibake | private-use glyphs | Markdown escapes | sheet table tokens |",
        "|---|---|---|---|---|---|---|",
    ]
    examples: list[str] = []
    for name in args.sets.split(","):
        folder, pattern = SETS[name]
        counts = Counts()
        for path in sorted((args.bench / folder).glob(pattern)):
            structure = _structure(doc_parser, path, args.parse_pdfs)
            if structure is None:
                counts.skipped += 1
            elif isinstance(structure, ParseError):
                counts.failed += 1
            else:
                suffix = path.suffix.lower()
                counts.add(structure, sheet=suffix in (".csv", ".xlsx"), decoded=suffix in TEXT_PARSERS)
        skipped = f" (+{counts.skipped} not cached)" if counts.skipped else ""
        failed = f" ({counts.failed} failed)" if counts.failed else ""
        sheet = f"{counts.sheet_tokens:,}" if counts.sheet_tokens else "–"
        rows.append(
            f"| {name} | {counts.files}{skipped}{failed} | {counts.paragraphs:,} | {counts.mojibake:,} "
            f"| {counts.private:,} | {counts.escapes:,} | {sheet} |"
        )
        print(rows[-1], flush=True)
        examples += [f"- {name}, {kind}: `{e}`" for kind, found in counts.examples.items() for e in found]
    text = "\n".join([*rows, "", "Examples:", *examples] if examples else rows)
    print(text)
    header = (
        "# Text hygiene: mojibake, private-use glyphs, Markdown escapes, sheet tokens "
        "(`python -m benchmarks.parsing.hygiene`)\n\n"
    )
    common.append_result(args.out, header, text + "\n\n")


def _parser(cache: Path, work: Path) -> DocumentParser:
    return DocumentParser(MineruOptions(cache_dir=cache, home=work / "mineru", work_dir=work / "tmp", timeout_s=1800))


def _structure(doc_parser: DocumentParser, path: Path, parse_pdfs: bool) -> DocumentStructure | ParseError | None:
    """The file's structure (a PDF only when a cache holds its parse, or `parse_pdfs`); None when skipped."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if path.suffix.lower() == ".pdf" and not parse_pdfs and not _cached(doc_parser, digest):
        return None
    try:
        return build(doc_parser.parse(path, data, digest), fallback_title=path.stem)
    except ParseError as exc:
        return exc


def _cached(doc_parser: DocumentParser, digest: str) -> bool:
    """A parse of these bytes is in the cache, of this version or of one it upgrades."""
    folder = doc_parser.mineru.options.cache_dir
    return any(folder.glob(f"{digest}.{doc_parser.mineru.models_fingerprint()}.v*.json.gz"))


if __name__ == "__main__":
    main()
