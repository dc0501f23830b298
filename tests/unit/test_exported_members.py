"""The public names of each package are deliberate: a change to them must change this test too."""

from __future__ import annotations

import importlib

import pytest

EXPORTS = {
    "indexing.parsing": {"SUPPORTED_SUFFIXES", "parse_file"},
    "indexing.chunking": {"ChunkMetrics", "ChunkingResult", "chunk_document", "document_text", "merge_metrics"},
    "indexing.summary": {"EXTRACTIVE_MODEL", "BuildProgress", "BuildReport", "DocumentSource", "PlanLimits",
                         "PlannedNode", "SourceChunk", "Span", "StoredSummary", "SummaryBuilder", "SummaryContext",
                         "SummaryNode", "SummaryStore", "SummaryTree", "TreeInfo", "document_source", "plan_tree",
                         "source_chunks", "summary_materials", "summary_store_path", "textrank_summary",
                         "tree_to_json", "tree_to_markdown"},
    "officeqa.embeddings": {"BACKENDS", "Embedder", "HashEmbedder", "ProgressCallback", "background_backend",
                            "create_background_embedder", "create_embedder", "normalise_rows"},
    "retrieval.answerers": {"ANSWERERS", "FIGURE_ANSWERERS", "Answerer", "Reply", "walk"},
    "retrieval.handlers": {"Citation", "HandlerItem", "HandlerResult", "run_route"},
    "retrieval.tables": {"TABLE_ROUTES", "Filter", "QuestionPlan", "Refusal", "TableQuery", "answer_for_route",
                         "answer_table_question", "plan_question"},
    "retrieval.rules": {"HANDLER_ROUTES", "Arbitration", "MatchContext", "Rule", "RuleEvaluation", "RuleFile",
                        "RuleMatcher", "UnsafeRegex", "arbitrate", "check_regex", "load_rules", "normalize",
                        "parse_rules_text"},
}


@pytest.mark.parametrize("package", sorted(EXPORTS))
def test_package_exports_exactly_its_public_names(package: str) -> None:
    module = importlib.import_module(package)
    assert set(module.__all__) == EXPORTS[package]
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_importing_the_core_and_parsing_loads_no_heavy_library() -> None:
    """`officeqa parse` must stay quick: no torch, chromadb, onnxruntime or jieba at import time."""
    import subprocess
    import sys

    code = (
        "import sys, indexing.parsing, indexing.chunking, officeqa.settings, server.cli;"
        "heavy = {'torch', 'chromadb', 'onnxruntime', 'jieba', 'litestar', 'ollama'} & set(sys.modules);"
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
