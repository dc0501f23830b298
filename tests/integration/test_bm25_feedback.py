"""Pseudo-relevance feedback in hybrid search (retrieval/feedback.py) through a real knowledge base.

A story told by several news chunks: three use the question's words, one tells the same story in
other words (no question word at all), and unrelated chunks each share one question word. BM25
cannot rank the differently worded chunk (it matches nothing) and the dense side (the hashing
embedder) ranks it last; with feedback it comes right after the plain fusion's first three chunks,
which keep their places, above every unrelated chunk. An English question, which BM25 cannot read
over these Chinese chunks, is ranked as without feedback.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.retrieval_eval import index_corpus
from indexing.knowledge_base import KnowledgeBase
from officeqa.settings import EmbeddingSettings, RetrievalSettings, Settings
from retrieval import search
from retrieval.search import rank_chunks

STORY = {
    "a1": "瓦希诺德维寺新年踩踏事故造成12人死亡，大批印度民众聚集庆贺新年，14人受伤，伤者送往医院救治。",
    "a2": "印控克什米尔瓦希诺德维寺发生踩踏事故：大批印度民众聚集庆贺新年，12人死亡14人受伤。",
    "a3": "瓦希诺德维寺踩踏事故后，印度总理莫迪对大批民众在新年庆贺中的伤亡深感悲痛。",
    "other-words": "印度民众聚集庆贺新年时挤倒，12人死亡14人受伤，伤者送往医院救治，总理莫迪深感悲痛。",
}
UNRELATED = {
    "u1": "地铁站台发生踩踏演练，消防部门讲解疏散要点。",
    "u2": "这家寺庙的新年庙会吸引了许多游客。",
    "u3": "交通事故致两车受损，无人伤亡。",
    "u4": "体育馆门口排队购票，秩序良好。",
}
QUESTION = "瓦希诺德维寺踩踏事故"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("feedback-kb")
    kb = KnowledgeBase(Settings(data_dir=folder, embedding=EmbeddingSettings(backend="hash")))
    try:
        index_corpus(kb, [{"id": doc_id, "text": text} for doc_id, text in {**STORY, **UNRELATED}.items()])
    finally:
        kb.close()
    yield folder


def ranked_docs(data_dir: Path, question: str, feedback_terms: int) -> list[str]:
    settings = Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(backend="hash"),
        retrieval=RetrievalSettings(feedback_terms=feedback_terms),
    )
    with KnowledgeBase(settings) as kb:
        return [cid.rsplit("-", 1)[0] for cid, _ in rank_chunks(kb, question, mode="hybrid", depth=8)]  # <doc>-<pos>


def test_without_feedback_the_story_told_in_other_words_comes_last(data_dir: Path) -> None:
    plain = ranked_docs(data_dir, QUESTION, 0)
    assert set(plain[:3]) == {"a1", "a2", "a3"}
    assert plain[-1] == "other-words"  # BM25 cannot match it, and the dense side ranks it below the unrelated


def test_feedback_lifts_it_right_below_the_plain_head(data_dir: Path) -> None:
    plain = ranked_docs(data_dir, QUESTION, 0)
    expanded = ranked_docs(data_dir, QUESTION, 20)
    assert expanded[:3] == plain[:3]  # the plain fusion's first chunks keep their places
    assert expanded[3] == "other-words"
    assert sorted(expanded) == sorted(plain)


def test_no_feedback_when_bm25_cannot_read_the_question(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Mostly English over Chinese chunks: BM25 knows only "踩踏事故", too little of the question to read it.
    question = "Vaishno Devi temple stampede 踩踏事故"
    plain = ranked_docs(data_dir, question, 0)
    assert ranked_docs(data_dir, question, 20) == plain
    monkeypatch.setattr(search, "feedback_applies", lambda signals, n_terms: n_terms > 0)  # the gate, lifted
    assert ranked_docs(data_dir, question, 20) != plain  # so the gate is what kept the ranking


def test_no_feedback_inside_a_scope_of_named_documents(data_dir: Path) -> None:
    """A question searched inside the documents it names (``doc_id`` filter): the first hits' shared terms are
    the scope's own words, so feedback is not applied there (``search._feedback_list``)."""
    every = {"doc_id": {"$in": sorted({**STORY, **UNRELATED})}}
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(backend="hash"))
    with KnowledgeBase(settings) as kb:
        scoped = [cid.rsplit("-", 1)[0] for cid, _ in rank_chunks(kb, QUESTION, mode="hybrid", depth=8, filters=every)]
    assert scoped == ranked_docs(data_dir, QUESTION, 0)  # as without feedback, though the scope holds every chunk
    assert scoped != ranked_docs(data_dir, QUESTION, 20)


def test_scope_documents_counts_the_documents_a_filter_names() -> None:
    assert search.scope_documents(None) == 0
    assert search.scope_documents({"file_type": "pdf"}) == 0
    assert search.scope_documents({"doc_id": "ab12"}) == 1
    assert search.scope_documents({"doc_id": {"$eq": "ab12"}}) == 1
    assert search.scope_documents({"doc_id": {"$in": ["ab12", "cd34"]}}) == 2
    assert search.scope_documents({"doc_id": {"$ne": "ab12"}}) == 0
