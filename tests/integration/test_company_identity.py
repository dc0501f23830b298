"""Twelve reports in one knowledge base: a question naming a company — by full name, short name, stock code, English
name, in Simplified or Traditional Chinese — gets only that company's pages, in the answer and in the model's prompt.

Why generated reports: the real ones (``bench/bench_report_retrieval.py``) are fetched, never committed; these share
one layout and one vocabulary (every report has a 营业收入 table and a 研发 section), the shape that lets an
unscoped search mix companies. Two companies share the word "生物", one report is printed in Traditional Chinese
with a Hong Kong code. The knowledge base is real (SQLite, Chroma, BM25, ``hash`` embedder); the model is the
stand-in of ``officeqa eval --generator fake`` behind a real HTTP server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from eval.fake_model import grounded_reply, parse_prompt
from eval.fake_ollama import DEFAULT_MODEL, FakeOllama
from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow


class Company(NamedTuple):
    file: str
    name: str
    short: str
    code: str
    english: str
    revenue: str


CN = [
    Company("hx.md", "华熙生物科技股份有限公司", "华熙生物", "688363", "Bloomage Biotechnology Corporation",
            "6,361,679,400.00"),
    Company("bd.md", "贝泰生物医药股份有限公司", "贝泰生物", "300558", "Betta Pharmaceuticals Co Ltd",
            "2,456,000,000.00"),
    Company("ht.md", "贵州航天电器股份有限公司", "航天电器", "002025", "Guizhou Space Appliance Co Ltd",
            "3,533,710,584.98"),
    Company("cc.md", "常柴股份有限公司", "苏常柴", "000570", "Changchai Company Limited", "2,211,467,004.57"),
    Company("hy.md", "浙江海翔药业股份有限公司", "海翔药业", "002099", "Zhejiang Hisoar Pharmaceutical Co Ltd",
            "2,599,012,345.10"),
    Company("lx.md", "立讯精密工业股份有限公司", "立讯精密", "002475", "Luxshare Precision Industry Co Ltd",
            "231,905,000,000.00"),
]
HK = Company("tx.md", "騰訊控股有限公司", "騰訊控股", "00700.HK", "Tencent Holdings Limited", "609,015,000,000")
EN = [
    Company("ap.md", "Aptevo Therapeutics Inc.", "Aptevo", "APVO", "", "3,105"),
    Company("zd.md", "Ziff Davis, Inc.", "Ziff Davis", "ZD", "", "1,391,000"),
    Company("kp.md", "KP Tissue Inc.", "KP Tissue", "KPT", "", "1,762,000"),
    Company("mg.md", "MongoDB, Inc.", "MongoDB", "MDB", "", "1,284,000"),
    Company("br.md", "Brave Bison Group plc", "Brave Bison", "BBSN", "", "31,200"),
]
ALL = [*CN, HK, *EN]


def _chinese(c: Company) -> str:
    return f"""# {c.name} 2023年年度报告

## 第二节 公司简介和主要财务指标

公司的中文名称：{c.name}

股票简称：{c.short}　股票代码：{c.code}

公司的外文名称：{c.english}

## 主要会计数据和财务指标

| 项目 | 2023年 | 2022年 |
|---|---|---|
| 营业收入（元） | {c.revenue} | 1,000,000.00 |

## 研发投入

报告期内，{c.short}持续加大研发投入，研发项目围绕主营产品的工艺改进展开，研发人员数量增加。
"""


def _traditional(c: Company) -> str:
    return f"""# {c.name} 二零二三年年報

## 公司資料

公司名稱：{c.name}　股份代號：700

英文名稱：{c.english}

## 財務摘要

| 項目 | 2023年 | 2022年 |
|---|---|---|
| 收入（人民幣百萬元） | {c.revenue} | 554,552 |

## 研發投入

{c.short}於本年度持續加大研發投入，研發項目圍繞主營產品的工藝改進展開，研發人員數量增加。
"""


def _english(c: Company) -> str:
    return f"""# Annual Report

{c.name} annual report for the fiscal year ended December 31, 2022. {c.name} ({c.code}) is listed on the NASDAQ.

## Research and development

During the year {c.short} increased research and development spending; research and development projects focus
on improving the main products, and research and development headcount grew.

## Selected financial data

| Item | 2022 | 2021 |
|---|---|---|
| Total revenue | {c.revenue} | 1,000 |
"""


def _text(c: Company) -> str:
    return _traditional(c) if c is HK else _english(c) if c in EN else _chinese(c)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, FakeOllama]]:
    root = tmp_path_factory.mktemp("identity")
    docs = root / "kb"
    docs.mkdir()
    for company in ALL:
        (docs / company.file).write_text(_text(company), encoding="utf-8")
    with FakeOllama(reply_fn=grounded_reply) as fake:
        settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"),
                            ollama=OllamaSettings(host=fake.url, model=DEFAULT_MODEL, retries=0))
        with open_knowledge_base(settings) as opened:
            report = opened.index_paths([docs])
        assert not report.failed, report.failed
        yield settings, fake


def _no_model(settings: Settings) -> Settings:
    """The same knowledge base with no model reachable (nothing listens on port 9)."""
    return settings.model_copy(update={"ollama": OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5,
                                                                retries=0)})


def _names(c: Company) -> list[str]:
    """Every way a question names the company: full name, short name, code, English name, the other script."""
    if c is HK:
        return ["腾讯控股有限公司", "騰訊控股", "00700.HK", "港股0700", "Tencent Holdings"]
    if c in EN:
        return [c.name, c.short, c.code]
    return [c.name, c.short, c.code, c.english, c.short.translate(str.maketrans("华贝电药", "華貝電藥"))]


def _question(c: Company, name: str) -> str:
    return f"What did {name} say about research and development?" if c in EN else f"{name}在研发方面做了什么？"


def _files(paths: list[str]) -> set[str]:
    return {Path(p).name for p in paths}


def test_without_a_model_every_answer_cites_only_the_named_company(kb: tuple[Settings, FakeOllama]) -> None:
    with QuestionService.open(_no_model(kb[0])) as service:
        for company in ALL:
            for name in _names(company):
                answer = service.ask(_question(company, name))
                scoped = [d["path"] for d in answer.metadata["scope"]["documents"]]
                assert _files(scoped) == {company.file}, (name, scoped)
                assert answer.citations, (name, answer.text)
                assert _files([c.file for c in answer.citations]) == {company.file}, (name, answer.text)


def test_with_a_model_every_prompt_holds_only_the_named_company(kb: tuple[Settings, FakeOllama]) -> None:
    settings, fake = kb
    with QuestionService.open(settings) as service:
        for company in ALL:
            for name in _names(company)[:3]:
                before = len(fake.chat_requests())
                answer = service.ask(_question(company, name))
                sent = [r["messages"][-1]["content"] for r in fake.chat_requests()[before:]]
                prompts = [parse_prompt(p) for p in sent if parse_prompt(p)[0]]
                assert answer.mode == "model" and prompts, (name, answer.mode, answer.text)
                files = {m.source.split(" · ")[0] for m in prompts[-1][1]}
                assert {Path(f).name for f in files} == {company.file}, (name, files)


def test_a_company_sharing_only_a_generic_word_is_not_in_the_knowledge_base(kb: tuple[Settings, FakeOllama]) -> None:
    with QuestionService.open(_no_model(kb[0])) as service:
        answer = service.ask("康泰生物股份有限公司2023年的营业收入是多少？")
    assert "康泰生物股份有限公司" in answer.text and "知识库中没有" in answer.text, answer.text
    assert not answer.citations
