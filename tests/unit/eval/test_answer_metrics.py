"""What "correct" means in the eval: evidence matching, numbers with units, expectations, not-found."""

from __future__ import annotations

from decimal import Decimal

import pytest

from eval.answer_metrics import check_expectation, contains, holds_evidence, numbers_in, percentile, says_not_found


def test_contains_ignores_width_case_spaces_and_thousands_separators() -> None:
    assert contains("合同总金额为人民币１，２８６，０００.００元", "1286000.00")
    assert contains("Uses the company VPN", "vpn")
    assert not contains("12位", "")


@pytest.mark.parametrize("text", [
    "成都 | 二类 | 370 | 530 | 760",
    "城市: 成都, 城市类别: 二类, 普通员工（元/晚）: 370, 部门经理（元/晚）: 530, 总监及以上（元/晚）: 760",
    "header\n城市: 成都, 城市类别: 二类, 普通员工: 370, 部门经理: 530",
])
def test_a_row_matches_however_its_cells_are_rendered(text: str) -> None:
    assert holds_evidence(text, "成都 | 二类 | 370 | 530")


def test_row_cells_must_be_on_one_line_and_in_order() -> None:
    assert not holds_evidence("成都 | 二类\n370 | 530", "成都 | 二类 | 370 | 530")
    assert not holds_evidence("530 | 370 | 二类 | 成都", "成都 | 二类 | 370 | 530")


def test_numbers_are_read_with_their_scale_and_codes_dates_phones_are_not_numbers() -> None:
    values = numbers_in("净利润9,876.54万元，约98.77 million；编号GYS-006，日期2024-03-29，电话0571-86002200")
    assert Decimal("98765400") in values and Decimal("98770000.00") in values
    assert Decimal("6") not in values and Decimal("29") not in values and Decimal("86002200") not in values


def test_numbers_with_a_sign_or_in_pence_stand_on_their_own() -> None:
    """A sign after a bracket or space and a pence figure are read; a code's or a date's dash still is not."""
    values = numbers_in("a gross return of (-5.97%), basic EPS 0.19p, code GYS-006, 0.5pt, page p12")
    assert Decimal("5.97") in values and Decimal("0.19") in values
    assert Decimal("6") not in values and Decimal("0.5") not in values and Decimal("12") not in values


def test_value_expectations_and_their_outcome() -> None:
    right = check_expectation({"numbers": [{"value": 530}]}, "部门经理每晚530元。")
    assert right.correct and right.outcome == "exact"
    refused = check_expectation({"numbers": [{"value": 530}]}, "文档中未找到与问题相关的内容。")
    assert not refused.correct and refused.outcome == "refused"
    wrong = check_expectation({"exact": "0571-86002200"}, "值班电话：13857001234")
    assert wrong.outcome == "wrong" and wrong.failures == ["missing exact value 0571-86002200"]
    tolerance = check_expectation({"numbers": [{"value": 98765432.10, "rel_tol": 0.001}]}, "about 98.77 million yuan")
    assert tolerance.correct


def test_facts_alternatives_forbidden_regex_and_not_found() -> None:
    expect = {"facts": [["2024-03-29", "3月29日"], "定制报表"], "forbidden": ["0571-86001234"], "regex": r"12\s*位"}
    assert check_expectation(expect, "陈思远负责定制报表，3月29日截止；密码12 位").correct
    result = check_expectation(expect, "陈思远负责定制报表（0571-86001234）")
    assert result.outcome is None
    assert sorted(result.failures) == ["contains forbidden 0571-86001234", "missing fact 2024-03-29 / 3月29日",
                                       r"no match for /12\s*位/"]
    assert check_expectation({"not_found": True}, "Not found in the documents.").correct
    assert not check_expectation({"not_found": True}, "年终奖按绩效发放。").correct


def test_language_is_the_answer_field_and_its_own_words() -> None:
    assert check_expectation({"language": "en"}, "The notice says 9月29日 is a working day.", "en").correct
    assert not check_expectation({"language": "en"}, "9月29日（星期日）正常上班。", "en").correct
    assert not check_expectation({"language": "en"}, "The notice says so.", "zh").correct


@pytest.mark.parametrize("text", ["文档中未找到相关内容", "Not found in the documents.", "",
                                  "The documents do not mention parking."])
def test_refusals_in_either_language(text: str) -> None:
    assert says_not_found(text)


def test_percentile_interpolates() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([], 95) is None
