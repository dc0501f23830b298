"""Say, for every rule, whether it matched and why: the text behind ``officeqa route --explain``."""

from __future__ import annotations

from typing import Any

from retrieval.rules.matcher import RuleEvaluation


def explain_lines(evaluations: list[RuleEvaluation], winner: str | None) -> list[str]:
    """One line per rule in file order: mark, id, route, priority and the reason."""
    lines = []
    for e in sorted(evaluations, key=lambda e: e.order):
        mark = "=>" if e.rule_id == winner else ("+ " if e.matched else "- ")
        lines.append(f"{mark} {e.rule_id} [{e.route}, p={e.priority}, c={e.confidence:g}]: {e.reason}")
    return lines


def explain_json(evaluations: list[RuleEvaluation]) -> list[dict[str, Any]]:
    return [e.to_json() for e in sorted(evaluations, key=lambda e: e.order)]


def summary(evaluations: list[RuleEvaluation], winner: str | None) -> str:
    """The short explanation printed with every decision: why the winner won, or that nothing matched."""
    if winner is None:
        return "no rule matched; default route retrieve_qa"
    chosen = next(e for e in evaluations if e.rule_id == winner)
    others = [e.rule_id for e in evaluations if e.matched and e.rule_id != winner]
    tail = f"; also matched (lower priority or later): {', '.join(others)}" if others else ""
    return f"{winner} {chosen.reason}{tail}"
