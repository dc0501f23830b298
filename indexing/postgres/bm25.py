"""BM25 over jieba tokens in PostgreSQL, scored in SQL exactly like :mod:`indexing.bm25_index`.

Why postings tables and not PostgreSQL's full-text search: ``tsvector`` has no jieba segmenter
and its ranking (``ts_rank``) is not BM25, so scores would differ from the embedded index and
Chinese would match badly. Here the terms are the embedded index's own (``bm25_terms``: jieba tokens,
English words stemmed; schema version 4 re-termed older postings, ``indexing/postgres/bm25_restem.py``),
and the statistics BM25 needs are kept exact in the writing transaction:

* ``bm25_postings (term_id, seq, tf, dl)``: one row per distinct term of a chunk, with the
  chunk's length, keyed so one term's postings are one index range;
* ``bm25_terms (term, df, script)``: document frequency per term (and its script, Han/Latin);
* ``bm25_docs (chunk_id, seq, length, han, latin, term_ids)``: per chunk, its insertion number
  (the tie-break of equal scores, as in the embedded index), length and term ids (for deletes);
* ``bm25_stats``: live chunks, total length, and the document frequencies per script.

Scores: Okapi BM25, ``k1 = 1.2``, ``b = 0.75``, Lucene's ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``,
query terms repeated as they occur, all in double precision: the same numbers as the embedded
index to within rounding (``tests`` hold them to 1e-6).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from indexing.postgres.bm25_topk import READ_SHARE, SCORE_SHARE, SMALL_POSTINGS, QueryTerm, ThresholdSearch
from indexing.postgres.database import Database
from officeqa.scripts import detect_script
from officeqa.text_tokens import bm25_terms, stem_term

K1 = 1.2
B = 0.75

_SEARCH = """
WITH st AS (SELECT n, total_length FROM {s}.bm25_stats WHERE id = 1),
q AS (
    SELECT t.term_id,
           ln(1.0::float8 + (st.n - t.df + 0.5::float8) / (t.df + 0.5::float8)) * x.qtf AS weight
    FROM unnest(%(terms)s::text[], %(qtf)s::float8[]) AS x(term, qtf)
    JOIN {s}.bm25_terms t ON t.term = x.term AND t.df > 0
    CROSS JOIN st
),
avg AS (SELECT CASE WHEN total_length > 0 THEN total_length::float8 / n ELSE 1.0::float8 END AS avgdl FROM st),
scored AS (
    SELECT p.seq,
           sum(q.weight * p.tf * (%(k1)s::float8 + 1.0::float8)
               / (p.tf + %(k1)s::float8 * (1.0::float8 - %(b)s::float8 + %(b)s::float8 * p.dl / avg.avgdl))) AS score
    FROM q {postings}
    CROSS JOIN avg
    {filter}
    GROUP BY p.seq
    ORDER BY score DESC, p.seq
    LIMIT %(k)s
)
SELECT d.chunk_id, scored.score FROM scored JOIN {s}.bm25_docs d ON d.seq = scored.seq
ORDER BY scored.score DESC, scored.seq
"""
# Unfiltered, each term's postings are read by the (term_id, seq) key (ORDER BY p.seq), in heap order,
# not by the impact index, whose (tf, dl) order visits the heap at random while new pages are not yet
# all-visible. Filtered, the plain join (its plan keeps query-term order in each chunk's sum).
_POSTINGS = (
    "CROSS JOIN LATERAL (SELECT p.seq, p.tf, p.dl FROM {s}.bm25_postings p WHERE p.term_id = q.term_id "
    "ORDER BY p.seq) p"
)
_POSTINGS_FILTERED = "JOIN {s}.bm25_postings p ON p.term_id = q.term_id"
_ALLOWED = "WHERE p.seq IN (SELECT seq FROM {s}.bm25_docs WHERE chunk_id = ANY(%(allowed)s))"

# The query terms as the full aggregation weighs them (same expression, query order), with their bounds.
_TERMS = """
SELECT t.term_id, t.df, ln(1.0::float8 + (st.n - t.df + 0.5::float8) / (t.df + 0.5::float8)) * x.qtf,
       t.max_tf, t.min_dl, st.n, st.total_length
