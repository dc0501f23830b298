"""Schema versions 4 and 5: the PostgreSQL BM25 postings re-termed to the current tokenizer (4: English words
stemmed; 5: Traditional Chinese folded to Simplified), in one transaction.

Why re-term and not re-tokenize: the postings hold jieba's tokens, and the current terms are those
tokens stemmed one by one (``officeqa.text_tokens.bm25_terms``), so mapping each stored term to its
stem and summing the postings that meet gives exactly the index a fresh tokenization would, without
reading a chunk text, at the cost of one stem per distinct English term and set-based SQL. It runs as
a numbered schema migration (``indexing/postgres/schema.py``): under the migration lock, in the same
transaction that records the version, so an interrupted run leaves the old postings and is redone by
the next process that opens the schema; and a program that predates it refuses the schema (too new)
instead of writing unstemmed terms into a stemmed index.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from indexing.postgres.bm25 import script_code
from officeqa.text_tokens import BM25_TOKENIZER_VERSION, upgrade_term

log = logging.getLogger(__name__)

_STEPS = [
    # terms that appear for the first time as a stem ("revenu")
    "INSERT INTO {s}.bm25_terms (term, df, script, max_tf, min_dl) "
    "SELECT DISTINCT new_term, 0, script, 0, 0 FROM bm25_restem ON CONFLICT (term) DO NOTHING",
    "CREATE TEMP TABLE bm25_remap ON COMMIT DROP AS "
    "SELECT r.old_id, t.term_id AS new_id FROM bm25_restem r JOIN {s}.bm25_terms t ON t.term = r.new_term",
    # each chunk's postings of the words that share a stem, summed ("revenue" 2 + "revenues" 1 -> "revenu" 3)
    "CREATE TEMP TABLE bm25_moved ON COMMIT DROP AS "
    "SELECT m.new_id AS term_id, p.seq, sum(p.tf)::int AS tf, min(p.dl) AS dl "
    "FROM {s}.bm25_postings p JOIN bm25_remap m ON p.term_id = m.old_id GROUP BY m.new_id, p.seq",
    "DELETE FROM {s}.bm25_postings p USING bm25_remap m WHERE p.term_id = m.old_id",
    "INSERT INTO {s}.bm25_postings AS p (term_id, seq, tf, dl) SELECT term_id, seq, tf, dl FROM bm25_moved "
    "ON CONFLICT (term_id, seq) DO UPDATE SET tf = p.tf + EXCLUDED.tf",
    "UPDATE {s}.bm25_terms t SET df = 0 FROM bm25_remap m WHERE t.term_id = m.old_id",
    "UPDATE {s}.bm25_terms t SET df = a.df, max_tf = a.max_tf, min_dl = a.min_dl FROM "
    "(SELECT term_id, count(*)::int AS df, max(tf) AS max_tf, min(dl) AS min_dl FROM {s}.bm25_postings "
    "WHERE term_id IN (SELECT new_id FROM bm25_remap) GROUP BY term_id) a WHERE t.term_id = a.term_id",
    # the chunks touched: their term ids (for deletes) and distinct Han / Latin term counts
    "UPDATE {s}.bm25_docs d SET term_ids = a.ids, han = a.han, latin = a.latin FROM "
    "(SELECT p.seq, array_agg(p.term_id ORDER BY p.term_id) AS ids, "
    "count(*) FILTER (WHERE t.script = 1)::int AS han, count(*) FILTER (WHERE t.script = 2)::int AS latin "
    "FROM {s}.bm25_postings p JOIN {s}.bm25_terms t ON t.term_id = p.term_id "
    "WHERE p.seq IN (SELECT seq FROM bm25_moved) GROUP BY p.seq) a WHERE d.seq = a.seq",
    "UPDATE {s}.bm25_stats SET df_zh = (SELECT coalesce(sum(han), 0) FROM {s}.bm25_docs), "
    "df_en = (SELECT coalesce(sum(latin), 0) FROM {s}.bm25_docs) WHERE id = 1",
]


def restem_postings(conn: Any, s: str) -> None:
    """Re-term every live BM25 posting of schema ``s`` to :data:`BM25_TOKENIZER_VERSION` (inside the caller's
    transaction) and record the version in ``meta`` (``bm25_tokenizer``)."""
    started = time.monotonic()
    rows = conn.execute(f"SELECT term_id, term FROM {s}.bm25_terms WHERE df > 0").fetchall()
    changed = [(int(term_id), new) for term_id, term in rows if (new := upgrade_term(term)) != term]
    chunks = int(conn.execute(f"SELECT n FROM {s}.bm25_stats WHERE id = 1").fetchone()[0] or 0)
    for temp in ("bm25_restem", "bm25_remap", "bm25_moved"):  # schema 4 and 5 may run in one transaction
        conn.execute(f"DROP TABLE IF EXISTS pg_temp.{temp}")
    if changed:
        log.warning("BM25 in %s: tokenizer -> %d (English stemmed, Traditional folded), re-terming %d terms of %d "
                    "chunks", s, BM25_TOKENIZER_VERSION, len(changed), chunks)
        conn.execute("CREATE TEMP TABLE bm25_restem (old_id integer PRIMARY KEY, new_term text NOT NULL, "
                     "script smallint NOT NULL) ON COMMIT DROP")
        with conn.cursor() as cur, cur.copy("COPY bm25_restem (old_id, new_term, script) FROM STDIN") as copy:
            for term_id, stem in changed:
                copy.write_row((term_id, stem, script_code(stem)))
        for step in _STEPS:
            conn.execute(step.format(s=s))
        log.warning("BM25 in %s: re-termed in %.1f s", s, time.monotonic() - started)
    conn.execute(
        f"INSERT INTO {s}.meta (key, value) VALUES ('bm25_tokenizer', %s) "
        "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        [str(BM25_TOKENIZER_VERSION)],
    )


__all__ = ["restem_postings"]
