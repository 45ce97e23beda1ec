"""E-mail as documents: an `.eml` file read with the standard library's `email` package, an Outlook
`.msg` with `indexer.parse.outlook`, both to a `Message`, and a message to a `ParsedDocument`.

A message reads as a person sees it in a mail client: its subject is its top heading (and its
declared title: `Declared(title=subject, authors=[sender], created=date)`; a message without a
subject is "(no subject) from <sender>"), then one paragraph of its header fields ("From: …",
"To: …", "Cc: …", "Date: …"), then its body: the plain-text part when there is one, else the HTML
part turned into text here (block elements end lines; scripts, styles and the head are left out).
Each attachment that is itself a supported document becomes a section of the message, headed by
its file name, its text parsed by the project's own parsers (`attachment_blocks`); a message held
in another (a forwarded message, a digest's parts) is a section too, read the same way. What
cannot be read (an attachment of a type not indexed, an encrypted body, a charset no codec knows)
is said in the document's warnings, never a reason to fail the message.

Encodings: a file saved as UTF-16 (with or without a byte-order mark) is decoded before parsing;
a part whose charset is unknown or wrong is decoded as UTF-8 with replacements, else as a legacy
code page (`hygiene.decode_legacy`); header fields in RFC 2047 words are decoded by the `email`
package. A date the header gives in RFC 2822 or ISO 8601 form is declared as ISO 8601; any other
is shown as written and not declared.
"""

from __future__ import annotations

import email
import email.policy
import html
import mimetypes
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.message import Message as Part
from email.utils import getaddresses, parsedate_to_datetime
from html.parser import HTMLParser

from indexer.models import Block, Declared, ParsedDocument
from indexer.parse.hygiene import decode_legacy, repair_lines
from indexer.parse.text import parse_text

MAIL_FORMATS = frozenset({".eml", ".msg"})
MAX_DEPTH = 3  # messages held in messages (a forward of a forward …) read this deep
NO_SUBJECT = "(no subject)"


@dataclass
class Attachment:
    name: str
    data: bytes
    content_type: str = "application/octet-stream"
    message: Message | None = None  # a message held in this one (message/rfc822, an Outlook embedded item)


