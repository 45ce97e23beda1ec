"""Which files are documents, and which parser reads each: every supported format to a `ParsedDocument`.

Markdown and plain text are read here; PDF, office and web formats go
through MinerU (`indexer.parse.mineru`), pictures of documents through OCR in the same child
process (`indexer.parse.images`); e-mail is read here too (`indexer.parse.mail`), each
attachment that is a document by the parser of its own format. `SUPPORTED_EXTENSIONS` is the single
place that says which files are indexed. Every parser raises `ParseError`
with a reason a person can act on; anything else escaping a parser is a bug
and is reported with its type.
"""

from __future__ import annotations

import codecs
import hashlib
import mimetypes
import os
import re
import stat
import tempfile
import zipfile
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

from indexer.errors import FILE_SIZE_LIMIT, ParseError
from indexer.models import ParsedDocument
from indexer.parse.hygiene import decode_legacy, repair_lines
from indexer.parse.mail import MAIL_FORMATS, Attachment, message_document, read_eml
from indexer.parse.markdown import parse_markdown
from indexer.parse.mineru import CHILD_FORMATS, MineruOptions, MineruParser
from indexer.parse.org import parse_org
from indexer.parse.rst import parse_rst
from indexer.parse.text import parse_text

TextParser = Callable[[str], ParsedDocument]
EMPTY = "file is empty"  # what a save that truncates first shows for a moment (`indexer.ingest.versions` waits it out)
UNREADABLE = "permission denied: the server cannot read this file"  # retried once it is readable (a chmod leaves mtime)
CANNOT_READ = "cannot read file"  # the start of a failure to read (an I/O error), retried too once it reads

TEXT_PARSERS: dict[str, TextParser] = {
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".mdx": parse_markdown,
    ".txt": parse_text,
    ".text": parse_text,
    ".rst": parse_rst,
    ".org": parse_org,
}

SUPPORTED_EXTENSIONS = frozenset(TEXT_PARSERS) | frozenset(CHILD_FORMATS) | MAIL_FORMATS
# Files people keep beside their documents that are not read, and what a person can do about it.
_ARCHIVE = "an archive: unpack it into the folder to index the documents in it"
_DATA = "data or code, not a document: rename it to .txt to index it as plain text"
NOT_READ: dict[str, str] = {
    ".heic": "an iPhone photo (HEIC) is not read: export it as JPEG to index the text in it",
    ".heif": "a HEIF photo is not read: export it as JPEG to index the text in it",
    ".p7s": "an e-mail's digital signature (S/MIME): it holds no text to read",
    ".p7m": "an encrypted S/MIME message: it cannot be read without the recipient's key",
    ".key": "an Apple Keynote deck is not read: export it as PowerPoint (.pptx) or PDF to index it",
    ".pages": "an Apple Pages document is not read: export it as Word (.docx) or PDF to index it",
    ".numbers": "an Apple Numbers workbook is not read: export it as Excel (.xlsx) or CSV to index it",
    ".mbox": "a mailbox is not read: save its messages as .eml files to index them",
    **dict.fromkeys((".zip", ".7z", ".rar", ".tar", ".gz", ".tgz", ".bz2", ".xz"), _ARCHIVE),
    **dict.fromkeys((".wav", ".mp3", ".m4a", ".aac", ".flac", ".ogg", ".opus"), "audio: it holds no text to read"),
    **dict.fromkeys((".mp4", ".mov", ".avi", ".mkv", ".webm"), "video: it holds no text to read"),
    **dict.fromkeys((".gif", ".svg", ".ico", ".psd", ".ai", ".eps"), "a graphic, not a document: not read"),
    **dict.fromkeys(
        (".json", ".ndjson", ".jsonl", ".xml", ".xsl", ".xslt", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".log"),
        _DATA,
    ),
    **dict.fromkeys(
        (".py", ".go", ".js", ".ts", ".java", ".c", ".h", ".cpp", ".rs", ".rb", ".sh", ".sql", ".css"),
        _DATA,
    ),
    **dict.fromkeys((".exe", ".dll", ".so", ".dylib", ".bin", ".iso", ".dmg"), "a program or disk image: not read"),
}
# Text files larger than this are parsed in the confined child process (memory ceiling,
# timeout); smaller ones in-process, where they take milliseconds and ~40× their size.
TEXT_IN_PROCESS_BYTES = 4_000_000


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_EXTENSIONS


def not_read(path: Path) -> str:
    """Why a file of a type that is not read is skipped, said so that a person knows what to do."""
    suffix = path.suffix.lower()
    if not suffix:
        return "not a supported type (no extension): files are read by their extension; add one (.txt, .pdf …)"
    advice = NOT_READ.get(suffix, "save it as PDF, an office format or text to index it")
    return f"not a supported type ({suffix}): {advice}"


# An internet message starts with its header fields: a few known ones, each "Name: value" on its own line.
_HEADER_RE = re.compile(
    rb"^(?:from|to|cc|subject|date|mime-version|message-id|received|return-path|reply-to):[ \t]", re.I
)
HEADER_FIELDS = 3  # known fields among a text file's first lines make it an e-mail


