"""Debian's Chromium for the browser tests: where it is, how it is launched, the message when it is missing.

One place for them, so the launch flags (no background networking: this machine's closed network
refuses Chromium's own connections) and the missing-browser message stay the same in every test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def require_chromium() -> None:
    """Fail (not skip) with the fix when Debian's Chromium is missing."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: scripts/setup test installs Debian's chromium (apt-packages-test.txt)")
