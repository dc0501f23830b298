"""In CI the PostgreSQL tests fail when their server cannot start; elsewhere they skip (tests/postgres_server.py)."""

from __future__ import annotations

import pytest
from postgres_server import unavailable


@pytest.mark.parametrize("value", ["true", "1", "TRUE"])
def test_in_ci_a_missing_postgres_fails_the_test(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="CI=true: the PostgreSQL tests must run in CI"):
        unavailable("PostgreSQL cannot start: no shared memory")


@pytest.mark.parametrize("value", [None, "", "false"])
def test_outside_ci_a_missing_postgres_skips_the_test(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.skip.Exception, match="no shared memory"):
        unavailable("PostgreSQL cannot start: no shared memory")
