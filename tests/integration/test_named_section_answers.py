"""Questions that name a section ("第二节讲了什么", "核心竞争力分析讲了什么", "the Risk Factors section") through the
question service with no model, over a real multi-section document indexed with its extractive summary tree: the
named section's own prose, cited by its section; its table's rows are not the answer; a section the document lacks
is said, with the sections it has.
"""

from __future__ import annotations

import pytest

from eval.harness import build_summary_trees
from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.service import QuestionService

REPORT = """# 星海科技2023年年度报告

## 第一节 重要提示

公司董事会、监事会及董事、监事、高级管理人员保证年度报告内容的真实、准确、完整，不存在虚假记载。
本报告中涉及的未来计划等前瞻性陈述，不构成公司对投资者的实质承诺，敬请投资者注意投资风险。

## 第二节 公司业务概要

### 一、报告期内公司从事的主要业务

报告期内，公司主营业务为工业传感器和边缘计算网关的研发、生产和销售，产品用于智能工厂和能源监测。
公司产品生产采取以销定产模式，销售以直销为主，前五大客户均为大型制造企业。

| 产品 | 营业收入（元） | 占比 |
|---|---|---|
| 工业传感器 | 1,234,567.89 | 45.20% |
| 边缘计算网关 | 987,654.32 | 36.10% |

### 二、核心竞争力分析

（一）技术优势
公司拥有一支三百人的研发团队，掌握高精度温漂补偿算法，累计获得发明专利八十六项。
（二）客户优势
公司与国内主要钢铁和化工企业建立了长期合作关系，客户黏性较高，续约率保持在九成以上。

## 第三节 公司治理

报告期内，公司严格按照《公司法》和《上市公司治理准则》的要求，不断完善公司法人治理结构。
公司与控股股东在业务、人员、资产、机构、财务等方面完全分开，具有独立完整的自主经营能力。
"""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("sections")
    docs = root / "kb"
    docs.mkdir()
    (docs / "星海科技2023年年度报告.md").write_text(REPORT, encoding="utf-8")
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([docs]).failed
        build_summary_trees(kb)
    with QuestionService.open(settings) as opened:
        yield opened, docs


def test_a_chapter_named_by_number_is_answered_from_its_own_prose(service) -> None:
    answer = service[0].ask("星海科技年报第二节讲了什么？")
    assert answer.mode == "extractive" and answer.metadata["named_section"]["title"].endswith("公司业务概要")
    assert "工业传感器和边缘计算网关" in answer.text and "以销定产" in answer.text
    assert "高精度温漂补偿算法" in answer.text  # its second part too, not only its first paragraph
    assert "1,234,567.89" not in answer.text and "|" not in answer.text  # the table's rows are not the answer
    assert "上市公司治理准则" not in answer.text and "前瞻性陈述" not in answer.text  # other sections are not
    assert answer.citations and all(c.quote in answer.text for c in answer.citations)
    assert any("第二节 公司业务概要" in " ".join(c.heading_path) for c in answer.citations), answer.citations
    assert str(service[1]) not in answer.text


def test_a_section_named_by_its_title_is_answered_from_that_section(service) -> None:
    answer = service[0].ask("星海科技的核心竞争力分析讲了什么？")
    assert "发明专利八十六项" in answer.text and "续约率保持在九成以上" in answer.text
    assert "（一）技术优势" in answer.text  # the part's head, with its sentence
    assert "以销定产" not in answer.text  # the chapter around it is not the answer
    assert any("核心竞争力分析" in " ".join(c.heading_path) for c in answer.citations)


def test_a_section_named_in_a_phrase_is_found_by_its_chapter_heading(service) -> None:
    answer = service[0].ask("星海科技年报中公司治理一节的要点是什么？")
    assert "上市公司治理准则" in answer.text and "完全分开" in answer.text
    assert "工业传感器" not in answer.text


def test_a_section_the_document_lacks_is_said_with_the_sections_it_has(service) -> None:
    answer = service[0].ask("星海科技年报第五节讲了什么？")
    assert "没有" in answer.text and not answer.citations
    for title in ("第一节 重要提示", "第二节 公司业务概要", "第三节 公司治理"):
        assert title in answer.text, answer.text
    assert "工业传感器" not in answer.text and "上市公司治理准则" not in answer.text  # no passage quoted


def test_an_amount_asked_about_a_section_is_not_a_section_summary(service) -> None:
    answer = service[0].ask("第二节中工业传感器的营业收入是多少？")
    assert "named_section" not in answer.metadata


OUTLINE = """# 分布式训练技术原理
- 数据并行
    - FSDP
        - FSDP将模型实例分解为更小的单元，然后将每个单元内的所有参数扁平化和分片，大大降低了峰值内存消耗。
    - DDP
        - DDP在每个设备上维护一个模型副本，并通过向后传递的集体通信来同步梯度。
- 流水线并行
    - GPipe把一个批次切成多个微批次，让不同设备上的模型阶段同时工作。
"""


def test_a_section_of_an_outline_without_a_tree_is_not_said_missing(tmp_path) -> None:
    """No chapter headings and no summary tree: which sections exist is unknown, so "数据并行一节" is not declared
    absent (it is the document's first outline heading); the question goes on to retrieval."""
    docs = tmp_path / "kb"
    docs.mkdir()
    (docs / "分布式训练技术原理.md").write_text(OUTLINE, encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([docs]).failed
    with QuestionService.open(settings) as service:
        answer = service.ask("数据并行一节讲了什么？")
    assert "没有问题所说的这一章节" not in answer.text
    assert answer.citations
