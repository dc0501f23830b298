"""Benchmark the L0 layer: dispatch time per instruction and aggregation over a 100k-row sheet.

Run: ``python bench/bench_l0.py``. Prints numbers and ratios against baselines run in
the same process (the shipped rules for the 200-synthetic-rule case; sqlite3 GROUP BY
and a plain float loop for aggregation). Nothing is asserted here: tests never assert
wall-clock limits.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import time
from decimal import Decimal
from importlib import resources

from eval.route_accuracy import load_set
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.settings import RulesSettings
from retrieval.l0 import L0Router, route, run_handler
from retrieval.rules.loader import parse_rules_text
from retrieval.rules.matcher import RuleMatcher

REPEATS = 20


def synthetic_rules_yaml(n: int, seed: int = 1) -> str:
    """``n`` plausible rules: 6 keywords each (Chinese and English), a bounded regex on every fifth."""
    rng = random.Random(seed)
    chars = ("的一是在不了有和人这中大为上个国我以要他时来用们生到作"
             "地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经")
    lines = []
    for i in range(n):
        words = ["".join(rng.choice(chars) for _ in range(rng.randint(2, 4))) for _ in range(4)] + [f"term{i}a",
                                                                                                     f"term{i}b"]
        regex = f", regex: ['r{i}x.{{0,10}}y']" if i % 5 == 0 else ""
        lines.append(f"  - id: syn{i}\n    route: retrieve_qa\n    priority: {rng.randint(1, 30)}\n"
                     f"    triggers: [{{any: [{', '.join(words)}]{regex}}}]\n    exclude: [nomatch{i}]")
    return "\n".join(lines)


def time_dispatch(router: L0Router, instructions: list[tuple[str, str | None]], explain: bool = False) -> list[float]:
    per_call: list[float] = []
    for _ in range(REPEATS):
        for text, file_type in instructions:
            start = time.perf_counter()
            router.route(text, file_type=file_type, explain=explain)
            per_call.append((time.perf_counter() - start) * 1e3)
    return per_call


def report(label: str, samples: list[float]) -> float:
    ordered = sorted(samples)
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    mean = statistics.fmean(samples)
    print(f"{label:38s} mean {mean:.3f} ms  median {statistics.median(samples):.3f} ms  p99 {p99:.3f} ms")
    return mean


def bench_dispatch() -> None:
    cases = [(c["instruction"], c.get("file_type")) for c in load_set()]
    shipped = L0Router(RulesSettings())
    time_dispatch(shipped, cases[:20])  # warm-up
    base = report(f"dispatch, shipped rules ({len(shipped.matcher.rules)})", time_dispatch(shipped, cases))
    text = resources.files("retrieval.rules").joinpath("rules.yaml").read_text(encoding="utf-8")
    start = time.perf_counter()
    big = RuleMatcher(parse_rules_text(text + "\n" + synthetic_rules_yaml(200)))
    compile_ms = (time.perf_counter() - start) * 1e3
    router = L0Router(RulesSettings(), matcher=big)
    with_200 = report(f"dispatch, + 200 synthetic ({len(big.rules)})", time_dispatch(router, cases))
    print(f"compile {len(big.rules)} rules: {compile_ms:.1f} ms (once); ratio 200-synthetic / shipped: "
          f"{with_200 / base:.2f}x")
    explained = report(f"explain mode, every rule ({len(big.rules)})", time_dispatch(router, cases, explain=True))
    print(f"  explain mode evaluates and words every rule: {explained / base:.1f}x the fast path")
    hits = [(f"{text} 关键词 term{i % 200}a", ft) for i, (text, ft) in enumerate(cases)]
    report("+ 200 synthetic, one synthetic hit each", time_dispatch(router, hits))
    attack = "提取电话号码(aaaa" * 60_000
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        decision = shipped.route(attack)
        samples.append((time.perf_counter() - start) * 1e3)
    print(f"1 MB adversarial instruction (capped to {shipped.settings.max_input_chars} chars): "
          f"median {statistics.median(samples):.2f} ms, route {decision.route}, capped {decision.input_capped}")


def bench_aggregate(n_rows: int = 100_000) -> None:
    rng = random.Random(5)
    regions = ["华东", "华北", "华南", "西南", "东北", "西北", "华中"]
    rows = [[f"SO{i:06d}", rng.choice(regions), f"{rng.randint(1, 5_000_000) / 100:,.2f}"] for i in range(n_rows)]
    doc = ParsedDocument(path="bench.xlsx", file_type="xlsx", blocks=[
        Block(type=BlockType.TABLE, header_rows=[["订单号", "所属地区", "销售金额(元)"]], rows=rows, sheet="S")])
    decision = route("按地区汇总销售额")
    start = time.perf_counter()
    result = run_handler(decision, [doc])
    handler_s = time.perf_counter() - start

    start = time.perf_counter()
    sums: dict[str, float] = {}
    for _, region, amount in rows:
        sums[region] = sums.get(region, 0.0) + float(amount.replace(",", ""))
    float_s = time.perf_counter() - start

    db = sqlite3.connect(":memory:")
    db.execute("create table s (region text, cents integer)")
    db.executemany("insert into s values (?, ?)",
                   ((r, int(Decimal(a.replace(",", "")) * 100)) for _, r, a in rows))
    start = time.perf_counter()
    expected = {r: Decimal(c) / 100 for r, c in db.execute("select region, sum(cents) from s group by region")}
    sqlite_s = time.perf_counter() - start
    db.close()
    assert {k: Decimal(v) for k, v in result.data["groups"].items()} == expected, "handler disagrees with sqlite"
    print(f"aggregate {n_rows} rows (Decimal, fuzzy columns): {handler_s * 1e3:.0f} ms "
          f"({n_rows / handler_s / 1e3:.0f}k rows/s)")
    print(f"  baseline float dict loop: {float_s * 1e3:.0f} ms (handler / float = {handler_s / float_s:.1f}x); "
          f"sqlite GROUP BY on loaded ints: {sqlite_s * 1e3:.0f} ms; results equal sqlite: yes")


if __name__ == "__main__":
    bench_dispatch()
    bench_aggregate()
