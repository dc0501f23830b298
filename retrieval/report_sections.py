"""Report questions answered from a section of the report: "有哪些风险", "概括…经营情况", "发展战略是什么",
"主要业务板块及行业地位", "summarize net sales by segment". The topics and the section titles reports print them
under are a word list (``officeqa/assets/words/report_sections.txt``); this module reads a question's topics and
says whether it asks for a section's content at all (an open question, not an amount).

Why: such a question names no section ("第四节"), so the summary tree's own matching finds none and retrieval
quotes the sentences that share its words (a 公司简介 row for "风险"); the report's section on the topic is the
answer, and the summary tree already holds it.
"""

from __future__ import annotations

import re
from functools import cache

from officeqa.words import phrase_table

__all__ = ["asks_amount", "asks_open", "section_titles", "topic_words"]

_OPEN = re.compile(
    r"哪些|什么|概括|总结|归纳|概述|介绍|讲了|说了|如何|怎样|怎么样|情况|主要|describe|summar|overview|outline|"
    r"\bwhat\b|\bhow\b|\bwhich\b|\blist\b|\bmain\b|\bkey\b",
    re.IGNORECASE,
)
_AMOUNT = re.compile(r"多少|几[个项家年]|金额|比例|占比|增长率|how\s+much|how\s+many|\bpercent|\bratio\b",
                     re.IGNORECASE)


@cache
def _topics() -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    table = phrase_table("report_sections")
    asks, titles = table.get("ask", {}), table.get("title", {})
    return [(topic, tuple(a.lower() for a in asks[topic]), titles.get(topic, ())) for topic in asks]


def _names(question: str, word: str) -> bool:
    if word.isascii():
        return re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", question) is not None
    return word in question


def section_titles(question: str) -> list[str]:
    """The section-title phrases of the topics ``question`` names, best first; empty when it names none."""
    folded = question.lower()
    phrases: list[str] = []
    for _, asks, titles in _topics():
        if any(_names(folded, a) for a in asks):
            phrases.extend(titles)
    return list(dict.fromkeys(phrases))


def asks_amount(question: str) -> bool:
    """True when ``question`` asks for an amount or a rate (多少, 占比, how much): a figure, not a summary of text."""
    return bool(_AMOUNT.search(question))


def asks_open(question: str) -> bool:
    """An open question about content ("有哪些", "what are", "概括"), not an amount or a ratio."""
    return bool(_OPEN.search(question)) and not asks_amount(question)


def topic_words(question: str) -> list[str]:
    """The topic words ``question`` uses ("风险", "发展战略", "risk"): what a quoted part of a section must name."""
    folded = question.lower()
    return [a for _, asks, _ in _topics() for a in asks if _names(folded, a)]
