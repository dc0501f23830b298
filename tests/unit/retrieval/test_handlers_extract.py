"""Extraction handlers: unit cases per finder, a contract docx and a GBK csv parsed from real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexing.parsing import parse_file
from retrieval.handlers.extract import (
    find_amounts,
    find_dates,
    find_emails,
    find_id_numbers,
    find_phones,
    find_urls,
    id_checksum_ok,
)
from retrieval.l0 import route, run_handler

_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def make_id(first17: str) -> str:
    """A valid 18-digit ID for the first 17 digits (GB 11643 check digit)."""
    return first17 + "10X98765432"[sum(int(c) * w for c, w in zip(first17, _WEIGHTS, strict=True)) % 11]


VALID_ID = make_id("11010519491231002")
INVALID_ID = VALID_ID[:-1] + ("0" if VALID_ID[-1] != "0" else "1")


def test_phones_all_formats() -> None:
    text = ("手机 138-1234-5678，+86 139 1234 5678，8613712345678；座机 010-62345678 转 123，(0571)88886666；"
            "客服 400-800-1234；美国 +1 415 555 2671；订单号 20240105123456789 不是电话")
    found = {(n, k) for _, n, k in find_phones(text)}
    assert found == {("13812345678", "mobile"), ("13912345678", "mobile"), ("13712345678", "mobile"),
                     ("010-62345678-123", "landline"), ("0571-88886666", "landline"),
                     ("4008001234", "service"), ("+14155552671", "intl")}


def test_dates_to_iso() -> None:
    text = "2024年1月5日签订，2024-01-05，2024/1/5，1/5/2024，二〇二四年三月十五日，2024年12月，2024-02-30 无效"
    assert [n for _, n, _ in find_dates(text)] == [
        "2024-01-05", "2024-01-05", "2024-01-05", "2024-01-05", "2024-03-15", "2024-12"]


def test_amounts_with_currency_and_units() -> None:
    got = {(n["value"], n["currency"]) for _, n, _ in find_amounts(
        "总价￥1,200,000.00元（人民币壹佰贰拾万元整），定金50万元，"
        "另付 USD 3,000 和 $99.5，预算 8 亿元，RMB100，3万人参会")}
    assert got == {("1200000", "CNY"), ("500000", "CNY"), ("3000", "USD"), ("99.5", "USD"),
                   ("800000000", "CNY"), ("100", "CNY")}


def test_id_numbers_checksum() -> None:
    assert id_checksum_ok(VALID_ID)
    assert not id_checksum_ok(INVALID_ID)
    assert [n for _, n, _ in find_id_numbers(f"张三 {VALID_ID}，李四 {INVALID_ID}")] == [VALID_ID]


def test_emails_and_urls() -> None:
    assert [n for _, n, _ in find_emails("联系 Zhang.San@Example.com 或 li_si@corp.cn。")] == [
        "zhang.san@example.com", "li_si@corp.cn"]
    assert [n for _, n, _ in find_urls("见 https://www.example.com/a?b=1。或 www.test.cn/x）")] == [
        "https://www.example.com/a?b=1", "http://www.test.cn/x"]


@pytest.fixture
def contract_docx(tmp_path: Path) -> Path:
    import docx
    document = docx.Document()
    document.add_heading("采购合同", 0)
    document.add_heading("第一条 合同双方", 1)
    document.add_paragraph(f"甲方：北京某某科技有限公司，联系电话：010-62345678，法定代表人身份证号：{VALID_ID}。")
    document.add_paragraph("乙方：上海某某贸易有限公司，联系人手机：+86 139-1234-5678，客服热线 400-820-1234。")
    document.add_heading("第二条 合同金额", 1)
    document.add_paragraph("合同总价为人民币壹佰贰拾万元整（￥1,200,000.00），预付款50万元，尾款￥700,000元。")
    document.add_heading("第三条 履行期限", 1)
    document.add_paragraph("本合同于2024年1月5日签订，自二〇二四年二月一日起生效，有效期至2025-01-31。")
    document.add_paragraph(f"证件号 {INVALID_ID} 为笔误，不是有效号码。电话会议定于每周一召开。")
    table = document.add_table(rows=3, cols=3)
    for r, row in enumerate([("联系人", "电话", "邮箱"), ("张三", "13812345678", "zhangsan@example.com"),
                             ("李四", "021-58881234", "lisi@example.cn")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    path = tmp_path / "采购合同.docx"
    document.save(str(path))
    return path


def test_contract_docx_phones_amounts_dates_ids(contract_docx: Path) -> None:
    doc = parse_file(contract_docx)
    phones = run_handler(route("提取合同里所有的电话号码"), [doc])
    assert {i.normalized for i in phones.items} == {
        "010-62345678", "13912345678", "4008201234", "13812345678", "021-58881234"}
    assert all(c.file == str(contract_docx) for i in phones.items for c in i.citations)
    in_table = next(i for i in phones.items if i.normalized == "021-58881234")
    assert in_table.citations[0].row == 2  # data row 2 of the contact table
    assert "13812345678" in phones.answer_text

    amounts = run_handler(route("列出合同中的所有金额"), [doc])
    values = {i.normalized["value"] for i in amounts.items}
    assert values == {"1200000", "500000", "700000"}
    total = next(i for i in amounts.items if i.normalized["value"] == "1200000")
    assert total.extra["occurrences"] == 2  # figures and capitals are one amount

    json.dumps(amounts.to_json(), ensure_ascii=False)
    dates = run_handler(route("找出文档中出现的所有日期"), [doc])
    assert [i.normalized for i in dates.items] == ["2024-01-05", "2024-02-01", "2025-01-31"]

    ids = run_handler(route("提取所有身份证号"), [doc])
    assert [i.normalized for i in ids.items] == [VALID_ID]

    emails = run_handler(route("提取所有邮箱"), [doc])
    assert [i.normalized for i in emails.items] == ["zhangsan@example.com", "lisi@example.cn"]

    outline = run_handler(route("列出所有章节", file_type="docx"), [doc])
    titles = [i.value for i in outline.items]
    assert titles[1:] == ["第一条 合同双方", "第二条 合同金额", "第三条 履行期限"]


def test_gbk_csv(tmp_path: Path) -> None:
    path = tmp_path / "客户.csv"
    path.write_bytes(("客户名称,所属地区,联系电话,销售额\n"
                      "华东贸易,华东,0571-88886666,\"1,200.50\"\n"
                      "北方商行,华北,13800001111,300\n"
                      "南方公司,华南,020-87654321,暂无\n"
                      "东海实业,华东,+86 138 0000 2222,99.50\n").encode("gbk"))
    doc = parse_file(path)
    phones = run_handler(route("把客户的联系电话都列出来"), [doc])
    assert [i.normalized for i in phones.items] == ["0571-88886666", "13800001111", "020-87654321", "13800002222"]
    assert [i.citations[0].row for i in phones.items] == [1, 2, 3, 4]
    result = run_handler(route("按地区汇总销售额", file_type="csv"), [doc])
    assert result.data["groups"] == {"华东": "1300.00", "华北": "300", "华南": None}
    assert result.skipped == 1
