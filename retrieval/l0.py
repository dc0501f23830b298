"""The L0 layer's facade: route an instruction, and run the deterministic handler it chose.

``route`` never calls a model: it normalises the instruction (capped to
``settings.rules.max_input_chars``), evaluates every rule within
``settings.rules.match_budget_ms`` and arbitrates. ``run_handler`` answers a handler
route from parsed documents, every item citing its file and page/sheet/row.
Rules are compiled once per rules source (the shipped file plus the user's file,
keyed by its modification time) and reused across calls.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from officeqa.domain import ParsedDocument
from officeqa.settings import RulesSettings, Settings
from retrieval.handlers.params import extract_params
from retrieval.handlers.results import HandlerResult
from retrieval.rules.arbitration import Mode, arbitrate
from retrieval.rules.explain import explain_json, explain_lines, summary
from retrieval.rules.loader import HANDLER_ROUTES, load_rules
from retrieval.rules.matcher import MatchContext, RuleEvaluation, RuleMatcher
from retrieval.rules.normalize import normalize

__all__ = ["L0Router", "RouteDecision", "get_router", "route", "run_handler"]


@dataclass(slots=True)
class RouteDecision:
    """Where an instruction goes, why, and what the handler needs to know."""

    rule_id: str | None
    route: str
    confidence: float
    mode: Mode
    params: dict[str, Any]
    explanation: str
    instruction: str = ""
    evaluations: list[RuleEvaluation] = field(default_factory=list)
    elapsed_ms: float = 0.0
    input_capped: bool = False
    budget_exceeded: bool = False

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule_id": self.rule_id, "route": self.route, "confidence": self.confidence, "mode": self.mode,
            "params": self.params, "explanation": self.explanation, "elapsed_ms": round(self.elapsed_ms, 3),
        }
        if self.input_capped:
            out["input_capped"] = True
        if self.budget_exceeded:
            out["budget_exceeded"] = True
        if explain:
            out["rules"] = explain_json(self.evaluations)
        return out

    def explain_text(self) -> str:
        return "\n".join(explain_lines(self.evaluations, self.rule_id))


def _rules_settings(settings: RulesSettings | Settings | None) -> RulesSettings:
    if settings is None:
        return RulesSettings()
    return settings.rules if isinstance(settings, Settings) else settings


class L0Router:
    """Compiled rules plus the routing knobs; build once, call :meth:`route` many times."""

    def __init__(self, settings: RulesSettings | Settings | None = None, *, matcher: RuleMatcher | None = None) -> None:
        self.settings = _rules_settings(settings)
        self.matcher = matcher or RuleMatcher(load_rules(self.settings.user_rules_file or None))

    def route(
        self,
        instruction: str,
        file_type: str | None = None,
        context: MatchContext | dict[str, Any] | None = None,
        *,
        explain: bool = False,
    ) -> RouteDecision:
        """Decide the route; ``explain=True`` also records why every rule did not match (slower)."""
        start = time.perf_counter()
        cap = self.settings.max_input_chars
        capped = len(instruction) > cap
        text = normalize(instruction[:cap])
        ctx = _context(file_type, context)
        deadline = start + self.settings.match_budget_ms / 1000.0
        evaluations, exceeded = self.matcher.evaluate(text, ctx, deadline=deadline, explain=explain)
        result = arbitrate(evaluations, self.settings.confidence_threshold)
        params = extract_params(result.route, text) if result.route in HANDLER_ROUTES else {}
        return RouteDecision(
            rule_id=result.rule_id, route=result.route, confidence=result.confidence, mode=result.mode,
            params=params, explanation=summary(evaluations, result.rule_id), instruction=text,
            evaluations=evaluations, elapsed_ms=(time.perf_counter() - start) * 1000.0,
            input_capped=capped, budget_exceeded=exceeded,
        )


def _context(file_type: str | None, context: MatchContext | dict[str, Any] | None) -> MatchContext:
    if isinstance(context, MatchContext):
        ctx = MatchContext(file_type=context.file_type, columns=context.columns)
    else:
        ctx = MatchContext(columns=(context or {}).get("columns"))
    if file_type is not None:
        ctx.file_type = file_type
    return ctx


@functools.lru_cache(maxsize=8)
def _cached_router(settings_json: str, mtime_ns: int) -> L0Router:
    del mtime_ns  # part of the cache key only: an edited user file recompiles
    return L0Router(RulesSettings.model_validate_json(settings_json))


def get_router(settings: RulesSettings | Settings | None = None) -> L0Router:
    """The compiled router for these settings, reused while the user's rules file is unchanged."""
    rules = _rules_settings(settings)
    mtime = 0
    if rules.user_rules_file:
        path = Path(rules.user_rules_file)
        mtime = path.stat().st_mtime_ns if path.exists() else -1
    return _cached_router(rules.model_dump_json(), mtime)


def route(
    instruction: str,
    file_type: str | None = None,
    context: MatchContext | dict[str, Any] | None = None,
    settings: RulesSettings | Settings | None = None,
    *,
    explain: bool = False,
) -> RouteDecision:
    """Route one instruction with the (cached) compiled rules of ``settings``."""
    return get_router(settings).route(instruction, file_type=file_type, context=context, explain=explain)


def run_handler(decision: RouteDecision, documents: list[ParsedDocument]) -> HandlerResult:
    """Run the deterministic handler of a handler route over parsed documents."""
    from retrieval.handlers import run_route

    return run_route(decision.route, decision.params, decision.instruction, documents)
