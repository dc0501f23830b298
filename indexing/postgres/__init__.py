"""The PostgreSQL storage backend (``storage.backend = "postgres"``): registry, stored documents, job queue,
pgvector embeddings and BM25 postings of a knowledge base in one schema, shared by many processes.

Chosen by :mod:`indexing.storage`; nothing else imports these modules by backend name.
"""

from indexing.postgres.database import Database, close_pools, shared_pool
from indexing.postgres.knowledge_base import PostgresKnowledgeBase
from indexing.postgres.stores import PostgresStores, open_database

__all__ = ["Database", "PostgresKnowledgeBase", "PostgresStores", "close_pools", "open_database", "shared_pool"]