@dataclass
class Message:
    subject: str | None = None
    sender: str | None = None  # as the header writes it: "Name <address>"
    to: list[str] = field(default_factory=list)
    cc: list[str] = field(default_factory=list)
    date: str | None = None  # as written
    created: str | None = None  # the date as ISO 8601, when it can be read
    body: str = ""
    attachments: list[Attachment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def heading(self) -> str:
        """The message's subject, or what stands for one."""
        if self.subject:
            return self.subject
        return f"{NO_SUBJECT} from {_sender_name(self.sender)}" if self.sender else NO_SUBJECT

    def fields(self) -> str:
        lines = [
            f"{name}: {value}"
            for name, value in (
                ("From", self.sender),
                ("To", ", ".join(self.to)),
                ("Cc", ", ".join(self.cc)),
                ("Date", self.date),
            )
            if value
        ]
        return "\n".join(lines)


def _sender_name(sender: str) -> str:
    """ "Matthew Robinson <m@x.io>" → "Matthew Robinson"; a bare address stays as it is."""
    name, address = next(iter(getaddresses([sender])), ("", ""))
    return name.strip() or address.strip() or sender.strip()


# --- .eml --------------------------------------------------------------------------------------


def read_eml(data: bytes) -> Message:
    """An RFC 822 / MIME message from its bytes (`email`, policy=default)."""
    from indexer.parse.formats import wide_encoding  # the same test a text file gets

    encoding = wide_encoding(data[:8192])
    if encoding:  # a whole message saved as UTF-16: every header and boundary is in it too
        text = data.decode(encoding, errors="replace").lstrip("\ufeff")
        parsed = email.message_from_string(text, policy=email.policy.default)
    else:
        parsed = email.message_from_bytes(data, policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return _message(parsed, depth=0)


def _message(msg: EmailMessage, depth: int) -> Message:
    out = Message(
        subject=_header(msg, "subject"),
        sender=_header(msg, "from") or _header(msg, "sender"),
        to=_addresses(msg, "to"),
        cc=_addresses(msg, "cc"),
    )
    raw_date = _header(msg, "date")
    out.date, out.created = raw_date, iso_date(raw_date)
    if msg.get_content_type() == "multipart/encrypted" or msg.get_content_type() == "application/pkcs7-mime":
        out.warnings.append("the message is encrypted: its body cannot be read without the key")
    body = _body_part(msg)
    if body is not None:
        out.body = _part_text(body, out.warnings)
    for part in _attachments(msg, body):
        held = _held_message(part)
        if held is not None:
            if depth < MAX_DEPTH:
                inner = _message(held, depth + 1)
                out.attachments.append(Attachment(inner.heading, b"", "message/rfc822", inner))
            continue
        name = part.get_filename() or _unnamed(part, len(out.attachments) + 1)
        try:
            data = part.get_payload(decode=True) or b""
        except (AssertionError, ValueError, LookupError):
            data = b""
        if isinstance(data, bytes) and data.strip():
            out.attachments.append(Attachment(_clean_name(name), data, part.get_content_type()))
    return out


def _header(msg: Part, name: str) -> str | None:
    """A header's decoded value, or None; a header the `email` package cannot parse is taken as written."""
    try:
        value = msg.get(name)
    except (IndexError, ValueError, TypeError, AttributeError, LookupError):  # a header the policy chokes on
        value = next((raw for key, raw in msg.raw_items() if key.lower() == name), None)
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def _addresses(msg: Part, name: str) -> list[str]:
    value = _header(msg, name)
    if not value:
        return []
    pairs = getaddresses([value])
    found = [f"{n} <{a}>" if n and a else (a or n) for n, a in pairs if n or a]
    return found or [value]


def iso_date(raw: str | None) -> str | None:
    """A header's date as ISO 8601 (RFC 2822 first, then ISO 8601 as some tools write it); None when unreadable."""
    if not raw:
        return None
    try:
        return parsedate_to_datetime(raw).isoformat()
    except (TypeError, ValueError, IndexError):
        pass
    try:
        return datetime.fromisoformat(raw.strip().replace("Z", "+00:00")).isoformat()
    except ValueError:
        return None


def _body_part(msg: EmailMessage) -> Part | None:
    """The part a mail client shows: plain text preferred, else HTML; a message that is one text part is its own."""
    try:
        body = msg.get_body(preferencelist=("plain", "html"))
    except (KeyError, ValueError, AttributeError):
        body = None
    if body is None and msg.get_content_maintype() == "text":
        body = msg
    if body is None:  # a multipart whose parts are odd: the first text part that is no attachment
        body = next(
            (
                p
                for p in msg.walk()
                if p.get_content_maintype() == "text" and p.get_content_disposition() != "attachment"
            ),
            None,
        )
    return body


def _attachments(msg: EmailMessage, body: Part | None) -> list[Part]:
    """The parts that are not the body, nor its other rendering, nor a picture the HTML body shows
    inline (a logo referred to by its Content-ID)."""
    if not msg.is_multipart():
        return []
    try:
        parts = list(msg.iter_attachments())
    except (KeyError, ValueError, AttributeError):
        parts = []
    if msg.get_content_type() == "multipart/digest" or not parts:  # a digest's parts are messages, in order
        parts = [p for p in msg.walk() if p is not msg and _held_message(p) is not None] or parts
    seen: set[int] = set()
    found = []
    for part in _walk_attachments(parts):
        if id(part) in seen or part is body:
            continue
        seen.add(id(part))
        if part.get_content_disposition() != "attachment" and part.get("content-id") and not part.get_filename():
            continue  # shown inside the HTML body
        if part.get_content_type() in ("application/pgp-encrypted", "application/pgp-signature"):
            continue
        found.append(part)
    return found


def _walk_attachments(parts: Sequence[Part]) -> list[Part]:
    """Attachments, with a multipart attachment opened (a multipart/related holding files)."""
    out: list[Part] = []
    for part in parts:
        if part.is_multipart() and _held_message(part) is None:
            out.extend(p for p in part.walk() if not p.is_multipart())
        else:
            out.append(part)
    return out


def _held_message(part: Part) -> EmailMessage | None:
    if part.get_content_type() != "message/rfc822":
        return None
    payload = part.get_payload()
    inner = payload[0] if isinstance(payload, list) and payload else None
    return inner if isinstance(inner, EmailMessage) else None


def _unnamed(part: Part, n: int) -> str:
    extension = mimetypes.guess_extension(part.get_content_type()) or ""
    return f"attachment {n}{extension}"


def _clean_name(name: str) -> str:
    """A file name as a heading: its last path component, without control characters."""
    name = re.split(r"[\\/]", name)[-1]
    return "".join(ch for ch in name if ch.isprintable()).strip() or "attachment"


def _part_text(part: Part, warnings: list[str]) -> str:
    """A text part's text: decoded by its charset, HTML turned into text."""
    raw = part.get_payload(decode=True)
    if not isinstance(raw, bytes):
        raw = str(part.get_payload()).encode("utf-8", "replace")
    charset = part.get_content_charset() or "utf-8"
    text = decode_part(raw, charset, warnings)
    if part.get_content_subtype() == "html":
        text = html_text(text)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decode_part(raw: bytes, charset: str, warnings: list[str] | None = None) -> str:
    """Bytes in a declared charset; an unknown or wrong one falls back to UTF-8, then a legacy code page."""
    try:
        return raw.decode(charset)
    except LookupError:
        if warnings is not None:
            warnings.append(f"unknown character set {charset!r}: the body was read as UTF-8")
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return decode_legacy(raw)


# --- HTML → text -------------------------------------------------------------------------------

_BLOCKS = frozenset(
    "address article aside blockquote br dd div dl dt footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p "
    "pre section table tbody td th thead tfoot tr ul".split()
)
_SKIPPED = frozenset({"script", "style", "head", "title", "noscript", "template"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skipping += 1
        elif tag in ("p", "div", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol"):
            self.out.append("\n\n")
        elif tag in _BLOCKS:
            self.out.append("\n" if tag != "td" and tag != "th" else " ")
        if tag == "li":
            self.out.append("- ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in _BLOCKS and tag not in ("td", "th"):
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(re.sub(r"\s+", " ", data))


def html_text(source: str) -> str:
    """The text an HTML body shows: a paragraph per block element, blank lines between them."""
    parser = _Text()
    try:
        parser.feed(source)
        parser.close()
    except (AssertionError, ValueError):  # html.parser gives up on some broken markup
        return html.unescape(re.sub(r"<[^>]+>", " ", source))
    text = "".join(parser.out).replace("\xa0", " ")
    lines = [line.strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# --- a message → a document --------------------------------------------------------------------

AttachmentReader = Callable[[Attachment], ParsedDocument | None]


def message_document(message: Message, file_format: str, read_attachment: AttachmentReader) -> ParsedDocument:
    """The message as blocks: its subject (level 1), its fields, its body, then a section per
    attachment that `read_attachment` reads (None: not a document; a `ParseError` it raises is a
    warning), with the attachment's own headings below its name."""
    from indexer.errors import ParseError

    warnings = list(message.warnings)
    blocks = _message_blocks(message, 1)
    not_read: list[str] = []
    for attachment in message.attachments:
        if attachment.message is not None:
            blocks.extend(_message_blocks(attachment.message, 2))
            warnings.extend(attachment.message.warnings)
            continue
        try:
            parsed = read_attachment(attachment)
        except ParseError as exc:
            warnings.append(f"attachment {attachment.name} not read: {exc}")
            continue
        if parsed is None:
            not_read.append(attachment.name)
            continue
        blocks.append(Block("heading", attachment.name, level=2))
        blocks.extend(_shifted(parsed.blocks, 2))
        warnings.extend(f"attachment {attachment.name}: {w}" for w in parsed.warnings)
    if not_read:
        warnings.append(f"attachment(s) of a type not indexed: {', '.join(not_read)}")
    sender = [message.sender] if message.sender else []
    return ParsedDocument(
        blocks=blocks,
        declared=Declared(title=message.heading, authors=sender, created=message.created),
        format=file_format,
        warnings=warnings,
    )


def _message_blocks(message: Message, level: int) -> list[Block]:
    blocks = [Block("heading", message.heading, level=level)]
    if fields := message.fields():
        blocks.append(Block("text", fields))
    if message.body.strip():  # mojibake mended: a UTF-8 body sent as Latin-1 ("Iâ€™m")
        blocks.extend(_shifted(parse_text(repair_lines(message.body), opening=False).blocks, level))
    return blocks


def _shifted(blocks: list[Block], by: int) -> list[Block]:
    """An attachment's or a body's blocks under a heading of level `by`: its headings one level below
    it and deeper; no pages (the message has none: a page number would point into another file)."""
    out = []
    for block in blocks:
        level = block.level + by if block.kind == "heading" and block.level is not None else block.level
        out.append(Block(block.kind, block.text, level=level, inferred=block.inferred, picture=block.picture))
    return out
