"""A symbol font's glyphs read as what they draw (`indexer.parse.symbols`): a 10-K cover's Wingdings
boxes, which the text layer gives as letters ("Yes x No ¨"), read as boxes by the real parser."""

from __future__ import annotations

from pathlib import Path

from indexer.models import Item
from indexer.parse.formats import DocumentParser
from indexer.parse.symbols import read_symbol_glyphs
from tests.indexer.parse.conftest import parse

SHELL = "Indicate by check mark whether the registrant is a shell company. Yes "
SEASONED = "Indicate by check mark whether the registrant is a well-known seasoned issuer. Yes "
TABLE = "A table of 2 x 3 cells, and a list item o like this one."


def wingdings_pdf(path: Path, lines: list[list[tuple[str, str]]]) -> Path:
    """A page whose lines mix Helvetica (F1) and Wingdings (F2, not embedded, as a filing's cover
    names it), written out by hand: no PDF library here sets a run in a font it does not have."""

    def shown(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    content = "\n".join(
        f"BT 72 {700 - 30 * k} Td " + " ".join(f"/{font} 11 Tf ({shown(text)}) Tj" for font, text in runs) + " ET"
        for k, runs in enumerate(lines)
    ).encode("latin-1")
    widths = b" ".join([b"800"] * 224)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >>"
            b" /Contents 6 0 R >>"
        ),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /TrueType /BaseFont /Wingdings-Regular /FirstChar 32 /LastChar 255 /Widths ["
        + widths
        + b"] /FontDescriptor 7 0 R >>",
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        (
            b"<< /Type /FontDescriptor /FontName /Wingdings-Regular /Flags 4 /FontBBox [0 -200 1000 900]"
            b" /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 >>"
        ),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def test_a_covers_wingdings_boxes_are_read_as_boxes(parser: DocumentParser, tmp_path: Path) -> None:
    path = wingdings_pdf(
        tmp_path / "cover.pdf",
        [
            [("F1", SHELL), ("F2", "x"), ("F1", " No "), ("F2", "\xa8")],
            [("F1", SEASONED), ("F2", "\xa8"), ("F1", " No "), ("F2", "\xfd")],
            [("F1", TABLE)],  # the same letters in a text font stay letters
        ],
    )
    texts = [p.text for p in parse(parser, path).paragraphs]
    assert texts == [f"{SHELL}☒ No ☐", f"{SEASONED}☐ No ☒", TABLE]  # one question and its answer a paragraph


def test_a_letter_the_text_also_holds_is_left_where_the_two_cannot_be_told_apart(tmp_path: Path) -> None:
    """An item whose text does not follow the page's characters one for one (a parser's own
    reading): a letter both fonts set inside its box stays; one only Wingdings sets is read."""
    path = wingdings_pdf(
        tmp_path / "mixed.pdf", [[("F1", "Rows 2 x 3 "), ("F2", "x"), ("F1", " Done "), ("F2", "\xa8")]]
    )
    item: Item = {"type": "text", "page_idx": 0, "bbox": [0, 0, 1000, 1000], "text": "Done ¨ rows 2 x 3 x"}
    assert read_symbol_glyphs(str(path), [item]) == 1
    assert item["text"] == "Done ☐ rows 2 x 3 x"
