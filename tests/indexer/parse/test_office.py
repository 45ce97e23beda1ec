"""More office formats through MinerU's native readers (.doc, .ppt, .xls, .rtf, .odp, .ods, .xlsm,
.tsv) and Org-mode text; a file read as what its bytes are, whatever its extension says; and what
the map says of the files that are not read. Real files from ../shared/corpora where they exist,
else made here (OpenDocument packages written by hand, a workbook with openpyxl)."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from indexer.parse.formats import DocumentParser, is_supported, not_read
from tests.indexer.parse.conftest import parse

CORPUS = Path("/work/shared/corpora/unstructured")
for _up in Path(__file__).resolve().parents:
    if (_up / "shared" / "corpora").is_dir():
        CORPUS = _up / "shared" / "corpora" / "unstructured"
        break
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpora is not here")

_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" office:version="1.2"'
)


def odf(path: Path, mime: str, body: str) -> Path:
    """A minimal OpenDocument package: its mimetype first and stored, its content, its manifest."""
    content = f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {_NS}><office:body>{body}</office:body></office:document-content>'
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mime}"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>'
    )
    with zipfile.ZipFile(path, "w") as package:
        package.writestr(zipfile.ZipInfo("mimetype"), mime)
        package.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        package.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
    return path


def _cell(value: str) -> str:
    return f'<table:table-cell office:value-type="string"><text:p>{value}</text:p></table:table-cell>'


def ods(path: Path) -> Path:
    rows = [("Crop", "Tonnes"), ("Barley", "412")]
    harvest = "".join("<table:table-row>" + "".join(_cell(v) for v in row) + "</table:table-row>" for row in rows)
    costs = "<table:table-row>" + _cell("Seed") + _cell("90") + "</table:table-row>"
    body = (
        f'<office:spreadsheet><table:table table:name="Harvest">{harvest}</table:table>'
        f'<table:table table:name="Costs">{costs}</table:table></office:spreadsheet>'
    )
    return odf(path, "application/vnd.oasis.opendocument.spreadsheet", body)


def odp(path: Path) -> Path:
    def frame(text: str, kind: str = "") -> str:
        cls = f' presentation:class="{kind}"' if kind else ""
        return f"<draw:frame{cls}><draw:text-box><text:p>{text}</text:p></draw:text-box></draw:frame>"

    notes = f"<presentation:notes>{frame('Mention the tide tables', 'notes')}</presentation:notes>"
    body = (
        "<office:presentation>"
        f'<draw:page draw:name="p1">{frame("Harbour plan", "title")}{frame("New quay walls on the north side", "outline")}{notes}</draw:page>'
        f'<draw:page draw:name="p2">{frame("Budget", "title")}{frame("Four million over three years")}</draw:page>'
        "</office:presentation>"
    )
    return odf(path, "application/vnd.oasis.opendocument.presentation", body)


def xlsm(path: Path) -> Path:
    """A macro-enabled workbook: an .xlsx whose main part says so."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Rates"
    sheet.append(["Port", "Fee"])
    sheet.append(["Dover", "12"])
    plain = path.with_suffix(".xlsx")
    book.save(plain)
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "[Content_Types].xml":
                data = data.replace(
                    b"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
                    b"application/vnd.ms-excel.sheet.macroEnabled.main+xml",
                )
            target.writestr(info, data)
    plain.unlink()
    return path


def _texts(structure: object) -> str:
    sections = [s.title for s in structure.sections]  # type: ignore[attr-defined]
    return "\n".join(sections + [p.text for p in structure.paragraphs])  # type: ignore[attr-defined]


def test_the_new_formats_are_supported() -> None:
    for suffix in (".doc", ".ppt", ".xls", ".rtf", ".odp", ".ods", ".xlsm", ".tsv", ".org"):
        assert is_supported(Path(f"a{suffix}")), suffix


def test_opendocument_slides_and_sheets(parser: DocumentParser, tmp_path: Path) -> None:
    slides = parse(parser, odp(tmp_path / "plan.odp"))
    assert slides.n_pages == 2
    assert "Budget" in [s.title for s in slides.sections]
    assert "Mention the tide tables" in _texts(slides)  # the speaker's notes
    assert {p.page for p in slides.paragraphs} == {1, 2}
    sheets = parse(parser, ods(tmp_path / "farm.ods"))
    assert [s.title for s in sheets.sections[1:]] == ["Harvest", "Costs"]  # each sheet's name heads it
    assert any("| Barley | 412 |" in p.text for p in sheets.paragraphs)


