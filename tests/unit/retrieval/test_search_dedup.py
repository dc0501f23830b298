"""De-duplication of overlapping chunks, document collapsing and the filter whitelist (pure functions)."""

from __future__ import annotations

import re

import pytest

from retrieval.filters import InvalidFilter, parse_cli_filter, to_chroma_where, validate_filters
from retrieval.search import SearchHit, collapse_to_documents, dedupe_overlaps


def hit(chunk_id: str, doc_id: str, score: float, position: int | None, overlap: int = 0) -> SearchHit:
    meta = {} if position is None else {"position": position, "overlap_chars": overlap}
    return SearchHit(chunk_id, doc_id, score, f"text {chunk_id}", meta)


def ids(hits: list[SearchHit]) -> list[str]:
    return [h.chunk_id for h in hits]


def test_overlapping_neighbour_of_a_better_hit_is_dropped() -> None:
    hits = [hit("a2", "a", 0.9, 2, overlap=40), hit("a3", "a", 0.8, 3, overlap=40), hit("b1", "b", 0.7, 1)]
    assert ids(dedupe_overlaps(hits)) == ["a2", "b1"]


def test_overlap_is_read_from_the_later_chunk_whichever_ranks_first() -> None:
    # a3 (later chunk, overlap 30 with a2) ranks first: a2 overlaps it, so a2 goes.
    hits = [hit("a3", "a", 0.9, 3, overlap=30), hit("a2", "a", 0.8, 2, overlap=0)]
    assert ids(dedupe_overlaps(hits)) == ["a3"]


def test_neighbours_without_overlap_and_distant_chunks_are_kept() -> None:
    hits = [
        hit("a2", "a", 0.9, 2, overlap=0),
        hit("a3", "a", 0.8, 3, overlap=0),  # adjacent but no shared text
        hit("a7", "a", 0.7, 7, overlap=25),  # not adjacent
        hit("b3", "b", 0.6, 3, overlap=25),  # another document
    ]
    assert ids(dedupe_overlaps(hits)) == ["a2", "a3", "a7", "b3"]


def test_same_position_twice_and_hits_without_position() -> None:
    hits = [hit("a1", "a", 0.9, 1), hit("a1-copy", "a", 0.5, 1), hit("x", "a", 0.4, None), hit("y", "a", 0.3, None)]
    assert ids(dedupe_overlaps(hits)) == ["a1", "x", "y"]


def test_a_chain_keeps_the_best_and_every_second() -> None:
    hits = [hit("a5", "a", 0.9, 5, 20), hit("a4", "a", 0.8, 4, 20), hit("a6", "a", 0.7, 6, 20)]
    hits.append(hit("a7", "a", 0.6, 7, 20))  # a6 was dropped, so a7 only touches a dropped hit
    assert ids(dedupe_overlaps(hits)) == ["a5", "a7"]


def test_collapse_to_documents_keeps_best_rank_and_order() -> None:
    chunk_doc = {"a1": "A", "b1": "B", "a2": "A", "c1": "C", "b2": "B"}
    assert collapse_to_documents(["b2", "a1", "a2", "b1", "c1", "unknown"], chunk_doc) == ["B", "A", "C"]


def test_filters_shorthand_and_operators_become_a_chroma_where() -> None:
    conditions = validate_filters({"file_type": "pdf", "page": {"$in": ["3", 4]}, "sheet": {"$ne": "汇总"}})
    assert conditions == [("file_type", "$eq", "pdf"), ("page", "$in", [3, 4]), ("sheet", "$ne", "汇总")]
    assert to_chroma_where(conditions) == {
        "$and": [{"file_type": {"$eq": "pdf"}}, {"page": {"$in": [3, 4]}}, {"sheet": {"$ne": "汇总"}}]
    }
    assert to_chroma_where(validate_filters({"doc_id": "abc"})) == {"doc_id": {"$eq": "abc"}}
    assert to_chroma_where(validate_filters(None)) is None


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"author": "x"}, "unknown filter field 'author'"),
        ({"file_type": {"$regex": ".*"}}, "unknown operator '$regex'"),
        ({"page": {"$gt": 3}}, "unknown operator '$gt'"),
        ({"page": "three"}, "'page' takes an integer"),
        ({"doc_id": {"$in": []}}, "non-empty list"),
        ({"file_type": {"$eq": "pdf", "$ne": "x"}}, "exactly one operator"),
        ({"kind": {"$eq": ["text"]}}, "'kind' takes a string"),
    ],
)
def test_filters_outside_the_whitelist_are_refused_with_a_clear_message(filters: dict, message: str) -> None:
    with pytest.raises(InvalidFilter, match=re.escape(message)):
        validate_filters(filters)


def test_cli_filter_syntax() -> None:
    assert parse_cli_filter("file_type=pdf") == ("file_type", {"$eq": "pdf"})
    assert parse_cli_filter("file_type=pdf,docx") == ("file_type", {"$in": ["pdf", "docx"]})
    assert parse_cli_filter("sheet!=Sheet1") == ("sheet", {"$ne": "Sheet1"})
    with pytest.raises(InvalidFilter):
        parse_cli_filter("file_type")
