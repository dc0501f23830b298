"""The tree store (real SQLite) and the question side: which summaries a global question gets, in what order."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from indexing.summary import Span, StoredSummary, SummaryNode, SummaryStore, SummaryTree, summary_materials
from officeqa.tokens import default_token_counter
from retrieval.citations import citation_from_metadata

count = default_token_counter().count

ZH_SECTIONS = [
    # id, parent, level, title, pages, summary
    ("0", None, 0, "星辰集团2023年年度报告", (1, 40),
     "星辰集团2023年营业收入120亿元，同比增长15%。主要风险是原材料价格波动。"),
    ("0.1", "0", 1, "第一章 经营情况", (1, 10), "营业收入120亿元，华东区域增长最快。"),
    ("0.1.1", "0.1", 2, "第一节 收入", (1, 5), "主营业务收入110亿元。"),
    ("0.1.2", "0.1", 2, "第二节 成本", (6, 10), "营业成本85亿元，毛利率29%。"),
    ("0.2", "0", 1, "第二章 财务报告", (11, 20), "总资产500亿元，资产负债率55%。"),
    ("0.3", "0", 1, "第三章 风险管理", (21, 30), "原材料价格波动风险和汇率风险是主要风险，公司已开展套期保值。"),
    ("0.4", "0", 1, "第四章 公司治理", (31, 40), "董事会召开会议8次，完成换届选举。"),
    ("0.4.1", "0.4", 2, "第一节 董事会", (31, 35), "董事会由9名董事组成。"),
    ("0.4.2", "0.4", 2, "第二节 监事会", (36, 40), "监事会召开会议4次。"),
]


def make_tree(doc_id: str, path: str, rows, language: str = "zh", extractive: bool = False) -> tuple[
        SummaryTree, list[StoredSummary]]:
    children: dict[str, list[str]] = {}
    for node_id, parent, *_ in rows:
        if parent is not None:
            children.setdefault(parent, []).append(node_id)
    nodes, summaries = [], []
    titles = {r[0]: r[3] for r in rows}
    for node_id, parent, level, title, pages, text in rows:
        key = f"{doc_id}:{node_id}:{len(text)}"
        path_titles = []
        walk = node_id
        while "." in walk:
            path_titles.insert(0, titles[walk])
            walk = walk.rsplit(".", 1)[0]
        nodes.append(SummaryNode(
            id=node_id, parent=parent, children=children.get(node_id, []), level=level,
            kind="document" if parent is None else "section", title=title, heading_path=path_titles,
            span=Span(page=pages[0], page_end=pages[1], chunk_first=f"{doc_id}-00000", chunk_last=f"{doc_id}-00009"),
            chunk_ids=[], key=key, summary=text, tokens=count(text), model="m", prompt_version="1",
            extractive=extractive,
        ))
        summaries.append(StoredSummary(key=key, text=text, model="m", prompt_version="1", extractive=extractive,
                                       tokens=count(text)))
    return SummaryTree(doc_id=doc_id, path=path, title=titles["0"], language=language, nodes=nodes), summaries


@pytest.fixture
def store(tmp_path: Path):
    with SummaryStore(tmp_path / "summaries.sqlite3") as s:
        tree, summaries = make_tree("docA", "/docs/星辰集团2023年年度报告.pdf", ZH_SECTIONS)
        for summary in summaries:
            s.put_summary(summary)
        s.put_tree(tree)
        yield s


def test_a_tree_round_trips_and_is_replaced_whole(store: SummaryStore) -> None:
    tree = store.tree("docA")
    assert tree is not None
    assert [n.id for n in tree.nodes] == [r[0] for r in ZH_SECTIONS]
    assert tree.node("0.4").children == ["0.4.1", "0.4.2"]
    assert tree.node("0.3").span.pages() == [21, 30]
    smaller, _ = make_tree("docA", "/docs/x.pdf", ZH_SECTIONS[:2])
    store.put_tree(smaller)
    assert [n.id for n in store.tree("docA").nodes] == ["0", "0.1"]
    assert store.tree("nope") is None


def test_prune_drops_trees_of_gone_documents_and_old_unused_summaries_only(store: SummaryStore) -> None:
    store.put_summary(StoredSummary(key="orphan-new", text="t", model="m", prompt_version="1", extractive=False,
                                    tokens=1))
    assert store.prune(["docA"], keep_unused_days=30) == (0, 0)  # young orphan kept: an interrupted build's work
    assert store.get_summary("orphan-new") is not None
    time.sleep(0.01)
    assert store.prune(["docA"], keep_unused_days=0) == (0, 1)
    assert store.get_summary("orphan-new") is None
    assert store.tree("docA") is not None  # every summary the tree uses is kept
    assert store.prune([], keep_unused_days=0) == (1, len(ZH_SECTIONS))


def test_a_plain_summary_question_gets_the_document_summary_then_the_chapters_in_order(store: SummaryStore) -> None:
    context = summary_materials(store, "总结一下这份年报", ["docA"], budget_tokens=2000)
    assert [m.meta["node_id"] for m in context.materials] == ["0", "0.1", "0.2", "0.3", "0.4"]
    assert context.named == [] and context.missing == [] and not context.extractive
    first = context.materials[0]
    assert first.chunk_id == "summary:docA:0"
    assert first.source == "星辰集团2023年年度报告.pdf · p. 1-40"
    assert context.tokens <= 2000
    assert context.answer.startswith("《星辰集团2023年年度报告.pdf》摘要：\n星辰集团2023年营业收入120亿元")
    risk_line = "- 第三章 风险管理（p. 21-30）：原材料价格波动风险和汇率风险是主要风险，公司已开展套期保值。 [4]"
    assert risk_line in context.answer


@pytest.mark.parametrize("question", ["概括第四章的主要内容", "第4章讲了什么", "Summarize chapter 4",
                                      "公司治理部分的要点"])
def test_a_named_chapter_selects_that_section_and_zooms_into_its_children(store: SummaryStore, question: str) -> None:
    context = summary_materials(store, question, ["docA"], budget_tokens=2000)
    assert context.named == ["第四章 公司治理"]
    assert [m.meta["node_id"] for m in context.materials] == ["0", "0.4", "0.4.1", "0.4.2"]
    citation = citation_from_metadata(2, context.materials[1].chunk_id, "docA", context.materials[1].meta)
    assert (citation.page, citation.page_end, citation.heading_path) == (31, 40, ["第四章 公司治理"])
    assert citation.label() == "[2] 星辰集团2023年年度报告.pdf · p. 31-40 · 第四章 公司治理"
    child = citation_from_metadata(3, context.materials[2].chunk_id, "docA", context.materials[2].meta)
    assert child.heading_path == ["第四章 公司治理", "第一节 董事会"]


def test_a_question_about_a_topic_ranks_the_sections_that_discuss_it(store: SummaryStore) -> None:
    context = summary_materials(store, "报告中的主要风险有哪些", ["docA"], budget_tokens=2000)
    ids = [m.meta["node_id"] for m in context.materials]
    assert ids[:2] == ["0", "0.3"]
    assert "0.4.2" not in ids  # nothing about risk there


def test_topic_titles_pick_their_sections_without_the_root_or_unrelated_ones(store: SummaryStore) -> None:
    """A report-topic question's title words ("风险管理" for "有哪些风险") select that section and its children only;
    a better title word wins over a worse one, and words no title holds leave the plain behaviour."""
    risks = summary_materials(store, "有哪些风险", ["docA"], budget_tokens=2000, sections=["面临的风险", "风险管理"])
    assert [m.meta["node_id"] for m in risks.materials] == ["0.3"] and risks.topic == ["第三章 风险管理"]
    assert risks.answer.startswith("相关章节：") and "摘要" not in risks.answer
    both = summary_materials(store, "经营情况", ["docA"], budget_tokens=2000, sections=["经营情况", "公司治理"])
    assert [m.meta["node_id"] for m in both.materials] == ["0.1", "0.4", "0.1.1", "0.1.2", "0.4.1", "0.4.2"]
    none = summary_materials(store, "总结一下这份年报", ["docA"], budget_tokens=2000, sections=["分部信息"])
    assert none.topic == [] and none.materials[0].meta["node_id"] == "0"


def test_the_budget_is_kept_and_the_document_summary_is_cut_rather_than_dropped(store: SummaryStore) -> None:
    context = summary_materials(store, "总结", ["docA"], budget_tokens=60)
    assert [m.meta["node_id"] for m in context.materials] == ["0"]
    assert context.tokens <= 60
    assert context.materials[0].meta.get("truncated") is True
    assert context.materials[0].text.endswith("。")


def test_documents_without_a_tree_are_listed_missing_and_english_questions_get_english_text(
    store: SummaryStore,
) -> None:
    context = summary_materials(store, "What are the main risks?", ["docA", "docB"], budget_tokens=2000)
    assert context.missing == ["docB"]
    assert context.language == "en"
    assert context.answer.startswith("Summary of 星辰集团2023年年度报告.pdf:")
    assert "Relevant sections:" in context.answer
    empty = summary_materials(store, "总结", ["docB"], budget_tokens=2000)
    assert empty.materials == [] and empty.missing == ["docB"]
    assert empty.answer == "没有可用的文档摘要。"


def test_several_documents_each_get_their_summary_first(store: SummaryStore) -> None:
    rows = [("0", None, 0, "Annual report 2022", (1, 9), "Revenue fell 3% in 2022."),
            ("0.1", "0", 1, "1. Risks", (2, 5), "Currency risk is the main risk."),
            ("0.2", "0", 1, "2. Outlook", (6, 9), "Growth expected.")]
    tree, summaries = make_tree("docB", "/docs/ar2022.pdf", rows, language="en", extractive=True)
    for summary in summaries:
        store.put_summary(summary)
    store.put_tree(tree)
    context = summary_materials(store, "main risks", ["docA", "docB"], budget_tokens=3000)
    assert [(m.meta["doc_id"], m.meta["node_id"]) for m in context.materials[:2]] == [("docA", "0"), ("docB", "0")]
    assert ("docB", "0.1") in [(m.meta["doc_id"], m.meta["node_id"]) for m in context.materials]
    assert context.extractive
