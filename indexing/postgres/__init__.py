"""The PostgreSQL storage backend (``storage.backend = "postgres"``): registry, stored documents, job queue,
pgvector embeddings and BM25 postings of a knowledge base in one schema, shared by many processes.

Chosen by :mod:`indexing.backends` (stores, registry, job queue) and :mod:`indexing.storage` (the
knowledge base); nothing else imports these modules by backend name. This package file imports nothing:
importing one module of the backend must not pull in the knowledge base facade above it.
"""
