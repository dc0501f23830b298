"""The report-level annual set: a split by whole reports that mixes markets, and expectations that accept a figure
as a table "in thousands" prints it."""

from __future__ import annotations

import json

from eval.annual.build_reports import MANIFEST, QUESTIONS, build, expectation, split
from eval.answer_metrics import check_expectation


def _entry(name: str, market: str, sha: str, late: bool = False) -> dict[str, object]:
    return {"file": name, "market": market, "sha256": sha, "late": late}


def test_split_alternates_within_market_order_and_holds_late_reports_out() -> None:
    manifest = [_entry("b.pdf", "US", "bb"), _entry("a.pdf", "US", "aa"), _entry("c.pdf", "CN-A", "ff"),
                _entry("d.pdf", "UK", "00"), _entry("late.pdf", "CN-A", "01", late=True)]
    halves = split(manifest)
    assert halves == {"c.pdf": "tuning", "a.pdf": "heldout", "b.pdf": "tuning", "d.pdf": "heldout",
                      "late.pdf": "heldout"}
    assert split(list(reversed(manifest))) == halves  # independent of the manifest's order


def test_every_question_lands_in_the_half_of_its_report_and_both_halves_mix_markets() -> None:
    halves = build()
    manifest = {e["file"]: e for e in json.loads(MANIFEST.read_text(encoding="utf-8"))}
    files = {name: {t["evidence"][0]["document"] for t in tasks if t["evidence"]} for name, tasks in halves.items()}
    assert not files["tuning"] & files["heldout"]
    tuning_markets = {manifest[f]["market"] for f in files["tuning"]}
    assert {"CN-A", "US", "AU", "UK"} <= tuning_markets
    assert len(QUESTIONS.read_text(encoding="utf-8").splitlines()) == sum(len(t) for t in halves.values())


def test_a_figure_in_thousands_is_right_in_full_or_as_printed_but_not_rounded() -> None:
    expect = expectation({"kind": "value", "figures": [["4,695,943", 1000]]})
    assert check_expectation(expect, "Net sales were $4,695,943 thousand.").correct
    assert check_expectation(expect, "Net sales were $4,695,943,000.").correct
    assert not check_expectation(expect, "Net sales were about $4.7 billion.").correct


def test_a_computed_answer_needs_the_result_and_its_inputs() -> None:
    inputs = [["125,196", 1000], ["4,695,943", 1000]]
    expect = expectation({"kind": "computed", "result": 2.67, "input_figures": inputs})
    assert check_expectation(expect, "2.67% = 125,196 / 4,695,943 (in thousands)").correct
    assert not check_expectation(expect, "about 2.67%").correct
