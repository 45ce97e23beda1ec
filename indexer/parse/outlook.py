"""Outlook `.msg` files → `indexer.parse.mail.Message`, read with olefile.

A `.msg` is an OLE compound file of MAPI properties ([MS-OXMSG]): each string or binary property
is a stream named `__substg1.0_TTTTYYYY` (tag, type: `001F` UTF-16, `001E` 8-bit in the message's
code page, `0102` binary), the fixed-size ones (dates among them) sit in `__properties_version1.0`,
each recipient in a `__recip_version1.0_#N` storage and each attachment in `__attach_version1.0_#N`
(an attached Outlook item as a message storage of its own, `__substg1.0_3701000D`).

The reader most projects use, extract-msg, is GPL-3.0 (this project is Apache-2.0) and brings
oletools and a GUI toolkit with it; olefile (BSD, which MinerU already installs) and the few
properties a person sees are enough: subject, sender, recipients, date, the plain body (else the
HTML body, turned into text), and the attachments. A body kept only as compressed RTF is not read,
and the document says so.
"""

from __future__ import annotations

import struct
from datetime import UTC, datetime, timedelta

from indexer.errors import ParseError
from indexer.parse.mail import Attachment, Message, decode_part, html_text

_SUBJECT, _SENDER_NAME, _SENDER_ADDRESS, _SENT_REPRESENTING = 0x0037, 0x0C1A, 0x0C1F, 0x0042
_DISPLAY_TO, _DISPLAY_CC, _HEADERS = 0x0E04, 0x0E03, 0x007D
_BODY, _HTML, _RTF = 0x1000, 0x1013, 0x1009
_SUBMIT_TIME, _DELIVERY_TIME, _CODEPAGE = 0x0039, 0x0E06, 0x3FFD
_RECIPIENT_NAME, _RECIPIENT_ADDRESS, _RECIPIENT_SMTP, _RECIPIENT_TYPE = 0x3001, 0x3003, 0x39FE, 0x0C15
_ATTACH_LONG_NAME, _ATTACH_NAME, _ATTACH_DATA, _ATTACH_MIME, _ATTACH_DISPLAY = 0x3707, 0x3704, 0x3701, 0x370E, 0x3001
_TO, _CC = 1, 2
_MESSAGE, _EMBEDDED, _PART = (
    32,
    24,
    8,
)  # header sizes of the properties stream: the file's message, one held, a recipient or attachment
MAX_DEPTH = 3


def read_msg(data: bytes) -> Message:
    import olefile

    try:
        ole = olefile.OleFileIO(data)
    except (OSError, ValueError) as exc:  # olefile raises OSError for "not an OLE2 structured storage file"
        raise ParseError(f"not a readable Outlook .msg file ({exc})") from None
    try:
        if not ole.exists(f"__substg1.0_{_SUBJECT:04X}001F") and not ole.exists("__properties_version1.0"):
            raise ParseError("not an Outlook message: an OLE file without a message's properties")
        return _Reader(ole).message("", 0)
    finally:
        ole.close()


