"""Fixtures every browser test shares: Debian's Chromium driven by Playwright, and a fake Ollama server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_helpers import ARGS, CHROMIUM, require_chromium
from playwright.sync_api import sync_playwright


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    require_chromium()
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield instance
        finally:
            instance.close()
