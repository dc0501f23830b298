"""Pseudo-relevance feedback for the hybrid's BM25 side (RM3), below the plain fusion's first chunks.

Why: news collections repeat a story in many near-duplicate articles that word it differently
("春运从1月17日开始" / "铁路春运自1月17日开始"); a short question matches a few of them, and the rest
share the words of the first hits more than the question's. RM3 (Lavrenko & Croft's relevance model,
mixed with the query as in Anserini / Pyserini) adds the words the first ``FEEDBACK_CHUNKS`` BM25 hits
share and searches again. RGB-zh tuning half, with the fast embedder (USE) only: hybrid Recall@10
0.670 -> 0.712, BM25 alone 0.665 -> 0.713.

Where it does not apply, and why (tuning halves, ``bench/results/fusion_sets.md``):

* The plain fusion's first ``KEPT_HEAD`` chunks keep their places (:func:`keep_head`): on sets with one
  relevant paragraph (MLQA, DRCD, XQuAD) the expanded query drifts to that paragraph's neighbours on the
  same topic (BM25 alone with feedback: MLQA-zh nDCG@10 0.797 -> 0.749 without a kept head).
* Only when BM25 reads the question (:func:`feedback_applies`): an English question over Chinese
  paragraphs matches a few names, and feedback from those paragraphs pulled the dense side's answers
  down (MLQA en->zh Recall@10 0.848 -> 0.837).

Pure functions over plain data, plus :func:`feedback_search`, which reads an index through its protocol.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from retrieval.fusion import SCRIPT_PRESENT, bm25_readability
from retrieval.query_signals import QuerySignals

if TYPE_CHECKING:
    from indexing.contracts import KeywordIndex

Hits = list[tuple[str, float]]

#: Feedback chunks, expansion terms and the original query's share: Anserini's RM3 defaults, except
#: 20 expansion terms rather than 10 (RGB-zh tuning half Recall@10 0.690 with 10, 0.711 with 20, 0.708 with 30).
FEEDBACK_CHUNKS = 10
ORIGINAL_WEIGHT = 0.5
#: The plain ranking's first chunks that keep their places (BM25 alone with feedback, MLQA-zh tuning half
#: nDCG@10: head 1 0.788, head 3 0.797, BM25's own 0.797; the result page holds 10).
KEPT_HEAD = 3


def relevance_model(
    query_terms: Sequence[str], feedback: Sequence[tuple[Sequence[str], float]], n_terms: int
) -> dict[str, float]:
    """RM3 term weights: the query's term shares and the feedback's ``n_terms`` best, mixed: the query's
    part sums to ``ORIGINAL_WEIGHT``, the feedback's to the rest.

    ``feedback`` is (the chunk's index terms, its BM25 score) per feedback chunk; a chunk's vote for a
    term is the term's share of the chunk, weighed by the chunk's share of the feedback scores.
    """
    weights: dict[str, float] = {}
    for term, count in Counter(query_terms).items():
        weights[term] = ORIGINAL_WEIGHT * count / len(query_terms)
    total_score = sum(score for terms, score in feedback if terms)
    model: dict[str, float] = {}
    for terms, score in feedback:
        if terms and total_score > 0:
            for term, count in Counter(terms).items():
                model[term] = model.get(term, 0.0) + (score / total_score) * count / len(terms)
    best = sorted(model.items(), key=lambda item: -item[1])[:n_terms]  # stable: ties keep first-seen order
    mass = sum(value for _, value in best)
    for term, value in best:
        weights[term] = weights.get(term, 0.0) + (1.0 - ORIGINAL_WEIGHT) * value / mass
    return weights


def keep_head(original: Hits, expanded: Hits, keep: int = KEPT_HEAD) -> Hits:
    """``original``'s first ``keep`` hits in their order, then ``expanded``'s others.

    Scores stay on the expanded search's scale: a head chunk scores at least what every chunk after
    it scores (its own expanded score when higher), so a fusion that scales scores sees the same order.
    """
    head = original[:keep]
    head_ids = {cid for cid, _ in head}
    tail = [(cid, score) for cid, score in expanded if cid not in head_ids]
    own = dict(expanded)
    floor = tail[0][1] if tail else 0.0
    lifted: Hits = []
    for cid, _ in reversed(head):
        floor = max(own.get(cid, 0.0), floor)
        lifted.append((cid, floor))
    return lifted[::-1] + tail


def feedback_applies(signals: QuerySignals, n_terms: int) -> bool:
    """True when feedback is on (``n_terms`` > 0) and BM25 reads the question: its terms are known to the
    index (``bm25_readability`` 1, the fusion's own test) and its script is present in the corpus
    (``SCRIPT_PRESENT``, the fusion's threshold), so the feedback chunks are in the question's language."""
    return n_terms > 0 and bm25_readability(signals) >= 1.0 and signals.script_in_corpus >= SCRIPT_PRESENT


def feedback_chunks(hits: Hits, n: int = FEEDBACK_CHUNKS) -> list[str]:
    """The chunk ids whose terms the relevance model reads: the first ``n`` with a positive score."""
    return [cid for cid, score in hits[:n] if score > 0]


def expansion_weights(
    query_terms: Sequence[str], hits: Hits, chunk_terms: Mapping[str, Sequence[str]], n_terms: int
) -> dict[str, float]:
    """:func:`relevance_model` over the feedback chunks of ``hits`` (chunks without terms are skipped)."""
    feedback = [(chunk_terms.get(cid, ()), score) for cid, score in hits[:FEEDBACK_CHUNKS] if score > 0]
    return relevance_model(query_terms, feedback, n_terms)


def feedback_search(
    index: KeywordIndex,
    query: str,
    hits: Hits,
    n_terms: int,
    depth: int,
    allowed: set[str] | None = None,
) -> Hits:
    """``hits`` (``index``'s ranking of ``query``) re-ranked by RM3 with the head kept, ``depth`` deep.

    The feedback chunks' terms are the index's own (``KeywordIndex.term_counts``: both BM25 back-ends keep
    each chunk's term counts), so nothing is tokenized again; a chunk the index lacks gives no terms.
    """
    if n_terms <= 0 or not hits:
        return hits
    counted = index.term_counts(feedback_chunks(hits))
    chunk_terms = {cid: [term for term, n in counts.items() for _ in range(n)] for cid, counts in counted.items()}
    weights = expansion_weights(index.tokenize(query), hits, chunk_terms, n_terms)
    return keep_head(hits, index.search_weighted(weights, depth, allowed))
