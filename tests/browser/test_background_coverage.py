"""The documents page shows how much of each document the background embedding model covers, in a real headless
Chromium against a real server whose pool runs the background model (its hash test sibling, no model loads)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import open_page
from live_server import serve
from server_helpers import make_settings

from officeqa.settings import EmbeddingSettings
from server.app import create_app

WAIT_S = 180.0  # a hang guard for a busy CI machine, not a speed requirement
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = make_settings(tmp_path_factory.mktemp("background-page"))
    settings = settings.model_copy(update={"embedding": EmbeddingSettings(backend="hash", background_backend="hash")})
    with serve(create_app(settings, generator=None)) as url:
        yield url


def test_the_documents_page_shows_background_coverage(browser, base_url: str, tmp_path: Path) -> None:
    source = tmp_path / "差旅制度.md"
    source.write_text("# 差旅制度\n\n" + "\n\n".join(
        f"## 第{i}条\n\n" + f"出差第{i}类费用按标准报销，住宿费每晚不超过{300 + i * 20}元。" * 8 for i in range(1, 7)),
        encoding="utf-8")
    context, page, errors = open_page(browser, 1280, "en")
    try:
        page.goto(base_url)
        page.wait_for_selector("body[data-ready=true]", timeout=WAIT_S * 1000)
        page.click("#tab-documents")
        page.set_input_files("#file-input", str(source))
        row = f'#documents tbody tr[data-name="{source.name}"]'
        page.wait_for_selector(f'{row}[data-state="indexed"]', timeout=WAIT_S * 1000)
        coverage = page.locator(f"{row} .background-coverage")
        deadline = time.monotonic() + WAIT_S
        while coverage.count() == 0 or coverage.inner_text().strip() != "· 100%":
            assert time.monotonic() < deadline, "the page never showed full coverage"
            time.sleep(0.3)
            page.click("#docs-refresh")
        chunks = page.locator(f"{row} .num").inner_text().split("·")[0].strip()
        title = coverage.get_attribute("title")
        assert title == f"Chunks covered by the stronger background embedding model: {chunks}/{chunks}"
    finally:
        context.close()
    assert errors == []
