"""Per-document summary trees: chunk groups -> sections (the heading tree) -> document.

Built at index time or in batch (``officeqa summarize``), read on the question path for
global questions ("总结", "概括第四章", "main risks"). Pieces, one job each:

* ``plan``       the tree's shape from a document's chunks (pure);
* ``prompting``  node inputs, cache keys and the prompts, within the model's window;
* ``extractive`` TextRank over jieba tokens when no model answers;
* ``store``      node summaries by content key + finished trees (``summaries.sqlite3``);
* ``builder``    the resumable, incremental bottom-up build;
* ``source``     a stored document's chunks as the tree reads them;
* ``query``      materials and a no-model answer for the question service;
* ``report``     Markdown / JSON reports.

Typical use::

    with SummaryStore(summary_store_path(settings)) as store, SummaryBuilder(settings, store, generator) as b:
        report = b.build(document_source(kb, doc_id, path))
"""

from pathlib import Path

from indexing.summary.builder import BuildProgress, BuildReport, DocumentSource, SummaryBuilder
from indexing.summary.extractive import EXTRACTIVE_MODEL, textrank_summary
from indexing.summary.plan import PlanLimits, plan_tree
from indexing.summary.query import SummaryContext, summary_materials
from indexing.summary.report import tree_to_json, tree_to_markdown
from indexing.summary.source import document_source, source_chunks
from indexing.summary.store import StoredSummary, SummaryStore, TreeInfo
from indexing.summary.tree import PlannedNode, SourceChunk, Span, SummaryNode, SummaryTree
from officeqa.settings import Settings


def summary_store_path(settings: Settings) -> Path:
    """Where the tree store lives: ``data_dir / summary.store_file``."""
    return Path(settings.data_dir) / settings.summary.store_file


__all__ = [
    "EXTRACTIVE_MODEL",
    "BuildProgress",
    "BuildReport",
    "DocumentSource",
    "PlanLimits",
    "PlannedNode",
    "SourceChunk",
    "Span",
    "StoredSummary",
    "SummaryBuilder",
    "SummaryContext",
    "SummaryNode",
    "SummaryStore",
    "SummaryTree",
    "TreeInfo",
    "document_source",
    "plan_tree",
    "source_chunks",
    "summary_materials",
    "summary_store_path",
    "textrank_summary",
    "tree_to_json",
    "tree_to_markdown",
]
