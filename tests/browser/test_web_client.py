"""The web client in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

A real server (uvicorn on loopback) with a fake Ollama behind it: upload a corpus file, wait
until it is indexed, ask, watch the answer stream in, open its citation with the quote
highlighted; a document carrying ``<script>`` and ``<img onerror>`` is indexed and cited, and
nothing of it runs. Screenshots go to ``test-artifacts/browser/`` (gitignored).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import open_page, screenshot
from live_server import serve
from server_helpers import make_settings

from eval.fake_ollama import FakeOllama, Reply
from server.app import create_app

WAIT_MS = 180_000  # a hang guard for a busy CI machine, not a speed requirement
CORPUS_FILE = Path("md") / "zh_分布式训练技术原理.md"
PAYLOAD = (
    "安全测试文档\n\n"
    "第一段：报销单须在每月五日前提交至财务部。\n"
    '<script>window.__pwned = (window.__pwned || 0) + 1</script>\n'
    '<img src="x" onerror="window.__pwned = (window.__pwned || 0) + 1">\n'
    "第二段：逾期提交的报销单顺延至下月处理。\n"
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, fake: FakeOllama) -> Iterator[str]:
    root = tmp_path_factory.mktemp("browser")
    with serve(create_app(make_settings(root, ollama_url=fake.url))) as url:
        yield url


@pytest.fixture
def page(browser, base_url: str, request: pytest.FixtureRequest) -> Iterator[object]:
    context, page, errors = open_page(browser, 1280, "zh")
    page.goto(base_url)
    page.wait_for_selector("body[data-ready=true]", timeout=WAIT_MS)
    try:
        yield page
    finally:
        context.close()
    assert errors == [], errors  # no script error on the page


def shot(page, name: str) -> None:
    screenshot(page, "", name)


def upload_and_wait(page, path: Path) -> None:
    page.click("#tab-documents")
    page.set_input_files("#file-input", str(path))
    row = page.locator(f'#documents tbody tr[data-name="{path.name}"]')
    row.wait_for(timeout=WAIT_MS)
    page.wait_for_selector(f'#documents tbody tr[data-name="{path.name}"][data-state="indexed"]', timeout=WAIT_MS)


def test_upload_ask_stream_and_open_the_citation(page, fake: FakeOllama, corpus_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / CORPUS_FILE.name
    shutil.copy(corpus_dir / CORPUS_FILE, source)
    upload_and_wait(page, source)
    assert page.locator(f'#documents tbody tr[data-name="{source.name}"] .num').inner_text().strip() != "0"
    shot(page, "1-documents-indexed")

    release = threading.Event()
    fake.add_reply(Reply(pieces=["FSDP将模型实例分解为更小的单元，", "然后将每个单元内的参数扁平化和分片 [1]。"],
                         wait_after_first=release))
    page.click("#tab-chat")
    page.fill("#question", "FSDP是如何对模型参数分片的？")
    page.keyboard.press("Enter")
    # the first piece is on the page while the model is still writing
    page.wait_for_selector(".message.assistant .streaming:has-text('更小的单元')", timeout=WAIT_MS)
    assert page.locator(".message.assistant .sources").count() == 0
    shot(page, "2-streaming")
    release.set()
    page.wait_for_selector(".message.assistant[data-mode=model] .cite", timeout=WAIT_MS)
    answer = page.locator(".message.assistant .answer-text").inner_text()
    assert "扁平化和分片" in answer and "[1]" in answer
    assert source.name in page.locator(".message.assistant .sources").inner_text()
    shot(page, "3-answer")

    page.click(".message.assistant .cite >> nth=0")
    page.wait_for_selector("#panel:not([hidden]) .chunk-text mark", timeout=WAIT_MS)
    mark = page.locator("#panel .chunk-text mark").inner_text()
    assert "扁平化和分片" in mark
    assert mark in page.locator("#panel .chunk-text").inner_text()
    assert source.name in page.locator("#panel-title").inner_text()
    shot(page, "4-citation")

    # a follow-up carries the conversation: the model is asked to rewrite it with the first question
    page.click("#panel-close")
    fake.add_reply(Reply(pieces=["FSDP分片后参数何时恢复？"]))
    fake.add_reply(Reply(pieces=["分片参数在计算前按需通信和恢复 [1]。"]))
    page.fill("#question", "那分片后的参数什么时候恢复？")
    page.keyboard.press("Enter")
    page.wait_for_selector(".message.assistant >> nth=1 >> .cite", timeout=WAIT_MS)
    assert "FSDP是如何对模型参数分片的" in str(fake.chat_requests()[-2]["messages"])

    # the interface speaks Chinese and English
    page.click("#lang")
    assert page.locator("#tab-documents").inner_text() == "Documents"
    page.click("#lang")
    assert page.locator("#tab-documents").inner_text() == "文档"


def test_document_html_never_runs(page, fake: FakeOllama, tmp_path: Path) -> None:
    source = tmp_path / "安全测试.txt"
    source.write_text(PAYLOAD, encoding="utf-8")
    upload_and_wait(page, source)

    fake.add_reply(Reply(pieces=['报销单须在每月五日前提交 [1]。<img src="x" onerror="window.__pwned=1">',
                                 "<script>window.__pwned=1</script>"]))
    page.click("#tab-chat")
    page.fill("#question", "报销单须在每月几日前提交？")
    page.keyboard.press("Enter")
    page.wait_for_selector(".message.assistant[data-mode=model] .cite", timeout=WAIT_MS)
    page.click(".message.assistant .cite >> nth=0")
    page.wait_for_selector("#panel:not([hidden]) .chunk-text mark", timeout=WAIT_MS)
    shot(page, "5-html-in-document")

    # the answer and the cited chunk show the markup as text ...
    assert "<img src=" in page.locator(".message.assistant .answer-text").inner_text()
    chunk = page.locator("#panel .chunk-text").inner_text()
    assert "<script>window.__pwned" in chunk and 'onerror="window.__pwned' in chunk
    # ... no element was made of it, and nothing ran
    assert page.locator("#messages img, #messages script, #panel img, #panel script").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"

    # the chunk preview of the documents page shows it as text too
    page.click("#panel-close")
    page.click("#tab-documents")
    page.click(f'#documents tbody tr[data-name="{source.name}"] .preview')
    page.wait_for_selector("#panel:not([hidden]) .chunk .chunk-text", timeout=WAIT_MS)
    assert "<script>" in page.locator("#panel .chunk .chunk-text").first.inner_text()
    assert page.locator("#panel img, #panel script").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    shot(page, "6-chunk-preview")


def test_no_model_answers_show_the_notice_and_documents_can_be_deleted(
    page, fake: FakeOllama, tmp_path: Path
) -> None:
    source = tmp_path / "通知.txt"
    source.write_text("年度总结大会定于2025年1月18日召开。参会名单于1月15日前报送。\n", encoding="utf-8")
    upload_and_wait(page, source)
    fake.add_reply(Reply(status=500, error="model crashed"))
    page.click("#tab-chat")
    page.fill("#question", "年度总结大会哪天召开？")
    page.keyboard.press("Enter")
    page.wait_for_selector(".message.assistant[data-mode=extractive] .notice", timeout=WAIT_MS)
    assert page.locator(".message.assistant[data-mode=extractive] .notice").inner_text().strip()
    shot(page, "7-extractive-notice")

    page.click("#tab-documents")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(f'#documents tbody tr[data-name="{source.name}"] .delete')
    page.wait_for_selector(f'#documents tbody tr[data-name="{source.name}"]', state="detached", timeout=WAIT_MS)


HOSTILE = [
    '<img src=x onerror="window.__pwned=1">',
    "**<script>window.__pwned=1</script>**",
    "`<iframe src=javascript:window.__pwned=1>`",
    "| a | <b onmouseover=window.__pwned=1>b</b> |\n|---|---|\n| <svg onload=window.__pwned=1> | [1] |",
    "- <a href=javascript:window.__pwned=1>x</a> [1, 2]\n> <style>body{display:none}</style>",
    "```\n</code></pre><img src=x onerror=window.__pwned=1>\n```",
    "# <details open ontoggle=window.__pwned=1>",
]


def test_the_markdown_renderer_makes_no_markup_of_its_input(page) -> None:
    """Every hostile input renders to elements of the renderer's own fixed set, without attributes, and its
    text survives as text."""
    result = page.evaluate(
        """async (inputs) => {
            const { renderMarkdown } = await import('/static/markdown.js');
            const allowed = new Set(['P','BR','STRONG','EM','CODE','PRE','UL','OL','LI','BLOCKQUOTE','TABLE','THEAD',
                                     'TBODY','TR','TH','TD','DIV','H3','H4','H5','H6','BUTTON']);
            return inputs.map((input) => {
                const box = document.createElement('div');
                box.appendChild(renderMarkdown(input, (n) => {
                    const b = document.createElement('button');
                    b.className = 'cite';
                    b.textContent = `[${n}]`;
                    return b;
                }));
                document.body.appendChild(box);
                const bad = [...box.querySelectorAll('*')].filter((node) => !allowed.has(node.tagName)
                    || [...node.attributes].some((a) => a.name !== 'class'));
                const text = box.textContent;
                box.remove();
                return { bad: bad.map((node) => node.outerHTML), text };
            });
        }""",
        HOSTILE,
    )
    for source, rendered in zip(HOSTILE, result, strict=True):
        assert rendered["bad"] == [], source
        assert "window.__pwned" in rendered["text"], source  # shown, not dropped
    page.wait_for_timeout(200)
    assert page.evaluate("typeof window.__pwned") == "undefined"
