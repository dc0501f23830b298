"""A document's profile: the names a question may call it by, its language and its version.

Why at index time: scope resolution ("这份合同", "the notice", "员工手册里…") and the
"newest version wins" rule run on every question, over every document; reading a few
hundred bytes per document from the registry is cheap, re-reading parsed documents is not.

* ``names``: the title (the parser's, else the first heading, else a short first line),
  the file name without suffix, the first headings, sheet names — what people type.
* ``family``: the title with version marks, dates and punctuation removed, so that
  "差旅费管理办法（2023年修订）" and "差旅费管理办法 V2.0" are one family (two versions).
  Empty when the title names nothing ("Annual Report", "Microsoft Word - R1", an empty PDF
  title): such documents are never grouped as versions by their title.
* ``subject``: what the document is about (company, short names, codes, kind, fiscal year;
  ``indexing.subjects``), read from its first pages: scope by company and year uses it.
* ``signature``: a MinHash of the text's shingles, so that two documents are only called versions
  of one another when their contents overlap.
* ``version_number`` / ``effective_date``: what the document states about itself
  (``indexing.chunking.versions``), used to order versions of a family; the file's
  modification time breaks ties.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import PurePath
from typing import Any

from indexing.chunking.versions import detect_version
from indexing.identity import fold
from indexing.subjects import DocumentSubject, entity_key, extract_subject, is_specific
from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from officeqa.scripts import detect_language

MAX_NAMES = 12
MAX_HEADINGS = 5
MAX_NAME_CHARS = 60

_CN_DIGITS = {
    "〇": 0,
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_VERSION_MARKS = re.compile(
    r"[（(【\[]?\s*(?:"
    r"\d{4}\s*年\s*(?:\d{1,2}\s*月\s*(?:\d{1,2}\s*日)?)?\s*(?:第[一二三四五六七八九十\d]{1,3}次)?\s*(?:修[订正]|版|发布)?(?:版|稿)?"
    r"|\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?"
    r"|[Vv]\s*\d{1,3}(?:\.\d{1,3}){0,3}\s*版?"
    r"|第[一二三四五六七八九十\d]{1,3}版"
    r"|(?:修订|修正|征求意见|草案|试行|暂行)\s*(?:版|稿)?"
    r"|(?:version|ver\.?|rev\.?)\s*[\w.]{1,8}"
    r"|draft|final|new|old|最新|新版|旧版"
    r")\s*[）)】\]]?",
    re.IGNORECASE,
)
_NOT_NAME_CHARS = re.compile(r"[\s\W_]+", re.UNICODE)
_DATE_PARTS = re.compile(r"(\d{4})\s*[年\-/.]\s*(\d{1,2})(?:\s*[月\-/.]\s*(\d{1,2}))?")
_VERSION_NUMBER = re.compile(r"[Vv]?\s*(\d{1,3}(?:\.\d{1,3}){0,3})")


@dataclass(slots=True)
class DocumentProfile:
    """What scope resolution and version ordering need to know about one document."""

    doc_id: str
    title: str
    names: list[str] = field(default_factory=list)
    family: str = ""
    language: str = "zh"
    version: str | None = None
    version_number: list[int] | None = None
    effective_date: str | None = None
    sheets: list[str] = field(default_factory=list)
    has_tables: bool = False
    subject: DocumentSubject | None = None
    signature: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentProfile:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["subject"] = DocumentSubject.from_dict(known.get("subject"))
        return cls(**known)

    def version_key(self) -> tuple[str, tuple[int, ...]]:
        """Orders versions of one family: the stated effective date first, then the version number."""
        return (self.effective_date or "", tuple(self.version_number or ()))


def name_key(text: str) -> str:
    """A name compared loosely: folded (Traditional as Simplified), version marks and punctuation removed, Latin
    lower-cased."""
    stripped = _VERSION_MARKS.sub(" ", fold(text))
    return _NOT_NAME_CHARS.sub("", stripped).lower()


def build_profile(doc_id: str, document: ParsedDocument) -> DocumentProfile:
    """The profile of a parsed document (pure; the registry stores it as JSON)."""
    stem = PurePath(document.path).stem
    body_blocks = [b for b in document.blocks if b.role is BlockRole.BODY]
    headings = [b.text.strip() for b in body_blocks if b.type is BlockType.HEADING and b.text.strip()]
    title = _title(document, body_blocks, headings, stem)
    sheets = list(dict.fromkeys(b.sheet for b in document.blocks if b.sheet))
    names = list(dict.fromkeys(n for n in (title, stem, *headings[:MAX_HEADINGS], *sheets) if n))
    names = [n[:MAX_NAME_CHARS] for n in names][:MAX_NAMES]
    body = [b.text for b in body_blocks if b.text.strip()]
    # A workbook's cells are data ("版本号 3.8.16" in a release table), not a statement about the file.
    version = None if sheets else detect_version(body)
    sample = " ".join(body[:30])[:4000]
    return DocumentProfile(
        doc_id=doc_id,
        title=title,
        names=names,
        family=family_key(title, stem),
        language=detect_language(sample) if sample else "zh",
        version=version,
        version_number=_version_number(version, title, stem),
        effective_date=_effective_date(version),
        sheets=sheets,
        has_tables=any(b.type is BlockType.TABLE for b in document.blocks),
        subject=extract_subject(document),
        signature=text_signature(body),
    )


_TITLE_NOISE = re.compile(r"^\s*microsoft\s+(?:word|excel|powerpoint)\s*[-–]\s*", re.IGNORECASE)
_FILE_LIKE = re.compile(r"\.(?:pdf|docx?|xlsx?|pptx?)\s*$|^[\d\W_]+$|^\d{10}-\d{2}-\d{6}$", re.IGNORECASE)


def family_key(title: str, stem: str) -> str:
    """The version family of a document: its title, else its file name, when either names something.

    "Annual Report", "2022 Annual Report", "年度报告", an empty or file-like title ("0001213900-23-024631",
    "23-6625-1_print_v1.pdf") give no family from the title: many unrelated documents carry them.
    """
    for name in (_TITLE_NOISE.sub("", title), stem):
        if not name or _FILE_LIKE.search(name.strip()):
            continue
        key = name_key(name)
        if key and is_specific(entity_key(_VERSION_MARKS.sub(" ", name))):
            return key
    return ""


#: MinHash size; 64 hashes tell 0.3 overlap from 0.0 well enough for "is this a version of that".
SIGNATURE_SIZE = 64
_SHINGLE = 12
_MAX_SIGNATURE_CHARS = 400_000
_MASK = (1 << 61) - 1


def text_signature(texts: list[str]) -> list[int]:
    """MinHash of the text's character shingles (whitespace removed): equal shares estimate content overlap."""
    import hashlib

    text = re.sub(r"\s+", "", "".join(texts))[:_MAX_SIGNATURE_CHARS]
    if len(text) < _SHINGLE:
        return []
    step = max(1, len(text) // 20_000)  # long documents: every step-th shingle, still thousands of them
    hashes = {
        int.from_bytes(hashlib.blake2b(text[i : i + _SHINGLE].encode("utf-8", "surrogatepass"), digest_size=8).digest())
        for i in range(0, len(text) - _SHINGLE + 1, step)
    }
    return minhash(hashes)


def minhash(hashes: set[int]) -> list[int]:
    """``min((h * (2k+1) + k) & _MASK)`` over ``hashes`` for each k, in numpy: the same values as Python's ints.

    Why uint64 gives them exactly: the mask keeps the low 61 bits, and arithmetic modulo 2**64 leaves those bits as
    they are. The Python loop was 64 passes over ~20k hashes per document, ~2% of indexing a report."""
    import numpy as np

    values = np.fromiter(hashes, dtype=np.uint64, count=len(hashes))
    k = np.arange(SIGNATURE_SIZE, dtype=np.uint64)
    with np.errstate(over="ignore"):
        mixed = (values[None, :] * (2 * k + 1)[:, None] + k[:, None]) & np.uint64(_MASK)
    return [int(v) for v in mixed.min(axis=1)]


def content_overlap(a: list[int], b: list[int]) -> float | None:
    """Estimated share of shingles two documents have in common, or None when either has no signature."""
    if not a or not b or len(a) != len(b):
        return None
    return sum(1 for x, y in zip(a, b, strict=True) if x == y) / len(a)


def _title(document: ParsedDocument, body_blocks: list[Block], headings: list[str], stem: str) -> str:
    if document.title and document.title.strip():
        return document.title.strip()[:MAX_NAME_CHARS]
    if any(b.sheet for b in body_blocks):
        return stem  # a workbook's first "heading" is a sheet name
    if headings:
        return headings[0][:MAX_NAME_CHARS]
    for block in body_blocks[:5]:
        line = block.text.strip().splitlines()[0] if block.text.strip() else ""
        if 2 <= len(line) <= 40 and block.type is BlockType.PARAGRAPH:
            return line
    return stem


def _version_number(version: str | None, *names: str) -> list[int] | None:
    sources: list[str] = []
    if version:
        sources.extend(part.split(":", 1)[1] for part in version.split("; ") if part.startswith(("版本", "Version")))
    sources.extend(names)
    for text in sources:
        for match in re.finditer(r"[Vv]\s*(\d{1,3}(?:\.\d{1,3}){0,3})|第([一二三四五六七八九十\d]{1,3})版", text):
            if match.group(1):
                return [int(x) for x in match.group(1).split(".")]
            return [_cn_number(match.group(2))]
    for text in sources[: 1 if version else 0]:
        found = _VERSION_NUMBER.search(text)
        if found:
            return [int(x) for x in found.group(1).split(".")]
    return None


def _cn_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if text.startswith("十"):
        return 10 + _CN_DIGITS.get(text[1:], 0)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _CN_DIGITS.get(tens, 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)
    return _CN_DIGITS.get(text, 0)


def _effective_date(version: str | None) -> str | None:
    """The stated effective (else revision) date as YYYY-MM-DD, for ordering."""
    if not version:
        return None
    parts = dict(part.split(": ", 1) for part in version.split("; ") if ": " in part)
    for label in ("生效日期", "Effective date", "修订"):
        match = _DATE_PARTS.search(parts.get(label, ""))
        if match:
            year, month, day = match.group(1), match.group(2), match.group(3) or "1"
            return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
    return None


__all__ = ["DocumentProfile", "build_profile", "content_overlap", "family_key", "name_key", "text_signature"]