FROM unnest(%(terms)s::text[], %(qtf)s::float8[]) WITH ORDINALITY AS x(term, qtf, ord)
JOIN {s}.bm25_terms t ON t.term = x.term AND t.df > 0
CROSS JOIN {s}.bm25_stats st WHERE st.id = 1
ORDER BY x.ord
"""
DIRECT_SCOPE = 5_000


_LONG_TERM = 200


def term_key(term: str) -> str:
    """How a term is stored: as it is, or (beyond 200 characters, e.g. a base64 blob, too long for a
    b-tree entry) its head and a hash, so equality and document frequency stay exact."""
    if len(term) <= _LONG_TERM and "\x00" not in term:
        return term
    import hashlib

    digest = hashlib.sha1(term.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return term[:180].replace("\x00", "\ufffd") + "#" + digest


@lru_cache(maxsize=200_000)
def script_code(term: str) -> int:
    """1 Han, 2 Latin, 0 other: the embedded index's classification of a term."""
    return {"zh": 1, "en": 2}.get(detect_script(term), 0)


def _doc_script(han: int, latin: int) -> str | None:
    """'zh' / 'en' / 'mixed' from a chunk's distinct Han and Latin terms (thresholds of BM25Index.document_scripts)."""
    if han + latin == 0:
        return None
    share = han / (han + latin)
    return "zh" if share >= 0.6 else "en" if share <= 0.25 else "mixed"


