"""Exact top-k BM25 in PostgreSQL without aggregating every posting: threshold pruning with a proof.

Why: the full aggregation (``bm25._SEARCH``) sums every posting of every query term; a query with
a term in nearly every chunk ("ui", "的") reads ~100k postings per such term at 100k chunks.
Yet the top ``k`` are decided by few documents. This module finds them and *proves* it, else says
so (``None``) and the caller runs the full aggregation: the answer is always the full one's.

The proof (Fagin's threshold algorithm, with MaxScore's non-essential terms):

1. **Seeds.** For each query term, the ``k`` postings of highest impact by the
   ``(term_id, tf DESC, dl)`` index (high term frequency, then short chunks). Each seed is
   fully scored; the ``k``-th best seed score ``θ`` is a lower bound of the true ``k``-th best.
2. **Per-term thresholds.** ``θ`` (shrunk by a relative 1e-9 against rounding) is split into
   ``τ_t`` with ``Σ τ_t ≤ θ``. A chunk whose every term contribution is ``< τ_t`` scores ``< θ``,
   so it is beaten by the ``k`` seeds that score ``≥ θ``, ties included (strict inequality).
   A term whose upper bound (from its stored ``max_tf``/``min_dl``) is below ``τ_t`` needs no
   reading at all (non-essential); the others read only postings with contribution ``≥ τ_t``:
   BM25 grows with ``tf`` and falls with ``dl``, so that is ``dl <= X(tf)`` for each ``tf``, one
   index range each.
3. **Candidates.** Each chunk met in those ranges is bounded by what was read plus, per term not
   read for it, ``τ_t`` (or the term's bound); chunks whose bound reaches ``θ``, and the seeds,
   are fully scored, and their top ``k`` (score, then insertion order) is the answer: every chunk
   scoring ``≥ θ`` is among them. A pass that would read or score more than a share of what the
   full aggregation reads gives up early (the caps), and the full aggregation answers.

Scores are summed in query-term order with the full aggregation's expression and the weights it
computes itself, so a chunk gets bit-for-bit the score the full query would give it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from indexing.postgres.database import Database

#: Query terms with at most this many postings in all are scored by the full aggregation: a pruned
#: search costs a few milliseconds of round trips and seeds, what the full one spends on ~50k postings.
SMALL_POSTINGS = 50_000
#: An essential term with at most this many postings is read whole (a threshold saves little).
READ_WHOLE = 2_000
#: Per-tf ranges up to this term frequency; postings with a higher tf are all read (rare).
_TF_RANGES = 64
#: The pass gives up (the full aggregation runs) past reading this share of the query's postings...
READ_SHARE = 0.3
#: ... or past fully scoring this many chunks per term and posting (an index probe costs ~4 postings).
SCORE_SHARE = 0.04
_SAFE = 1e-9  # relative margin against floating-point rounding in every bound


@dataclass(frozen=True)
class QueryTerm:
    """A query term as stored: id, weight (idf x query count, computed in SQL), bounds."""

    term_id: int
    df: int
    weight: float
    max_tf: int
    min_dl: int


# The scores of a set of chunks (``{seqs}``, an array): one (term_id, seq) key probe per query term and
# chunk (both in the condition, so no planner picks the impact index and scans a term's every posting),
# summed per chunk in query-term order with the full aggregation's expression (so equal chunks tie
# exactly and each score is the full query's, bit for bit).
_SCORE = """SELECT p.seq, sum(w.weight * p.tf * (%(k1)s::float8 + 1.0::float8)
                   / (p.tf + %(k1)s::float8 * (1.0::float8 - %(b)s::float8 + %(b)s::float8 * p.dl / %(avgdl)s::float8))
                   ORDER BY w.ord) AS score
           FROM unnest(%(tids)s::int[], %(weights)s::float8[]) WITH ORDINALITY AS w(term_id, weight, ord)
           CROSS JOIN unnest({seqs}) AS c(seq)
           JOIN {s}.bm25_postings p ON p.term_id = w.term_id AND p.seq = c.seq
           GROUP BY p.seq"""

_SEEDS = """
WITH c AS MATERIALIZED (
    SELECT DISTINCT x.seq FROM unnest(%(tids)s::int[]) AS t(term_id)
    CROSS JOIN LATERAL (SELECT p.seq FROM {s}.bm25_postings p WHERE p.term_id = t.term_id
                        ORDER BY p.tf DESC, p.dl LIMIT %(k)s) x
)
{score_of:ARRAY(SELECT seq FROM c ORDER BY seq):}
"""

# Read the postings in the ranges (contribution >= τ_t; the ORDER BY steers the planner to the impact
# index, which bounds tf and dl in the index condition), bound each chunk's score by what was read plus
# what was not (< τ_t per unread essential term, <= the bound per non-essential one), fully score only
# the chunks whose bound reaches θ. The caps stop a pass that would cost more than the full aggregation.
_CANDIDATES = """
WITH r AS (
    SELECT * FROM unnest(%(r_term)s::int[], %(r_tf_lo)s::int[], %(r_tf_hi)s::int[], %(r_dl)s::int[],
                         %(r_weight)s::float8[], %(r_tau)s::float8[]) AS r(term_id, tf_lo, tf_hi, max_dl, weight, tau)
),
hits AS MATERIALIZED (
    SELECT x.seq, r.weight * x.tf * (%(k1)s::float8 + 1.0::float8)
           / (x.tf + %(k1)s::float8 * (1.0::float8 - %(b)s::float8 + %(b)s::float8 * x.dl / %(avgdl)s::float8)) AS c,
           r.tau
    FROM r CROSS JOIN LATERAL (SELECT p.seq, p.tf, p.dl FROM {s}.bm25_postings p WHERE p.term_id = r.term_id
                               AND p.tf <= r.tf_hi AND p.tf >= r.tf_lo AND p.dl <= r.max_dl
                               ORDER BY p.tf DESC, p.dl) x
    LIMIT %(read_cap)s
),
surv AS MATERIALIZED (
    (SELECT seq FROM hits GROUP BY seq
     HAVING (sum(c) + %(bound)s::float8 - sum(tau)) * (1.0::float8 + %(safe)s::float8) >= %(theta)s::float8
     UNION SELECT unnest(%(seeds)s::bigint[]))
    LIMIT %(score_cap)s
),
scored AS ({score_of:ARRAY(SELECT seq FROM surv ORDER BY seq):}),
top AS (SELECT seq, score FROM scored ORDER BY score DESC, seq LIMIT %(k)s)
SELECT d.chunk_id, top.score, (SELECT count(*) FROM hits), (SELECT count(*) FROM surv)
FROM top JOIN {s}.bm25_docs d ON d.seq = top.seq
ORDER BY top.score DESC, top.seq
"""

_DIRECT = """
WITH scored AS (
    {score_of:ARRAY(SELECT seq FROM {s}.bm25_docs WHERE chunk_id = ANY(%(allowed)s) ORDER BY seq):}
)
SELECT d.chunk_id, s.score FROM (SELECT seq, score FROM scored ORDER BY score DESC, seq LIMIT %(k)s) s
JOIN {s}.bm25_docs d ON d.seq = s.seq ORDER BY s.score DESC, s.seq
"""


class ThresholdSearch:
    """One query's pruned search; :meth:`run` returns the top ``k`` or ``None`` (no proof: fall back)."""

    def __init__(
        self, db: Database, terms: Sequence[QueryTerm], avgdl: float, k: int, k1: float, b: float
    ) -> None:
        self.db = db
        self.s = db.s
        self.terms = list(terms)
        self.avgdl = avgdl
        self.k = k
        self.k1 = k1
        self.b = b
        self.params: dict[str, object] = {
            "tids": [t.term_id for t in self.terms], "weights": [t.weight for t in self.terms],
            "k1": k1, "b": b, "avgdl": avgdl, "k": k,
        }
        self.caps = (READ_SHARE, SCORE_SHARE)
        self.read = 0  # postings read by the last pass (tests and benchmarks look)
        self.candidates = 0  # chunks fully scored by it

    def _sql(self, template: str) -> str:
        head, _, rest = template.partition("{score_of:")
        seqs, _, tail = rest.partition(":}")
        return (head + _SCORE.replace("{seqs}", seqs) + tail).replace("{s}", self.s)

    def direct(self, allowed: Sequence[str]) -> list[tuple[str, float]]:
        """Score just the allowed chunks (a small scope): one index probe per chunk and term."""
        params = dict(self.params, allowed=list(allowed))
        return [(cid, float(score)) for cid, score in self.db.execute(self._sql(_DIRECT), params)]

    def upper_bound(self, t: QueryTerm) -> float:
        """No posting of ``t`` contributes more (BM25 grows with tf, falls with dl), with a safety margin."""
        mt = max(t.max_tf, 1)
        norm = self.k1 * (1.0 - self.b + self.b * max(t.min_dl, 0) / self.avgdl)
        return t.weight * mt * (self.k1 + 1.0) / (mt + norm) * (1.0 + _SAFE)

    def max_dl(self, t: QueryTerm, tf: int, tau: float) -> float:
        """The longest chunk length at which ``tf`` occurrences of ``t`` still contribute ``>= tau`` (loosened)."""
        tau = tau * (1.0 - _SAFE)
        x = (t.weight * (self.k1 + 1.0) * tf / tau - tf - self.k1 * (1.0 - self.b)) * self.avgdl / (self.k1 * self.b)
        return x * (1.0 + _SAFE) + 1e-6

    def run(self) -> list[tuple[str, float]] | None:
        seeds = self.db.execute(self._sql(_SEEDS), self.params)
        scored = sorted(((float(score), int(seq)) for seq, score in seeds if score is not None),
                        key=lambda item: (-item[0], item[1]))
        if len(scored) < self.k:
            return None
        theta = scored[self.k - 1][0] * (1.0 - _SAFE)
        if not theta > 0:
            return None
        plan = self._ranges(theta)
        if plan is None:
            return None
        ranges, bound = plan
        postings = sum(t.df for t in self.terms)
        read_cap = max(1, int(postings * self.caps[0]))
        score_cap = max(4 * self.k, int(postings * self.caps[1] / len(self.terms)))
        params = dict(
            self.params,
            r_term=[r[0] for r in ranges], r_tf_lo=[r[1] for r in ranges], r_tf_hi=[r[2] for r in ranges],
            r_dl=[r[3] for r in ranges], r_weight=[r[4] for r in ranges], r_tau=[r[5] for r in ranges],
            bound=bound, theta=theta, safe=_SAFE, seeds=[seq for _, seq in scored],
            read_cap=read_cap, score_cap=score_cap,
        )
        rows = self.db.execute(self._sql(_CANDIDATES), params)
        if not rows:
            return None
        self.read, self.candidates = int(rows[0][2]), int(rows[0][3])
        if self.read >= read_cap or self.candidates >= score_cap:
            return None  # a cap cut the pass short: nothing is proved
        if len(rows) < self.k:  # impossible when the proof holds (k seeds score >= θ): be safe
            return None
        return [(cid, float(score)) for cid, score, _, _ in rows]

    def _ranges(self, theta: float) -> tuple[list[tuple[int, int, int, int, float, float]], float] | None:
        """(term_id, tf_lo, tf_hi, max_dl, weight, τ_t) index ranges holding every posting with contribution
        ``>= τ_t``, and the sum of the per-term bounds (τ_t, or the upper bound of a term never read)."""
        bounds = {t.term_id: self.upper_bound(t) for t in self.terms}
        budget = theta
        essential: list[QueryTerm] = []
        for t in sorted(self.terms, key=lambda t: bounds[t.term_id]):
            if not essential and bounds[t.term_id] <= budget:
                budget -= bounds[t.term_id]  # never read: all its postings together stay below θ
            else:
                essential.append(t)
        if not essential:  # every chunk scores below θ, yet k seeds reach it: rounding; be safe
            return None
        whole = [t for t in essential if t.df <= READ_WHOLE]
        split = [t for t in essential if t.df > READ_WHOLE]
        total = sum(bounds[t.term_id] for t in split)
        big = 2**31 - 1
        ranges = [(t.term_id, 1, big, big, t.weight, 0.0) for t in whole]
        used = theta - budget
        for t in split:
            tau = budget * bounds[t.term_id] / total if total > 0 else 0.0
            if not tau > 0:
                ranges.append((t.term_id, 1, big, big, t.weight, 0.0))
                continue
            used += tau
            top = min(max(t.max_tf, 1), _TF_RANGES)
            for tf in range(1, top + 1):
                limit = self.max_dl(t, tf, tau)
                if limit >= max(t.min_dl, 0):
                    ranges.append((t.term_id, tf, tf, int(min(math.floor(limit), big)), t.weight, tau))
            if t.max_tf > _TF_RANGES:
                ranges.append((t.term_id, _TF_RANGES + 1, big, big, t.weight, tau))
        return ranges, used


__all__ = ["READ_WHOLE", "SMALL_POSTINGS", "QueryTerm", "ThresholdSearch"]
