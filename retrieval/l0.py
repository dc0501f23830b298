"""The L0 layer's facade: route an instruction, and run the deterministic handler it chose.

``route`` never calls a generation model: it normalises the instruction (capped to
``settings.rules.max_input_chars``), evaluates every rule within
``settings.rules.match_budget_ms`` and arbitrates. When no rule matched, the second stage
(``retrieval.rules.nearest``, ``settings.rules.second_stage``) may label the instruction
by its nearest labelled examples, with a low confidence; it loads its embedding model on
first use, so instructions a rule answers never pay for it. ``run_handler`` answers a
handler route from parsed documents, every item citing its file and page/sheet/row.
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
from officeqa.embeddings.base import Embedder
from officeqa.errors import OfficeQAError
from officeqa.settings import EmbeddingSettings, OllamaSettings, RulesSettings, Settings
from retrieval.handlers import run_route
from retrieval.handlers.params import extract_params
from retrieval.handlers.results import HandlerResult
from retrieval.rules.arbitration import Mode, arbitrate, mode_for
from retrieval.rules.explain import explain_json, explain_lines, summary
from retrieval.rules.loader import HANDLER_ROUTES, load_rules
from retrieval.rules.matcher import MatchContext, RuleEvaluation, RuleMatcher
from retrieval.rules.nearest import NearestExamples, NearestResult, load_examples
from retrieval.rules.normalize import normalize

SECOND_STAGE_ID = "nearest_examples"

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
    rules_ms: float = 0.0
    second_stage: NearestResult | None = None
    second_stage_note: str | None = None

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
            if self.second_stage is not None:
                out["second_stage"] = self.second_stage.to_json()
            elif self.second_stage_note:
                out["second_stage"] = {"note": self.second_stage_note}
        return out

    def explain_text(self) -> str:
        lines = explain_lines(self.evaluations, self.rule_id)
        if self.second_stage is not None:
            near = self.second_stage
            mark = "=>" if near.accepted else "- "
            lines.append(f"{mark} {SECOND_STAGE_ID} [{near.route}]: {near.reason}")
            lines += [f"     {sim:.2f} {route:18s} {text}" for text, route, sim in near.neighbours]
        elif self.second_stage_note:
            lines.append(f"-  {SECOND_STAGE_ID}: {self.second_stage_note}")
        return "\n".join(lines)


def _rules_settings(settings: RulesSettings | Settings | None) -> RulesSettings:
    if settings is None:
        return RulesSettings()
    return settings.rules if isinstance(settings, Settings) else settings


class L0Router:
    """Compiled rules plus the routing knobs; build once, call :meth:`route` many times."""

    def __init__(
        self,
        settings: RulesSettings | Settings | None = None,
        *,
        matcher: RuleMatcher | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.settings = _rules_settings(settings)
        self.matcher = matcher or RuleMatcher(load_rules(self.settings.user_rules_file or None))
        self._embedder = embedder
        self._nearest: NearestExamples | None = None
        self._nearest_error: str | None = None
        # A route whose every rule the user disabled is not reached through the second stage either.
        enabled = {cr.rule.route for cr in self.matcher.rules if cr.rule.enabled}
        self._disabled_routes = frozenset(cr.rule.route for cr in self.matcher.rules) - enabled

    def second_stage(self) -> NearestExamples | None:
        """The second stage, built on first use; None when off or when its model cannot load (noted once)."""
        if self.settings.second_stage == "off" or self._nearest_error is not None:
            return None
        if self._nearest is None:
            try:
                embedder = self._embedder or _stage_embedder(self.settings.second_stage_backend)
                self._nearest = NearestExamples(
                    load_examples(self.settings.examples_file or None), embedder,
                    min_similarity=self.settings.second_stage_min_similarity, margin=self.settings.second_stage_margin,
                )
            except (ImportError, OSError, OfficeQAError) as exc:
                self._nearest_error = f"second stage unavailable ({type(exc).__name__}: {exc})"
                return None
        return self._nearest

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
        rules_ms = (time.perf_counter() - start) * 1000.0
        rule_id, route_name, confidence, mode = result.rule_id, result.route, result.confidence, result.mode
        explanation = summary(evaluations, result.rule_id)
        near, note = None, None
        if rule_id is None and text and not exceeded:
            near, note = self._nearest_route(text, evaluations)
            if near is not None and near.accepted:
                rule_id, route_name = SECOND_STAGE_ID, near.route
                confidence = self.settings.second_stage_confidence
                mode = mode_for(route_name, confidence, self.settings.confidence_threshold)
                explanation = f"no rule matched; nearest labelled examples: {near.reason}"
        params = extract_params(route_name, text) if route_name in HANDLER_ROUTES else {}
        return RouteDecision(
            rule_id=rule_id, route=route_name, confidence=confidence, mode=mode,
            params=params, explanation=explanation, instruction=text,
            evaluations=evaluations, elapsed_ms=(time.perf_counter() - start) * 1000.0,
            input_capped=capped, budget_exceeded=exceeded, rules_ms=rules_ms, second_stage=near,
            second_stage_note=note,
        )

    def _nearest_route(self, text: str, evaluations: list[RuleEvaluation]) -> tuple[NearestResult | None, str | None]:
        stage = self.second_stage()
        if stage is None:
            return None, self._nearest_error
        vetoed = frozenset(e.route for e in evaluations if e.vetoed) | self._disabled_routes
        try:
            return stage.classify(text, vetoed), None
        except OfficeQAError as exc:  # e.g. an Ollama embedding backend that went away
            return None, f"second stage failed ({type(exc).__name__}: {exc})"


def _context(file_type: str | None, context: MatchContext | dict[str, Any] | None) -> MatchContext:
    if isinstance(context, MatchContext):
        ctx = MatchContext(file_type=context.file_type, columns=context.columns)
    else:
        ctx = MatchContext(columns=(context or {}).get("columns"))
    if file_type is not None:
        ctx.file_type = file_type
    return ctx


@functools.lru_cache(maxsize=4)
def _stage_embedder(backend: str) -> Embedder:
    """One embedder per backend name for every router in the process (the model loads once).

    The bundled USE model runs single-threaded here: the stage embeds one short instruction at a
    time, and on a busy two-core machine a two-thread pool spent ~300 ms per instruction waiting
    for its threads against ~2 ms on one (bench/bench_l0.py)."""
    if backend == "use":
        from officeqa.embeddings.use import USEEmbedder

        return USEEmbedder(threads=1)
    from officeqa.embeddings import create_embedder

    return create_embedder(EmbeddingSettings(backend=backend), OllamaSettings())


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
    return run_route(decision.route, decision.params, decision.instruction, documents)
