""""The report" of a question that names none, in a knowledge base of reports in two languages: retrieval's top
document unless one in the question's language is among the retrieved (``Knowledge.retrieved_scope``).

The Chinese report below quotes the English question's words (bilingual reports do), so retrieval alone ranks it
first for "What main risk factors does the report point to?"; the English reader means the English report.
Real files, a real knowledge base (hash embedder), real search.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.knowledge import same_language_first
from retrieval.search import search
from retrieval.service import QuestionService

QUESTION = "What main risk factors does the report point to?"
ZH = """# 星河智能2023年年度报告

## 第四节 经营情况讨论与分析

### 公司面临的主要风险（main risk factors）

本报告（report）提示的主要风险因素（main risk factors）如下，请投资者注意（point）：
一、市场竞争加剧风险：行业新进入者增多，产品价格存在下降的可能。
二、原材料价格波动风险：芯片、钢材等主要原材料价格波动会影响公司毛利率。
三、应收账款回收风险：随着销售规模扩大，应收账款余额上升，存在坏账增加的可能。
四、核心人才流失风险：公司所处行业对研发人员依赖程度较高，人才竞争激烈。
"""
EN = """# Northwind Paper 2022 Annual Review

## Outlook

The business faces several uncertainties in the coming year. Higher input costs for pulp and energy could
reduce margins. A reduction in the supply of fibre would slow the mills. Pricing pressure and intense
competition from private labels continue, and sales depend on a few large retail customers.
"""


@pytest.fixture(scope="module")
def kb_root(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("languages")
    docs = root / "kb"
    docs.mkdir()
    (docs / "xinghe_2023.md").write_text(ZH, encoding="utf-8")
    (docs / "northwind_2022.md").write_text(EN, encoding="utf-8")
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([docs]).failed
    with QuestionService.open(settings) as service:
        ids = {Path(entry.path).stem: doc_id for doc_id, entry in service.catalog().items()}
    return settings, ids


def test_an_english_question_naming_no_report_gets_the_english_report(kb_root) -> None:
    settings, ids = kb_root
    with QuestionService.open(settings) as service:
        catalog = service.catalog()
        assert catalog[ids["xinghe_2023"]].profile.language == "zh"
        assert catalog[ids["northwind_2022"]].profile.language == "en"
        # what words alone rank first: the Chinese report, which quotes the question's words (the hybrid's bilingual
        # rule may already lift the English one, since BM25 cannot see across languages)
        hits = search(service.kb, QUESTION, "bm25", 10)
        assert hits[0].doc_id == ids["xinghe_2023"]
        scope = service.knowledge.retrieved_scope(QUESTION, "hybrid", catalog)
    assert scope.method == "retrieved" and scope.doc_ids == [ids["northwind_2022"]]


def test_a_chinese_question_keeps_the_chinese_report(kb_root) -> None:
    settings, ids = kb_root
    with QuestionService.open(settings) as service:
        scope = service.knowledge.retrieved_scope("报告提示了哪些主要风险？", "hybrid", service.catalog())
    assert scope.doc_ids == [ids["xinghe_2023"]]


def test_with_no_report_in_the_questions_language_the_rank_decides(kb_root) -> None:
    settings, ids = kb_root
    with QuestionService.open(settings) as service:
        catalog = service.catalog()
    chinese_only = [ids["xinghe_2023"]]
    assert same_language_first(QUESTION, chinese_only, catalog) == chinese_only
    both = [ids["xinghe_2023"], ids["northwind_2022"]]
    assert same_language_first("哪些风险？", both, catalog) == both
    assert same_language_first(QUESTION, both, catalog) == both[::-1]
