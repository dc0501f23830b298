"""The dense side of a search: the background model's vectors for the chunks they cover, the fast ones elsewhere.

Why two stores: the fast model (USE) embeds every chunk at indexing; the stronger background model
(:mod:`indexing.strong`) catches up later. Per query:

* the strong store covers the whole scope (the knowledge base, or the chunks the filters allow): it
  alone ranks, with the question embedded by the strong model only;
* it covers part of it: the strong store ranks the chunks it covers, the fast store the others (its
  hits on covered chunks are dropped: the strong vector of a chunk replaces its fast one, never adds a
  second vote), and the two lists are merged;
* it covers none of it (or the model is off): the fast store alone, exactly as before.

Merging two models' cosines: their scales differ (e5 packs cosines into ~0.75-0.9, USE spreads them over
~0.1-0.7), so raw scores would rank one model's hits above all of the other's. Each fast score is
mapped onto the strong list's scale by matching the mean and spread of the two candidate lists (a
z-score per list, expressed in strong units): a hit ranks by how far it stands out among its own
model's candidates. Fusion (retrieval/fusion.py) then treats the merged list as one dense ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from indexing.contracts import VectorIndex
    from indexing.knowledge_base import KnowledgeBase

Hits = list[tuple[str, float]]


_QUESTIONS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="officeqa-question")
"""Background-model question passes started before BM25 ranks (:func:`start_strong_question`)."""

FAST, STRONG, BOTH = "fast", "strong", "both"
"""Which model ranked (``QuerySignals.dense_model``): the fusion trusts a list the strong model ranked alone
more than one the fast model had a hand in (``retrieval/fusion.py``, ``_guarded_scales``)."""


def dense_ranking(
    kb: KnowledgeBase, query: str, depth: int, where: dict[str, Any] | None, vector: np.ndarray | None = None
) -> Hits:
    """The ``depth`` best chunks by vector similarity (see the module docstring); ``vector`` is a fast-model
    query embedding made earlier (the eval embeds its questions in one batch)."""
    return ranked_dense(kb, query, depth, where, vector)[0]


def ranked_dense(
    kb: KnowledgeBase,
    query: str,
    depth: int,
    where: dict[str, Any] | None,
    vector: np.ndarray | None = None,
    strong_vector: Future[np.ndarray] | None = None,
) -> tuple[Hits, str]:
    """:func:`dense_ranking` and which model ranked: ``STRONG`` when its store covers the scope, else the
    models whose hits the merged list holds (``FAST`` for a scope the strong store has none of).
    ``strong_vector``: the background model's embedding of ``query``, begun earlier (:func:`start_strong_question`)."""
    strong = kb.strong.reader()
    if strong is None or (strong_vector is None and not kb.strong.holds_any()):  # begun: it held some then
        return fast_ranking(kb, query, depth, where, vector), FAST
    if _covers_scope(kb, strong, where):
        return _strong_ranking(kb, strong, query, depth, where, strong_vector), STRONG
    strong_hits = _strong_ranking(kb, strong, query, depth, where, strong_vector)
    fast_hits = fast_ranking(kb, query, depth, where, vector)
    covered = set(strong.existing([cid for cid, _ in fast_hits]))
    rest = [h for h in fast_hits if h[0] not in covered]
    model = BOTH if strong_hits and rest else STRONG if strong_hits else FAST
    return merge_by_moments(strong_hits, rest, depth), model


def fast_ranking(
    kb: KnowledgeBase, query: str, depth: int, where: dict[str, Any] | None, vector: np.ndarray | None
) -> Hits:
    """The fast store's ranking (the question embedded by the fast model unless ``vector`` is given)."""
    if kb.vectors.model is None and kb.vectors.count() == 0:  # a claimed store answers an empty query itself
        return []
    if vector is None:
        vector = kb.embedder.embed_query(query)
    return kb.vectors.query(vector, depth, kb.model, where)


