"""Heading-aware chunking with token budgets, table protection and quality metrics.

Pure functions over the block model: ``chunk_document(doc, settings)`` returns the chunks
and the metrics of that run. See ``document.py`` for the order of the rules.
"""

from indexing.chunking.document import ChunkingResult, chunk_document, document_text
from indexing.chunking.metrics import ChunkMetrics, merge_metrics

__all__ = ["ChunkMetrics", "ChunkingResult", "chunk_document", "document_text", "merge_metrics"]
