"""The text of a named-fact answer: per report and field, the value with its page and the row or sentence quoted,
and the fields the report does not print said so; in the question's language.

Why companions: "聘请的会计师事务所是哪家" is answered with the firm and its 签字会计师, "股票代码" with the 简称 beside
it, as the 公司简介 row prints them together and users ask for them together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from retrieval.named_facts.facts import NamedFact

__all__ = ["COMPANIONS", "FIELD_NAMES", "ReportReading", "Written", "write_answer"]

#: Field -> fields shown with it when the report has them.
COMPANIONS: dict[str, tuple[str, ...]] = {
    "auditor": ("signing_accountants",),
    "audit_opinion": ("auditor",),
    "stock_code": ("short_name",),
    "short_name": ("stock_code",),
}
#: Field -> (Chinese name, English name) as the answer names it.
FIELD_NAMES: dict[str, tuple[str, str]] = {
    "legal_rep": ("法定代表人", "legal representative"), "chairman": ("董事长", "chairman"),
    "board_secretary": ("董事会秘书", "board secretary"),
    "securities_rep": ("证券事务代表", "securities representative"),
    "auditor": ("会计师事务所", "auditor"), "signing_accountants": ("签字会计师", "engagement partner"),
    "registered_address": ("注册地址", "registered address"), "office_address": ("办公地址", "principal office"),
    "stock_code": ("股票代码", "stock code"), "short_name": ("股票简称", "short name"),
    "exchange": ("上市证券交易所", "stock exchange"), "website": ("公司网址", "website"),
    "email": ("电子信箱", "e-mail"), "full_name": ("公司全称", "full name"),
    "english_name": ("外文名称", "English name"),
    "company_head": ("公司负责人", "head of the company"), "ceo": ("总经理（首席执行官）", "chief executive officer"),
    "cfo": ("主管会计工作负责人（财务负责人）", "chief financial officer"),
    "accounting_head": ("会计机构负责人", "head of accounting"), "dividend_plan": ("利润分配预案", "dividend"),
    "audit_opinion": ("审计意见", "audit opinion"), "incorporation": ("注册地", "incorporated in"),
}


@dataclass(frozen=True, slots=True)
class ReportReading:
    """One report in scope: who it is about, its shown name, and its named facts by field (best first)."""

    doc_id: str
    path: str
    company: str
    document: str
    facts: Mapping[str, Sequence[NamedFact]]


@dataclass(frozen=True, slots=True)
class Written:
    """The answer text and what it cites, in [n] order: (report, fact)."""

    text: str
    cited: list[tuple[ReportReading, NamedFact]]
    found: int


def _name(field: str, english: bool) -> str:
    names = FIELD_NAMES.get(field, (field, field))
    return names[1] if english else names[0]


def _line(reading: ReportReading, fact: NamedFact, n: int, english: bool) -> str:
    page = f"p. {fact.page}" if english else f"第{fact.page}页"
    where = f"{reading.document}, {page}" if fact.page is not None else reading.document
    sentence = fact.source == "sentence" and fact.value in fact.quote
    if sentence and (fact.quote.startswith(fact.label) or fact.quote == fact.value):
        # the quote is the label and the value ("利润分配预案为：…"), or the value itself: not printed twice
        return f"- {_name(fact.field, english)}: {fact.value} ({where}) [{n}]" if english else (
            f"- {_name(fact.field, False)}：{fact.value}（{where}）[{n}]")
    if english:
        return f"- {_name(fact.field, True)}: {fact.value} ({where}: “{fact.quote}”) [{n}]"
    return f"- {_name(fact.field, False)}：{fact.value}（{where}：“{fact.quote}”）[{n}]"


def write_answer(readings: Sequence[ReportReading], fields: Sequence[str], english: bool) -> Written:
    """Per report, each asked field (and its companions) found, then the asked ones not found."""
    lines: list[str] = []
    cited: list[tuple[ReportReading, NamedFact]] = []
    found = 0
    for reading in readings:
        shown = list(dict.fromkeys(x for f in fields for x in (f, *COMPANIONS.get(f, ()))))
        present = [f for f in shown if reading.facts.get(f)]
        absent = [f for f in fields if not reading.facts.get(f)]
        head = f"{reading.company} ({reading.document}):" if english else f"{reading.company}（{reading.document}）："
        lines.append(head)
        for field in present:
            fact = reading.facts[field][0]
            cited.append((reading, fact))
            lines.append(_line(reading, fact, len(cited), english))
        found += sum(1 for f in fields if f in present)
        if absent:
            names = ", ".join(_name(f, english) for f in absent)
            lines.append(f"- Not found in this report: {names}." if english else f"- 报告中未找到：{names}。")
    return Written("\n".join(lines), cited, found)
