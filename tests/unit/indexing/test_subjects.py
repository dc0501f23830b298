"""A document's subject from its first pages: 公司简介, 10-K cover, ASX cover, metadata title; generic names never."""

from __future__ import annotations

from indexing.profile import DocumentProfile, build_profile, content_overlap, family_key, text_signature
from indexing.subjects import (
    KIND_ANNUAL,
    DocumentSubject,
    entity_key,
    extract_subject,
    is_specific,
    subject_from_text,
)
from officeqa.domain import Block, BlockType, ParsedDocument

CN_REPORT = """贵州航天电器股份有限公司 2019 年度报告全文
贵州航天电器股份有限公司
Guizhou Space Appliance Co.，LTD
2019 年度报告
2020 年 4 月 14 日
第二节公司简介和主要财务指标
一、公司信息
股票简称 航天电器 股票代码 002025
股票上市证券交易所 深圳证券交易所
公司的中文名称 贵州航天电器股份有限公司
公司的中文简称 航天电器
公司的外文名称 Guizhou Space Appliance Co., LTD
公司的法定代表人 陈振宇
本公司半年度报告披露于巨潮资讯网。
"""

TEN_K = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2022
Commission File Number 001-37746
APTEVO THERAPEUTICS INC.
(Exact name of Registrant as specified in its Charter)
Title of Each Class Trading Symbol Name of Exchange on Which Registered
Common Stock, $0.001 par value per share APVO The Nasdaq Stock Market LLC
"""


def test_chinese_report_reads_the_company_profile_table() -> None:
    s = subject_from_text(CN_REPORT)
    assert s.entity == "贵州航天电器股份有限公司" and s.sources["entity"] == "公司简介"
    assert "航天电器" in s.short_names and s.codes == ["002025"]
    assert s.english_name.startswith("Guizhou Space Appliance")
    assert s.kind == KIND_ANNUAL  # the 半年度报告 mentioned further down does not make it one
    assert s.fiscal_year == 2019


def test_a_short_name_led_by_a_province_character_is_also_known_without_it() -> None:
    s = subject_from_text(
        "常柴股份有限公司 2019 年年度报告全文\n股票简称 苏常柴 A、苏常柴 B 股票代码 000570、200570\n"
        "公司的中文名称 常柴股份有限公司\n" + "本公司" * 10
    )
    assert {"苏常柴", "常柴"} <= set(s.short_names) and s.codes == ["000570", "200570"]


def test_ten_k_cover_gives_registrant_ticker_and_fiscal_year() -> None:
    s = subject_from_text(TEN_K, title="0001213900-23-024631")
    assert s.entity == "Aptevo Therapeutics Inc." and s.sources["entity"] == "registrant"
    assert "Aptevo Therapeutics" in s.short_names and s.codes == ["APVO"]
    assert s.kind == KIND_ANNUAL and s.fiscal_year == 2022


def test_the_registrant_is_found_behind_a_letter_to_shareholders() -> None:
    letter = "2022 ANNUAL REPORT\nDear Fellow Shareholders,\nWe grew. Our partner Foo Bar Inc. helped.\n"
    s = subject_from_text(
        letter, body=letter + "\n" * 3 + TEN_K.replace("APTEVO THERAPEUTICS", "JEFFERIES FINANCIAL GROUP")
    )
    assert s.entity == "Jefferies Financial Group Inc."


def test_cover_and_frequency_when_there_is_no_registrant_line() -> None:
    s = subject_from_text("Annual Report\n2022\nDowner EDI Limited is a leading provider.\nDowner EDI Limited ABN 97")
    assert s.entity == "Downer EDI Limited" and "Downer EDI" in s.short_names
    s = subject_from_text(" BRAVE BISON ANNUAL REPORT 2022\nAnnual Report 2022\nWe make media.")
    assert entity_key(s.entity) == "brave bison"
    s = subject_from_text(
        "LETTER TO SHAREHOLDERS\nTo the Shareholders of CoreCard Corporation,\nCoreCard Corporation grew"
    )
    assert s.entity == "CoreCard Corporation"


def test_metadata_title_naming_the_filing() -> None:
    s = subject_from_text("Table of Contents\nsome text", title="Form 10-K for Ocugen INC filed 02/28/2023")
    assert entity_key(s.entity) == "ocugen" and s.sources["entity"] == "metadata"


def test_generic_titles_and_words_name_nothing() -> None:
    for title in ("Annual Report", "2022 Annual Report", "Microsoft Word - R1", "EDGAR PDF", "年度报告", ""):
        s = subject_from_text("Annual Report\n2022\n", title=title)
        assert not s.keys(), title
        assert family_key(title, "") == "", title
    assert not is_specific(entity_key("Annual Report to Shareholders"))
    assert is_specific(entity_key("OFX Group Limited")) and entity_key("OFX Group Limited") == "ofx group"
    assert family_key("信息安全管理制度（V2.0）", "") == family_key("信息安全管理制度 2024年修订", "") != ""


def test_profile_carries_the_subject_and_a_signature_through_json() -> None:
    blocks = [Block(type=BlockType.PARAGRAPH, text=line, page=1) for line in CN_REPORT.splitlines() if line]
    profile = build_profile("d" * 64, ParsedDocument(path="/kb/a.pdf", file_type="pdf", blocks=blocks))
    assert profile.subject is not None and profile.subject.entity == "贵州航天电器股份有限公司"
    again = DocumentProfile.from_dict(profile.to_dict())
    assert isinstance(again.subject, DocumentSubject) and again.subject == profile.subject
    assert again.signature == profile.signature and len(again.signature) == 64
    # a profile stored before subjects existed still reads
    old = {k: v for k, v in profile.to_dict().items() if k not in ("subject", "signature")}
    assert DocumentProfile.from_dict(old).subject is None


def test_content_overlap_tells_a_revision_from_another_document() -> None:
    base = [f"第{i}条 员工应当遵守公司的信息安全规定，妥善保管账号和密码，不得外借。" for i in range(40)]
    revised = base[:35] + ["第36条 新增：远程办公须使用公司VPN。"] * 5
    other = [f"Section {i}. Revenue grew by {i} percent in the fiscal year ended December 31." for i in range(40)]
    assert content_overlap(text_signature(base), text_signature(revised)) > 0.5
    assert content_overlap(text_signature(base), text_signature(other)) < 0.1
    assert content_overlap([], text_signature(base)) is None


def test_a_european_legal_form_names_the_company_not_a_phrase_about_it() -> None:
    # "a German stock corporation" was read as a company; "Commerzbank Aktiengesellschaft" is the one
    text = "The bank at your side\n2022\nAnnual Report\nKey figures\nCommerzbank shareholders\n"
    body = (
        "Commerzbank Aktiengesellschaft, a German stock corporation, is the parent of the group.\n" * 3
        + "The German Stock Corporation Act applies. "
    )
    s = subject_from_text(text, title="Commerzbank Konzern_GB 2022_EN_Final", body=body)
    assert s.entity == "Commerzbank Aktiengesellschaft"
    keys = s.keys()
    assert "Commerzbank" in s.short_names and "commerzbank" in keys


def test_a_report_whose_name_is_a_logo_is_named_by_its_letters_sign_off() -> None:
    letter = (
        "2022 Annual Report\nLet's secure the digital future.\nFellow Stockholders,\n"
        "Rapid7 leaned into these dynamics. Rapid7's total ARR grew 19% to $714 million.\n"
        "With warm regards,\nCorey Thomas Chairman & CEO Rapid7\n"
    )
    s = subject_from_text(letter, title="178500_RAPID_PROOF_FINAL_LS_rev1_MS.pdf", body=letter + "Rapid7 platform.")
    assert s.entity == "Rapid7" and s.sources["entity"] == "signature"
    # a signer's title followed by a word printed once is no company
    once = subject_from_text("Fellow Stockholders,\nJane Doe Chairman Northwind\n", body="Northwind.")
    assert once.entity == ""


def test_a_ticker_in_the_file_title_is_spelled_out_by_the_back_cover() -> None:
    filler = Block(BlockType.PARAGRAPH, text="x" * 1000, page=5)
    blocks = [
        Block(BlockType.HEADING, text="Annual Report", page=1),
        Block(BlockType.PARAGRAPH, text="2022", page=1),
        Block(BlockType.PARAGRAPH, text="Growth reflects customers of MongoDB Atlas.", page=4),
        *[filler] * 700,  # the readable text ends far beyond the part of the body read from the start
        Block(BlockType.HEADING, text="MongoDB.", page=180),
    ]
    document = ParsedDocument(path="/kb/7792e23f.pdf", file_type="pdf", blocks=blocks, title="MDB-2022-Annual-Report")
    s = extract_subject(document)
    assert s.short_names[:2] == ["MongoDB", "MDB"]
    keys = s.keys()
    assert "mongodb" in keys
