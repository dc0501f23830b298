"""Shared core of officeqa: settings, domain types, errors, token counting, model clients.

Every layer (indexing, retrieval, prompts, server, eval) may import this package;
it imports none of them.
"""

__all__: list[str] = []
