"""List scalings for fusion, with literal scores: the cosine-confidence scale keeps a list's own spread."""

from __future__ import annotations

import pytest

from retrieval.fusion_scales import cosine_confidence, min_max


def test_cosine_confidence_scales_from_the_lowest_to_the_cosine_maximum():
    scaled = cosine_confidence([("a", 0.9), ("b", 0.6), ("c", 0.5)])
    assert scaled == {"a": pytest.approx(0.8), "b": pytest.approx(0.2), "c": 0.0}


def test_a_flat_list_stays_flat_where_min_max_stretches_it():
    flat = [("a", 0.56), ("b", 0.555), ("c", 0.55)]
    assert max(cosine_confidence(flat).values()) == pytest.approx(0.01 / 0.45)
    assert max(min_max(flat).values()) == pytest.approx(1.0)


def test_an_offset_embedder_is_not_penalised_for_high_cosines():
    """e5-style cosines all in 0.75-0.9 keep a usable spread: the floor is the list's own."""
    assert cosine_confidence([("a", 0.9), ("b", 0.75)])["a"] == pytest.approx(0.6)


def test_cosine_confidence_of_nothing_and_of_perfect_matches():
    assert cosine_confidence([]) == {}
    assert cosine_confidence([("a", 1.0), ("b", 1.0)]) == {"a": 1.0, "b": 1.0}