def start_strong_question(kb: KnowledgeBase, query: str) -> Future[np.ndarray] | None:
    """Embed ``query`` with the background model on a worker thread, when its store will rank (part of) it.

    Why: with the strong store covering a knowledge base, the question's e5 pass is the largest part of a
    hybrid query; onnxruntime releases the GIL, so it runs on the other core while BM25 ranks. None when
    the strong store has nothing yet (the fast model alone ranks, as before)."""
    embedder = kb.strong.embedder
    if embedder is None or kb.strong.reader() is None or not kb.strong.holds_any():
        return None
    return _QUESTIONS.submit(embedder.query_pass(query))  # its Python part (tokenizing) done here, first


def _strong_ranking(
    kb: KnowledgeBase,
    strong: VectorIndex,
    query: str,
    depth: int,
    where: dict[str, Any] | None,
    started: Future[np.ndarray] | None = None,
) -> Hits:
    embedder = kb.strong.embedder
    assert embedder is not None  # reader() is None when the model is off
    vector = started.result() if started is not None else embedder.embed_query(query)
    return strong.query(vector, depth, kb.strong.model, where)


def _covers_scope(kb: KnowledgeBase, strong: VectorIndex, where: dict[str, Any] | None) -> bool:
    """Does every chunk in scope have a strong vector? (The strong store holds only chunks of indexed
    documents, kept in step with the registry by the commit protocol.) The whole knowledge base and a scope
    of documents (what questions naming a document search) are look-ups in the per-document coverage
    (``StrongVectors.covers_all``/``covers_docs``, counted once per state of the knowledge base); other
    filters (page, sheet, kind...) count the scope in both stores."""
    if not where:
        return kb.strong.covers_all()
    docs = scope_documents(where)
    if docs is not None:
        return kb.strong.covers_docs(docs)
    return len(strong.ids_where(where)) >= len(kb.vectors.ids_where(where))


def background_coverage(kb: KnowledgeBase, doc_ids: Sequence[str] | None) -> dict[str, Any] | None:
    """The answer's ``background_model`` metadata: the background model and ``partial: true`` when it does not yet
    cover the documents in scope (``doc_ids``; None = the whole knowledge base), so a reader knows the answer's
    dense ranking rests partly or wholly on the fast model. None when the model is off or covers the scope.
    Costs two metadata reads: the coverage is counted once per state of the knowledge base."""
    if not kb.strong.enabled:
        return None
    covered = kb.strong.covers_docs(doc_ids) if doc_ids else kb.strong.covers_all()
    if covered:
        return None
    return {"model": kb.strong.model[0], "partial": True, "holds_any": kb.strong.holds_any()}


def scope_documents(where: dict[str, Any]) -> list[str] | None:
    """The doc ids a Chroma ``where`` on ``doc_id`` alone ($eq or $in) allows; None for any other filter."""
    if list(where) != ["doc_id"] or not isinstance(where["doc_id"], dict) or len(where["doc_id"]) != 1:
        return None
    op, value = next(iter(where["doc_id"].items()))
    if op == "$eq":
        return [str(value)]
    return [str(v) for v in value] if op == "$in" else None


def merge_by_moments(strong: Sequence[tuple[str, float]], fast: Sequence[tuple[str, float]], depth: int) -> Hits:
    """One ranking from two models' hit lists: fast scores mapped onto the strong list's mean and spread,
    best first, at most ``depth``. Either list alone comes back unchanged (cut to ``depth``)."""
    if not fast or not strong:
        return sorted([*strong, *fast], key=lambda h: -h[1])[:depth]
    s_scores = np.asarray([s for _, s in strong], dtype=np.float64)
    f_scores = np.asarray([s for _, s in fast], dtype=np.float64)
    s_mean, s_std = float(s_scores.mean()), float(s_scores.std())
    f_mean, f_std = float(f_scores.mean()), float(f_scores.std())
    scale = s_std / f_std if f_std > 1e-9 and s_std > 1e-9 else 1.0
    mapped = [(cid, s_mean + (score - f_mean) * scale) for cid, score in fast]
    return sorted([*strong, *mapped], key=lambda h: -h[1])[:depth]


__all__ = ["BOTH", "FAST", "STRONG", "background_coverage", "dense_ranking", "fast_ranking", "merge_by_moments",
           "ranked_dense", "scope_documents"]
