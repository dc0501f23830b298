"""L0 intent rules: data (rules.yaml) compiled once into matchers, arbitrated into one route."""

from retrieval.rules.arbitration import Arbitration, arbitrate
from retrieval.rules.loader import HANDLER_ROUTES, Rule, RuleFile, load_rules, parse_rules_text
from retrieval.rules.matcher import MatchContext, RuleEvaluation, RuleMatcher
from retrieval.rules.normalize import normalize
from retrieval.rules.safety import UnsafeRegex, check_regex

__all__ = [
    "HANDLER_ROUTES", "Arbitration", "MatchContext", "Rule", "RuleEvaluation", "RuleFile", "RuleMatcher",
    "UnsafeRegex", "arbitrate", "check_regex", "load_rules", "normalize", "parse_rules_text",
]
