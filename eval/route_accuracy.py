"""Route accuracy of the L0 rules on a labelled instruction set (eval/route_set.jsonl).

Library use: ``evaluate_routes(path, settings) -> RouteReport``; as a script,
``python -m eval.route_accuracy [FILE] [--rules-only]`` prints accuracy, per-route recall and
every mis-route (the confusion list) with the rule that fired (``nearest_examples`` when
the second stage chose). ``--rules-only`` turns the second stage off.

Splits: ``route_set.jsonl`` (the first labelled set) and ``route_dev.jsonl`` are tuned on;
``route_split_heldout.jsonl`` is frozen and only measured (see ``route_split_heldout.md``).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from officeqa.settings import RulesSettings
from retrieval.l0 import L0Router

ROUTE_SET = Path(__file__).resolve().parent / "route_set.jsonl"


@dataclass(slots=True)
class RouteReport:
    total: int
    correct: int
    confusions: list[dict[str, Any]] = field(default_factory=list)
    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    per_route: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def text(self) -> str:
        lines = [f"route accuracy: {self.correct}/{self.total} = {self.accuracy:.2%}"]
        for route_name, (ok, n) in sorted(self.per_route.items()):
            lines.append(f"  {route_name:18s} {ok}/{n}")
        if self.confusions:
            lines.append("confusions (expected -> got):")
            for c in self.confusions:
                lines.append(f"  {c['expected']} -> {c['got']} ({c['rule_id']}): {c['instruction']}")
        return "\n".join(lines)


def load_set(path: str | Path = ROUTE_SET) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def evaluate_routes(path: str | Path = ROUTE_SET, settings: RulesSettings | None = None) -> RouteReport:
    """Route every labelled instruction and compare with its expected route."""
    router = L0Router(settings or RulesSettings())
    cases = load_set(path)
    report = RouteReport(total=len(cases), correct=0)
    seen: Counter[str] = Counter()
    ok: Counter[str] = Counter()
    for case in cases:
        decision = router.route(case["instruction"], file_type=case.get("file_type"))
        expected = case["expected_route"]
        seen[expected] += 1
        report.pairs[(expected, decision.route)] += 1
        if decision.route == expected:
            report.correct += 1
            ok[expected] += 1
        else:
            report.confusions.append({"instruction": case["instruction"], "file_type": case.get("file_type"),
                                      "expected": expected, "got": decision.route, "rule_id": decision.rule_id})
    report.per_route = {r: (ok[r], n) for r, n in seen.items()}
    return report


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    settings = RulesSettings(second_stage="off") if "--rules-only" in args else None
    files = [a for a in args if not a.startswith("--")]
    report = evaluate_routes(files[0] if files else ROUTE_SET, settings)
    print(report.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