class _Reader:
    def __init__(self, ole: object):
        self.ole = ole
        self.codepage = "cp1252"

    def message(self, prefix: str, depth: int) -> Message:
        header = _EMBEDDED if prefix else _MESSAGE
        codepage = self._fixed(prefix, _CODEPAGE, header)
        if isinstance(codepage, int) and codepage > 0:
            self.codepage = f"cp{codepage}" if codepage != 65001 else "utf-8"
        out = Message(subject=self._string(prefix, _SUBJECT))
        name = self._string(prefix, _SENDER_NAME) or ""
        address = self._string(prefix, _SENDER_ADDRESS) or ""
        out.sender = (
            f"{name} <{address}>" if name and address and name != address else (name or address or None)
        ) or self._string(prefix, _SENT_REPRESENTING)
        to, cc = self._recipients(prefix)
        out.to = to or _split(self._string(prefix, _DISPLAY_TO))
        out.cc = cc or _split(self._string(prefix, _DISPLAY_CC))
        when = self._fixed(prefix, _SUBMIT_TIME, header) or self._fixed(prefix, _DELIVERY_TIME, header)
        if isinstance(when, datetime):
            when = when.replace(microsecond=0)
            out.created = when.isoformat()
            out.date = when.strftime("%a, %d %b %Y %H:%M:%S +0000")
        else:  # the internet headers the message arrived with say it too
            from indexer.parse.mail import iso_date

            headers = self._string(prefix, _HEADERS) or ""
            for line in headers.splitlines():
                if line.lower().startswith("date:"):
                    out.date = line[5:].strip()
                    out.created = iso_date(out.date)
                    break
        body = self._string(prefix, _BODY)
        if not (body and body.strip()):
            html = self._binary(prefix, _HTML)
            body = html_text(decode_part(html, "utf-8")) if html else None
        if body:
            out.body = body.replace("\r\n", "\n").replace("\r", "\n")
        elif self._binary(prefix, _RTF):
            out.warnings.append("the message's body is kept only as RTF, which is not read")
        out.attachments = self._attachments(prefix, depth)
        return out

    # --- properties --------------------------------------------------------------------------

    def _stream(self, path: str) -> bytes | None:
        ole = self.ole
        if not ole.exists(path):  # type: ignore[attr-defined]
            return None
        return ole.openstream(path).read()  # type: ignore[attr-defined]

    def _string(self, prefix: str, tag: int) -> str | None:
        raw = self._stream(f"{prefix}__substg1.0_{tag:04X}001F")
        if raw is not None:
            text = raw.decode("utf-16-le", errors="replace")
        else:
            raw = self._stream(f"{prefix}__substg1.0_{tag:04X}001E")
            if raw is None:
                return None
            text = decode_part(raw, self.codepage)
        text = text.rstrip("\x00").strip()
        return text or None

    def _binary(self, prefix: str, tag: int) -> bytes | None:
        return self._stream(f"{prefix}__substg1.0_{tag:04X}0102")

    def _fixed(self, prefix: str, tag: int, header: int) -> int | datetime | None:
        """A fixed-size property: an integer (PT_LONG) or a date (PT_SYSTIME); None when absent.
        `header`: the bytes before the first entry (`_MESSAGE`, `_EMBEDDED`, `_PART`)."""
        raw = self._stream(f"{prefix}__properties_version1.0")
        if not raw:
            return None
        for at in range(header, len(raw) - 15, 16):
            kind, ident = struct.unpack_from("<HH", raw, at)
            if ident != tag:
                continue
            if kind == 0x0003:  # PT_LONG
                return int(struct.unpack_from("<i", raw, at + 8)[0])
            if kind == 0x0040:  # PT_SYSTIME: 100-ns ticks since 1601
                ticks = struct.unpack_from("<Q", raw, at + 8)[0]
                try:
                    return datetime(1601, 1, 1, tzinfo=UTC) + timedelta(microseconds=ticks // 10)
                except OverflowError:
                    return None
        return None

    def _children(self, prefix: str, kind: str) -> list[str]:
        """The storages `__recip_version1.0_#N/` or `__attach_version1.0_#N/` right under `prefix`."""
        depth = prefix.count("/")
        found = set()
        for entry in self.ole.listdir(streams=True, storages=True):  # type: ignore[attr-defined]
            path = "/".join(entry)
            if path.startswith(prefix) and len(entry) > depth and entry[depth].startswith(kind):
                found.add(prefix + entry[depth] + "/")
        return sorted(found)

    def _recipients(self, prefix: str) -> tuple[list[str], list[str]]:
        to: list[str] = []
        cc: list[str] = []
        for storage in self._children(prefix, "__recip_version1.0_#"):
            name = self._string(storage, _RECIPIENT_NAME) or ""
            address = self._string(storage, _RECIPIENT_SMTP) or self._string(storage, _RECIPIENT_ADDRESS) or ""
            shown = f"{name} <{address}>" if name and address and name != address else (name or address)
            kind = self._fixed(storage, _RECIPIENT_TYPE, _PART)
            if shown and kind != 3:  # 3: Bcc, which the recipients never saw
                (cc if kind == _CC else to).append(shown)
        return to, cc

    def _attachments(self, prefix: str, depth: int) -> list[Attachment]:
        out = []
        for n, storage in enumerate(self._children(prefix, "__attach_version1.0_#"), start=1):
            name = (
                self._string(storage, _ATTACH_LONG_NAME)
                or self._string(storage, _ATTACH_NAME)
                or self._string(storage, _ATTACH_DISPLAY)
                or f"attachment {n}"
            )
            held = f"{storage}__substg1.0_{_ATTACH_DATA:04X}000D/"
            if self.ole.exists(held.rstrip("/")):  # type: ignore[attr-defined]
                if depth < MAX_DEPTH:
                    inner = self.message(held, depth + 1)
                    out.append(Attachment(inner.heading, b"", "message/rfc822", inner))
                continue
            data = self._binary(storage, _ATTACH_DATA)
            if data:
                mime = self._string(storage, _ATTACH_MIME) or "application/octet-stream"
                out.append(Attachment(name.split("\\")[-1].split("/")[-1], data, mime))
        return out


def _split(display: str | None) -> list[str]:
    return [p.strip() for p in (display or "").split(";") if p.strip()]
