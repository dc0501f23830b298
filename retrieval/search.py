"""Search a knowledge base: BM25, dense or hybrid ranking, filters, de-duplication, threshold.

Why the steps are separate functions: ``rank_chunks`` is the raw ranking (what the
retrieval eval measures, collapsed to documents by ``rank_documents``), while ``search``
adds what a reader needs — texts and metadata, overlapping neighbours folded into the
better one, and an optional score floor. ``dedupe_overlaps`` is pure and tested with
literal hits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from retrieval.dense import STRONG, ranked_dense, start_strong_question
from retrieval.feedback import feedback_applies, feedback_search, keep_head
from retrieval.filters import to_chroma_where, validate_filters
from retrieval.fusion import fuse_hybrid
from retrieval.fusion_languages import same_language_rerank
from retrieval.query_signals import query_signals
from retrieval.search_pages import page_diverse, settled

if TYPE_CHECKING:
    import numpy as np

    from indexing.bm25_index import BM25Index
    from indexing.knowledge_base import KnowledgeBase
    from retrieval.query_signals import QuerySignals

Mode = Literal["bm25", "dense", "hybrid"]
MODES: tuple[str, ...] = ("bm25", "dense", "hybrid")
SIGNAL_FUSIONS: tuple[str, ...] = ("guarded", "guarded_abstain", "adaptive")
"""Fusions that read per-query signals (``retrieval/query_signals.py``); feedback rides on their readability test."""


@dataclass(slots=True)
class SearchHit:
    """One retrieved chunk with its score (scale depends on the mode) and provenance."""

    chunk_id: str
    doc_id: str
    score: float
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "score": round(self.score, 6),
            "text": self.text,
            "metadata": self.metadata,
        }


def rank_chunks(
    kb: KnowledgeBase,
    query: str,
    mode: str = "hybrid",
    depth: int | None = None,
    filters: Mapping[str, Any] | None = None,
    query_vector: np.ndarray | None = None,
) -> list[tuple[str, float]]:
    """Chunk ids ranked best first with the mode's score, at most ``depth`` per retriever.

    ``query_vector`` reuses an embedding made earlier (the eval embeds all questions in one batch).
    """
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
    settings = kb.settings.retrieval
    depth = int(depth or settings.candidate_depth)
    where = to_chroma_where(validate_filters(filters))
    started = start_strong_question(kb, query) if mode == "hybrid" else None  # runs while BM25 ranks
    allowed = set(kb.vectors.ids_where(where)) if where else None
    if allowed is not None and not allowed:
        return []
    bm25_hits = kb.bm25.search(query, depth, allowed) if mode in ("bm25", "hybrid") else []
    if mode == "bm25":
        return bm25_hits
    in_scope = scope_documents(filters)
    expanded = _feedback_list(kb, query, bm25_hits, depth, allowed, in_scope) if mode == "hybrid" else None
    dense_hits, ranked_by = ranked_dense(kb, query, depth, where, query_vector, started)
    if mode == "dense":
        return dense_hits
    return _hybrid(kb, query, (bm25_hits, dense_hits), ranked_by, depth, expanded)


def scope_documents(filters: Mapping[str, Any] | None) -> int:
    """How many documents ``filters`` restrict the search to by ``doc_id`` (0: not restricted by document).

    Why: inside one company's reports every page shares the words the BM25 feedback picks from the first hits
    (the company, the year, the statements' headings), so feedback there drifts to other pages
    (:func:`_feedback_list`)."""
    condition = (filters or {}).get("doc_id")
    if isinstance(condition, Mapping):
        values = condition.get("$in")
        return len(values) if isinstance(values, list | tuple) else 1 if "$eq" in condition else 0
    return 1 if isinstance(condition, str) else 0


def _feedback_list(
    kb: KnowledgeBase, query: str, bm25_hits: list[tuple[str, float]], depth: int, allowed: set[str] | None,
    in_scope: int = 0,
) -> list[tuple[str, float]] | None:
    """BM25's ranking with pseudo-relevance feedback (``retrieval/feedback.py``), or None where it does not apply.

    Not inside a scope of named documents (``in_scope``, :func:`scope_documents`: a question naming its company is
    searched in that company's reports): the first hits' most shared terms are then the report's own (its name,
    year, statement headings), which every page holds, so the expanded query drifts from the figure asked to
    the report's busiest pages. 16 annual reports in one knowledge base, questions of the 8 tuning reports
    scoped by company: gold page ±1 in the top 10 for 70 of 108 with feedback, 75 without (BM25 alone 73;
    ``bench/results/report_retrieval.md``); the sets without a scope (``bench/results/fusion_sets.md``) keep it.
    Computed before the dense ranking, while the background model's question pass runs on its worker thread:
    whether feedback applies reads only BM25-side signals (``bm25_readability``), not the dense candidates."""
    settings = kb.settings.retrieval
    if settings.feedback_terms <= 0 or settings.fusion not in SIGNAL_FUSIONS or in_scope:
        return None
    if not feedback_applies(query_signals_for(kb.bm25, query), settings.feedback_terms):
        return None
    return feedback_search(kb.bm25, query, bm25_hits, settings.feedback_terms, depth, allowed)


def _hybrid(
    kb: KnowledgeBase, query: str, lists: tuple[list[tuple[str, float]], list[tuple[str, float]]], ranked_by: str,
    depth: int, expanded: list[tuple[str, float]] | None,
) -> list[tuple[str, float]]:
    """The fused ranking of (BM25, dense) ``lists``; where feedback applied (``expanded``: BM25 with it, from
    :func:`_feedback_list`) the expanded list fused with the dense one below the plain fusion's first chunks."""
    bm25_hits, dense_hits = lists
    settings = kb.settings.retrieval
    fusion_settings = settings
    if depth > settings.candidate_depth:
        fusion_settings = settings.model_copy(update={"candidate_depth": depth})
    signals = None
    if settings.fusion in SIGNAL_FUSIONS:
        # Only adaptive and guarded_abstain read the candidates' scripts (BM25 abstains on them); guarded needs none.
        candidates = [cid for cid, _ in dense_hits[:depth]] if settings.fusion != "guarded" else []
        model = kb.strong.embedder if ranked_by == STRONG else None
        scripts = (model or kb.embedder).scripts
        signals = query_signals_for(kb.bm25, query, candidates, scripts, ranked_by)
    fused = fuse_hybrid(bm25_hits, dense_hits, fusion_settings, signals)
    if signals is None or expanded is None:
        return fused
    # feedback moves only the question's language's chunks: its terms know nothing of the other language's
    return same_language_rerank(fused, keep_head(fused, fuse_hybrid(expanded, dense_hits, fusion_settings, signals)),
                                signals)


def without_naming_words(query: str, naming: Sequence[str]) -> str:
    """``query`` less the words that chose its scope's documents (their names, "对比新旧两版").

    Inside a scope those words match every document alike, so BM25 ranks each document's title
    chunk first: a comparison of two versions of one policy ranked both title pages and both
    "总则" above the password clauses it asked about. Longer words go first (a title before the
    name inside it); words under two characters are kept; when nothing of two characters or more
    remains, the query is returned unchanged.
    """
    out = query
    for word in sorted({w.strip() for w in naming if len(w.strip()) >= 2}, key=len, reverse=True):
        out = out.replace(word, " ")
    remainder = "".join(ch for ch in out if ch.isalnum())
    return " ".join(out.split()) if len(remainder) >= 2 else query


def query_signals_for(
    index: BM25Index,
    query: str,
    candidates: Iterable[str] = (),
    dense_scripts: frozenset[str] | None = None,
    dense_model: str = "fast",
) -> QuerySignals:
    """The per-query facts adaptive fusion decides on: script, BM25 term coverage, corpus scripts,
    the script of the dense ``candidates`` (so BM25 abstains on documents it cannot read), the
    scripts the embedder reads (``Embedder.scripts``) and which model ranked (``retrieval/dense.py``).

    Costs one tokenization (~0.1 ms for a question), dictionary look-ups and, per candidate, a
    look-up of its term scripts; the corpus script shares are cached by the index between writes.
    """
    tokens = index.tokenize(query)
    return query_signals(
        query,
        index.document_frequencies(tokens),
        len(index),
        index.script_shares(),
        index.document_scripts(candidates),
        dense_scripts,
        dense_model,
    )


def rank_documents(
    kb: KnowledgeBase,
    query: str,
    mode: str,
    n_docs: int,
    chunk_doc: Mapping[str, str],
    total_chunks: int,
    query_vector: np.ndarray | None = None,
) -> list[str]:
    """Document ids best first: each document at its best chunk's rank (ties keep chunk order).

    The head is exactly the product's ranking at the configured depth; when it holds fewer
    than ``n_docs`` documents, the tail is filled from deeper rankings (chunk depth doubling
    until ``n_docs`` documents or every chunk), so metrics at 100 see 100 documents without
    the deeper candidate pool changing the order users get at the top.
    """
    depth = max(n_docs, kb.settings.retrieval.candidate_depth)
    docs: list[str] = []
    while True:
        ranked = rank_chunks(kb, query, mode, depth, query_vector=query_vector)
        seen = set(docs)
        docs.extend(d for d in collapse_to_documents([cid for cid, _ in ranked], chunk_doc) if d not in seen)
        if len(docs) >= n_docs or depth >= total_chunks:
            return docs[:n_docs]
        depth = min(total_chunks, depth * 2)


def collapse_to_documents(chunk_ids: Iterable[str], chunk_doc: Mapping[str, str]) -> list[str]:
    """Keep each document's first (best) appearance, in ranking order."""
    seen: dict[str, None] = {}
    for cid in chunk_ids:
        doc_id = chunk_doc.get(cid)
        if doc_id is not None and doc_id not in seen:
            seen[doc_id] = None
    return list(seen)


def dedupe_overlaps(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Drop a hit that overlaps a better hit of the same document (neighbouring positions).

    Consecutive chunks share ``overlap_chars`` characters (recorded on the later chunk);
    two such neighbours mostly repeat each other, so the lower-ranked one goes. Hits
    without a position, or neighbours without overlap, are all kept.
    """
    kept: list[SearchHit] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    for hit in hits:
        position = hit.metadata.get("position")
        if position is None:
            kept.append(hit)
            continue
        position = int(position)
        overlap = int(hit.metadata.get("overlap_chars", 0) or 0)
        neighbours = taken.setdefault(hit.doc_id, [])
        if any(_overlapping(position, overlap, p, o) for p, o in neighbours):
            continue
        neighbours.append((position, overlap))
        kept.append(hit)
    return kept


def _overlapping(pos_a: int, overlap_a: int, pos_b: int, overlap_b: int) -> bool:
    if pos_a == pos_b:
        return True
    if abs(pos_a - pos_b) != 1:
        return False
    later_overlap = overlap_a if pos_a > pos_b else overlap_b
    return later_overlap > 0


def search(
    kb: KnowledgeBase,
    query: str,
    mode: str = "hybrid",
    k: int | None = None,
    filters: Mapping[str, Any] | None = None,
    *,
    dedupe: bool = True,
    score_threshold: float | None = None,
    query_vector: np.ndarray | None = None,
    page_gap: int | None = None,
) -> list[SearchHit]:
    """The ``k`` best chunks for ``query``, with texts and metadata; a further chunk of a page already among
    them moves ``page_gap`` places down (default ``settings.retrieval.page_repeat_gap``; ``retrieval/search_pages.py``).

    ``score_threshold`` (default: ``settings.retrieval.score_threshold``) drops hits whose
    score is below it; the score scale is the mode's (BM25, cosine, or fused).
    ``query_vector`` reuses a query embedding made earlier.
    """
    settings = kb.settings.retrieval
    k = int(k or settings.top_k)
    threshold = settings.score_threshold if score_threshold is None else score_threshold
    ranked = rank_chunks(kb, query, mode, max(settings.candidate_depth, 3 * k), filters, query_vector)
    if threshold is not None:
        ranked = [(cid, score) for cid, score in ranked if score >= threshold]
    gap = settings.page_repeat_gap if page_gap is None else page_gap
    hits: list[SearchHit] = []
    start = 0
    window = max(2 * k, 20)
    while settled(hits, gap) < k and start < len(ranked):
        page = ranked[start : start + window]
        stored = kb.fetch(cid for cid, _ in page)
        for cid, score in page:
            if cid not in stored:
                continue  # the stores disagree; `officeqa check` reports it
            text, meta = stored[cid]
            hits.append(SearchHit(cid, str(meta.get("doc_id", "")), float(score), text, meta))
        if dedupe:
            hits = dedupe_overlaps(hits)
        start += window
    return page_diverse(hits, gap)[:k]
