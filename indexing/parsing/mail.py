"""E-mail (.eml; .msg through :mod:`indexing.parsing.msg`) -> one document: header, body, attachments.

Why one document per mail, attachments inside it: a mail is cited as a whole ("mail ›
attachment"), and the registry stores one row per file. So a mail becomes

- a level-1 heading with the subject, then a header paragraph ("From: … / To: … / Cc: … /
  Date: … / Subject: …") so that sender and recipients are searchable; the same fields are
  the document's ``meta`` (``subject``, ``from``, ``to``, ``cc``, ``date``, ``attachments``);
- the body: the HTML alternative when there is one (tables survive) through the HTML
  parser, else the plain text through the text parser; when a mail has both, the plain
  part's paragraphs that say what the HTML part does not follow it (one copy when the
  parts say the same); its headings sit one level below;
- each attachment parsed by the normal parser for its type (a temporary file in the same
  guarded worker, so one time limit covers the mail and its attachments), under a level-1
  heading "附件/Attachment: NAME", its own headings one level below and every block marked
  ``meta["attachment"] = NAME``: chunks then carry the heading path
  "附件/Attachment: NAME > …". An attachment that cannot be read (damaged, encrypted,
  unsupported type) is a warning on the mail, never a failure of it. Mails attached to
  mails are read up to :data:`MAX_DEPTH` levels deep.

Why the stdlib ``email`` package for .eml: it is the reference MIME parser (RFC 2047/2231
names, any charset Python knows, multipart nesting); nothing a third-party package adds is
needed here. A body in a charset Python does not know is decoded by the product's own
detector (:func:`indexing.parsing.encoding.decode_bytes`).
"""

from __future__ import annotations

import contextvars
import mimetypes
import re
import tempfile
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from indexing.parsing.encoding import decode_bytes
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["ATTACHMENT_HEADING", "MAX_DEPTH", "MailMessage", "mail_document", "parse_eml"]

