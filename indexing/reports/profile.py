"""Who and when a report is about, from its first pages: entity names, stock code, report kind and fiscal year.

Why here and not from the file name: users name files "年报.pdf"; the cover says "贵州航天电器股份有限公司
2019 年度报告" and 公司简介 says 股票简称 航天电器, 股票代码 002025. A question names the company one of
those ways and the year the report is for.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from officeqa.domain import Block, BlockType

__all__ = ["is_report", "report_profile"]

_COVER_PAGES = 3
_PROFILE_PAGES = 12
_REPORT = re.compile(
    r"年度报告|年报|半年度报告|季度报告|annual\s+report|form\s+10-k|annual\s+information\s+form|"
    r"management'?s\s+discussion\s+and\s+analysis|consolidated\s+financial\s+statements",
    re.IGNORECASE,
)
_YEAR_CN = re.compile(r"(19[89]\d|20[0-4]\d)\s*年?\s*(半年度|年度|第[一三]季度)\s*报告")
_YEAR_EN = re.compile(
    r"(?:(?:fiscal|annual\s+report)\s*(?:year\s*)?(19[89]\d|20[0-4]\d))|"
    r"(?:(19[89]\d|20[0-4]\d)\s+annual\s+report)|"
    r"(?:year\s+ended\s+\w+\s+\d{1,2},?\s+(19[89]\d|20[0-4]\d))",
    re.IGNORECASE,
)
_FULL_NAME = re.compile(
    r"^[\u4e00-\u9fffA-Za-z（）()·&.,' -]{2,60}?(?:股份有限公司|有限责任公司|有限公司|集团公司|"
    r"Inc\.?|Corporation|Corp\.?|L\.P\.|Limited|Ltd\.?|plc|Co\.,\s*Ltd\.?|LLC)$"
)
_EN_ENTITY = re.compile(
    r"([A-Z][A-Za-z&.\- ]{2,50}?(?:Inc\.|L\.P\.|Ltd\.|Limited|Corporation|Corp\.|plc|LLC))\s*"
    r"\(\s*(?:the\s+)?[\"“]?([A-Z][A-Za-z]{1,9})[\"”]?\s*\)"
)
_EN_LEGAL = re.compile(r"\b((?:[A-Z][A-Za-z&\-]+\s+){1,4}(?:Inc\.|L\.P\.|Ltd\.|Limited|Corporation|Corp\.|plc|LLC))")
_EN_ALIAS = re.compile(r"\b([A-Z]{2,6})\s*\(\s*(?:the\s+)?[\"“]?(?:Corporation|Company|Partnership|Issuer)[\"”]?\s*\)")
_FIELDS = {
    "short_name": ("股票简称", "证券简称", "公司简称"),
    "stock_code": ("股票代码", "证券代码"),
    "english_name": ("公司的外文名称", "英文名称", "外文名称"),
}


def _text(block: Block) -> str:
    return unicodedata.normalize("NFKC", block.text or "").strip()


def is_report(blocks: Sequence[Block]) -> bool:
    """Whether the document's first pages say it is an annual/periodic report or its financial statements."""
    head = " ".join(_text(b) for b in blocks if (b.page or 1) <= _COVER_PAGES)[:20_000]
    return bool(_REPORT.search(head))


def _fields_from_tables(blocks: Sequence[Block]) -> dict[str, str]:
    found: dict[str, str] = {}
    for block in blocks:
        if block.type != BlockType.TABLE or (block.page or 1) > _PROFILE_PAGES:
            continue
        for row in [*(block.header_rows or []), *(block.rows or [])]:
            cells = [unicodedata.normalize("NFKC", c or "").strip() for c in row]
            for i, cell in enumerate(cells[:-1]):
                for key, names in _FIELDS.items():
                    if key not in found and cell in names and cells[i + 1]:
                        found[key] = cells[i + 1]
    return found


def report_profile(blocks: Sequence[Block], title: str | None = None) -> dict[str, object]:
    """{"entity": {full_name, short_name, stock_code, english_name}, "year", "kind"} (keys only when found)."""
    cover = [b for b in blocks if (b.page or 1) <= _COVER_PAGES and b.type != BlockType.TABLE]
    entity: dict[str, str] = {}
    year: int | None = None
    kind = "annual"
    for block in cover:
        text = _text(block)
        if "full_name" not in entity and len(text) <= 60 and _FULL_NAME.match(text):
            entity["full_name"] = text
        match = _YEAR_CN.search(text)
        if year is None and match:
            year = int(match.group(1))
            kind = {"半年度": "semiannual", "第一季度": "quarterly", "第三季度": "quarterly"}.get(
                match.group(2) or "", "annual"
            )
        match = _YEAR_EN.search(text) if year is None else None
        if match:
            year = int(next(g for g in match.groups() if g))
    entity.update(_fields_from_tables(blocks))
    names: list[str] = []
    for block in blocks:
        if (block.page or 1) > _COVER_PAGES:
            break
        text = _text(block)
        for match in _EN_ENTITY.finditer(text):
            names.extend(n for n in (match.group(1).strip(), match.group(2)) if n not in names)
        for match in [*_EN_LEGAL.finditer(text), *_EN_ALIAS.finditer(text)]:
            name = match.group(1).strip()
            if name not in names and not name.lower().startswith(("the ", "registered ")):
                names.append(name)
    if names:
        entity["names"] = "|".join(names[:12])
    profile: dict[str, object] = {"entity": entity, "kind": kind}
    if year is not None:
        profile["year"] = year
    return profile
