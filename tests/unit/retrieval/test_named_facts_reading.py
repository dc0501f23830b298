"""Reading named facts from report layouts other than the four dev reports: the SSE 公司简介 tables ("公司聘请的会计师
事务所（境内）名称"), label and value in one cell, a page's text lines, 10-K cover fields in brackets, people tables,
and which questions ask for which field (the shipped word list, no stand-ins)."""

from __future__ import annotations

import pytest

from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.named_facts.extract import read_facts
from retrieval.named_facts.question import wanted_fields


def _table(page: int, rows: list[list[str]], header: list[list[str]] | None = None) -> Block:
    return Block(BlockType.TABLE, text="\n".join(" | ".join(r) for r in rows), header_rows=header or [], rows=rows,
                 page=page)


def _text(page: int, text: str) -> Block:
    return Block(BlockType.PARAGRAPH, text=text, page=page)


def _values(blocks: list[Block]) -> dict[str, tuple[str, int | None]]:
    facts = read_facts(ParsedDocument(path="/kb/r.pdf", file_type="pdf", blocks=blocks))
    return {field: (found[0].value, found[0].page) for field, found in facts.items()}


def test_sse_profile_tables_and_one_cell_pairs() -> None:
    values = _values([
        _table(4, [["公司的中文名称", "上海某某科技股份有限公司"], ["公司的法定代表人", "王建国"],
                   ["公司注册地址", "上海市浦东新区张江路 88 号"], ["公司办公地址：", "上海市徐汇区漕河泾 1 号"]]),
        _table(5, [["公司聘请的会计师事务所（境内）", "名称", "立信会计师事务所（特殊普通合伙）"],
                   ["", "签字会计师姓名", "李明、赵强"]]),
        _table(5, [["A股", "上海证券交易所", "某某科技", "688123"]],
               header=[["股票种类", "股票上市交易所", "股票简称", "股票代码"]]),
        _table(6, [["证券事务代表：周敏"]]),
    ])
    assert values["legal_rep"] == ("王建国", 4)
    assert values["registered_address"] == ("上海市浦东新区张江路 88 号", 4)
    assert values["office_address"][0] == "上海市徐汇区漕河泾 1 号"
    assert values["signing_accountants"] == ("李明、赵强", 5)
    assert values["stock_code"] == ("688123", 5) and values["short_name"][0] == "某某科技"
    assert values["securities_rep"] == ("周敏", 6)


def test_text_lines_ten_k_cover_and_people_tables() -> None:
    values = _values([
        _text(1, "Acme Robotics, Inc.\n(Exact name of registrant as specified in its charter)\n"
                 "1 Market Street, San Francisco, California 94105 (Address of principal executive offices)"),
        _text(3, "公司的法定代表人 刘洋\n董事会秘书 陈静"),
        _table(40, [["张伟", "董事长", "男", "55"], ["陈静", "董事会秘书、财务总监", "女", "41"]],
               header=[["姓名", "职务", "性别", "年龄"]]),
        _text(41, "董事长：张伟\n贵州某某股份有限公司"),
    ])
    assert values["full_name"] == ("Acme Robotics, Inc.", 1)
    assert values["office_address"] == ("1 Market Street, San Francisco, California 94105", 1)
    assert values["legal_rep"] == ("刘洋", 3) and values["board_secretary"] == ("陈静", 3)
    assert values["chairman"] == ("张伟", 40) and values["cfo"] == ("陈静", 40)


def test_a_person_label_next_to_no_name_is_not_read_as_one() -> None:
    values = _values([_table(45, [["董事会秘书", "现任", "女"]]), _table(3, [["公司的法定代表人", "□ 适用 √ 不适用"]])])
    assert "board_secretary" not in values and "legal_rep" not in values


@pytest.mark.parametrize(
    ("question", "fields"),
    [
        ("公司2023年度聘请的会计师事务所是哪家？签字会计师是谁？", ["auditor", "signing_accountants"]),
        ("Who is the CFO of Acme?", ["cfo"]),
        ("Where are Acme's principal executive offices?", ["office_address"]),
        ("股票代码是多少？", ["stock_code"]),
        ("控股股东的法定代表人是谁？", []),  # someone else's field
        ("合同里乙方的法定代表人是谁？", []),  # a party to a contract, not the reporting company
        ("会计师事务所的审计费用是多少？", []),  # an amount
        ("What did the CEO say about margins?", []),  # not asking who
        ("近三年营业收入是多少？", []),  # no named field at all
    ],
)
def test_which_fields_a_question_asks_for(question: str, fields: list[str]) -> None:
    assert wanted_fields(question) == fields


def test_ten_k_signature_pages_and_two_line_addresses() -> None:
    values = _values([
        _text(1, "Delaware 81-1567056\n(State or other jurisdiction of incorporation) (I.R.S. Employer No.)\n"
                 "2101 Fourth Avenue, Suite 1900\nSeattle, Washington 98121\n"
                 "(Address of principal executive offices) (Zip Code)\nCommission file number 001-37746\n"
                 "Acme Robotics, Inc.\n(Exact name of registrant as specified in its charter)"),
        _text(11, "Our common stock trades under the trading symbol ACME. The approximate number of holders is 40."),
        _text(90, "By: /s/ Jane Roe\nName: Jane Roe\nTitle: President and Chief Executive Officer\n"
                  "Signature Title Date\n/s/ Jane Roe President, Chief Executive Officer and Director\n"
                  "Jane Roe\n/s/ John Poe Executive Vice President and Chief Financial Officer"),
    ])
    assert values["office_address"] == ("2101 Fourth Avenue, Suite 1900, Seattle, Washington 98121", 1)
    assert values["full_name"] == ("Acme Robotics, Inc.", 1)
    assert "stock_code" not in values  # a label inside a sentence is no key-value pair
    assert values["ceo"] == ("Jane Roe", 90) and values["cfo"] == ("John Poe", 90)


def test_a_cover_tables_header_line_gives_no_value() -> None:
    """A 10-K cover table's header read as a text line: "Name of Market Where Traded" is the next column's header,
    not the trading symbol; a key-value line with values between its labels is still read."""
    values = _values([
        _text(1, "Title of each class Trading Symbol Name of Market Where Traded\n"
                 "Common Stock ($0.001 par value) INMB The Nasdaq Stock Market LLC"),
        _text(2, "股票简称 股票代码\n股票简称 海翔药业 股票代码 002099"),
    ])
    assert values.get("stock_code") == ("002099", 2)
