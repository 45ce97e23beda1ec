"""E-mail (`indexer.parse.mail`, `indexer.parse.outlook`): real messages from ../shared/corpora and
messages written here, parsed by the real parser (attachments through MinerU) and indexed in a real
library."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest

from indexer.errors import ParseError
from indexer.library import Library
from indexer.models import ParsedDocument
from indexer.parse.formats import DocumentParser, is_supported
from tests.indexer.parse.conftest import parse

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpora" / "unstructured"
if not CORPUS.is_dir():  # a worktree beside the main checkout
    CORPUS = Path("/work/shared/corpora/unstructured")
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpora is not here")


def _parsed(parser: DocumentParser, path: Path) -> ParsedDocument:
    data = path.read_bytes()
    return parser.parse(path, data, hashlib.sha256(data).hexdigest())


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / Path(name).name
    shutil.copyfile(CORPUS / name, target)
    return target


def _text(parsed: ParsedDocument) -> str:
    return "\n".join(b.text for b in parsed.blocks)


def test_eml_and_msg_are_supported() -> None:
    assert is_supported(Path("a.eml")) and is_supported(Path("b.MSG"))


@needs_corpus
@pytest.mark.parametrize(
    ("name", "subject", "sender", "created", "body"),
    [
        (
            "eml/fake-email.eml",
            "Test Email",
            "Matthew Robinson <mrobinson@unstructured.io>",
            "2022-12-16T17:04:16-05:00",
            "This is a test email to use for unit tests.",
        ),
        (  # an RFC 2047 encoded subject
            "eml/mime-word-encoded-subject.eml",
            "Simple email with ☸☿ Unicode subject",
            "sender@example.com",
            None,
            "with Unicode characters in the subject",
        ),
        (  # HTML alone: turned into text
            "eml/mime-html-only.eml",
            "Example HTML Only MIME Email",
            "sender@example.com",
            "2024-10-01T12:34:56-05:00",
            "The first emoticon, :) , was proposed by Scott Fahlman in 1982",
        ),
        (  # a Hebrew reply in a legacy charset
            "eml/email-no-utf8-2008-07-16.062410.eml",
            "RE: שלום",
            "Tamir Erez <eryzxx@post.tau.ac.il>",
            "2008-07-16T09:24:06+03:00",
            "אני חושב שזה לא יהיה מקצועי והוגן",
        ),
        (  # part headers run together: 'charset = "UTF-8"Content-Transfer-Encoding: 8bit'
            "eml/fake-email-malformed-encoding.eml",
            "Test Email",
            "Matthew Robinson <mrobinson@unstructured.io>",
            "2022-12-16T17:04:16-05:00",
            "This is a test email to use for unit tests.",
        ),
        (  # a date in ISO 8601, as some tools write it
            "eml/test-iso-8601-date.eml",
            "Test a Z-suffix date",
            "sender@example.com",
            "2025-07-29T12:42:06+00:00",
            "This is a test-email.",
        ),
        (
            "fake-email.msg",
            "Test Email",
            "Matthew Robinson <mrobinson@unstructured.io>",
            "2023-03-28T17:00:31+00:00",
            "This is a test email to use for unit tests.",
        ),
    ],
)
def test_a_message_is_titled_by_its_subject_and_opens_with_its_fields(
    parser: DocumentParser, tmp_path: Path, name: str, subject: str, sender: str, created: str | None, body: str
) -> None:
    path = _copy(tmp_path, name)
    parsed = _parsed(parser, path)
    assert parsed.format == path.suffix
    assert (parsed.declared.title, parsed.declared.authors, parsed.declared.created) == (subject, [sender], created)
    assert parsed.blocks[0].kind == "heading" and parsed.blocks[0].text == subject
    assert parsed.blocks[1].text.startswith(f"From: {sender}\nTo: ")
    assert body in _text(parsed)
    structure = parse(parser, path)
    assert structure.title == subject


@needs_corpus
@pytest.mark.parametrize("name", ["fake-email-utf-16.eml", "fake-email-utf-16-le.eml", "fake-email-utf-16-be.eml"])
def test_a_message_saved_as_utf16_reads_as_any_other(parser: DocumentParser, tmp_path: Path, name: str) -> None:
    parsed = _parsed(parser, _copy(tmp_path, f"eml/{name}"))
    assert parsed.declared.title == "Test Email"
    assert "This is a test email to use for unit tests." in _text(parsed)
    assert "Roses are red" in _text(parsed)


@needs_corpus
def test_a_message_without_subject_or_date(parser: DocumentParser, tmp_path: Path) -> None:
    no_subject = _parsed(parser, _copy(tmp_path, "eml/mime-no-subject.eml"))
    assert no_subject.declared.title == "(no subject) from sender@example.com"
    assert parse(parser, tmp_path / "mime-no-subject.eml").title == "(no subject) from sender@example.com"
    no_date = _parsed(parser, _copy(tmp_path, "eml/rfc822-no-date.eml"))
    assert no_date.declared.created is None
    assert "Date:" not in no_date.blocks[1].text
    invalid = _parsed(parser, _copy(tmp_path, "eml/test-invalid-date.eml"))
    assert invalid.declared.created is None and "Date: INVALID-DATE-FORMAT" in invalid.blocks[1].text


@needs_corpus
def test_an_encrypted_message_keeps_its_fields_and_says_why_its_body_is_missing(
    parser: DocumentParser, tmp_path: Path
) -> None:
    for name in ("eml/fake-encrypted.eml", "fake-encrypted.msg"):
        parsed = _parsed(parser, _copy(tmp_path, name))
        assert parsed.declared.title == "(no subject) from Michael Elkins"
        assert "Michael Elkins <elkins@aero.org>" in parsed.blocks[1].text
        assert any("encrypted" in w or "RTF" in w for w in parsed.warnings), parsed.warnings


@needs_corpus
def test_outlook_recipients_leave_out_bcc(parser: DocumentParser, tmp_path: Path) -> None:
    parsed = _parsed(parser, _copy(tmp_path, "fake-email-with-cc-and-bcc.msg"))
    fields = parsed.blocks[1].text
    assert "To: John Jennings <john-ctr@unstructured.io>" in fields
    assert "Cc: steve@unstructured.io" in fields
    assert "hello@unstructured.io" not in fields  # Bcc


@needs_corpus
@pytest.mark.parametrize("name", ["eml/fake-email-attachment.eml", "fake-email-attachment.msg"])
def test_a_text_attachment_is_a_section_headed_by_its_file_name(
    parser: DocumentParser, tmp_path: Path, name: str
) -> None:
    structure = parse(parser, _copy(tmp_path, name))
    titles = [s.title for s in structure.sections]
    assert "fake-attachment.txt" in titles
    section = next(s for s in structure.sections if s.title == "fake-attachment.txt")
    assert any(p.sec_id == section.sec_id and "Hey this is a fake attachment!" in p.text for p in structure.paragraphs)


@needs_corpus
def test_a_digest_holds_each_message_as_a_section(parser: DocumentParser, tmp_path: Path) -> None:
    structure = parse(parser, _copy(tmp_path, "eml/mime-multipart-digest.eml"))
    assert [s.title for s in structure.sections[1:]] == ["First Message", "Second Message", "Third Message"]
    assert any("This is the second message in the digest." in p.text for p in structure.paragraphs)


def _message_with(attachment: bytes, name: str, maintype: str, subtype: str) -> bytes:
    msg = EmailMessage()
    msg["Subject"] = "Quarterly figures"
    msg["From"] = "Ana Lima <ana@example.com>"
    msg["To"] = "team@example.com"
    msg["Date"] = "Tue, 01 Oct 2024 12:34:56 -0500"
    msg.set_content("The report is attached.\n")
    msg.add_attachment(attachment, maintype=maintype, subtype=subtype, filename=name)
    return bytes(msg)


def _docx(text: str) -> bytes:
    import io

    from docx import Document

    document = Document()
    document.add_heading("Revenue by region", level=1)
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_binary_attachment_is_parsed_by_its_own_parser_outside_the_watched_folder(
    folder: Path, open_library: Callable[..., Library], tmp_path: Path
) -> None:
    docx = _docx("Northern stores sold eleven thousand umbrellas in the wet quarter.")
    (folder / "figures.eml").write_bytes(
        _message_with(docx, "report.docx", "application", "vnd.openxmlformats-officedocument.wordprocessingml.document")
    )
    before = sorted(p.name for p in folder.rglob("*"))
    library = open_library(folder)
    report = library.reconcile()
    assert report.indexed == ["figures.eml"], report
    assert sorted(p.name for p in folder.rglob("*")) == before  # nothing written beside the message
    doc = library.toc(doc_id=library.toc().documents[0].doc_id).documents[0]
    assert doc.title == "Quarterly figures"
    titles = [s.title for s in doc.sections]
    assert "report.docx" in titles and "Revenue by region" in titles
    hits = library.retrieve("umbrellas wet quarter").results
    assert hits and "eleven thousand umbrellas" in hits[0].text
    assert hits[0].section_path[-2:] == ["report.docx", "Revenue by region"]
    scratch = tmp_path / "data" / "tmp"
    assert not list(scratch.glob("deepread-mail-*"))  # the scratch copy is gone too


def test_an_attachment_that_cannot_be_read_is_a_warning_not_a_failure(parser: DocumentParser, tmp_path: Path) -> None:
    path = tmp_path / "broken.eml"
    path.write_bytes(_message_with(b"PK\x03\x04 not really a zip", "broken.docx", "application", "octet-stream"))
    parsed = _parsed(parser, path)
    assert "The report is attached." in _text(parsed)
    assert any(w.startswith("attachment broken.docx not read:") for w in parsed.warnings), parsed.warnings
    assert "broken.docx" not in [b.text for b in parsed.blocks if b.kind == "heading"]


def test_an_eml_that_is_really_an_outlook_file_is_read_as_one(parser: DocumentParser, tmp_path: Path) -> None:
    if not (CORPUS / "fake-email.msg").is_file():
        pytest.skip("../shared/corpora is not here")
    path = tmp_path / "saved-as.eml"
    shutil.copyfile(CORPUS / "fake-email.msg", path)
    assert _parsed(parser, path).declared.title == "Test Email"


def test_a_file_with_no_message_in_it_fails_with_a_reason(parser: DocumentParser, tmp_path: Path) -> None:
    path = tmp_path / "blank.eml"
    path.write_bytes(b"\n\n   \n")
    with pytest.raises(ParseError, match="empty"):
        from indexer.parse.formats import read_bytes

        read_bytes(path, 1000)
    path.write_bytes(b"X-Nothing: here\n\n")
    with pytest.raises(ParseError, match="no e-mail found"):
        _parsed(parser, path)


def test_a_message_saved_as_text_is_read_as_the_e_mail_it_is(
    folder: Path, open_library: Callable[..., Library]
) -> None:
    msg = EmailMessage()
    msg["Subject"] = "Roof repairs before winter"
    msg["From"] = "Ana Lima <ana@example.com>"
    msg["To"] = "board@example.com"
    msg["Date"] = "Tue, 01 Oct 2024 12:34:56 -0500"
    msg.set_content("The roofer can start on the north side next Monday.\n")
    (folder / "saved message.txt").write_bytes(bytes(msg))
    (folder / "memo.txt").write_text("To: the reader\n\nThis note only opens like a letter.\n", encoding="utf-8")
    library = open_library(folder)
    library.reconcile()
    ids = {d.path: d.doc_id for d in library.toc().documents}
    mail = library.toc(doc_id=ids["saved message.txt"]).documents[0]
    assert (mail.title, mail.kind, mail.issuer) == ("Roof repairs before winter", "e-mail", "Ana Lima")
    assert mail.date is not None and "2024" in mail.date
    memo = library.toc(doc_id=ids["memo.txt"]).documents[0]
    assert memo.kind != "e-mail", "one field is no header"
