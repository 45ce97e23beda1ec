"""Parsers: every supported format to a `ParsedDocument`.

Markdown and plain text are read here; PDF, office and web formats go
through MinerU (`indexer.parse.mineru`). `SUPPORTED_EXTENSIONS` is the single
place that says which files are indexed. Every parser raises `ParseError`
with a reason a person can act on; anything else escaping a parser is a bug
and is reported with its type.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from indexer.errors import ParseError
from indexer.models import ParsedDocument
from indexer.parse.markdown import parse_markdown
from indexer.parse.mineru import MINERU_FORMATS, MineruOptions, MineruParser
from indexer.parse.text import parse_text

TextParser = Callable[[str], ParsedDocument]

TEXT_PARSERS: dict[str, TextParser] = {
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".mdx": parse_markdown,
    ".txt": parse_text,
    ".text": parse_text,
    ".rst": parse_text,
}

SUPPORTED_EXTENSIONS = frozenset(TEXT_PARSERS) | frozenset(MINERU_FORMATS)


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_EXTENSIONS


class DocumentParser:
    """Any supported file → `ParsedDocument`: text formats natively, the rest through MinerU."""

    def __init__(self, mineru: MineruOptions):
        self.mineru = MineruParser(mineru)

    def is_slow(self, path: Path) -> bool:
        """MinerU formats take seconds to minutes per file; text formats milliseconds."""
        return path.suffix.lower() in MINERU_FORMATS

    def parse(self, path: Path, data: bytes, content_hash: str) -> ParsedDocument:
        suffix = path.suffix.lower()
        if suffix in TEXT_PARSERS:
            return TEXT_PARSERS[suffix](decode_text(data))
        if suffix in MINERU_FORMATS:
            return self.mineru.parse(path, content_hash)
        raise ParseError(f"unsupported file type {suffix!r}; supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))}")


def parse_text_file(path: Path, max_bytes: int) -> ParsedDocument:
    """Read and parse a Markdown or plain-text file (no MinerU needed)."""
    suffix = path.suffix.lower()
    if suffix not in TEXT_PARSERS:
        raise ParseError(f"not a text format: {suffix!r}")
    return TEXT_PARSERS[suffix](decode_text(read_bytes(path, max_bytes)))


def read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise ParseError(
                f"file is {size / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit (DEEPREAD_MAX_FILE_MB)"
            )
        data = path.read_bytes()
    except PermissionError:
        raise ParseError("permission denied: the server cannot read this file") from None
    except FileNotFoundError:
        raise ParseError("file disappeared while being read") from None
    except IsADirectoryError:
        raise ParseError("not a file") from None
    except OSError as exc:
        raise ParseError(f"cannot read file: {exc.strerror or exc}") from None
    if not data.strip():
        raise ParseError("file is empty")
    return data


def decode_text(data: bytes) -> str:
    """Decode a text file; refuse binary content that carries a text extension."""
    head = data[:8192]
    if b"\x00" in head:
        raise ParseError("binary content in a text file (NUL bytes); is the extension wrong?")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    control = sum(1 for ch in text[:8192] if ord(ch) < 32 and ch not in "\n\r\t\f")
    if control > 0.05 * min(len(text), 8192):
        raise ParseError("binary content in a text file (control characters); is the extension wrong?")
    return text.replace("\r\n", "\n").replace("\r", "\n")
