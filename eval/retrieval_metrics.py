"""Retrieval metrics with binary relevance, as MTEB / pytrec_eval define them.

* nDCG@k: DCG = sum over ranks i=1..k of rel_i / log2(i + 1); the ideal DCG puts
  min(|gold|, k) relevant documents first. A query without gold is skipped by
  :func:`evaluate` (pytrec_eval does the same) and scores 0 when called directly.
* Recall@k: |relevant in top k| / |gold| (MTEB's recall, not "hit rate").
* MRR@k: 1 / rank of the first relevant document within the top k, else 0.

A ranking that names one document twice counts it once, at its first rank.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

DEFAULT_CUTOFFS = (1, 5, 10, 100)


def _dedup(ranking: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for doc_id in ranking:
        if doc_id not in seen:
            seen.add(doc_id)
            out.append(doc_id)
    return out


def ndcg_at_k(ranking: Sequence[str], gold: set[str], k: int) -> float:
    """Normalised discounted cumulative gain at ``k`` (binary gains, log2 discount)."""
    if not gold or k <= 0:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, doc_id in enumerate(_dedup(ranking)[:k]) if doc_id in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal


def recall_at_k(ranking: Sequence[str], gold: set[str], k: int) -> float:
    """Share of the gold documents found in the top ``k``."""
    if not gold or k <= 0:
        return 0.0
    return len(set(_dedup(ranking)[:k]) & gold) / len(gold)


def mrr_at_k(ranking: Sequence[str], gold: set[str], k: int) -> float:
    """Reciprocal rank of the first gold document within the top ``k`` (0 when none)."""
    for i, doc_id in enumerate(_dedup(ranking)[:k]):
        if doc_id in gold:
            return 1.0 / (i + 1)
    return 0.0


def evaluate(
    run: Mapping[str, Sequence[str]],
    gold: Mapping[str, set[str]],
    recall_cutoffs: Iterable[int] = DEFAULT_CUTOFFS,
    ndcg_k: int = 10,
    mrr_k: int = 10,
) -> dict[str, float]:
    """Mean ``ndcg@10``, ``recall@1/5/10/100``, ``mrr@10`` over the queries that have gold.

    A query in ``gold`` missing from ``run`` counts as an empty ranking (all zeros), so a
    retriever cannot look better by not answering. Also reports ``queries`` (the count).
    """
    qids = [qid for qid, docs in gold.items() if docs]
    cutoffs = list(recall_cutoffs)
    totals = {f"ndcg@{ndcg_k}": 0.0, **{f"recall@{c}": 0.0 for c in cutoffs}, f"mrr@{mrr_k}": 0.0}
    for qid in qids:
        ranking = run.get(qid, [])
        relevant = gold[qid]
        totals[f"ndcg@{ndcg_k}"] += ndcg_at_k(ranking, relevant, ndcg_k)
        for c in cutoffs:
            totals[f"recall@{c}"] += recall_at_k(ranking, relevant, c)
        totals[f"mrr@{mrr_k}"] += mrr_at_k(ranking, relevant, mrr_k)
    n = len(qids)
    result = {name: (value / n if n else 0.0) for name, value in totals.items()}
    result["queries"] = float(n)
    return result
