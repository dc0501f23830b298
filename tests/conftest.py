"""Fixtures shared by the whole suite.

``shared_dir`` is the project's shared data folder (corpus, QA sets, tools), which
sits beside the repository both here and in CI (``../shared``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.fake_ollama import FakeOllama

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = (REPO_ROOT / ".." / "shared").resolve()


@pytest.fixture(autouse=True)
def _settings_from_the_test_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests build their settings themselves: a developer's OFFICEQA_* or OLLAMA_HOST must not leak in
    (the CLI reads the environment, and subprocesses inherit it)."""
    for name in list(os.environ):
        if name.startswith("OFFICEQA_") or name == "OLLAMA_HOST":
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED_DIR.is_dir():
        pytest.fail(f"shared data folder not found at {SHARED_DIR} (expected beside the repository)")
    return SHARED_DIR


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpus"


@pytest.fixture
def fake_ollama():
    """A fake Ollama server on 127.0.0.1 (eval/fake_ollama.py), stopped after the test."""
    server = FakeOllama().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOllama]:
    """One fake Ollama server shared by the tests of a module (a server and its knowledge base live as long)."""
    server = FakeOllama().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """One real PostgreSQL (pgvector, pg_trgm) for the whole session (tests/postgres_server.py)."""
    from postgres_server import detach_pgserver_logging, start_postgres

    yield start_postgres()
    detach_pgserver_logging()  # its exit hook logs after pytest closed the captured streams
