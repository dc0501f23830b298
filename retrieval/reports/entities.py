"""Which reports a question names: full name, short name, stock code, English name, or a name without
its legal suffix and province ("浙江海翔药业股份有限公司" -> "海翔药业", "KP Tissue Inc." -> "KP Tissue").

Why: a knowledge base holds several companies' reports; a figure from another company's report is a wrong
answer even when the metric and year match.
"""

from __future__ import annotations

import re
import unicodedata

from retrieval.reports.facts import Report

__all__ = ["aliases", "name_prefixes"]

_SUFFIX = re.compile(
    r"(股份有限公司|有限责任公司|有限公司|集团股份有限公司|集团有限公司|公司|,?\s*(?:inc\.?|corporation|corp\.?|"
    r"l\.p\.|limited|ltd\.?|plc|co\.,?\s*ltd\.?|llc))$",
    re.IGNORECASE,
)
_PLACE = re.compile(
    r"^(北京|上海|天津|重庆|河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|海南|四川|贵州|"
    r"云南|陕西|甘肃|青海|内蒙古|广西|西藏|宁夏|新疆|香港|深圳|广州|杭州|南京|苏州|常州|无锡|宁波|台州)(省|市)?"
)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().lower()


def aliases(report: Report) -> list[str]:
    """Every spelling of the report's entity worth matching in a question (folded, at least 2 characters)."""
    names: list[str] = []
    for key in ("full_name", "short_name", "stock_code", "english_name"):
        value = report.entity.get(key)
        if value:
            names.append(_fold(value))
    names.extend(_fold(n) for n in str(report.entity.get("names", "")).split("|") if n)
    for name in list(names):
        bare = _SUFFIX.sub("", name).strip(" ,")
        names.append(bare)
        names.append(_PLACE.sub("", bare))
        if re.search(r"[\u4e00-\u9fff]", bare) and bare.endswith("股份"):
            names.append(bare[:-2])
    for name in list(names):
        if re.search(r"[\u4e00-\u9fff]", name) and len(_PLACE.sub("", name)) >= 4:
            names.append(_PLACE.sub("", name)[:4])  # "航天电器股份" -> "航天电器"
    return sorted({n for n in names if len(n) >= 2}, key=len, reverse=True)


_MIN_CJK_PREFIX = 4
_MIN_WORDS = 2


def name_prefixes(report: Report) -> list[str]:
    """The leading parts of the report's full and English names a question may cite it by ("北方华锦化学" of
    北方华锦化学工业股份有限公司, "Swiss Water" of "Swiss Water Decaffeinated Coffee Inc."): at least four Chinese
    characters or two words, longest first. Weaker than :func:`aliases`: they name a report only when no report is
    named by an alias and exactly one report's prefixes are in the question (a prefix two companies share never
    decides)."""
    found: set[str] = set()
    for key in ("full_name", "english_name"):
        name = _SUFFIX.sub("", _fold(str(report.entity.get(key) or ""))).strip(" ,")
        if re.search(r"[\u4e00-\u9fff]", name):
            found.update(name[:n] for n in range(_MIN_CJK_PREFIX, len(name) + 1))
            continue
        words = name.split()
        found.update(" ".join(words[:n]) for n in range(_MIN_WORDS, len(words) + 1))
    return sorted(found, key=len, reverse=True)
