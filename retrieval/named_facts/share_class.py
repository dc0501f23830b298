"""A stock code asked for a share class the report does not list ("航天电器的H股股票代码是什么？" of an A-share-only
company; "the ticker of its American Depositary Receipts"): said so, never answered with the code it does list.

Why: the 公司简介 row "股票代码 | 002025" answers "股票代码" but not "H股股票代码"; stating it would give an A-share
code as the H-share code. A class counts as listed when a stock-code row (or the report's text beside a code)
names it ("苏常柴B", "H股股票代码", "ADS").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from retrieval.named_facts.answer import ReportReading

__all__ = ["asked_share_class", "asks_class_code", "unlisted_class_answer"]

#: Share class -> the words a question or a code row names it with.
_CLASSES: dict[str, tuple[str, ...]] = {
    "H股": ("h股", "港股", "h share", "h-share", "hong kong share"),
    "B股": ("b股", "b share", "b-share"),
    "ADR": ("adr", "ads", "american depositary", "存托凭证"),
}


def _names(folded: str, word: str) -> bool:
    """Whether lower-cased text names ``word``: a Latin one as a whole word ("ads" not in "loads"), else anywhere."""
    if word.isascii():
        return re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", folded) is not None
    return word in folded


def asked_share_class(question: str) -> str | None:
    """The share class a question asks the code of ("H股", "B股", "ADR"), or None."""
    folded = question.lower()
    return next((c for c, words in _CLASSES.items() if any(_names(folded, w) for w in words)), None)


def asks_class_code(question: str) -> bool:
    """The code of a share class ("H股股票代码", "ADR ticker"): a named fact, never a figure."""
    return asked_share_class(question) is not None and re.search(r"代码|code|ticker|symbol", question, re.I) is not None


def _lists(reading: ReportReading, share_class: str) -> bool:
    """Whether the report's stock-code or short-name rows name the share class."""
    words = _CLASSES[share_class]
    rows = [f.quote.lower() for key in ("stock_code", "short_name") for f in reading.facts.get(key, ())]
    # "苏常柴B" names the B share in its 简称; a bare class letter is matched after the Chinese name
    letter = share_class[0].lower() if share_class.endswith("股") else ""
    return any(any(_names(row, w) for w in words) or (letter and re.search(rf"[\u4e00-\u9fff]{letter}\b", row))
               for row in rows)


def unlisted_class_answer(question: str, fields: Sequence[str], readings: Sequence[ReportReading],
                          english: bool) -> tuple[str, ReportReading] | None:
    """(answer text, the report) when a stock code is asked for a class the report in scope does not list."""
    share_class = asked_share_class(question) if "stock_code" in fields else None
    if share_class is None or len(readings) != 1 or _lists(readings[0], share_class):
        return None
    reading = readings[0]
    pages = sorted({f.page for f in reading.facts.get("stock_code", ()) if f.page is not None})
    where = f"（第 {', '.join(map(str, pages))} 页）" if pages else ""
    if english:
        where_en = f" (page {', '.join(map(str, pages))})" if pages else ""
        return (f"Not found: {reading.document} gives no {share_class} code for {reading.company}; the stock code it "
                f"lists{where_en} is not marked as one."), reading
    return (f"未找到：{reading.document} 没有提供{reading.company}的{share_class}代码；报告所列的股票代码{where}"
            f"未标明为{share_class}。"), reading
