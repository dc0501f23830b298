"""Outlook messages (.msg) -> one document, laid out like an .eml (:mod:`indexing.parsing.mail`).

Why python-oxmsg: a small MIT-licensed reader of the MS-OXMSG property streams (by the
author of python-docx; unstructured uses it for .msg) that gives subject, sender,
recipients with their To/Cc type, sent date, plain and HTML bodies and attachments as
bytes. extract-msg reads more (RTF bodies via RTFDE, embedded messages) but is GPL-3.0 and
pins ``olefile==0.47`` exactly; both were measured on the fixtures (``bench/bench_formats.py``).

The container is checked first: every stream of the compound file must be readable in
full, so a truncated .msg is refused as ``corrupt`` instead of yielding an empty mail.
Embedded messages and OLE objects (attachments without file bytes) are warnings.

Code pages: python-oxmsg names Outlook's code pages as Windows does (``windows-950`` for
Big5, ``ks_c_5601-1987`` ...), which :mod:`indexing.parsing.charsets` teaches Python's codec
registry. A message that records only its internet code page (``PR_INTERNET_CPID``) and no
message code page has its 8-bit string properties (subject, names, an 8-bit HTML body) read
by python-oxmsg as Latin-9; those are read again in the internet code page (:class:`_String8`),
so a Big5 message's subject is Chinese, not mojibake. A body whose declared code page does not
decode its bytes (UTF-8 declared over cp1252 text) is decoded by the product's detector.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from indexing.parsing.charsets import codec_for
from indexing.parsing.encoding import decode_bytes
from indexing.parsing.mail import MailAttachment, MailMessage, mail_document
from officeqa.domain import ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["parse_msg"]

PR_RECIPIENT_TYPE = 0x0C15
PR_SUBJECT = 0x0037
PR_SENDER_NAME = 0x0C1A
PR_DISPLAY_NAME = 0x3001
PR_BODY = 0x1000
PR_BODY_HTML = 0x1013
PR_INTERNET_CPID = 0x3FDE
PR_MESSAGE_CODEPAGE = 0x3FFD
PTYP_STRING8 = 0x001E
# python-oxmsg's reading of an 8-bit string when the message names no code page: every byte maps to one character.
_OXMSG_DEFAULT = "iso-8859-15"
_TO, _CC = 1, 2


class _String8:
    """Reads 8-bit string properties again in the message's internet code page when it has no message code page."""

    def __init__(self, properties: Any) -> None:
        self.encoding: str | None = None
        if properties.int_prop_value(PR_MESSAGE_CODEPAGE) is None and properties.int_prop_value(PR_INTERNET_CPID):
            try:
                codec = codec_for(properties.body_encoding)
            except (ValueError, KeyError, LookupError):  # python-oxmsg's errors for a code page it does not know
                codec = None
            if codec and codec != codec_for(_OXMSG_DEFAULT):
                self.encoding = codec

    def fix(self, properties: Any, pid: int, value: str | None) -> str | None:
        """``value`` of property ``pid``, re-decoded when python-oxmsg read it as Latin-9 8-bit text."""
        if self.encoding is None or not value:
            return value
        if not any(prop.pid == pid and prop.ptyp == PTYP_STRING8 for prop in properties):
            return value
        try:
            return value.encode(_OXMSG_DEFAULT).decode(self.encoding)
        except UnicodeError:
            return value


def _body(msg: Any, properties: Any, pid: int, read: Callable[[], str | None]) -> str | None:
    """A body as python-oxmsg decodes it; when its declared code page does not decode the bytes (Outlook
    declares UTF-8 over cp1252 bytes), the 8-bit bytes decoded by the product's detector instead."""
    try:
        return read()
    except UnicodeDecodeError:
        raw = _raw_string8(properties, pid)
        if raw is None:
            raise
        return decode_bytes(raw, declared=properties.body_encoding, source="message body").text


def _raw_string8(properties: Any, pid: int) -> bytes | None:
    """The undecoded bytes of an 8-bit string property (python-oxmsg has no public accessor for them)."""
    for prop in properties:
        if prop.pid == pid and prop.ptyp == PTYP_STRING8:
            storage = getattr(prop, "_storage", None)
            if storage is not None and hasattr(storage, "property_stream_bytes"):
                return storage.property_stream_bytes(pid, PTYP_STRING8)
    return None


def _check_container(path: Path) -> None:
    import olefile

    try:
        with olefile.OleFileIO(str(path)) as ole:
            streams = ole.listdir(streams=True, storages=False)
            if not any(entry[-1].startswith("__substg1.0_") for entry in streams):
                raise UnreadableDocument(str(path), RefusalKind.CORRUPT, "not an Outlook message (no MAPI properties)")
            for entry in streams:
                name = "/".join(entry)
                if len(ole.openstream(name).read()) < ole.get_size(name):
                    raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"stream {name} is truncated")
    except UnreadableDocument:
        raise
    except (OSError, ValueError, IndexError, KeyError, EOFError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"damaged OLE container: {exc}") from exc


def read_msg(path: Path) -> MailMessage:
    """The fields, bodies and attachments of an Outlook message file."""
    from oxmsg import Message

    _check_container(path)
    try:
        msg = Message.load(str(path))
        props = msg.properties
        string8 = _String8(props)
        sender = msg.sender or ""
        raw_sender_name = props.str_prop_value(PR_SENDER_NAME) or ""
        if raw_sender_name and not msg.message_headers.get("from"):
            sender = sender.replace(raw_sender_name, string8.fix(props, PR_SENDER_NAME, raw_sender_name) or "")
        message = MailMessage(subject=(string8.fix(props, PR_SUBJECT, msg.subject) or "").strip(), sender=sender)
        for recipient in msg.recipients:
            name = string8.fix(recipient.properties, PR_DISPLAY_NAME, recipient.name) or ""
            address = recipient.email_address or ""
            shown = f"{name} <{address}>" if name and address and name != address else (address or name)
            kind = recipient.properties.int_prop_value(PR_RECIPIENT_TYPE)
            (message.cc if kind == _CC else message.to).append(shown)
        message.date = msg.sent_date.isoformat() if msg.sent_date else None
        message.html = _body(msg, props, PR_BODY_HTML, lambda: string8.fix(props, PR_BODY_HTML, msg.html_body))
        message.text = _body(msg, props, PR_BODY, lambda: msg.body)
        for number, attachment in enumerate(msg.attachments, start=1):
            name = attachment.file_name or f"attachment-{number}"
            if not attachment.file_bytes:
                message.warnings.append(f"attachment {name!r} skipped: an embedded message or object, not a file")
                continue
            message.attachments.append(MailAttachment(name, attachment.file_bytes, attachment.mime_type))
    except LookupError as exc:  # a code page neither Python nor the alias table knows
        raise UnreadableDocument(str(path), RefusalKind.UNSUPPORTED, f"text in an unknown code page: {exc}") from exc
    except (ValueError, KeyError, IndexError, TypeError, UnicodeError, OSError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the message: {exc}") from exc
    return message


def parse_msg(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse an Outlook .msg file (body and attachments) into one document."""
    del password  # S/MIME-encrypted messages are not decrypted
    return mail_document(path, read_msg(path), "msg", settings)
