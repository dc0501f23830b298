"""The web client on a phone (390 px) and a laptop (1280 px), in Chinese and English (headless Chromium).

Each run walks what a user does: upload a file, ask, open the citation, go to the documents tab,
and checks at every step that nothing is wider than the screen (no sideways scroll), that the
citation panel does not stay over the documents tab, and that the earlier messages follow a
language switch. A read key sees no upload box and no Delete button. Screenshots of every step go
to ``test-artifacts/browser/layout/`` (gitignored) to be looked at.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser_helpers import assert_fits, open_page, screenshot
from live_server import serve
from server_helpers import make_settings

from eval.fake_ollama import FakeOllama, Reply
from server.app import create_app
from server.cli import main

WAIT_MS = 180_000  # a hang guard for a busy CI machine, not a speed requirement
CORPUS_FILE = Path("md") / "zh_分布式训练技术原理.md"
BROKEN = b"PK\x03\x04 not really a zip"

pytestmark = pytest.mark.slow

#: the widest element's right edge and the page's scroll width, against the viewport
OVERFLOW = """() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')].filter((node) => {
        const box = node.getBoundingClientRect();
        return box.width > 0 && box.right > width + 1 && !node.closest('[hidden]');
    }).map((node) => `${node.tagName}.${node.className}#${node.id}`);
    return { scroll: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5) };
}"""


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, fake: FakeOllama) -> Iterator[str]:
    root = tmp_path_factory.mktemp("layout")
    with serve(create_app(make_settings(root, ollama_url=fake.url))) as url:
        yield url


def no_sideways_scroll(page, step: str) -> None:
    found = page.evaluate(OVERFLOW)
    assert found["scroll"] <= found["width"] and found["wide"] == [], (step, found)


def shot(page, name: str) -> None:
    screenshot(page, "layout", name)


@pytest.mark.parametrize(("width", "lang"), [(390, "zh"), (390, "en"), (1280, "zh"), (1280, "en")])
def test_upload_ask_cite_and_documents_fit_the_screen(browser, base_url: str, fake: FakeOllama, corpus_dir: Path,
                                                     tmp_path: Path, width: int, lang: str) -> None:
    context, page, errors = open_page(browser, width, lang)
    tag = f"{width}-{lang}"
    try:
        page.goto(base_url)
        page.wait_for_selector("body[data-ready=true]", timeout=WAIT_MS)
        assert page.evaluate("document.documentElement.lang") == lang
        no_sideways_scroll(page, "start")
        assert_fits(page, "start")  # the header and the question box: nothing cut, the selector's value readable

        source = tmp_path / CORPUS_FILE.name
        shutil.copy(corpus_dir / CORPUS_FILE, source)
        broken = tmp_path / f"损坏的文件-{tag}-with-a-rather-long-name.docx"
        broken.write_bytes(BROKEN)
        page.click("#tab-documents")
        page.set_input_files("#file-input", [str(source), str(broken)])
        page.wait_for_selector(f'#documents tbody tr[data-name="{source.name}"][data-state="indexed"]',
                               timeout=WAIT_MS)
        page.wait_for_selector(f'#documents tbody tr[data-name="{broken.name}"][data-state="failed"]',
                               timeout=WAIT_MS)
        # the upload lines follow the documents: no "queued" once indexing ended
        page.wait_for_function(
            "(name) => [...document.querySelectorAll('#upload-files li')].some("
            "(li) => li.dataset.name === name && !li.textContent.includes('排队')"
            " && !li.textContent.includes('queued'))",
            arg=source.name, timeout=WAIT_MS)
        error_text = page.locator(f'#documents tbody tr[data-name="{broken.name}"] .doc-error').inner_text()
        assert error_text and "BadZipFile" not in error_text and "Error:" not in error_text
        no_sideways_scroll(page, "documents")
        shot(page, f"{tag}-1-documents")

        fake.add_reply(Reply(pieces=["FSDP将模型实例分解为更小的单元，", "然后将每个单元内的参数扁平化和分片 [1]。"]))
        page.click("#tab-chat")
        page.fill("#question", "FSDP是如何对模型参数分片的？")
        page.keyboard.press("Enter")
        page.wait_for_selector(".message.assistant[data-mode=model] .cite", timeout=WAIT_MS)
        no_sideways_scroll(page, "answer")
        shot(page, f"{tag}-2-answer")

        page.click(".message.assistant .cite >> nth=0")
        page.wait_for_selector("#panel:not([hidden]) .chunk-text mark", timeout=WAIT_MS)
        assert source.name in page.locator("#panel-title").inner_text()
        no_sideways_scroll(page, "citation")
        shot(page, f"{tag}-3-citation")

        # switching tabs closes the panel: it never covers the documents tab's buttons
        if width < 600:
            page.click("#panel-close")  # on a phone the panel covers the screen; on a laptop the tabs stay free
        page.click("#tab-documents")
        page.wait_for_selector(f'#documents tbody tr[data-name="{source.name}"] .preview', timeout=WAIT_MS)
        assert page.locator("#panel").is_hidden()
        page.locator(f'#documents tbody tr[data-name="{source.name}"] .delete').click(trial=True)
        no_sideways_scroll(page, "documents after asking")
        shot(page, f"{tag}-4-documents")

        # a language switch redraws the earlier messages too
        page.click("#tab-chat")
        before = page.locator(".message.assistant .who").first.inner_text()
        page.click("#lang")
        after = page.locator(".message.assistant .who").first.inner_text()
        assert before != after and after == ("Assistant" if lang == "zh" else "助手")
        badge = page.locator(".message.assistant .badge").first.inner_text()
        assert badge == ("Model answer" if lang == "zh" else "模型回答")
        no_sideways_scroll(page, "other language")
        shot(page, f"{tag}-5-switched")
    finally:
        context.close()
    assert errors == [], errors


def test_a_read_key_sees_no_upload_box_and_no_delete(browser, tmp_path: Path, fake: FakeOllama) -> None:
    config = tmp_path / "officeqa.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[embedding]\nbackend = "hash"\n', encoding="utf-8")
    tokens = {}
    for role in ("write", "read"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["--config", str(config), "keys", "create", "--kb", "default", "--role", role, "--json"]) == 0
        tokens[role] = json.loads(out.getvalue())["key"]
    with serve(create_app(make_settings(tmp_path, ollama_url=fake.url))) as url:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {tokens['write']}"}) as http:
            uploaded = http.post("/api/documents", files=[("files", ("通知.txt", "周五开会。".encode()))])
            assert uploaded.status_code == 202
        context = browser.new_context(locale="zh-CN", viewport={"width": 390, "height": 844})
        try:
            context.add_init_script(f"window.localStorage.setItem('officeqa.key', {json.dumps(tokens['read'])})")
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector("body[data-ready=true]", timeout=WAIT_MS)
            page.click("#tab-documents")
            page.wait_for_selector('#documents tbody tr[data-name="通知.txt"][data-state="indexed"]', timeout=WAIT_MS)
            assert page.locator("#dropzone").is_hidden()
            assert page.locator("#read-only").is_visible()
            assert page.locator("#documents .delete").count() == 0
            assert page.locator("#documents .preview").count() == 1
            shot(page, "390-read-key")
        finally:
            context.close()
