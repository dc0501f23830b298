"""An incremental BM25 index over jieba tokens (Okapi BM25, Lucene's idf).

Why not rank-bm25's ``BM25Okapi`` (the library the issue names)? It precomputes its
statistics in the constructor, so every add or delete rebuilds the whole index, and
each query scores every document in pure Python. ``bench/bench_bm25.py`` measures it
against bm25s and this module at 10k and 100k chunks; the numbers are in
``bench/results/bm25.txt``.

Design, borrowed from Lucene's segments:

* Documents are added in batches; each batch becomes an immutable *segment*: a
  term-major sparse matrix of term frequencies (row = term id, columns = the segment's
  documents), so a query term's postings are one contiguous slice.
* Deleting marks the document dead (a tombstone) and subtracts its statistics; dead
  documents are skipped at query time and dropped when segments are merged.
* Collection statistics (document frequency per term, live count, total length) are
  kept exact on every add and delete, and BM25 weights are computed at query time from
  the postings, so an index after add/delete scores exactly like one built from scratch.
* Segments merge in tiers (a new small segment merges only with similarly small ones)
  and are compacted when a third of them is dead, which keeps adds O(batch) amortised,
  deletes O(terms of the document) and queries O(postings of its terms).

Scores follow Okapi BM25 with ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene,
always positive). Query terms repeat as they occur in the query (as in rank-bm25).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from officeqa.scripts import detect_script
from officeqa.text_tokens import bm25_terms, stem_term

_FORMAT = "officeqa-bm25/1"
_MERGE_RATIO = 4  # merge the newest segment into its neighbour once it reaches 1/4 of its size
_MAX_DEAD_SHARE = 0.3  # compact a segment once this share of its documents is deleted


@dataclass
class _Segment:
    """Immutable postings of a batch of documents (plus a mutable live mask)."""

    doc_ids: list[str]
    seq: np.ndarray  # int64 global insertion number per document (stable tie-break)
    lengths: np.ndarray  # float64 token count per document
    indptr: np.ndarray  # int64 (n_terms_at_build + 1,)
    postings: np.ndarray  # int32 local document index
    tfs: np.ndarray  # float32 term frequency
    live: np.ndarray  # bool

    @property
    def n_terms(self) -> int:
        return len(self.indptr) - 1


RECENT_QUERIES = 256
"""Questions whose tokens a BM25 index remembers (:meth:`BM25Index.tokenize`)."""


class BM25Index:
    """BM25 search over chunks: ``add`` / ``remove`` by chunk id, ``search`` a query string."""

    def __init__(
        self,
        k1: float = 1.2,
        b: float = 0.75,
        tokenizer: Callable[[str], list[str]] = bm25_terms,
        word_term: Callable[[str], str] = stem_term,
    ):
        self.k1 = k1
        self.b = b
        self._tokenize = tokenizer
        self._recent_queries: dict[str, tuple[str, ...]] = {}  # text -> tokens (:meth:`_query_tokens`)
        self._word_term = word_term  # a word as written -> its term (document_frequency, idf, mentions)
        self._vocab: dict[str, int] = {}
        self._df = np.zeros(0, dtype=np.int64)
        self._segments: list[_Segment] = []
        self._where: dict[str, tuple[int, int]] = {}  # chunk id -> (segment index, local index)
        self._doc_terms: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # id -> (term ids, tfs)
        self._total_length = 0.0
        self._next_seq = 0
        self._script_flags = np.zeros(0, dtype=np.int8)  # per term id: 1 Han, 2 Latin, 0 other
        self._script_cache: tuple[tuple[int, int, int], dict[str, float]] | None = None
        self._doc_scripts: tuple[tuple[int, int, int], dict[str, str | None]] = ((-1, -1, -1), {})
        self._names: list[str] = []  # term id -> term, grown from the append-only vocabulary when read
        self.meta: dict[str, object] = {}  # persisted with the index (see save)

    # ---- size -------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._where)

    def ids(self) -> set[str]:
        """Ids of the live documents."""
        return set(self._where)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._where

    # ---- writes -----------------------------------------------------------------------------------
    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Index texts under ids; an id already present is replaced (update = delete + add)."""
        if len(ids) != len(texts):
            raise ValueError(f"{len(ids)} ids but {len(texts)} texts")
        self.add_tokenized(ids, [self._tokenize(text) for text in texts])

    def add_tokenized(self, ids: Sequence[str], token_lists: Sequence[Sequence[str]]) -> None:
        """Like :meth:`add` with texts already tokenized (benchmarks, loading, re-tokenizing callers)."""
        if len(ids) != len(token_lists):
            raise ValueError(f"{len(ids)} ids but {len(token_lists)} token lists")
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate ids in one add() call")
        if not ids:
            return
        self.remove(i for i in ids if i in self._where)
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        tf_parts: list[np.ndarray] = []
        lengths = np.empty(len(ids), dtype=np.float64)
        for local, (doc_id, tokens) in enumerate(zip(ids, token_lists, strict=True)):
            counts = Counter(tokens)
            term_ids = np.fromiter((self._term_id(t) for t in counts), dtype=np.int64, count=len(counts))
            tfs = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
            self._doc_terms[doc_id] = (term_ids, tfs)
            rows.append(term_ids)
            cols.append(np.full(len(term_ids), local, dtype=np.int32))
            tf_parts.append(tfs)
            lengths[local] = len(tokens)
        self._grow_df()
        all_rows = np.concatenate(rows)
        np.add.at(self._df, all_rows, 1)
        segment = self._build_segment(
            list(ids),
            np.arange(self._next_seq, self._next_seq + len(ids), dtype=np.int64),
            lengths,
            all_rows,
            np.concatenate(cols),
            np.concatenate(tf_parts),
        )
        self._next_seq += len(ids)
        self._total_length += float(lengths.sum())
        seg_index = len(self._segments)
        self._segments.append(segment)
        for local, doc_id in enumerate(ids):
            self._where[doc_id] = (seg_index, local)
        self._maybe_merge()

    def remove(self, ids: Iterable[str]) -> int:
        """Delete documents by id (unknown ids are ignored); returns how many were removed."""
        removed = 0
        for doc_id in list(ids):
            where = self._where.pop(doc_id, None)
            if where is None:
                continue
            seg_index, local = where
            segment = self._segments[seg_index]
            segment.live[local] = False
            self._total_length -= float(segment.lengths[local])
            term_ids, _ = self._doc_terms.pop(doc_id)
            self._df[term_ids] -= 1
            removed += 1
        if removed:
            self._maybe_merge()
        return removed

    # ---- reads ------------------------------------------------------------------------------------
    def document_frequency(self, term: str) -> int:
        """Live chunks that contain the word ``term`` ("revenues": its term "revenu"; 0 when never seen).

        Takes a word as written (callers weigh question words); :meth:`document_frequencies` takes terms.
        """
        return self._df_of(self._word_term(term))

    def _df_of(self, term: str) -> int:
        term_id = self._vocab.get(term)
        return int(self._df[term_id]) if term_id is not None and term_id < len(self._df) else 0

    def mentions(self, fragment: str) -> bool:
        """True when some live chunk has a term containing ``fragment`` ("年终奖" inside "年终奖金"), or
        containing its stem ("revenues" inside the term "revenu")."""
        if self.document_frequency(fragment):
            return True
        stem = self._word_term(fragment)
        return any((fragment in term or stem in term) and self._df[term_id] > 0
                   for term, term_id in self._vocab.items() if term_id < len(self._df))

    def idf(self, term: str) -> float:
        """The word's inverse document frequency in the live collection (an unseen word gets the maximum).

        Answers use it to weigh which question words a quoted sentence must cover: a rare
        word ("违约金") matters more than a common one ("公司").
        """
        n_live = len(self._where)
        df = self.document_frequency(term)
        return float(np.log1p((n_live - df + 0.5) / (df + 0.5)))

    def export(self) -> Iterator[tuple[str, dict[str, int], int]]:
        """(id, term -> frequency, length) of every live document in insertion order (``officeqa migrate``
        copies the index this way: the same statistics and the same tie-break order, no re-tokenizing)."""
        names = list(self._vocab)
        for doc_id in sorted(self._where, key=self._seq_of):
            term_ids, tfs = self._doc_terms[doc_id]
            yield doc_id, {names[t]: int(f) for t, f in zip(term_ids, tfs, strict=True)}, int(self._length_of(doc_id))

    def tokenize(self, text: str) -> list[str]:
        """The index's own tokenization of ``text`` (what :meth:`search` matches)."""
        return self._query_tokens(text)

    def _query_tokens(self, text: str) -> list[str]:
        """:meth:`tokenize` remembered for the last ``RECENT_QUERIES`` texts.

        Why: one hybrid search tokenizes its question four times (BM25, the fusion's signals twice,
        feedback), ~0.15 ms of jieba each; texts being indexed go through ``add`` and are not kept."""
        recent = self._recent_queries
        tokens = recent.get(text)
        if tokens is None:
            tokens = tuple(self._tokenize(text))
            if len(recent) >= RECENT_QUERIES:
                recent = self._recent_queries = {}  # start over: a swap, safe beside a search on another thread
            recent[text] = tokens
        return list(tokens)

    def document_frequencies(self, tokens: Sequence[str]) -> list[int]:
        """Live document frequency of each distinct token (0 for a token the index never saw).

        Fusion uses it to tell whether BM25 can read a query at all (``retrieval/query_signals.py``).
        """
        out = []
        for token in dict.fromkeys(tokens):
            term_id = self._vocab.get(token)
            out.append(int(self._df[term_id]) if term_id is not None else 0)
        return out

    def script_shares(self) -> dict[str, float]:
        """Share of the live term occurrences (by document frequency) written in Han vs Latin script.

        The corpus side of "is the query in the documents' language": {'zh': 0.93, 'en': 0.07}.
        Computed over the vocabulary once per change of the index (cached), so a query pays
        nothing after the first.
        """
        key = self._state_key()
        if self._script_cache is not None and self._script_cache[0] == key:
            return self._script_cache[1]
        self._update_script_flags()
        df = self._df[: len(self._vocab)].astype(np.float64)
        zh = float(df[self._script_flags == 1].sum())
        en = float(df[self._script_flags == 2].sum())
        total = zh + en
        shares = {"zh": zh / total, "en": en / total} if total > 0 else {}
        self._script_cache = (key, shares)
        return shares

    def term_counts(self, ids: Iterable[str]) -> dict[str, dict[str, int]]:
        """chunk id -> its index terms and their counts, first-seen order (the ids the index lacks are left out).

        Why: pseudo-relevance feedback reads the terms of a query's first chunks; the index already holds them,
        where tokenizing the chunks' texts again (jieba) cost ~40 ms a query at 10k chunks."""
        if len(self._names) < len(self._vocab):
            self._names = list(self._vocab)
        names = self._names
        out: dict[str, dict[str, int]] = {}
        for doc_id in ids:
            found = self._doc_terms.get(doc_id)
            if found is not None:
                out[doc_id] = {names[t]: int(f) for t, f in zip(found[0].tolist(), found[1].tolist(), strict=True)}
        return out

    def document_scripts(self, ids: Iterable[str]) -> dict[str, str]:
        """'zh', 'en' or 'mixed' per known id, from the scripts of its indexed terms (unknown ids left out).

        Lets fusion tell a document BM25 could not match because it is written in another
        language from one it could read and did not rank. Remembered per chunk until the index changes:
        every hybrid search asks for its 100 dense candidates (~0.8 ms at 10k chunks, afresh).
        """
        key = self._state_key()
        if self._doc_scripts[0] != key:
            self._doc_scripts = (key, {})
        known = self._doc_scripts[1]
        out: dict[str, str] = {}
        for doc_id in ids:
            if doc_id not in known:
                known[doc_id] = self._document_script(doc_id)
            script = known[doc_id]
            if script is not None:
                out[doc_id] = script
        return out

    def _document_script(self, doc_id: str) -> str | None:
        terms = self._doc_terms.get(doc_id)
        if terms is None:
            return None
        self._update_script_flags()
        flags = self._script_flags[terms[0]]
        han, latin = int((flags == 1).sum()), int((flags == 2).sum())
        if han + latin == 0:
            return None
        share = han / (han + latin)
        return "zh" if share >= 0.6 else "en" if share <= 0.25 else "mixed"

    def _state_key(self) -> tuple[int, int, int]:
        """Changes with every addition or removal (what the script caches are valid for)."""
        return (len(self._vocab), len(self._where), self._next_seq)

    def _update_script_flags(self) -> None:
        """Classify the terms added since the last call (Han 1, Latin 2, other 0), once per term."""
        if len(self._script_flags) < len(self._vocab):
            names = list(self._vocab)[len(self._script_flags) :]
            codes = {"zh": 1, "en": 2}
            extra = np.fromiter((codes.get(detect_script(t), 0) for t in names), dtype=np.int8, count=len(names))
            self._script_flags = np.concatenate([self._script_flags, extra])

    def search(self, query: str, k: int, allowed_ids: set[str] | None = None) -> list[tuple[str, float]]:
        """Top ``k`` (id, score) with score > 0, best first; equal scores keep insertion order.

        ``allowed_ids`` restricts results to those ids (metadata filters resolved by the caller).
        """
        return self.search_tokens(self._query_tokens(query), k, allowed_ids)

    def search_tokens(
        self, tokens: Sequence[str], k: int, allowed_ids: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """:meth:`search` with the query already tokenized (a term repeated counts that many times)."""
        return self.search_weighted(Counter(tokens), k, allowed_ids)

    def search_weighted(
        self, term_weights: Mapping[str, float], k: int, allowed_ids: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """:meth:`search_tokens` with each term's query weight given (a count, or a relevance model's
        fractional weight, ``retrieval/feedback.py``): a term scores ``weight x idf x`` its BM25 tf part."""
        n_live = len(self._where)
        if k <= 0 or n_live == 0:
            return []
        query_terms = {self._vocab[t]: float(w) for t, w in term_weights.items() if t in self._vocab and w > 0}
        if not query_terms:
            return []
        avgdl = self._total_length / n_live if self._total_length > 0 else 1.0
        df = self._df[list(query_terms)].astype(np.float64)
        idf = np.log1p((n_live - df + 0.5) / (df + 0.5))
        weights = dict(zip(query_terms, idf * np.fromiter(query_terms.values(), dtype=np.float64), strict=True))

        allowed = self._allowed_masks(allowed_ids) if allowed_ids is not None else None
        best_scores: list[np.ndarray] = []
        best_seq: list[np.ndarray] = []
        best_ref: list[tuple[int, np.ndarray]] = []
        for seg_index, segment in enumerate(self._segments):
            scores = self._score_segment(segment, weights, avgdl)
            if scores is None:
                continue
            mask = (scores > 0) & segment.live
            if allowed is not None:
                mask &= allowed[seg_index]
            local = np.flatnonzero(mask)
            if len(local) > k:  # keep this segment's k best (ties at the cut resolved below by seq)
                cut = np.partition(-scores[local], k - 1)[k - 1]
                local = local[-scores[local] <= cut]
            best_scores.append(scores[local])
            best_seq.append(segment.seq[local])
            best_ref.append((seg_index, local))
        if not best_scores:
            return []
        scores = np.concatenate(best_scores)
        seqs = np.concatenate(best_seq)
        order = np.lexsort((seqs, -scores))[:k]
        owners = np.concatenate([np.full(len(local), s, dtype=np.int64) for s, local in best_ref])
        locals_ = np.concatenate([local for _, local in best_ref])
        return [
            (self._segments[owners[i]].doc_ids[locals_[i]], float(scores[i])) for i in order
        ]

    def _allowed_masks(self, allowed_ids: set[str]) -> list[np.ndarray]:
        """Per-segment boolean masks of the allowed live ids (cost follows the filter's size, not the index's)."""
        masks = [np.zeros(len(segment.doc_ids), dtype=bool) for segment in self._segments]
        for doc_id in allowed_ids:
            where = self._where.get(doc_id)
            if where is not None:
                masks[where[0]][where[1]] = True
        return masks

    def _score_segment(self, segment: _Segment, weights: dict[int, float], avgdl: float) -> np.ndarray | None:
        n_docs = len(segment.doc_ids)
        norm = self.k1 * (1.0 - self.b + self.b * segment.lengths / avgdl)
        scores: np.ndarray | None = None
        for term_id, weight in weights.items():
            if term_id >= segment.n_terms:
                continue
            start, end = segment.indptr[term_id], segment.indptr[term_id + 1]
            if start == end:
                continue
            docs = segment.postings[start:end]
            tf = segment.tfs[start:end].astype(np.float64)
            if scores is None:
                scores = np.zeros(n_docs, dtype=np.float64)
            scores[docs] += weight * tf * (self.k1 + 1.0) / (tf + norm[docs])
        return scores

    # ---- persistence ------------------------------------------------------------------------------
    def save(self, path: str | Path, meta: dict[str, object] | None = None) -> None:
        """Write the live documents' term counts to one ``.npz`` (no pickle; plain arrays and JSON).

        ``meta`` is kept in the header and comes back as :attr:`meta` from :meth:`load` (the
        store wrapper records which log epoch the file already holds).
        """
        path = Path(path)
        order = sorted(self._where, key=lambda d: self._seq_of(d))
        vocab = list(self._vocab)
        term_parts = [self._doc_terms[d][0] for d in order]
        tf_parts = [self._doc_terms[d][1] for d in order]
        lengths = np.array([self._length_of(d) for d in order], dtype=np.float64)
        offsets = np.zeros(len(order) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(t) for t in term_parts])
        header = {"format": _FORMAT, "k1": self.k1, "b": self.b, "ids": order, "vocab": vocab, "meta": meta or {}}
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as fh:
            np.savez(
                fh,
                header=np.frombuffer(json.dumps(header, ensure_ascii=False).encode("utf-8"), dtype=np.uint8),
                offsets=offsets,
                # int32 term ids and uint16 counts: a third of the size of int64/float32 on disk.
                terms=(np.concatenate(term_parts) if term_parts else np.zeros(0)).astype(np.int32),
                tfs=np.minimum(np.concatenate(tf_parts) if tf_parts else np.zeros(0), 65535).astype(np.uint16),
                lengths=lengths,
            )
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(path)  # atomic: a crash mid-write leaves the previous file intact

    @classmethod
    def load(
        cls, path: str | Path, tokenizer: Callable[[str], list[str]] = bm25_terms,
        word_term: Callable[[str], str] = stem_term,
    ) -> BM25Index:
        """Read an index written by :meth:`save` (one segment, insertion order preserved)."""
        with np.load(Path(path), allow_pickle=False) as data:
            header = json.loads(bytes(data["header"]).decode("utf-8"))
            if header.get("format") != _FORMAT:
                raise ValueError(f"{path}: not an officeqa BM25 index (format {header.get('format')!r})")
            offsets, lengths = data["offsets"], data["lengths"]
            terms, tfs = data["terms"].astype(np.int64), data["tfs"].astype(np.float32)
        index = cls(k1=header["k1"], b=header["b"], tokenizer=tokenizer, word_term=word_term)
        index.meta = dict(header.get("meta") or {})
        index._fill(header["vocab"], header["ids"], offsets, terms, tfs, lengths)
        return index

    def with_terms(
        self, term_of: Callable[[str], str], tokenizer: Callable[[str], list[str]] = bm25_terms,
        word_term: Callable[[str], str] = stem_term,
    ) -> BM25Index:
        """A copy whose every term is ``term_of(term)`` (terms that meet are merged, counts summed), reading
        queries with ``tokenizer`` and ``word_term`` (the ones that make such terms).

        How an index built by an older tokenizer is brought to the current one without its texts: the
        stored tokens were jieba's, and the current terms are those tokens stemmed one by one
        (``officeqa.text_tokens.bm25_terms``), so re-terming the postings equals re-tokenizing every
        chunk, at the cost of one stem per distinct term. Lengths, ids and insertion order are kept.
        """
        order = sorted(self._where, key=self._seq_of)
        vocab: dict[str, int] = {}
        remap = np.fromiter((vocab.setdefault(term_of(t), len(vocab)) for t in self._vocab),
                            dtype=np.int64, count=len(self._vocab))
        index = type(self)(k1=self.k1, b=self.b, tokenizer=tokenizer, word_term=word_term)
        index.meta = dict(self.meta)
        if not order:
            index._fill(list(vocab), [], np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32),
                        np.zeros(0))
            return index
        sizes = np.fromiter((len(self._doc_terms[d][0]) for d in order), dtype=np.int64, count=len(order))
        docs = np.repeat(np.arange(len(order), dtype=np.int64), sizes)
        keys = docs * max(len(vocab), 1) + remap[np.concatenate([self._doc_terms[d][0] for d in order])]
        unique, inverse = np.unique(keys, return_inverse=True)
        tfs = np.bincount(inverse, weights=np.concatenate([self._doc_terms[d][1] for d in order]))
        offsets = np.searchsorted(unique // max(len(vocab), 1), np.arange(len(order) + 1), side="left")
        lengths = np.array([self._length_of(d) for d in order], dtype=np.float64)
        index._fill(list(vocab), order, offsets.astype(np.int64), unique % max(len(vocab), 1),
                    tfs.astype(np.float32), lengths)
        return index

    def _fill(self, vocab: list[str], ids: list[str], offsets: np.ndarray, terms: np.ndarray, tfs: np.ndarray,
              lengths: np.ndarray) -> None:
        """Become one segment of ``ids`` in this order (document i's terms: ``terms[offsets[i]:offsets[i+1]]``)."""
        self._vocab = {term: i for i, term in enumerate(vocab)}
        self._df = np.zeros(len(self._vocab), dtype=np.int64)
        if not ids:
            return
        terms = terms.astype(np.int64, copy=False)
        np.add.at(self._df, terms, 1)
        cols = np.repeat(np.arange(len(ids), dtype=np.int32), np.diff(offsets))
        for i, doc_id in enumerate(ids):
            self._doc_terms[doc_id] = (terms[offsets[i] : offsets[i + 1]], tfs[offsets[i] : offsets[i + 1]])
            self._where[doc_id] = (0, i)
        seq = np.arange(len(ids), dtype=np.int64)
        self._segments = [self._build_segment(ids, seq, lengths.copy(), terms, cols, tfs)]
        self._next_seq = len(ids)
        self._total_length = float(lengths.sum())

    # ---- internals --------------------------------------------------------------------------------
    def _term_id(self, term: str) -> int:
        term_id = self._vocab.get(term)
        if term_id is None:
            term_id = self._vocab[term] = len(self._vocab)
        return term_id

    def _grow_df(self) -> None:
        if len(self._df) < len(self._vocab):
            grown = np.zeros(max(len(self._vocab), 2 * len(self._df)), dtype=np.int64)
            grown[: len(self._df)] = self._df
            self._df = grown

    def _seq_of(self, doc_id: str) -> int:
        seg_index, local = self._where[doc_id]
        return int(self._segments[seg_index].seq[local])

    def _length_of(self, doc_id: str) -> float:
        seg_index, local = self._where[doc_id]
        return float(self._segments[seg_index].lengths[local])

    def _build_segment(
        self,
        doc_ids: list[str],
        seq: np.ndarray,
        lengths: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
        tfs: np.ndarray,
    ) -> _Segment:
        """Term-major postings: a CSR matrix (row = term) built by scipy's O(nnz) counting sort.

        Input entries come grouped by document in segment order, and the conversion keeps
        input order within a row, so each term's postings are sorted by document.
        """
        from scipy.sparse import csr_matrix

        n_terms = len(self._vocab)
        matrix = csr_matrix(
            (tfs.astype(np.float32, copy=False), (rows, cols)), shape=(n_terms, len(doc_ids)), dtype=np.float32
        )
        return _Segment(
            doc_ids=doc_ids,
            seq=seq,
            lengths=lengths,
            indptr=matrix.indptr.astype(np.int64, copy=False),
            postings=matrix.indices.astype(np.int32, copy=False),
            tfs=matrix.data,
            live=np.ones(len(doc_ids), dtype=bool),
        )

    def _maybe_merge(self) -> None:
        """Tiered merging: adjacent segments of similar size merge, half-dead segments are compacted.

        Segments stay in insertion order with sizes shrinking by at least ``_MERGE_RATIO``
        from oldest to newest, so there are O(log n) of them and each document is rewritten
        O(log n) times over the index's life: a small add never rewrites the big segment.
        """
        for i in reversed(range(len(self._segments))):
            segment = self._segments[i]
            if (len(segment.doc_ids) - int(segment.live.sum())) > _MAX_DEAD_SHARE * len(segment.doc_ids):
                self._merge_range(i, i + 1)
        while len(self._segments) >= 2 and (
            _MERGE_RATIO * len(self._segments[-1].doc_ids) >= len(self._segments[-2].doc_ids)
        ):
            self._merge_range(len(self._segments) - 2, len(self._segments))

    def _merge_range(self, start: int, end: int) -> None:
        """Rewrite segments[start:end] as one segment of their live documents (dropped if none)."""
        live_ids: list[str] = []
        seqs: list[np.ndarray] = []
        lengths: list[np.ndarray] = []
        for segment in self._segments[start:end]:
            live = np.flatnonzero(segment.live)
            live_ids.extend(segment.doc_ids[i] for i in live)
            seqs.append(segment.seq[live])
            lengths.append(segment.lengths[live])
        merged: list[_Segment] = []
        if live_ids:
            term_parts = [self._doc_terms[d][0] for d in live_ids]
            counts = np.fromiter((len(t) for t in term_parts), dtype=np.int64, count=len(term_parts))
            merged.append(
                self._build_segment(
                    live_ids,
                    np.concatenate(seqs),
                    np.concatenate(lengths),
                    np.concatenate(term_parts),
                    np.repeat(np.arange(len(live_ids), dtype=np.int32), counts),
                    np.concatenate([self._doc_terms[d][1] for d in live_ids]),
                )
            )
        self._segments[start:end] = merged
        for seg_index in range(start, len(self._segments)):  # positions after the merge point moved
            segment = self._segments[seg_index]
            for local in np.flatnonzero(segment.live):
                self._where[segment.doc_ids[local]] = (seg_index, int(local))
