"""Find the version / revision / effective date a document states about itself.

Regulations and contracts say "2023年修订", "版本号：V2.1", "生效日期：2024年1月1日" or
"本办法自2024年1月1日起施行"; English documents say "Version 3.2", "Rev. B", "Effective
date: ...". Only the opening and closing blocks are searched (where such lines live), and
English patterns must start a short line, so "Python version 3.8" in body text is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_DATE = r"(?:\d{4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?|\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?)"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("版本号", re.compile(r"版\s*本\s*号?\s*[:：]\s*([Vv]?\s*[0-9A-Za-z][0-9A-Za-z.\-_]{0,15})")),
    # "（V2.1版）", "V2.1 版" — but not "V2.3版本上线" (a product release named in running text)
    ("版本", re.compile(r"([Vv]\d{1,3}(?:\.\d{1,3}){1,3})\s*版(?!本)")),
    ("修订", re.compile(rf"((?:{_DATE}|\d{{4}}\s*年)\s*(?:第[一二三四五六七八九十\d]{{1,3}}次)?\s*修[订正](?:版)?)")),
    ("修订", re.compile(r"修[订正]\s*(?:日期|时间|版本|号)\s*[:：]\s*(\S{1,20})")),
    ("生效日期", re.compile(rf"(?:生效|施行|实施)\s*(?:日期|时间)\s*[:：]\s*({_DATE})")),
    ("生效日期", re.compile(rf"自\s*({_DATE})\s*起\s*(?:施行|生效|实施|执行)")),
    (
        "Version",
        re.compile(r"^\s*(?:document\s+)?version\s*[:#]?\s*(v?\d{1,3}(?:\.\d{1,3}){0,3}[a-z]?)\b", re.I | re.M),
    ),
    ("Rev.", re.compile(r"^\s*(?:rev\.?|revision)\s*[:#]?\s*([0-9A-Z][0-9A-Za-z.]{0,8})\b", re.I | re.M)),
    (
        "Effective date",
        re.compile(r"^\s*effective\s+(?:date|from)\s*[:]?\s*([A-Za-z0-9 ,./-]{6,30}?)\s*$", re.I | re.M),
    ),
]
_HEAD_BLOCKS = 40
_TAIL_BLOCKS = 10
_MAX_LINE = 200


def detect_version(texts: Sequence[str]) -> str | None:
    """"版本号: V2.1; 生效日期: 2024年1月1日" from the first/last blocks' texts, or None.

    The first match of each label wins; labels keep a fixed order so the string is stable.
    """
    if not texts:
        return None
    picked = list(texts[:_HEAD_BLOCKS])
    if len(texts) > _HEAD_BLOCKS:
        picked.extend(texts[-_TAIL_BLOCKS:])
    found: dict[str, str] = {}
    for text in picked:
        for line in text.splitlines():
            if len(line) > _MAX_LINE or not line.strip():
                continue
            for label, pattern in _PATTERNS:
                if label in found:
                    continue
                match = pattern.search(line)
                if match:
                    found[label] = re.sub(r"\s+", " ", match.group(1)).strip()
    if not found:
        return None
    order = [label for label, _ in _PATTERNS]
    labels = sorted(found, key=order.index)
    return "; ".join(f"{label}: {found[label]}" for label in labels)


__all__ = ["detect_version"]