def is_message(data: bytes) -> bool:
    """A text file that is an e-mail as a mail program saves it (its header fields first)."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf").splitlines()[:12]
    return sum(bool(_HEADER_RE.match(line)) for line in head) >= HEADER_FIELDS and bool(
        re.search(rb"\r?\n\r?\n", data[:20000])  # the blank line that ends the header
    )


class DocumentParser:
    """Any supported file → `ParsedDocument`: text formats natively, the rest through MinerU."""

    def __init__(self, mineru: MineruOptions):
        self.mineru = MineruParser(mineru)

    def parse(self, path: Path, data: bytes, content_hash: str, patience: float = 1.0) -> ParsedDocument:
        """`patience` scales the child's time limit (a retry after a time limit gets more)."""
        suffix = path.suffix.lower()
        if suffix in TEXT_PARSERS and is_message(data):  # an e-mail saved as text: read as the e-mail it is
            return self.parse_mail(data, ".eml", patience)
        if suffix in TEXT_PARSERS:
            if len(data) > TEXT_IN_PROCESS_BYTES:
                return self.mineru.parse_text_isolated(path, content_hash, 2 * len(data), patience)
            return TEXT_PARSERS[suffix](decode_text(data))
        if suffix in MAIL_FORMATS:
            return self.parse_mail(data, suffix, patience)
        if suffix in CHILD_FORMATS:
            check_archive(suffix, data)
            return self.mineru.parse(path, content_hash, patience)
        raise ParseError(f"unsupported file type {suffix!r}; supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))}")

    def parse_mail(self, data: bytes, suffix: str, patience: float = 1.0, depth: int = 0) -> ParsedDocument:
        """An e-mail (`.eml`, or an Outlook `.msg`, told by its bytes whatever its name) and its
        attachments: a text attachment parsed here, any other supported one written into the parse's
        scratch folder (never the watched folder) and parsed as a file of its own format."""
        from indexer.parse.outlook import read_msg

        message = read_msg(data) if data.startswith(OLE_MAGIC) else read_eml(data)
        if not (message.subject or message.sender or message.body.strip() or message.attachments):
            raise ParseError("no e-mail found in it: no subject, sender, body or attachment")
        work_dir = self.mineru.options.work_dir
        if work_dir is not None:
            work_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="deepread-mail-", dir=work_dir) as scratch:

            def read(attachment: Attachment) -> ParsedDocument | None:
                kind = Path(attachment.name).suffix.lower() or (
                    mimetypes.guess_extension(attachment.content_type) or ""
                )
                if kind not in SUPPORTED_EXTENSIONS:
                    return None
                if kind in MAIL_FORMATS:
                    return self.parse_mail(attachment.data, kind, patience, depth + 1) if depth < 2 else None
                if kind in TEXT_PARSERS:
                    return TEXT_PARSERS[kind](decode_text(attachment.data))
                copy = Path(scratch, f"attachment-{len(os.listdir(scratch)) + 1}{kind}")  # a name of our own
                copy.write_bytes(attachment.data)
                return self.parse(copy, attachment.data, hashlib.sha256(attachment.data).hexdigest(), patience)

            return message_document(message, suffix, read)


def parse_text_file(path: Path, max_bytes: int) -> ParsedDocument:
    """Read and parse a Markdown or plain-text file (no MinerU needed)."""
    suffix = path.suffix.lower()
    if suffix not in TEXT_PARSERS:
        raise ParseError(f"not a text format: {suffix!r}")
    return TEXT_PARSERS[suffix](decode_text(read_bytes(path, max_bytes)))


# Office and e-book formats are zip files: refuse one whose contents expand past this, or
# whose compression is beyond what documents reach (a zip bomb held the parser for 900 s).
MAX_UNZIPPED_BYTES = 1_000_000_000
MAX_ZIP_RATIO = 200
ZIP_FORMATS = frozenset({".docx", ".pptx", ".xlsx", ".xlsm", ".odt", ".odp", ".ods", ".epub"})
OFFICE_FORMATS = frozenset({".docx", ".pptx", ".xlsx", ".xlsm"})
LEGACY_FORMATS = frozenset({".doc", ".ppt", ".xls"})
OLE_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")  # an OLE compound file: an old .doc, or an encrypted OOXML file
ZIP_MAGIC = b"PK\x03\x04"


