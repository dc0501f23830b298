"""Split the report-level question set (``reports_questions.jsonl``) into eval task files, by REPORT.

Why by report: ``tuning.jsonl``/``heldout.jsonl`` split the four dev reports by question, so both halves shared
every report's layout and a rule written for one half passed the other. Here a whole report goes to one half:
its company, years, units, column order and captions are never seen while tuning on the other half.

The split is fixed and deterministic (``reports_manifest.json`` lists each report's market and SHA-256):
reports are ordered by market (:data:`MARKETS`), then by SHA-256 within a market, and alternate
tuning / held-out down that list, so each half mixes markets and scripts. A report the manifest marks
``"late": true`` (added after the tuning half was published) always goes to the held-out half.

Kinds and expectations (``eval/tasks.py``), from each raw question's own fields:
- ``value`` -> ``figure``: every ``figures`` entry ``[printed, scale]`` must be stated; a figure printed in a
  table "in thousands" (scale 1000) is right as the full amount or as printed;
- ``text`` -> ``named_fact``: every ``facts`` entry (a string, or a list of accepted spellings) must appear;
- ``computed`` -> ``computed``: ``result`` within 0.06 points and each ``input_figures`` entry stated;
- ``notfound`` -> ``not_in_report``: says so and states no figure;
- ``summary`` -> ``summary``: at least 60% of ``must_mention``.

Run: ``python -m eval.annual.build_reports`` (writes ``reports_tuning.jsonl`` and ``reports_heldout.jsonl``).
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "reports_questions.jsonl"
MANIFEST = HERE / "reports_manifest.json"
#: Market order of the split (a report's market not listed here sorts last).
MARKETS = ("CN-A", "HK", "US", "AU", "UK", "CA")
KINDS = {"value": "figure", "text": "named_fact", "computed": "computed", "notfound": "not_in_report",
         "summary": "summary"}
ROUTES = ["retrieve_qa", "summary", "table_query", "report_facts", "rule"]


def split(manifest: list[dict[str, Any]]) -> dict[str, str]:
    """file -> "tuning" or "heldout": market order, then SHA-256, alternating; late reports held out."""
    def rank(entry: dict[str, Any]) -> tuple[int, str]:
        market = entry["market"]
        return (MARKETS.index(market) if market in MARKETS else len(MARKETS), entry["sha256"])

    halves: dict[str, str] = {}
    early = sorted((e for e in manifest if not e.get("late")), key=rank)
    for index, entry in enumerate(early):
        halves[entry["file"]] = "tuning" if index % 2 == 0 else "heldout"
    for entry in manifest:
        if entry.get("late"):
            halves[entry["file"]] = "heldout"
    return halves


def number(printed: str, scale: int = 1) -> dict[str, Any]:
    """A figure's expectation: the amount in units, and (for a table in thousands) the amount as printed."""
    value = Decimal(printed.replace(",", ""))
    spec: dict[str, Any] = {"value": float(value * scale), "rel_tol": 1e-5}
    if scale != 1:
        spec["alternatives"] = [float(value)]
    return spec


def expectation(raw: dict[str, Any]) -> dict[str, Any]:
    """What a right answer to ``raw`` shows (see the module docstring)."""
    kind = raw["kind"]
    if kind == "value":
        return {"numbers": [number(p, s) for p, s in raw["figures"]]}
    if kind == "text":
        return {"facts": raw["facts"]}
    if kind == "computed":
        inputs = [number(p, s) for p, s in raw["input_figures"]]
        return {"numbers": [{"value": float(raw["result"]), "tol": 0.06}, *inputs]}
    if kind == "notfound":
        return {"not_found": True, "no_figure": True}
    return {"points": raw["must_mention"]}


def task(raw: dict[str, Any], number_in_report: int) -> dict[str, Any]:
    """One eval task (``eval/tasks.py`` format) from one raw question."""
    evidence = []
    if raw.get("page") and raw.get("evidence"):
        evidence.append({"document": raw["file"], "locator": {"page": raw["page"]}, "text": raw["evidence"]})
    pages = raw.get("pages") or ([raw["page"]] if raw.get("page") else [])
    return {
        "id": f"{Path(raw['file']).stem}-{number_in_report:02d}",
        "kind": KINDS[raw["kind"]],
        "question": raw["question"],
        "documents": None,
        "expected_route": ROUTES,
        "evidence": evidence,
        "expect": expectation(raw),
        "note": f"gold: {raw['answer']}",
        "pages": {raw["file"]: pages} if pages else {},
    }


def build(questions: Path = QUESTIONS, manifest: Path = MANIFEST) -> dict[str, list[dict[str, Any]]]:
    """The two halves' tasks, in question-file order."""
    halves = split(json.loads(manifest.read_text(encoding="utf-8")))
    out: dict[str, list[dict[str, Any]]] = {"tuning": [], "heldout": []}
    counters: dict[str, int] = {}
    for line in questions.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        if raw["file"] not in halves:
            raise ValueError(f"{raw['file']} is not in {manifest.name}")
        counters[raw["file"]] = counters.get(raw["file"], 0) + 1
        out[halves[raw["file"]]].append(task(raw, counters[raw["file"]]))
    return out


def main(only: str | None = None) -> None:
    """Write the halves (``only`` one of them: the tuning half is frozen once published)."""
    for name, tasks in build().items():
        if only and name != only:
            continue
        path = HERE / f"reports_{name}.jsonl"
        path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks), encoding="utf-8")
        reports = {document for t in tasks for document in t["pages"]}
        print(f"{path.name}: {len(tasks)} tasks from {len(reports)} reports")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
