"""The bilingual rule over a real BM25 index: a knowledge base holding the same paragraphs in English and Chinese.

The signals (question script, corpus script shares, each candidate's script) come from the product's own index
through ``query_signals_for``; the dense list is what an embedder reading both languages returns (literal cosines:
the rule under test is the fusion's, not the model's)."""

from __future__ import annotations

from indexing.bm25_index import BM25Index
from officeqa.settings import RetrievalSettings
from retrieval.fusion import fuse_hybrid
from retrieval.fusion_languages import other_language_high
from retrieval.search import query_signals_for

PARAGRAPHS = {
    "zh-rhine": "莱茵河发源于瑞士阿尔卑斯山，流经德国和荷兰，注入北海，全长约一千二百三十公里。",
    "zh-nile": "尼罗河是非洲最长的河流，流经埃及，注入地中海。",
    "zh-alps": "阿尔卑斯山是欧洲最高的山脉，横跨瑞士、法国和意大利。",
    "en-rhine": "The Rhine rises in the Swiss Alps, flows through Germany and the Netherlands into the North Sea, "
                "about 1,230 kilometres long.",
    "en-nile": "The Nile is the longest river in Africa, flowing through Egypt into the Mediterranean.",
    "en-alps": "The Alps are the highest mountain range in Europe, across Switzerland, France and Italy.",
}


def _index() -> BM25Index:
    index = BM25Index()
    index.add(list(PARAGRAPHS), list(PARAGRAPHS.values()))
    return index


def test_the_other_languages_answer_reaches_the_second_place_though_bm25_cannot_match_it():
    index = _index()
    question = "莱茵河流经哪些国家？"
    bm25 = index.search(question, 10)
    assert bm25[0][0] == "zh-rhine" and all(doc.startswith("zh-") for doc, _ in bm25)
    # dense reads both languages; it is unsure between the two Rhine paragraphs and an Alps one
    dense = [("en-alps", 0.62), ("zh-alps", 0.61), ("en-rhine", 0.60), ("zh-rhine", 0.58), ("zh-nile", 0.3),
             ("en-nile", 0.28)]
    signals = query_signals_for(index, question, [doc for doc, _ in dense], None, "fast")
    assert signals.unreadable_by_bm25("en-rhine") and not signals.unreadable_by_bm25("zh-alps")
    fused = [doc for doc, _ in fuse_hybrid(bm25, dense, RetrievalSettings(), signals)]
    assert fused[0] == "zh-rhine"  # the question's language: BM25's say
    assert fused[1] == "en-alps"  # the other language in dense's order, one each in turn
    assert fused.index("en-rhine") == 3
    assert set(fused) == set(PARAGRAPHS)


def test_a_one_language_knowledge_base_keeps_the_plain_fusion():
    index = BM25Index()
    chinese = {doc: text for doc, text in PARAGRAPHS.items() if doc.startswith("zh-")}
    index.add(list(chinese), list(chinese.values()))
    question = "莱茵河流经哪些国家？"
    bm25 = index.search(question, 10)
    dense = [("zh-alps", 0.62), ("zh-rhine", 0.58), ("zh-nile", 0.3)]
    signals = query_signals_for(index, question, [doc for doc, _ in dense], None, "fast")
    fused = [doc for doc, _ in fuse_hybrid(bm25, dense, RetrievalSettings(), signals)]
    assert fused[0] == "zh-rhine"
    assert signals.corpus_scripts and signals.corpus_scripts.get("en", 0.0) == 0.0


def test_no_interleaving_when_dense_ranks_the_other_language_low():
    """Different documents in two languages (Chinese reports among English ones): dense puts the other language's
    chunks below its first five, so they are no translation of the answer and are not interleaved."""
    more = {"zh-danube": "多瑙河流经德国、奥地利和匈牙利等国家，注入黑海。",
            "zh-elbe": "易北河流经捷克和德国，注入北海。",
            "zh-seine": "塞纳河流经法国巴黎，注入英吉利海峡。"}
    index = BM25Index()
    index.add([*PARAGRAPHS, *more], [*PARAGRAPHS.values(), *more.values()])
    question = "莱茵河流经哪些国家？"
    bm25 = index.search(question, 10)
    dense = [("zh-rhine", 0.7), ("zh-danube", 0.6), ("zh-elbe", 0.58), ("zh-seine", 0.5), ("zh-nile", 0.45),
             ("en-rhine", 0.40), ("en-alps", 0.30), ("zh-alps", 0.29), ("en-nile", 0.28)]
    signals = query_signals_for(index, question, [doc for doc, _ in dense], None, "fast")
    assert not other_language_high(dense, signals)
    fused = [doc for doc, _ in fuse_hybrid(bm25, dense, RetrievalSettings(), signals)]
    assert fused[:2] == ["zh-rhine", "zh-danube"]  # no English chunk cut in second
    high = [("en-rhine", 0.8), *dense]  # the same list with the English version first: interleaved
    signals = query_signals_for(index, question, [doc for doc, _ in high], None, "fast")
    assert other_language_high(high, signals)
    assert [doc for doc, _ in fuse_hybrid(bm25, high, RetrievalSettings(), signals)][:2] == ["zh-rhine", "en-rhine"]
