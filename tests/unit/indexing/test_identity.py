"""Company identity read from first pages and compared folded: Traditional covers, Hong Kong codes, former names,
the distinctive part of a name (pure functions, literal text)."""

from __future__ import annotations

from indexing.identity import (
    canonical_code,
    distinctive,
    fold,
    former_names,
    hk_codes,
    question_codes,
    same_distinctive,
)
from indexing.subjects import entity_key, subject_from_text
from officeqa.chinese import has_traditional, to_simplified
from officeqa.normalize import normalize

HK_COVER = "騰訊控股有限公司\n二零二三年年報\n公司資料\n股份代號：700\n" + "騰訊控股有限公司 本集團收入增長。" * 5
A_COVER = (
    "华熙生物科技股份有限公司 2023 年年度报告\n公司的中文名称 华熙生物科技股份有限公司\n"
    "股票简称 华熙生物 股票代码 688363\n公司曾用名：山东华熙生物医药有限公司\n" + "华熙生物营业收入。" * 5
)


def test_opencc_folds_traditional_and_leaves_other_text() -> None:
    assert to_simplified("騰訊控股有限公司 股份代號") == "腾讯控股有限公司 股份代号"
    assert to_simplified("资产负债表 Total assets") == "资产负债表 Total assets"
    assert has_traditional("年內虧損") and not has_traditional("年内亏损")
    assert normalize("電話號碼") == "电话号码"  # the rule normaliser folds with the same library
    assert fold("ＡＢＣ 歸屬於母公司") == "ABC 归属于母公司"


def test_traditional_cover_is_read_and_keeps_its_printed_name() -> None:
    subject = subject_from_text(HK_COVER)
    assert subject.entity == "騰訊控股有限公司"  # as printed, for quotes
    assert entity_key(subject.entity) == "腾讯控股"  # compared folded
    assert subject.codes == ["00700.HK"]
    assert subject.fiscal_year == 2023 and subject.kind == "annual_report"


def test_a_share_cover_gives_short_name_code_and_former_name() -> None:
    subject = subject_from_text(A_COVER)
    assert subject.entity == "华熙生物科技股份有限公司"
    assert "华熙生物" in subject.short_names and subject.codes == ["688363"]
    assert subject.former_names == ["山东华熙生物医药有限公司"]
    assert "山东华熙生物医药有限公司" in subject.names()


def test_distinctive_part_drops_legal_form_place_and_shared_words() -> None:
    assert distinctive("贵州航天电器股份有限公司") == "航天"
    assert distinctive("華熙生物科技") == "华熙"
    assert distinctive("生物科技") == "" and distinctive("Technology Holdings Ltd") == ""
    assert distinctive("Aptevo Therapeutics Inc.") == "aptevo"
    assert not same_distinctive("贝达生物", "华熙生物")  # a shared word never decides
    assert same_distinctive("華熙生物", "华熙生物科技股份有限公司")
    assert not same_distinctive("Alpha Bio Inc.", "Beta Bio Inc.")


def test_codes_are_compared_in_one_form() -> None:
    assert canonical_code("002025.SZ") == "002025"
    assert canonical_code("0700.HK") == canonical_code("HK700") == "00700.HK"
    assert canonical_code("apvo") == "APVO"
    assert question_codes("00700.HK 和 0388.HK 以及 600519.SH、002025") == {"00700.HK", "00388.HK", "600519", "002025"}
    assert question_codes("港股00700的收入") == {"00700.HK"}
    assert hk_codes("(Stock Code: 00005)\nHSBC Holdings plc") == ["00005.HK"]


def test_former_names_in_english() -> None:
    assert former_names("Gamma Robotics Inc. (formerly Acme Widgets Inc.) designs robots.") == ["Acme Widgets Inc"]
