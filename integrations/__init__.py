"""Adapters that let other frameworks use officeqa's parsing and retrieval: shells, like ``server/``.

Each adapter lives in its own module and imports its framework only there, so importing
officeqa never needs an optional package:

- :mod:`integrations.llama_index` -- ``OfficeQAReader`` (files -> LlamaIndex ``Document``s) and
  ``OfficeQARetriever`` (a LlamaIndex retriever over an officeqa knowledge base); needs
  ``pip install "officeqa[llamaindex]"``.
"""

from __future__ import annotations

__all__: list[str] = []
