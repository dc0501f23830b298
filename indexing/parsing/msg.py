"""Outlook messages (.msg) -> one document, laid out like an .eml (:mod:`indexing.parsing.mail`).

Why python-oxmsg: a small MIT-licensed reader of the MS-OXMSG property streams (by the
author of python-docx; unstructured uses it for .msg) that gives subject, sender,
recipients with their To/Cc type, sent date, plain and HTML bodies and attachments as
bytes. extract-msg reads more (RTF bodies via RTFDE, embedded messages) but is GPL-3.0 and
pins ``olefile==0.47`` exactly; both were measured on the fixtures (``bench/bench_formats.py``).

The container is checked first: every stream of the compound file must be readable in
full, so a truncated .msg is refused as ``corrupt`` instead of yielding an empty mail.
Embedded messages and OLE objects (attachments without file bytes) are warnings.
"""

from __future__ import annotations

from pathlib import Path

from indexing.parsing.mail import MailAttachment, MailMessage, mail_document
from officeqa.domain import ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["parse_msg"]

PR_RECIPIENT_TYPE = 0x0C15
_TO, _CC = 1, 2


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
        message = MailMessage(subject=(msg.subject or "").strip(), sender=msg.sender or "")
        for recipient in msg.recipients:
            name, address = recipient.name or "", recipient.email_address or ""
            shown = f"{name} <{address}>" if name and address and name != address else (address or name)
            kind = recipient.properties.int_prop_value(PR_RECIPIENT_TYPE)
            (message.cc if kind == _CC else message.to).append(shown)
        message.date = msg.sent_date.isoformat() if msg.sent_date else None
        message.html = msg.html_body
        message.text = msg.body
        for number, attachment in enumerate(msg.attachments, start=1):
            name = attachment.file_name or f"attachment-{number}"
            if not attachment.file_bytes:
                message.warnings.append(f"attachment {name!r} skipped: an embedded message or object, not a file")
                continue
            message.attachments.append(MailAttachment(name, attachment.file_bytes, attachment.mime_type))
    except (ValueError, KeyError, IndexError, TypeError, UnicodeError, OSError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the message: {exc}") from exc
    return message


def parse_msg(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse an Outlook .msg file (body and attachments) into one document."""
    del password  # S/MIME-encrypted messages are not decrypted
    return mail_document(path, read_msg(path), "msg", settings)
