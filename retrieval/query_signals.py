"""What is known about a query before fusing: its language, length, and whether BM25 can read it.

Why: the fusion of BM25 and dense rankings is decided per query (``retrieval/fusion.py``,
``fusion="guarded_abstain"``, ``"guarded"`` and ``"adaptive"``) from signals that need no labels and no tuning
set:

* **script** of the query and of the indexed documents. BM25 matches terms, so a question in
  English over Chinese documents (or the reverse) gives BM25 nothing to match but stray
  numbers and names; a multilingual embedder still can. Script (Han vs Latin letters) stands
  in for language: it is what decides whether BM25's terms can meet at all.
* **coverage**: the IDF-weighted share of the query's BM25 terms that occur in the index. It
  measures the same thing from the other side, for any language pair and for mixed knowledge
  bases: terms the index has never seen cannot rank anything.
* **length** in BM25 terms: one- or two-term queries (a clause number, a name) are lookups
  where exact matching is reliable; long natural questions are where paraphrase hurts BM25.

Everything here is a pure function over plain values, tested with literals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from officeqa.scripts import detect_script

__all__ = ["QuerySignals", "idf_coverage", "query_signals"]


def idf_coverage(document_frequencies: Sequence[int], n_documents: int) -> float:
    """IDF-weighted share of query terms the index knows (df > 0), in [0, 1].

    A term's weight is its BM25 idf as if it occurred once (``log(1 + (N + 0.5) / 1.5)`` for an
    unseen term, the weight it would have had), so rare, informative words count most; with
    no terms at all the coverage is 1 (nothing is missing, BM25 simply has no say).
    """
    if not document_frequencies:
        return 1.0
    n = max(n_documents, 1)
    known = missing = 0.0
    for df in document_frequencies:
        seen = max(df, 0)
        weight = math.log1p((n - max(seen, 1) + 0.5) / (max(seen, 1) + 0.5))
        if seen > 0:
            known += weight
        else:
            missing += weight
    total = known + missing
    return known / total if total > 0 else 1.0


@dataclass(frozen=True, slots=True)
class QuerySignals:
    """Per-query facts the adaptive fusion uses; every field has a neutral default.

    ``script``: the query's script ('zh', 'en', 'mixed', ''); ``corpus_scripts``: share of the
    index's term occurrences per script ({'zh': .9, 'en': .1}); ``coverage``: idf_coverage of the
    query terms; ``terms``: number of BM25 terms in the query; ``doc_scripts``: the script of
    candidate documents (id -> 'zh' / 'en' / 'mixed'), for telling the documents BM25 cannot read (it abstains
    on them in ``adaptive``, and in ``guarded_abstain`` when the two lists agree);
    ``dense_scripts``: the scripts the embedder reads (``Embedder.scripts``; None = any);
    ``dense_model``: which model ranked the dense side (``retrieval/dense.py``): ``"fast"`` (the fast store),
    ``"strong"`` (the background model's store alone: it covers the scope) or ``"both"`` (merged).
    """

    script: str = ""
    corpus_scripts: Mapping[str, float] | None = None
    coverage: float = 1.0
    terms: int = 0
    doc_scripts: Mapping[str, str] | None = None
    dense_scripts: frozenset[str] | None = None
    dense_model: str = "fast"

    @property
    def dense_trust(self) -> float:
        """1 when the embedder reads the query's and the corpus's script, else 0 (None = reads any)."""
        if self.dense_scripts is None:
            return 1.0
        if self.script in ("zh", "en") and self.script not in self.dense_scripts:
            return 0.0
        dominant = max(self.corpus_scripts.items(), key=lambda item: item[1])[0] if self.corpus_scripts else ""
        return 0.0 if dominant and dominant not in self.dense_scripts else 1.0

    def unreadable_by_bm25(self, doc_id: str) -> bool:
        """True when the document is written in another script than the query (BM25 shares no terms with it)."""
        if not self.doc_scripts or self.script not in ("zh", "en"):
            return False
        doc_script = self.doc_scripts.get(doc_id)
        return doc_script in ("zh", "en") and doc_script != self.script

    @property
    def script_in_corpus(self) -> float:
        """How much of the corpus is written in the query's script (1 when unknown or mixed)."""
        if not self.corpus_scripts or self.script in ("", "mixed"):
            return 1.0
        return float(self.corpus_scripts.get(self.script, 0.0))


def query_signals(
    text: str,
    term_dfs: Sequence[int],
    n_documents: int,
    corpus_scripts: Mapping[str, float] | None,
    doc_scripts: Mapping[str, str] | None = None,
    dense_scripts: frozenset[str] | None = None,
    dense_model: str = "fast",
) -> QuerySignals:
    """Signals of one query from its text, its BM25 terms' document frequencies and the corpus scripts."""
    return QuerySignals(
        script=detect_script(text),
        corpus_scripts=dict(corpus_scripts) if corpus_scripts else None,
        coverage=idf_coverage(term_dfs, n_documents),
        terms=len(term_dfs),
        doc_scripts=dict(doc_scripts) if doc_scripts else None,
        dense_scripts=dense_scripts,
        dense_model=dense_model,
    )
