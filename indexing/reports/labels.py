"""Row labels of report tables: the metric name, its unit suffix, and its place in the hierarchy.

"其中：营业成本" is a part of the row above it; "一、营业总收入" and "1.营业收入" carry list numbering;
"营业收入（元）" carries its unit; "Revenue (1)" carries a footnote. The clean label is what a question's
metric name is matched against; the unit goes with the value.
"""

from __future__ import annotations

import re
import unicodedata

from officeqa.chinese import to_simplified  # one OpenCC converter for the whole product

__all__ = ["clean_label", "label_key", "to_simplified", "unit_of_label"]

_NUMBERING = re.compile(
    r"^(?:[一二三四五六七八九十]+、|[（(][一二三四五六七八九十\d]+[）)]|\d+[.、．]\s*|"
    r"[A-Za-z][.)]\s+)"
)
_PART = re.compile(r"^(?:其中|包括|减|加)[：:]\s*")
_UNIT_SUFFIX = re.compile(r"[（(]\s*(元/股|元|万元|亿元|千元|百万元|人|%|股|户|个|家|吨)\s*[）)]\s*$")
#: "Basic earnings (loss) per share (dollars)": the currency of a per-share row is no part of the metric's name
_CURRENCY_SUFFIX = re.compile(
    r"\s*[（(]\s*(?:in\s+)?(?:dollars|\$|C\$|US\$|A\$|euros?|pounds?)\s*[）)]\s*$", re.IGNORECASE
)
_FOOTNOTE = re.compile(r"\s*[（(]\s*(?:\d|注\s*\d?|note\s*\d+)\s*[）)]\s*$", re.IGNORECASE)


def unit_of_label(label: str) -> str | None:
    """The unit a label names in its suffix ("营业收入（元）" -> "元"), else None."""
    match = _UNIT_SUFFIX.search(unicodedata.normalize("NFKC", label).replace("（", "(").replace("）", ")"))
    return match.group(1) if match else None


def clean_label(label: str) -> tuple[str, bool]:
    """The label without numbering, part marker, unit suffix and footnote; and whether it was a part (其中)."""
    text = unicodedata.normalize("NFKC", label or "").strip()
    text = re.sub(r"\s+", " ", text)
    part = bool(_PART.match(text))
    text = _PART.sub("", text)
    text = _NUMBERING.sub("", text)
    text = _PART.sub("", text)
    text = _UNIT_SUFFIX.sub("", text)
    text = _FOOTNOTE.sub("", text)
    text = _CURRENCY_SUFFIX.sub("", text)
    return text.strip(" ：:"), part


def label_key(label: str) -> str:
    """The comparison form: NFKC, lower case, no spaces or punctuation, traditional Chinese as simplified
    (a Hong Kong report's 年內虧損 / 營業額 and a question's 年内亏损 / 营业额 are one key)."""
    text = to_simplified(unicodedata.normalize("NFKC", label).lower())
    return re.sub(r"[\s\W_]+", "", text)