class PostgresBM25:
    """The BM25 index of one knowledge-base schema: the writer API of :class:`indexing.bm25_store.BM25Store`
    and the reader API of :class:`indexing.bm25_index.BM25Index` (``index`` is this object itself)."""

    k1 = K1
    b = B
    #: Query terms with at most this many postings in all: the full aggregation (cheap) scores them.
    small_postings = SMALL_POSTINGS
    #: A scope (allowed ids) up to this size is scored chunk by chunk; a larger one by the full aggregation.
    direct_scope = DIRECT_SCOPE
    #: (read share, score share) past which a pruned pass gives up (bm25_topk.READ_SHARE, SCORE_SHARE).
    pruning_caps = (READ_SHARE, SCORE_SHARE)
    #: How the last search was answered: full, pruned, fallback (no proof: full) or direct (tests, benchmarks).
    last_path = ""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.s = db.s
        self.path = db.display

    # -- the BM25Store side ------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return True

    @property
    def index(self) -> PostgresBM25:
        return self

    def refresh(self) -> None:
        """Nothing to catch up with: every read sees the committed state."""

    def verify(self) -> None:
        """Nothing on disk to verify (the schema is checked by the registry)."""

    def fold(self, force: bool = False) -> bool:
        return False

    def save(self) -> None:
        """Every change is already durable in its transaction."""

    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        if len(ids) != len(texts):
            raise ValueError(f"{len(ids)} ids but {len(texts)} texts")
        self.add_tokenized(ids, [bm25_terms(text) for text in texts])

    def add_tokenized(self, ids: Sequence[str], token_lists: Sequence[Sequence[str]]) -> None:
        """Index chunks (an id already present is replaced); one transaction (or the caller's)."""
        if len(ids) != len(token_lists):
            raise ValueError(f"{len(ids)} ids but {len(token_lists)} token lists")
        self.add_counts(ids, [Counter(tokens) for tokens in token_lists], [len(tokens) for tokens in token_lists])

    def add_counts(self, ids: Sequence[str], counts: Sequence[Mapping[str, int]], lengths: Sequence[int]) -> None:
        """:meth:`add_tokenized` with each chunk's term frequencies and length (``officeqa migrate``)."""
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate ids in one add() call")
        if not ids:
            return
        keyed: list[Counter[str]] = []
        for c in counts:
            k: Counter[str] = Counter()
            for term, tf in c.items():
                k[term_key(term)] += int(tf)
            keyed.append(k)
        df_add: Counter[str] = Counter()
        max_tf: dict[str, int] = {}
        min_dl: dict[str, int] = {}
        for c, length in zip(keyed, lengths, strict=True):
            df_add.update(c.keys())
            for term, tf in c.items():
                max_tf[term] = max(max_tf.get(term, 0), tf)
                min_dl[term] = min(min_dl.get(term, int(length)), int(length))
        terms = sorted(df_add)  # a fixed order: concurrent writers lock term rows the same way
        s = self.s
        with self.db.transaction() as conn:
            self._remove(conn, list(ids))
            # max_tf/min_dl bound a posting's contribution (bm25_topk); deletes leave them loose, which
            # is still a bound; a term with no postings left (df 0) starts afresh.
            rows = conn.execute(
                f"INSERT INTO {s}.bm25_terms AS t (term, df, script, max_tf, min_dl) "
                "SELECT * FROM unnest(%s::text[], %s::int[], %s::smallint[], %s::int[], %s::int[]) "
                "ON CONFLICT (term) DO UPDATE SET df = t.df + EXCLUDED.df, "
                "max_tf = CASE WHEN t.df > 0 THEN greatest(t.max_tf, EXCLUDED.max_tf) ELSE EXCLUDED.max_tf END, "
                "min_dl = CASE WHEN t.df > 0 THEN least(t.min_dl, EXCLUDED.min_dl) ELSE EXCLUDED.min_dl END "
                "RETURNING term, term_id",
                [terms, [df_add[t] for t in terms], [script_code(t) for t in terms],
                 [max_tf[t] for t in terms], [min_dl[t] for t in terms]],
            ).fetchall()
            term_id = dict(rows)
            seqs = [r[0] for r in conn.execute(
                f"SELECT nextval('{s}.bm25_seq') FROM generate_series(1, %s) ORDER BY 1", [len(ids)]
            )]
            docs = []
            han_total = latin_total = length_total = 0
            with conn.cursor() as cur, cur.copy(f"COPY {s}.bm25_postings (term_id, seq, tf, dl) FROM STDIN") as copy:
                for cid, seq, length, c in zip(ids, seqs, lengths, keyed, strict=True):
                    han = sum(1 for t in c if script_code(t) == 1)
                    latin = sum(1 for t in c if script_code(t) == 2)
                    for t, tf in c.items():
                        copy.write_row((term_id[t], seq, tf, int(length)))
                    docs.append((cid, seq, int(length), han, latin, [term_id[t] for t in c]))
                    han_total += han
                    latin_total += latin
                    length_total += int(length)
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {s}.bm25_docs (chunk_id, seq, length, han, latin, term_ids) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    docs,
                )
            conn.execute(
                f"UPDATE {s}.bm25_stats SET n = n + %s, total_length = total_length + %s, df_zh = df_zh + %s, "
                "df_en = df_en + %s WHERE id = 1",
                [len(ids), length_total, han_total, latin_total],
            )

    def remove(self, ids: Iterable[str]) -> int:
        """Delete chunks by id (unknown ids ignored); returns how many were removed."""
        wanted = list(ids)
        if not wanted:
            return 0
        with self.db.transaction() as conn:
            return self._remove(conn, wanted)

    def _remove(self, conn: object, ids: list[str]) -> int:
        s = self.s
        gone = conn.execute(  # type: ignore[attr-defined]
            f"DELETE FROM {s}.bm25_docs WHERE chunk_id = ANY(%s) RETURNING seq, length, han, latin, term_ids", [ids]
        ).fetchall()
        if not gone:
            return 0
        df_sub: Counter[int] = Counter()
        term_col: list[int] = []
        seq_col: list[int] = []
        for seq, _length, _han, _latin, tids in gone:
            df_sub.update(tids)
            term_col.extend(tids)
            seq_col.extend([seq] * len(tids))
        order = sorted(df_sub)
        conn.execute(  # type: ignore[attr-defined]
            f"UPDATE {s}.bm25_terms t SET df = t.df - d.c FROM unnest(%s::int[], %s::int[]) AS d(term_id, c) "
            "WHERE t.term_id = d.term_id",
            [order, [df_sub[t] for t in order]],
        )
        conn.execute(  # type: ignore[attr-defined]
            f"DELETE FROM {s}.bm25_postings p USING unnest(%s::int[], %s::bigint[]) AS d(term_id, seq) "
            "WHERE p.term_id = d.term_id AND p.seq = d.seq",
            [term_col, seq_col],
        )
        conn.execute(  # type: ignore[attr-defined]
            f"UPDATE {s}.bm25_stats SET n = n - %s, total_length = total_length - %s, df_zh = df_zh - %s, "
            "df_en = df_en - %s WHERE id = 1",
            [len(gone), sum(r[1] for r in gone), sum(r[2] for r in gone), sum(r[3] for r in gone)],
        )
        return len(gone)

    def reset(self) -> None:
        """Empty the index (``reindex``)."""
        with self.db.transaction() as conn:
            for table in ("bm25_postings", "bm25_docs", "bm25_terms"):
                conn.execute(f"DELETE FROM {self.s}.{table}")
            conn.execute(f"UPDATE {self.s}.bm25_stats SET n = 0, total_length = 0, df_zh = 0, df_en = 0")

    # -- the BM25Index side ------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.db.scalar(f"SELECT n FROM {self.s}.bm25_stats WHERE id = 1") or 0)

    def ids(self) -> set[str]:
        return {r[0] for r in self.db.execute(f"SELECT chunk_id FROM {self.s}.bm25_docs")}

    def __contains__(self, chunk_id: object) -> bool:
        return bool(self.db.execute(f"SELECT 1 FROM {self.s}.bm25_docs WHERE chunk_id = %s", [chunk_id]))

    def tokenize(self, text: str) -> list[str]:
        return bm25_terms(text)

    def document_frequency(self, term: str) -> int:
        """Live chunks holding the word ``term`` as written (its stemmed term); as BM25Index.document_frequency."""
        key = term_key(stem_term(term))
        return int(self.db.scalar(f"SELECT df FROM {self.s}.bm25_terms WHERE term = %s", [key]) or 0)

    def document_frequencies(self, tokens: Sequence[str]) -> list[int]:
        distinct = list(dict.fromkeys(term_key(t) for t in tokens))
        if not distinct:
            return []
        rows = self.db.execute(f"SELECT term, df FROM {self.s}.bm25_terms WHERE term = ANY(%s)", [distinct])
        found = dict(rows)
        return [int(found.get(t, 0)) for t in distinct]

    def mentions(self, fragment: str) -> bool:
        """True when some live chunk has a term containing ``fragment`` or its stem (a trigram index serves the
        search); as BM25Index.mentions."""
        stem = stem_term(fragment)
        fragment_like, stem_like = ("%" + f.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                                    for f in (fragment, stem))
        return bool(self.db.execute(
            f"SELECT 1 FROM {self.s}.bm25_terms WHERE term = %s AND df > 0 "
            f"UNION ALL (SELECT 1 FROM {self.s}.bm25_terms WHERE (term LIKE %s OR term LIKE %s) AND df > 0 LIMIT 1) "
            "LIMIT 1",
            [term_key(stem), fragment_like, stem_like],
        ))

    def idf(self, term: str) -> float:
        rows = self.db.execute(
            f"SELECT st.n, coalesce(t.df, 0) FROM {self.s}.bm25_stats st "
            f"LEFT JOIN {self.s}.bm25_terms t ON t.term = %s WHERE st.id = 1",
            [term_key(stem_term(term))],
        )
        n_live, df = (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)
        return float(np.log1p((n_live - df + 0.5) / (df + 0.5)))

    def script_shares(self) -> dict[str, float]:
        rows = self.db.execute(f"SELECT df_zh, df_en FROM {self.s}.bm25_stats WHERE id = 1")
        zh, en = (float(rows[0][0]), float(rows[0][1])) if rows else (0.0, 0.0)
        total = zh + en
        return {"zh": zh / total, "en": en / total} if total > 0 else {}

    def document_scripts(self, ids: Iterable[str]) -> dict[str, str]:
        wanted = list(ids)
        if not wanted:
            return {}
        rows = self.db.execute(
            f"SELECT chunk_id, han, latin FROM {self.s}.bm25_docs WHERE chunk_id = ANY(%s)", [wanted]
        )
        out = {}
        for cid, han, latin in rows:
            script = _doc_script(int(han), int(latin))
            if script is not None:
                out[cid] = script
        order = {cid: i for i, cid in enumerate(wanted)}
        return dict(sorted(out.items(), key=lambda item: order[item[0]]))

    def term_counts(self, ids: Iterable[str]) -> dict[str, dict[str, int]]:
        """chunk id -> its terms and counts, in the order the chunk's ``term_ids`` list them (the embedded
        index's :meth:`~indexing.bm25_index.BM25Index.term_counts`): one query over the chunks' postings."""
        wanted = list(ids)
        if not wanted:
            return {}
        rows = self.db.execute(
            f"SELECT d.chunk_id, t.term, p.tf FROM {self.s}.bm25_docs d "
            "CROSS JOIN LATERAL unnest(d.term_ids) WITH ORDINALITY AS u(term_id, n) "
            f"JOIN {self.s}.bm25_postings p ON p.term_id = u.term_id AND p.seq = d.seq "
            f"JOIN {self.s}.bm25_terms t ON t.term_id = u.term_id "
            "WHERE d.chunk_id = ANY(%s) ORDER BY d.chunk_id, u.n",
            [wanted],
        )
        out: dict[str, dict[str, int]] = {}
        for cid, term, tf in rows:
            out.setdefault(cid, {})[term] = int(tf)
        order = {cid: i for i, cid in enumerate(wanted)}
        return dict(sorted(out.items(), key=lambda item: order[item[0]]))

    def search(self, query: str, k: int, allowed_ids: set[str] | None = None) -> list[tuple[str, float]]:
        return self.search_tokens(bm25_terms(query), k, allowed_ids)

    def search_tokens(
        self, tokens: Sequence[str], k: int, allowed_ids: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top ``k`` (chunk id, score), best first; equal scores keep insertion order."""
        return self.search_weighted(Counter(tokens), k, allowed_ids)

    def search_weighted(
        self, term_weights: Mapping[str, float], k: int, allowed_ids: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """:meth:`search_tokens` with each term's query weight given (a count, or a relevance model's
        fractional weight, ``retrieval/feedback.py``), as ``BM25Index.search_weighted`` scores it."""
        weights = _query_weights(term_weights)
        if k <= 0 or not weights:
            return []
        if allowed_ids is not None and not allowed_ids:
            return []
        terms = list(weights)
        params: dict[str, object] = {"terms": terms, "qtf": [weights[t] for t in terms]}
        # One statement (its own snapshot) for a large scope, or for terms too rare for pruning to pay.
        full = allowed_ids is not None and len(allowed_ids) > self.direct_scope
        if allowed_ids is None:
            postings = self.db.scalar(f"SELECT sum(df) FROM {self.s}.bm25_terms WHERE term = ANY(%s)", [terms])
            full = int(postings or 0) <= self.small_postings
        if full:
            self.last_path = "full"
            return self.search_full(weights, k, allowed_ids)
        with self.db.snapshot():  # every statement below sees the same committed state
            rows = self.db.execute(_TERMS.replace("{s}", self.s), params)
            if not rows:
                return []
            n_live, total_length = int(rows[0][5]), int(rows[0][6])
            query = [QueryTerm(int(r[0]), int(r[1]), float(r[2]), int(r[3]), int(r[4])) for r in rows]
            search = ThresholdSearch(
                self.db, query, total_length / n_live if total_length > 0 else 1.0, int(k), self.k1, self.b
            )
            search.caps = self.pruning_caps
            if allowed_ids is not None:
                self.last_path = "direct"
                return search.direct(sorted(allowed_ids))
            found = search.run()
            if found is not None:
                self.last_path = "pruned"
                return found
            self.last_path = "fallback"
            return self.search_full(weights, k, allowed_ids)

    def search_full(
        self, tokens: Sequence[str] | Mapping[str, float], k: int, allowed_ids: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """:meth:`search_tokens` (tokens) or :meth:`search_weighted` (term -> weight) by aggregating every
        posting of the query terms: the reference the pruned search must equal, and its fallback."""
        weights = _query_weights(tokens if isinstance(tokens, Mapping) else Counter(tokens))
        if k <= 0 or not weights or (allowed_ids is not None and not allowed_ids):
            return []
        terms = list(weights)
        params: dict[str, object] = {
            "terms": terms, "qtf": [weights[t] for t in terms], "k1": self.k1, "b": self.b, "k": int(k),
        }
        filter_sql, postings = "", _POSTINGS
        if allowed_ids is not None:
            filter_sql, postings = _ALLOWED, _POSTINGS_FILTERED
            params["allowed"] = sorted(allowed_ids)
        sql = _SEARCH.replace("{filter}", filter_sql).replace("{postings}", postings).replace("{s}", self.s)
        return [(cid, float(score)) for cid, score in self.db.execute(sql, params)]


def _query_weights(term_weights: Mapping[str, float]) -> dict[str, float]:
    """Positive query weights by stored term key, in the query's order (terms whose keys meet add up)."""
    out: dict[str, float] = {}
    for term, weight in term_weights.items():
        if weight > 0:
            key = term_key(term)
            out[key] = out.get(key, 0.0) + float(weight)
    return out


__all__ = ["K1", "B", "PostgresBM25", "term_key"]
