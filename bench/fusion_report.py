"""Scoring and verdicts for ``bench/bench_fusion_sets.py``: per-query metrics, margins, noise, page hits.

Why per query: "never below the better single retriever by more than noise" needs the noise. A
half of 138 questions moves by about 0.01 Recall@10 when a few near-tied documents at rank 10 swap,
so next to each margin the table gives a paired bootstrap interval (the method minus the better
single retriever, resampled over questions, seeded): a margin below -0.005 whose interval holds 0
is a loss within noise; one whose interval lies below 0 is a real loss.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence

from eval.retrieval_metrics import ndcg_at_k, recall_at_k

METRICS = ("ndcg@10", "recall@10")
PerQuery = dict[str, tuple[float, float]]


def per_query(run: Mapping[str, Sequence[str]], gold: Mapping[str, set[str]]) -> PerQuery:
    """(nDCG@10, Recall@10) per question of ``run`` that has gold."""
    return {q: (ndcg_at_k(run[q], gold[q], 10), recall_at_k(run[q], gold[q], 10)) for q in run if gold.get(q)}


def mean(scores: PerQuery, qids: Sequence[str]) -> tuple[float, float]:
    if not qids:
        return 0.0, 0.0
    return tuple(sum(scores[q][i] for q in qids) / len(qids) for i in range(2))  # type: ignore[return-value]


def best_single(singles: Sequence[PerQuery], qids: Sequence[str]) -> list[PerQuery]:
    """Per metric, the single retriever with the higher mean over ``qids`` (the bar hybrid must reach)."""
    means = [mean(s, qids) for s in singles]
    return [singles[max(range(len(singles)), key=lambda i: means[i][m])] for m in range(2)]


def margin(scores: PerQuery, bars: Sequence[PerQuery], qids: Sequence[str]) -> tuple[float, float]:
    """Mean of the method minus the better single retriever, per metric."""
    return tuple(mean(scores, qids)[m] - mean(bars[m], qids)[m] for m in range(2))  # type: ignore[return-value]


def bootstrap_interval(
    scores: PerQuery, bars: Sequence[PerQuery], qids: Sequence[str], rounds: int = 1000, seed: int = 13
) -> list[tuple[float, float]]:
    """Per metric, the 2.5th and 97.5th percentiles of the resampled mean margin (paired over questions)."""
    if not qids:
        return [(0.0, 0.0), (0.0, 0.0)]
    rng = random.Random(seed)
    out = []
    for m in range(2):
        values = [scores[q][m] - bars[m][q][m] for q in qids]
        means = sorted(sum(rng.choices(values, k=len(values))) / len(values) for _ in range(rounds))
        out.append((means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]))
    return out


_PAGE = re.compile(r"^(?P<report>.+)#p(?P<page>\d+)$")


def page_hit(chunk_hits: Sequence[str], chunk_doc: Mapping[str, str], gold: set[str], k: int = 10) -> bool:
    """Issue 22's count: a chunk among the top ``k`` lies on a gold page or the page before or after it."""
    wanted = set()
    for doc in gold:
        match = _PAGE.match(doc)
        if match:
            page = int(match["page"])
            wanted |= {f"{match['report']}#p{p}" for p in (page - 1, page, page + 1)}
    return any(chunk_doc[c] in wanted for c in chunk_hits[:k])
