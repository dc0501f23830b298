"""Benchmark the L0 layer: dispatch time per instruction, the second stage, aggregation over a 100k-row sheet.

Run: ``python bench/bench_l0.py [--second-stage]``. Prints numbers and ratios against baselines run in
the same process (the shipped rules for the 200-synthetic-rule case; sqlite3 GROUP BY
and a plain float loop for aggregation). Nothing is asserted here: tests never assert
wall-clock limits.

``--second-stage`` also measures the two candidates for the second routing stage by
leave-one-out over the shipped labelled examples (``retrieval/rules/route_examples.jsonl``,
never the held-out split): nearest neighbours in the bundled USE embedding space, and
nearest neighbours over TF-IDF character n-grams; for a grid of similarity floors and
margins it prints accuracy, how often the stage overrides the default route and how often
it is right then, and the cost per instruction.
"""

from __future__ import annotations

import math
import random
import re
import sqlite3
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
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
    shipped = L0Router(RulesSettings(second_stage="off"))  # the rules stage; the second stage is timed below
    time_dispatch(shipped, cases[:20])  # warm-up
    base = report(f"dispatch, shipped rules ({len(shipped.matcher.rules)})", time_dispatch(shipped, cases))
    text = resources.files("retrieval.rules").joinpath("rules.yaml").read_text(encoding="utf-8")
    start = time.perf_counter()
    big = RuleMatcher(parse_rules_text(text + "\n" + synthetic_rules_yaml(200)))
    compile_ms = (time.perf_counter() - start) * 1e3
    router = L0Router(RulesSettings(second_stage="off"), matcher=big)
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


def _char_grams(text: str) -> Counter[str]:
    """Han characters as 1-3-grams, ASCII words plus their 3-4-grams: the n-gram candidate's features."""
    out: Counter[str] = Counter()
    for piece in re.findall(r"[a-z0-9']+|[^\sa-z0-9']+", text):
        if piece[0].isascii():
            out["w:" + piece] += 1
            padded = f" {piece} "
            for n in (3, 4):
                out.update("c:" + padded[i:i + n] for i in range(len(padded) - n + 1))
        else:
            for n in (1, 2, 3):
                out.update("h:" + piece[i:i + n] for i in range(len(piece) - n + 1))
    return out


def ngram_similarities(texts: list[str]) -> list[list[float]]:
    """Cosine similarities of TF-IDF char n-gram vectors (IDF from all examples)."""
    grams = [_char_grams(t) for t in texts]
    df = Counter(g for gs in grams for g in gs)
    n = len(texts)
    vectors = []
    for gs in grams:
        v = {g: (1 + math.log(c)) * math.log(n / df[g]) for g, c in gs.items()}
        norm = math.sqrt(sum(w * w for w in v.values())) or 1.0
        vectors.append({g: w / norm for g, w in v.items()})
    return [[sum(w * b.get(g, 0.0) for g, w in a.items()) for b in vectors] for a in vectors]


def _loo(sims: Callable[[int, int], float], routes: list[str], vetoes: list[frozenset[str]], floor: float,
         margin: float) -> tuple[float, int, float, float]:
    """Leave-one-out: (accuracy, overrides, override precision, share of retrieve_qa kept)."""
    n = len(routes)
    correct = overrides = right_overrides = kept = ordinary = 0
    for i in range(n):
        best: dict[str, float] = {}
        for j in range(n):
            if j != i and sims(i, j) > best.get(routes[j], -2.0):
                best[routes[j]] = sims(i, j)
        allowed = {r: v for r, v in best.items() if r not in vetoes[i]}
        got = "retrieve_qa"
        if allowed:
            top_route = max(allowed, key=allowed.__getitem__)
            second = max((v for r, v in best.items() if r != top_route), default=-1.0)
            if top_route != "retrieve_qa" and allowed[top_route] >= floor and allowed[top_route] - second >= margin:
                got = top_route
        correct += got == routes[i]
        if got != "retrieve_qa":
            overrides += 1
            right_overrides += got == routes[i]
        if routes[i] == "retrieve_qa":
            ordinary += 1
            kept += got == "retrieve_qa"
    return correct / n, overrides, right_overrides / max(overrides, 1), kept / max(ordinary, 1)


def bench_second_stage() -> None:
    from officeqa.embeddings.use import USEEmbedder
    from retrieval.rules.nearest import load_examples

    examples = load_examples()
    texts, routes = [e.instruction for e in examples], [e.route for e in examples]
    shipped = L0Router(RulesSettings(second_stage="off"))
    vetoes = [frozenset(e.route for e in shipped.route(t).evaluations if e.vetoed) for t in texts]
    start = time.perf_counter()
    embedder = USEEmbedder(threads=1)  # as the router builds it (retrieval.l0._stage_embedder)
    embedder.embed_query("warm up")
    load_s = time.perf_counter() - start
    start = time.perf_counter()
    matrix = embedder.embed_documents(texts)
    examples_s = time.perf_counter() - start
    queries = [embedder.embed_query(t) for t in texts[:3]]
    samples = []
    for t in texts[:60]:
        start = time.perf_counter()
        q = embedder.embed_query(t)
        _ = matrix @ q
        samples.append((time.perf_counter() - start) * 1e3)
    del queries
    use = matrix @ matrix.T
    start = time.perf_counter()
    ngram = ngram_similarities(texts)
    ngram_s = time.perf_counter() - start
    print(f"second stage over {len(texts)} labelled examples (leave-one-out; vetoes from the rules applied)")
    print(f"  USE: model load {load_s:.2f} s, {len(texts)} examples embedded {examples_s:.2f} s (once per process), "
          f"per instruction median {statistics.median(samples):.1f} ms")
    print(f"  char n-grams: all {len(texts)}x{len(texts)} similarities {ngram_s * 1e3:.0f} ms "
          f"({ngram_s / len(texts) * 1e3:.2f} ms per instruction)")
    for name, sims in (("USE", lambda i, j: float(use[i, j])), ("n-gram", lambda i, j: ngram[i][j])):
        for floor in (0.3, 0.4, 0.5, 0.6, 0.65, 0.7):
            for margin in (0.0, 0.03, 0.05, 0.08, 0.1):
                acc, overrides, precision, kept = _loo(sims, routes, vetoes, floor, margin)
                print(f"  {name:6s} floor {floor:.2f} margin {margin:.2f}: accuracy {acc:.3f}  overrides "
                      f"{overrides:3d} (right {precision:.2f})  retrieve_qa kept {kept:.2f}")


if __name__ == "__main__":
    bench_dispatch()
    bench_aggregate()
    if "--second-stage" in sys.argv:
        bench_second_stage()
