"""What kind of answer a question asks for: yes/no, a document's outline, or neither.

Why: the L0 rules route by intent words, and words mean different things in different
questions. "Did ACRES outline new ESG initiatives?" contains "outline" but asks yes or no;
"年报中是否提到了回购计划" contains no rule word at all and must get "是" / "否" with evidence, not
a dump of sentences. The decisions here are pure functions of the question text; the answerers
(``retrieval.answerers``) use them as conditions.
"""

from __future__ import annotations

import re

#: English yes/no questions start with an auxiliary verb; "Is there…", "Has the company…".
_YES_NO_EN = re.compile(
    r"^\s*(?:and\s+|so\s+|also\s+)?(?:did|does|do|is|are|was|were|has|have|had|can|could|will|would|should|may|"
    r"might|must)\s+(?!you\s+(?:tell|list|give|show|summari[sz]e|explain|describe)\b)",
    re.IGNORECASE,
)
#: Chinese yes/no: 是否 / 有没有 / 是不是 / …吗？ (not "什么吗", which is rhetorical and rare).
_YES_NO_ZH = re.compile(r"是否|有没有|是不是|有无|能否|可否|会不会|需不需要|要不要|[^什么哪谁几]{2}吗[？?]?\s*$")
#: A yes/no question that also asks for a list or a figure is answered as that ("Is there a list of…" aside).
_WH_WORDS = re.compile(r"\b(?:what|which|who|whom|whose|when|where|how many|how much)\b|什么|哪些|哪个|多少|几", re.I)

#: Asking for the structure of a document.
_ASKS_OUTLINE = re.compile(
    r"\boutline of\b|\b(?:give|show|list)\b.{0,20}\b(?:outline|sections|chapters|headings|structure)\b|"
    r"table of contents|\bwhat (?:sections|chapters)\b|\bhow is .{1,40} (?:structured|organi[sz]ed)\b|"
    r"目录|大纲|提纲|章节|有哪几[章节部分]|分为几[章节部分]|结构是|框架是|各[章节]",
    re.IGNORECASE,
)


def is_yes_no(question: str) -> bool:
    """True for "did X mention…", "Is there…", "是否…", "有没有…", "…吗？" questions asking yes or no."""
    text = question.strip()
    if _YES_NO_ZH.search(text):
        return not re.search(r"什么|哪些|哪个|多少|几[天个条次年月人家笔位项]|怎么|怎样|如何|为什么|为何", text)
    return (
        bool(_YES_NO_EN.search(text)) and not _WH_WORDS.search(text) and not re.search(r"\bhow\b|\bwhy\b", text, re.I)
    )


#: "outline" as a verb ("the company outlined new ESG initiatives"): a question about content, not structure.
_OUTLINE_VERB = re.compile(
    r"\b(?:outlines|outlined|outlining)\b|(?<!the )(?<!an )(?<!this )(?<!its )(?<!that )\boutline\b(?!\s+of\b)", re.I
)


def asks_for_outline(question: str) -> bool:
    """True when the question asks for a document's structure (outline, sections, 目录, 章节), not a yes/no.

    Questions the outline rule matched by its words pass unless they ask yes or no or use "outline"
    as a verb; the positive patterns cover the rest ("what chapters…", "列出所有章节").
    """
    if is_yes_no(question):
        return False
    return bool(_ASKS_OUTLINE.search(question)) or not _OUTLINE_VERB.search(question)


def asks_for_rule(question: str, route: str) -> bool:
    """Whether a rule handler's answer (extracted phones, amounts, an outline) is what the question asks for.

    A yes/no question never is: it is answered yes or no with evidence. The outline route needs a
    question about structure ("outline" as a verb, "ESG initiatives outlined", is no such question).
    """
    if is_yes_no(question):
        return False
    if route == "outline":
        return asks_for_outline(question)
    return True


__all__ = ["asks_for_outline", "asks_for_rule", "is_yes_no"]
