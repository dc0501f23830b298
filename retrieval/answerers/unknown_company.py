"""A question led by a company name that no document holds ("贵州茅台2019年的营业收入是多少？", "What were Procter &
Gamble's net sales?"): said so, never answered with passages of the reports the knowledge base does hold.

Why beside ``NotInKnowledgeBase``: scope by subject recognises a company by its legal form ("…股份有限公司", "Inc.")
or a word only companies end in; a short name ("贵州茅台") or a possessive ("Procter & Gamble's") leaves the
question unscoped, retrieval then quotes the nearest report, and its figures read as the answer. Here such a
name counts as a company only when the question leads with it (before a year, or as a possessive), every report
in the knowledge base has a known company, and no indexed text holds the name at all (a name any document
mentions may be that document's subject, a segment or a place: retrieval answers).
"""

from __future__ import annotations

import re

from indexing.identity import fold
from indexing.subjects import entity_key, is_specific
from officeqa.words import word_list
from retrieval.answerers.not_in_kb import known_entities
from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.knowledge import knowledge_of
from retrieval.messages import text as message
from retrieval.subjects import can_name_company
from retrieval.subjects_text import text_holds

__all__ = ["UnknownCompany", "leading_company"]

_CN_LEAD = re.compile(r"^(?:请问)?([\u4e00-\u9fff]{2,8}?)(?:19|20)\d\d\s*年")
#: Words that lead a question without naming anyone ("公司2019年…", "本集团2022年…"), tried in file order
#: (``officeqa/assets/words/company_fillers_zh.txt``).
_CN_GENERIC = re.compile("|".join(map(re.escape, word_list("company_fillers_zh"))))
_WORD = r"[A-Z][A-Za-z0-9.\-]*"
_EN_POSSESSIVE = re.compile(rf"(?<![\w&'’.\-])((?:{_WORD}[ \t]+(?:&[ \t]+)?){{0,4}}{_WORD})['’]s?(?![A-Za-z])")
_LEADING = re.compile(r"^(?:(?:What|Which|How|Did|Does|Do|Was|Were|Is|Are|The|In|For|Of)\s+)+")


def leading_company(question: str) -> str | None:
    """The company name the question leads with (before a year, or a possessive), or None."""
    text = fold(question).strip()
    match = _CN_LEAD.match(text)
    if match is not None:
        name = match.group(1)
        core = re.sub(_CN_GENERIC, "", name)
        return name if len(core) >= 2 and is_specific(entity_key(name)) else None
    for found in _EN_POSSESSIVE.finditer(text):
        name = _LEADING.sub("", found.group(1)).strip()
        if can_name_company(name):
            return name
    return None


class UnknownCompany:
    """Answers when the question leads with a company name no indexed text holds."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        """Says the company is not in the knowledge base, or declines (scoped, every report's company unknown, or
        the name found in indexed text)."""
        knowledge = knowledge_of(ctx)
        if knowledge is None or ctx.scope.method != "retrieved" or ctx.requested:
            return None
        subjects = [e.profile.subject for e in ctx.catalog.values() if e.profile.subject is not None]
        reports = [s for s in subjects if s.kind]
        if not reports or not all(s.entity for s in reports):
            return None  # a report whose company is unknown may be this company's
        name = leading_company(ctx.standalone)
        if name is None:
            return None
        if text_holds(knowledge.kb, name):
            return None
        lines = [message("subject_missing", ctx.language, names=name)]
        known = known_entities(ctx)
        if known:
            lines.append(message("subject_missing_known", ctx.language, known="; ".join(known)))
        metadata = {**ctx.meta, "scope": ctx.scope.to_json(ctx.catalog), "not_in_knowledge_base": [name]}
        return ctx.reply("\n".join(lines), [], "rule", metadata=metadata)