def test_a_macro_enabled_workbook_reads_as_a_workbook(parser: DocumentParser, tmp_path: Path) -> None:
    book = parse(parser, xlsm(tmp_path / "rates.xlsm"))
    assert any("| Dover | 12 |" in p.text for p in book.paragraphs)


@needs_corpus
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("fake.doc", "Lorem ipsum dolor sit amet."),
        ("fake-power-point.ppt", "Here is a lot of text!"),
        ("tests-example.xls", "What is 2+2?"),
        ("fake-doc.rtf", "My first paragraph."),
        ("stanley-cups.tsv", "| Blues | STL | 1 |"),
        ("README.org", "You can parse this document using the HTML parser."),
        # a .doc whose bytes are a .docx: read as what it is
        ("language-docs/eng_spa_mult.doc", "All human beings are born free and equal in dignity and rights."),
    ],
)
def test_legacy_office_rtf_tsv_and_org_files(parser: DocumentParser, tmp_path: Path, name: str, expected: str) -> None:
    path = tmp_path / Path(name).name
    shutil.copyfile(CORPUS / name, path)
    assert expected in _texts(parse(parser, path))


@needs_corpus
def test_an_old_word_file_named_docx_is_read_as_one(parser: DocumentParser, tmp_path: Path) -> None:
    path = tmp_path / "renamed.docx"
    shutil.copyfile(CORPUS / "fake.doc", path)
    assert "Lorem ipsum dolor sit amet." in _texts(parse(parser, path))


def test_a_picture_in_a_word_table_is_not_its_bytes(parser: DocumentParser, tmp_path: Path) -> None:
    """MinerU inlines a picture in a Word table's cell as a data URI: the table keeps its words,
    never the picture's base64 (a logo in a letterhead's table was 10,000 characters of it)."""
    import io

    import docx
    from PIL import Image

    png = io.BytesIO()
    Image.new("RGB", (120, 40), (200, 30, 30)).save(png, format="PNG")
    png.seek(0)
    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).paragraphs[0].add_run().add_picture(png)
    table.cell(0, 1).text = "Northwind Harbour Authority"
    table.cell(1, 0).text = "Berth"
    table.cell(1, 1).text = "Seven"
    document.add_paragraph("Tide tables are posted weekly at the harbour office.")
    path = tmp_path / "letterhead.docx"
    document.save(str(path))
    text = _texts(parse(parser, path))
    assert "Northwind Harbour Authority" in text and "Seven" in text
    assert "data:image" not in text and "base64" not in text


def test_org_headings_title_and_code() -> None:
    from indexer.parse.org import parse_org

    parsed = parse_org(
        "#+TITLE: Field notes\n#+AUTHOR: Ana\n\n* Birds :tag:\nA heron at dawn.\n** Herons\n"
        "#+BEGIN_SRC sh\ncount --birds\n#+END_SRC\n"
    )
    assert parsed.title == "Field notes"
    assert [(b.kind, b.level, b.text) for b in parsed.blocks if b.kind == "heading"] == [
        ("heading", 1, "Birds"),
        ("heading", 2, "Herons"),
    ]
    assert any(b.kind == "code" and "count --birds" in b.text for b in parsed.blocks)


@pytest.mark.parametrize(
    ("name", "advice"),
    [
        ("IMG_0001.heic", "export it as JPEG"),
        ("photos.zip", "unpack it"),
        ("export.json", "rename it to .txt"),
        ("Keynote.key", "export it as PowerPoint"),
        ("memo.wav", "audio"),
        ("README", "no extension"),
        ("drawing.xyz", "save it as PDF, an office format or text"),
    ],
)
def test_a_file_not_read_says_what_to_do(name: str, advice: str) -> None:
    assert not is_supported(Path(name))
    reason = not_read(Path(name))
    assert reason.startswith("not a supported type (") and advice in reason
