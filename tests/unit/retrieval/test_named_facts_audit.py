"""The auditor's report read for named facts on small synthetic pages: the opinion's kind (unmodified, qualified,
adverse; 审计意见类型 rows and 出具了…意见 sentences), the firm of UK "for and on behalf of" blocks and of an audit
firm's letterhead line, the senior statutory auditor, and a multi-part question resolved only when every part is
found (the shipped word list, no stand-ins)."""

from __future__ import annotations

from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.answerers.named_facts import resolution
from retrieval.named_facts.answer import ReportReading
from retrieval.named_facts.audit import opinion_kind
from retrieval.named_facts.extract import read_facts
from retrieval.named_facts.question import wanted_fields


def _text(page: int, text: str) -> Block:
    return Block(BlockType.PARAGRAPH, text=text, page=page)


def _heading(page: int, text: str) -> Block:
    return Block(BlockType.HEADING, text=text, page=page)


def _facts(blocks: list[Block]) -> dict[str, list[str]]:
    facts = read_facts(ParsedDocument(path="/kb/r.pdf", file_type="pdf", blocks=blocks))
    return {field: [f.value for f in found] for field, found in facts.items()}


def test_unmodified_opinion_and_uk_signature_block() -> None:
    facts = _facts([
        _heading(21, "Independent auditor's report to the members of Example Mining plc"),
        _text(21, "In our opinion, the financial statements give a true and fair view of the state of the group's "
                  "affairs as at 31 December 2022. We have audited the financial statements."),
        _text(21, "Jane Marsh BA (Hons) FCA (Senior Statutory Auditor)"),
        _text(21, "For and on behalf of Holloway Grant Audit LLP"),
        _text(21, "Chartered Accountants and Statutory Auditors"),
    ])
    assert facts["audit_opinion"] == ["unmodified (unqualified) opinion"]
    assert facts["auditor"] == ["Holloway Grant Audit LLP"]
    assert facts["signing_accountants"] == ["Jane Marsh"]


def test_qualified_and_adverse_opinions_are_not_called_clean() -> None:
    assert opinion_kind("In our opinion, except for the effects of the matter described, the financial statements "
                        "present fairly the financial position.", []) == "qualified opinion"
    assert opinion_kind("In our opinion, the statements present fairly …", ["Adverse Opinion"]) == "adverse opinion"
    assert opinion_kind("In our opinion, the Company maintained effective internal control over financial "
                        "reporting.", ["Opinion on Internal Control over Financial Reporting"]) is None


def test_no_opinion_outside_an_auditors_page_and_no_firm_on_behalf_of_the_board() -> None:
    facts = _facts([
        _text(3, "In our opinion, the outlook presents fairly the challenges of the market."),
        _text(9, "For and on behalf of the Board"),
        _text(9, "Signed on behalf of Example Mining plc, Director"),
    ])
    assert "audit_opinion" not in facts and "auditor" not in facts


def test_letterhead_firm_and_chinese_opinion() -> None:
    facts = _facts([
        _text(36, "Independent Auditor's Report to the Members of Example Holdings Ltd"),
        _text(36, "Rowan Keller is an association of independent firms."),
    ])
    assert facts["auditor"] == ["Rowan Keller"]
    chinese = _facts([_text(2, "天健会计师事务所（特殊普通合伙）为本公司出具了标准无保留意见的审计报告。")])
    assert chinese["audit_opinion"] == ["标准无保留意见"]
    assert chinese["auditor"] == ["天健会计师事务所（特殊普通合伙）"]
    table = Block(BlockType.TABLE, text="审计意见类型 | 保留意见\n审计机构名称 | 某某会计师事务所",
                  rows=[["审计意见类型", "保留意见"], ["审计机构名称", "某某会计师事务所"]], page=44)
    assert _facts([table])["audit_opinion"] == ["保留意见"]


def test_which_firm_and_what_opinion_asks_both_and_resolves_only_with_both() -> None:
    question = "Which firm audited Example Mining's 2022 accounts, and what opinion did it give?"
    fields = wanted_fields(question)
    assert fields[:2] == ["auditor", "audit_opinion"]
    blocks = [_text(21, "We have audited the financial statements of Example Mining plc."),
              _text(21, "For and on behalf of Holloway Grant Audit LLP"), _text(21, "Statutory Auditor")]
    half = read_facts(ParsedDocument(path="/kb/r.pdf", file_type="pdf", blocks=blocks))
    reading = ReportReading("d1", "/kb/r.pdf", "Example Mining plc", "r.pdf", half)
    assert len(resolution(question, fields, [reading]).resolved) == 1
    blocks.append(_text(21, "In our opinion, the financial statements give a true and fair view of the group."))
    full = read_facts(ParsedDocument(path="/kb/r.pdf", file_type="pdf", blocks=blocks))
    resolved = resolution(question, fields, [ReportReading("d1", "/kb/r.pdf", "Example Mining plc", "r.pdf", full)])
    assert len(resolved.resolved) == 2
