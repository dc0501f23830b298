"""Acceptance: route accuracy on the labelled instruction set is at least 98%."""

from __future__ import annotations

from eval.route_accuracy import ROUTE_SET, evaluate_routes, load_set


def test_route_set_is_large_and_mixed() -> None:
    cases = load_set(ROUTE_SET)
    assert len(cases) >= 150
    routes = {c["expected_route"] for c in cases}
    assert {"retrieve_qa", "summary_tree", "compare", "chitchat", "extract_phone", "table_aggregate"} <= routes
    assert any(c["instruction"].isascii() for c in cases) and any(not c["instruction"].isascii() for c in cases)


def test_route_accuracy_at_least_98_percent() -> None:
    report = evaluate_routes()
    assert report.accuracy >= 0.98, report.text()
