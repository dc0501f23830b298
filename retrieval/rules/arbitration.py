"""Pick one route from the rule evaluations: a pure function over plain values.

Highest priority wins; equal priorities go to the rule that comes first in the file.
A handler route whose rule confidence is below the threshold runs the handler and
hands its result to the model as context ("handler_then_model"); a pipeline route
(retrieve_qa, summary_tree, compare, chitchat) has mode "retrieve"; no match at all
routes to retrieve_qa.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from retrieval.rules.loader import HANDLER_ROUTES
from retrieval.rules.matcher import RuleEvaluation

Mode = Literal["answer", "handler_then_model", "retrieve"]
DEFAULT_ROUTE = "retrieve_qa"


@dataclass(frozen=True, slots=True)
class Arbitration:
    """The winner (None when nothing matched), its route, confidence and mode."""

    rule_id: str | None
    route: str
    confidence: float
    mode: Mode


def mode_for(route: str, confidence: float, threshold: float) -> Mode:
    if route not in HANDLER_ROUTES:
        return "retrieve"
    return "answer" if confidence >= threshold else "handler_then_model"


def arbitrate(evaluations: list[RuleEvaluation], threshold: float) -> Arbitration:
    """Highest priority among matched rules, ties by file order; none -> retrieve_qa."""
    matched = [e for e in evaluations if e.matched]
    if not matched:
        return Arbitration(rule_id=None, route=DEFAULT_ROUTE, confidence=0.0, mode="retrieve")
    winner = min(matched, key=lambda e: (-e.priority, e.order))
    return Arbitration(rule_id=winner.rule_id, route=winner.route, confidence=winner.confidence,
                       mode=mode_for(winner.route, winner.confidence, threshold))