def file_kind(mode: int) -> str | None:
    """What a non-regular file is, for a reason a person understands; None for a regular file."""
    for check, kind in (
        (stat.S_ISREG, None),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if check(mode):
            return kind
    return "not a regular file"


def _require_regular(mode: int) -> None:
    kind = file_kind(mode)
    if kind is not None:
        raise ParseError(f"{kind}, not a regular file: only regular files are read")


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, if it is a regular file within the size limit.

    Opened without blocking and checked on the open descriptor: a FIFO or a device named
    like a document would otherwise block `open()` or never end, and a file swapped for
    one between a check and the open is caught too.
    """
    try:
        _require_regular(os.stat(path).st_mode)  # a socket cannot even be opened: say what it is
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except PermissionError:
        raise ParseError(UNREADABLE) from None
    except FileNotFoundError:
        raise ParseError("file disappeared while being read", transient=True) from None
    except OSError as exc:
        raise ParseError(f"{CANNOT_READ}: {exc.strerror or exc}", transient=True) from None
    try:
        info = os.fstat(fd)
        _require_regular(info.st_mode)  # what was opened, if the path was swapped meanwhile
        if info.st_size > max_bytes:
            raise ParseError(f"file is {info.st_size / 1e6:.1f} MB, over {FILE_SIZE_LIMIT} of {max_bytes / 1e6:.0f} MB")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:  # a file that grows while it is read stops at the limit too
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise ParseError(f"file grew past {FILE_SIZE_LIMIT} of {max_bytes / 1e6:.0f} MB while being read")
        data = b"".join(chunks)
    except OSError as exc:  # an I/O error: a disk or a network share that may come back
        raise ParseError(f"{CANNOT_READ}: {exc.strerror or exc}", transient=True) from None
    finally:
        os.close(fd)
    if not data.strip():
        raise ParseError(EMPTY)
    return data


def check_archive(suffix: str, data: bytes) -> None:
    """Refuse a zip-based document that would expand beyond reason (a zip bomb), whatever its name
    says (a .doc that is really a .docx is a zip too), and an encrypted Office file. An old binary
    Office file under a new name (a .doc saved as .docx) is let through: MinerU reads a file by its bytes."""
    if data.startswith(OLE_MAGIC) and suffix in OFFICE_FORMATS | LEGACY_FORMATS:
        if _encrypted_package(data):  # Office keeps a password-protected file in an OLE container
            raise ParseError(
                f"this {suffix} file is encrypted: it needs a password; save a copy without one to index it"
            )
        return
    if suffix not in ZIP_FORMATS and not data.startswith(ZIP_MAGIC):
        return
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            unzipped = sum(max(info.file_size, 0) for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ParseError(f"not a readable {suffix} file (its zip container is damaged)") from None
    if unzipped > MAX_UNZIPPED_BYTES or (unzipped > MAX_ZIP_RATIO * max(len(data), 1) and unzipped > 50_000_000):
        raise ParseError(
            f"its compressed contents expand to {unzipped / 1e6:,.0f} MB from {len(data) / 1e6:.1f} MB "
            "(a zip bomb?); not parsed"
        )


def _encrypted_package(data: bytes) -> bool:
    """Whether an OLE file is a password-protected Office Open XML package (its `EncryptedPackage`)."""
    import olefile

    try:
        with olefile.OleFileIO(data) as ole:
            return bool(ole.exists("EncryptedPackage") or ole.exists("EncryptionInfo"))
    except (OSError, ValueError):
        return True  # an OLE file too damaged to tell: as before, said to be encrypted


def decode_text(data: bytes) -> str:
    """Decode a text file: UTF-8 (a stray bad byte is replaced, not the whole file misread),
    UTF-16 with or without a byte-order mark, UTF-32 with one, else a legacy code page (Mac Roman or Windows-1252,
    `hygiene.decode_legacy`); refuse binary content. Mojibake and private-use glyphs are mended
    (`hygiene.repair_lines`)."""
    head = data[:8192]
    encoding = wide_encoding(head)
    if encoding:
        text = data.decode(encoding, errors="replace").lstrip("\ufeff")
    elif b"\x00" in head:
        raise ParseError("binary content in a text file (NUL bytes); is the extension wrong?")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("utf-8-sig", errors="replace")
            bad = text.count("\ufffd")
            good = sum(1 for ch in text if ord(ch) > 127) - bad
            if good <= bad:  # no real UTF-8 beside the bad bytes: a legacy single-byte encoding
                text = decode_legacy(data)
    control = sum(1 for ch in text[:8192] if ord(ch) < 32 and ch not in "\n\r\t\f")
    if control > 0.05 * min(len(text), 8192):
        raise ParseError("binary content in a text file (control characters); is the extension wrong?")
    return repair_lines(text.replace("\r\n", "\n").replace("\r", "\n"))


def wide_encoding(head: bytes) -> str | None:
    """ "utf-32" or "utf-16" when a byte-order mark says so (UTF-32's little-endian mark begins with
    UTF-16's, so it is looked for first); "utf-16-le"/"-be" when every other byte is NUL
    (text in a Latin script saved as UTF-16 without a mark)."""
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    half = len(head) // 2
    if half < 2:
        return None
    even_nuls = head[0 : 2 * half : 2].count(0)
    odd_nuls = head[1 : 2 * half : 2].count(0)
    if odd_nuls > 0.3 * half and even_nuls < 0.02 * half:
        return "utf-16-le"
    if even_nuls > 0.3 * half and odd_nuls < 0.02 * half:
        return "utf-16-be"
    return None