ATTACHMENT_HEADING = "附件/Attachment: {name}"
MAX_DEPTH = 3
_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("officeqa_mail_depth", default=0)
_UNSAFE_NAME = re.compile(r"[^\w.\-]+", re.UNICODE)
_URL = re.compile(r"<?(?:https?://|mailto:|www\.)[^\s>]+>?", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")
_CJK_START = 0x2E80  # CJK radicals onwards: scripts written without spaces, compared character by character
# A plain-text line whose words are at least this much found in the HTML body is already said there.
_SAID_SHARE = 0.9


@dataclass(slots=True)
class MailAttachment:
    name: str
    data: bytes
    mime_type: str | None = None


@dataclass(slots=True)
class MailMessage:
    """What the .eml and .msg readers extract; :func:`mail_document` turns it into blocks."""

    subject: str = ""
    sender: str = ""
    to: list[str] = field(default_factory=list)
    cc: list[str] = field(default_factory=list)
    date: str | None = None
    html: str | None = None
    text: str | None = None
    attachments: list[MailAttachment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def header_lines(self) -> list[str]:
        lines = [f"From: {self.sender}"] if self.sender else []
        if self.to:
            lines.append("To: " + ", ".join(self.to))
        if self.cc:
            lines.append("Cc: " + ", ".join(self.cc))
        if self.date:
            lines.append(f"Date: {self.date}")
        if self.subject:
            lines.append(f"Subject: {self.subject}")
        return lines


def _shift(blocks: list[Block], by: int = 1) -> list[Block]:
    """Push headings one level down so they nest under the subject or the attachment heading."""
    for block in blocks:
        if block.type is BlockType.HEADING:
            block.level = min((block.level or 1) + by, 9)
    return blocks


def _tokens(text: str) -> list[str]:
    """Words of a body, links removed (a plain part spells out the URLs its HTML twin hides); CJK by character."""
    tokens: list[str] = []
    for word in _WORD.findall(_URL.sub(" ", text.lower())):
        if any(ord(char) >= _CJK_START for char in word):
            tokens.extend(word)
        else:
            tokens.append(word)
    return tokens


def _unsaid(plain: str, html_text: str) -> str:
    """The plain-text part with the lines whose words the HTML part (mostly) holds blanked out."""
    known = set(_tokens(html_text))
    kept: list[str] = []
    for line in plain.splitlines():
        tokens = _tokens(line)
        said = not tokens or sum(token in known for token in tokens) >= _SAID_SHARE * len(tokens)
        kept.append("" if said else line)
    return "\n".join(kept)


def _body_blocks(message: MailMessage) -> list[Block]:
    """The HTML body (tables survive), then what the plain-text body says that the HTML body does not.

    A multipart/alternative mail should carry one text twice, but senders' tools do not always:
    a newsletter's text part may be a different summary, a hand-built mail two different texts,
    an Outlook HTML body converted from RTF may drop a line. The plain-text lines whose words
    the HTML lacks follow the HTML blocks (read by the text rules, marked
    ``meta["body_part"] = "text/plain"``); when the parts say the same, the mail has one copy.
    """
    from indexing.parsing.text import text_to_blocks

    html_blocks: list[Block] = []
    if message.html and message.html.strip():
        from indexing.parsing.html import html_to_blocks

        html_blocks, _title = html_to_blocks(message.html)
        html_blocks = [block for block in html_blocks if block.text.strip()]
    plain = message.text if message.text and message.text.strip() else ""
    if not html_blocks:
        return text_to_blocks(plain) if plain else []
    unsaid = _unsaid(plain, "\n".join(block.text for block in html_blocks))
    extra = text_to_blocks(unsaid) if unsaid.strip() else []
    for block in extra:
        block.meta["body_part"] = "text/plain"
    return html_blocks + extra


def _suffix_for(attachment: MailAttachment) -> str:
    """The attachment's own suffix when the product reads it, else one guessed from its content or MIME type."""
    from indexing.parsing.dispatch import SUPPORTED_SUFFIXES

    suffix = Path(attachment.name).suffix.lower()
    if suffix in SUPPORTED_SUFFIXES:
        return suffix
    if attachment.mime_type:
        guessed = mimetypes.guess_extension(attachment.mime_type.split(";")[0].strip().lower()) or ""
        if guessed in SUPPORTED_SUFFIXES:
            return guessed
    return suffix


def parse_attachment(attachment: MailAttachment, settings: ParsingSettings) -> tuple[list[Block], list[str]]:
    """(blocks, warnings) of one attachment, parsed from a temporary file by the parser for its type."""
    from indexing.parsing.dispatch import parse_uncleaned

    depth = _DEPTH.get()
    if depth >= MAX_DEPTH:
        return [], [f"attachment {attachment.name!r} skipped: mails nested more than {MAX_DEPTH} deep"]
    suffix = _suffix_for(attachment)
    token = _DEPTH.set(depth + 1)
    try:
        with tempfile.TemporaryDirectory(prefix="officeqa-attachment-") as folder:
            stem = _UNSAFE_NAME.sub("_", Path(attachment.name).stem)[:60] or "attachment"
            target = Path(folder) / f"{stem}{suffix}"
            target.write_bytes(attachment.data)
            try:
                document = parse_uncleaned(target, None, settings)
            except UnreadableDocument as exc:
                return [], [f"attachment {attachment.name!r} skipped: {exc.kind.value}: {exc.message}"]
    finally:
        _DEPTH.reset(token)
    warnings = [f"attachment {attachment.name!r}: {warning}" for warning in document.warnings]
    return document.blocks, warnings


def mail_document(path: Path, message: MailMessage, file_type: str, settings: ParsingSettings) -> ParsedDocument:
    """The blocks and metadata of a mail and its attachments (see the module docstring)."""
    blocks: list[Block] = []
    if message.subject:
        blocks.append(Block(type=BlockType.HEADING, text=message.subject, level=1))
    header = message.header_lines()
    if header:
        blocks.append(Block(type=BlockType.PARAGRAPH, text="\n".join(header), meta={"mail_header": True}))
    blocks.extend(_shift(_body_blocks(message)) if message.subject else _body_blocks(message))
    warnings = list(message.warnings)
    names: list[str] = []
    for attachment in message.attachments:
        inner, inner_warnings = parse_attachment(attachment, settings)
        warnings.extend(inner_warnings)
        if not any(block.text.strip() for block in inner):
            if not inner_warnings:
                warnings.append(f"attachment {attachment.name!r} has no text")
            continue
        names.append(attachment.name)
        heading = Block(type=BlockType.HEADING, text=ATTACHMENT_HEADING.format(name=attachment.name), level=1)
        for block in [heading, *_shift(inner)]:
            block.meta["attachment"] = attachment.name
            blocks.append(block)
    meta: dict[str, Any] = {"subject": message.subject, "from": message.sender, "to": message.to, "cc": message.cc}
    if message.date:
        meta["date"] = message.date
    meta["attachments"] = names
    return ParsedDocument(
        path=str(path), file_type=file_type, blocks=blocks, title=message.subject or None, warnings=warnings, meta=meta
    )


# ---------------------------------------------------------------- .eml


def _addresses(msg: Message, name: str) -> list[str]:
    header = msg.get(name)
    if header is None:
        return []
    addresses = getattr(header, "addresses", None)
    if addresses:
        return [str(address) for address in addresses]
    return [part.strip() for part in str(header).split(",") if part.strip()]


def _iso_date(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return parsedate_to_datetime(str(value)).isoformat()
    except (TypeError, ValueError, IndexError):
        return str(value)


def _part_text(part: Message) -> str:
    """A text part's content; an unknown or wrong charset falls back to detection, never to an error."""
    try:
        content = part.get_content()  # type: ignore[attr-defined]
        if isinstance(content, str):
            return content
    except (LookupError, UnicodeError, KeyError, ValueError):
        pass
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    return decode_bytes(payload, declared=part.get_content_charset(), source="mail body").text


def _eml_attachments(msg: EmailMessage, subject: str) -> tuple[list[MailAttachment], list[str]]:
    attachments: list[MailAttachment] = []
    warnings: list[str] = []
    for number, part in enumerate(msg.iter_attachments(), start=1):
        mime = part.get_content_type()
        name = part.get_filename() or ""
        if mime == "message/rfc822":
            inner = part.get_payload()
            inner = inner[0] if isinstance(inner, list) and inner else inner
            if isinstance(inner, Message):
                name = name or f"{inner.get('Subject') or subject or 'message'}.eml"
                attachments.append(MailAttachment(name, inner.as_bytes(policy=policy.default), mime))
            continue
        data = part.get_payload(decode=True)
        if not isinstance(data, bytes) or not data:
            warnings.append(f"attachment {name or number!r} is empty")
            continue
        if not name:
            if part.get("Content-ID") and mime.startswith("image/"):
                continue  # an inline picture of the HTML body, not a document
            name = f"attachment-{number}{mimetypes.guess_extension(mime) or ''}"
        attachments.append(MailAttachment(name, data, mime))
    return attachments, warnings


def read_eml(path: Path) -> MailMessage:
    """The fields, bodies and attachments of an RFC 5322 message file."""
    try:
        with path.open("rb") as fh:
            msg = BytesParser(policy=policy.default).parse(fh)
    except OSError as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the file: {exc}") from exc
    known = {key.lower() for key in msg.keys()}  # noqa: SIM118 - a Message is not a dict
    if not known & {"from", "to", "subject", "date", "message-id", "received"}:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, "not an e-mail message (no mail headers)")
    subject = str(msg.get("Subject") or "").strip()
    message = MailMessage(
        subject=subject,
        sender=", ".join(_addresses(msg, "From")),
        to=_addresses(msg, "To"),
        cc=_addresses(msg, "Cc"),
        date=_iso_date(msg.get("Date")),
    )
    html = msg.get_body(preferencelist=("html",))
    plain = msg.get_body(preferencelist=("plain",))
    message.html = _part_text(html) if html is not None else None
    message.text = _part_text(plain) if plain is not None else None
    message.attachments, message.warnings = _eml_attachments(msg, subject)
    return message


def parse_eml(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse an .eml file (body and attachments) into one document."""
    del password  # S/MIME or PGP encrypted mail is not decrypted; its body is then empty
    return mail_document(path, read_eml(path), "eml", settings)
