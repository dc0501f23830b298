"""Merging the background model's hits with the fast model's (retrieval/dense.py): scores on one scale."""

from __future__ import annotations

from retrieval.dense import merge_by_moments


def test_fast_scores_are_mapped_onto_the_strong_lists_mean_and_spread() -> None:
    strong = [("s1", 0.90), ("s2", 0.86), ("s3", 0.82)]  # e5 packs cosines high and close
    fast = [("f1", 0.70), ("f2", 0.40), ("f3", 0.10)]  # USE spreads them
    merged = merge_by_moments(strong, fast, depth=10)
    scores = dict(merged)
    # each list's best stands out by the same amount among its own candidates: they tie on one scale
    assert abs(scores["f1"] - scores["s1"]) < 1e-9 and abs(scores["f3"] - scores["s3"]) < 1e-9
    # raw cosines would have put every strong hit above every fast one
    assert [cid for cid, _ in merged][:2] in (["s1", "f1"], ["f1", "s1"])
    assert {cid for cid, _ in merged} == {"s1", "s2", "s3", "f1", "f2", "f3"}


def test_one_list_alone_is_kept_and_cut_to_depth() -> None:
    strong = [("a", 0.9), ("b", 0.8), ("c", 0.7)]
    assert merge_by_moments(strong, [], depth=2) == [("a", 0.9), ("b", 0.8)]
    assert merge_by_moments([], strong, depth=5) == strong


def test_a_list_without_spread_is_shifted_not_scaled() -> None:
    merged = dict(merge_by_moments([("s", 0.8), ("t", 0.6)], [("f", 0.3), ("g", 0.3)], depth=4))
    assert merged["f"] == merged["g"] == 0.7  # the strong list's mean


def test_a_scope_of_documents_is_read_from_a_doc_id_filter_alone():
    from retrieval.dense import scope_documents

    assert scope_documents({"doc_id": {"$eq": "a"}}) == ["a"]
    assert scope_documents({"doc_id": {"$in": ["a", "b"]}}) == ["a", "b"]
    assert scope_documents({"doc_id": {"$ne": "a"}}) is None
    assert scope_documents({"page": {"$eq": 3}}) is None
    assert scope_documents({"$and": [{"doc_id": {"$eq": "a"}}, {"page": {"$eq": 3}}]}) is None
