"""Per-list score scalings for ``retrieval/fusion.py``: pure functions over one retriever's (id, score) list.

Why a module of their own: each fusion puts the two retrievers' scores on one scale before mixing them, and
the scale decides who wins (``bench/results/fusion_sets.md``): min-max stretches any list to [0, 1], z-scores
centre it, and :func:`cosine_confidence` keeps a cosine list's own spread so that a flat list (an embedder
that cannot tell the candidates apart) has little say.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Scored = Sequence[tuple[str, float]]


def cosine_confidence(head: Scored) -> dict[str, float]:
    """(cos - lowest) / (1 - lowest) over the list: min-max against the cosine's own maximum, 1.

    A list whose cosines differ by noise (0.55 .. 0.60) gets values near 0 instead of a full [0, 1] spread,
    so it reorders BM25's near-ties at most; a list with a clear top keeps it. The lowest score is the list's
    own, so an embedder whose cosines are all high (e5: 0.75 .. 0.9) is not penalised for its offset.
    """
    if not head:
        return {}
    low = min(score for _, score in head)
    span = 1.0 - low
    return {doc_id: ((score - low) / span if span > 1e-12 else 1.0) for doc_id, score in head}


def min_max(head: Scored, floor: float | None = None) -> dict[str, float]:
    """(score - lowest) / (best - lowest) over the list, ``floor`` as the lowest when given; a flat list
    gives 1 to every id."""
    if not head:
        return {}
    values = [score for _, score in head]
    low = min(values) if floor is None else min(floor, min(values))
    span = max(values) - low
    return {doc_id: ((score - low) / span if span > 1e-12 else 1.0) for doc_id, score in head}


def zscores(scored: Scored, pad_to: int) -> tuple[dict[str, float], float, int]:
    """z-value per id, the floor (z of the lowest score or of the zero padding), and the padding count."""
    if not scored:
        return {}, 0.0, 0
    values = [score for _, score in scored]
    padding = max(0, pad_to - len(values))
    n = len(values) + padding
    mean = sum(values) / n
    variance = (sum((v - mean) ** 2 for v in values) + padding * mean**2) / n
    sd = math.sqrt(variance)
    if sd <= 1e-12:
        return {doc_id: 0.0 for doc_id, _ in scored}, 0.0, padding
    lowest = min(min(values), 0.0) if padding else min(values)
    return {doc_id: (score - mean) / sd for doc_id, score in scored}, (lowest - mean) / sd, padding


def softmax(z: dict[str, float], floor: float, padding: int, temperature: float) -> tuple[dict[str, float], float]:
    """softmax(z / T) over the list plus its padding entries; the floor's share for missing ids."""
    top = max(max(z.values()), floor)  # shift for numerical safety
    exps = {doc_id: math.exp((value - top) / temperature) for doc_id, value in z.items()}
    floor_exp = math.exp((floor - top) / temperature)
    total = sum(exps.values()) + padding * floor_exp
    return {doc_id: e / total for doc_id, e in exps.items()}, floor_exp / total
