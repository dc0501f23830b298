"""The chat page before its first question, in a real headless Chromium at 390 and 1280 px, in both languages.

A knowledge base of real corpus files (indexed with the hash embedder) and no model reachable: the page must say
how many documents of which kinds it holds, that answers are quoted passages (and how to start Ollama), and offer
three example questions drawn from the documents' headings and tables; each, clicked, gets a quoted or exact
answer with sources, not an error. The header and the question box must fit: no control clipped, the
knowledge-base selector's value readable, the placeholder inside the box. The language button needs no CJK
glyph: a second Chromium sees only the DejaVu fonts (its own fontconfig file), where a Chinese character is
drawn as the same box as a code point no font has; there the language button and, after it is clicked, every
control's text must draw without that box. An empty knowledge base says how to add documents.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import ARGS, CHROMIUM, assert_fits, open_page, screenshot
from live_server import serve
from server_helpers import make_settings

from indexing.storage import open_knowledge_base
from server.app import create_app

WAIT_MS = 180_000  # a hang guard for a busy CI machine, not a speed requirement
FILES = ["md/en_wiki.md", "md/zh_分布式训练技术原理.md", "csv/EDGE_utf16-bom_stanley-cups.csv",
         "docx/en_docx-tables.docx"]
CJK = r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]"

pytestmark = pytest.mark.slow

#: Characters of ``text`` that ``font`` draws as the box of a code point no font has (the page's fonts).
TOFU = """([text, font]) => {
    const draw = (s) => { const canvas = document.createElement('canvas'); canvas.width = 64; canvas.height = 64;
        const context = canvas.getContext('2d'); context.font = font; context.fillText(s, 4, 48);
        return canvas.toDataURL(); };
    const box = draw('\\u{10FFFD}');
    return [...text].filter((ch) => ch.trim() && draw(ch) === box);
}"""
CONTROLS = "header button, header label span, #kb, #ask button, #welcome .muted"
LATIN_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>{cache}</cachedir></fontconfig>
"""


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Iterator[str]:
    root = tmp_path_factory.mktemp("first-screen")
    docs = root / "docs"
    docs.mkdir()
    for name in FILES:
        shutil.copy(corpus_dir / name, docs / Path(name).name)
    # no model reachable (make_settings points Ollama at a closed port); a second, empty knowledge base
    settings = make_settings(root, knowledge_bases=["default", "empty"])
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([docs])
    assert not report.failed
    with serve(create_app(settings)) as url:
        yield url


def shot(page, name: str) -> None:
    screenshot(page, "first-screen", name)


@pytest.mark.parametrize(("width", "lang"), [(390, "zh"), (390, "en"), (1280, "zh"), (1280, "en")])
def test_the_first_screen_says_what_is_there_and_its_examples_get_answers(browser, base_url: str, width: int,
                                                                         lang: str) -> None:
    context, page, errors = open_page(browser, width, lang)
    tag = f"{width}-{lang}"
    try:
        page.goto(base_url)
        page.wait_for_selector("body[data-ready=true]", timeout=WAIT_MS)
        page.wait_for_selector("#welcome:not([hidden])", timeout=WAIT_MS)
        count = page.locator("#welcome-count").inner_text()
        assert ("共 4 个文档" if lang == "zh" else "4 documents") in count
        assert "Markdown" in count and "CSV" in count and "Word" in count, count
        mode = page.locator("#welcome-mode").inner_text()
        assert "ollama serve" in mode and "ollama pull qwen2.5:7b-instruct" in mode and "OLLAMA_HOST" in mode
        assert ("摘录" if lang == "zh" else "quoted") in mode
        assert "hotel" not in page.locator("#question").get_attribute("placeholder")
        examples = page.locator("#examples button.example")
        assert examples.count() == 3
        assert {examples.nth(i).get_attribute("data-kind") for i in range(3)} == {"section", "table"}
        language = page.locator("#lang").inner_text()
        assert language.strip() and not page.evaluate(f"(text) => /{CJK}/.test(text)", language), language
        assert_fits(page, "first screen")
        shot(page, f"{tag}-1-first-screen")

        questions = [examples.nth(i).inner_text() for i in range(3)]
        for n, question in enumerate(questions):
            page.locator("#examples button.example").nth(n).click()
            assert page.locator("#welcome").is_hidden()
            answer = page.locator(".message.assistant").last
            page.wait_for_selector(".message.assistant[data-mode] .sources, .message.assistant .error",
                                   timeout=WAIT_MS)
            assert answer.locator(".error").count() == 0, (question, answer.inner_text())
            assert page.locator(".message.user .body").last.inner_text() == question
            text = answer.locator(".answer-text").inner_text()
            assert "Not found" not in text and "未找到" not in text, (question, text)
            assert_fits(page, f"answer {n}")
            shot(page, f"{tag}-2-example-{n}")
            page.click("#new-chat")
            page.wait_for_selector("#welcome:not([hidden])", timeout=WAIT_MS)
    finally:
        context.close()
    assert errors == [], errors


def test_an_empty_knowledge_base_says_how_to_add_documents(browser, base_url: str) -> None:
    context = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(base_url)
        page.wait_for_selector("body[data-ready=true]", timeout=WAIT_MS)
        page.select_option("#kb", "empty")
        page.wait_for_function("() => document.getElementById('welcome-count').textContent.includes('no documents')",
                               timeout=WAIT_MS)
        text = page.locator("#welcome-count").inner_text()
        assert "Documents tab" in text and "officeqa index <folder>" in text
        assert page.locator("#welcome-examples").is_hidden()
        assert_fits(page, "empty knowledge base")
        shot(page, "390-en-empty")
    finally:
        context.close()


def boxes(page, selector: str) -> dict[str, list[str]]:
    """The controls under ``selector`` whose text has characters drawn as the no-glyph box, in their own font."""
    found = {}
    for handle in page.query_selector_all(selector):
        if not handle.is_visible():
            continue
        text = handle.evaluate("(node) => node.tagName === 'SELECT' ? node.selectedOptions[0].textContent"
                               " : node.textContent")
        font = handle.evaluate("(node) => { const s = getComputedStyle(node); "
                               "return `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`; }")
        missing = page.evaluate(TOFU, [text, font])
        if missing:
            found[text] = missing
    return found


def test_without_a_cjk_font_the_language_button_and_the_english_page_are_readable(browser, base_url: str,
                                                                                  tmp_path: Path) -> None:
    config = tmp_path / "fonts.conf"
    config.write_text(LATIN_FONTS.format(cache=tmp_path / "cache"), encoding="utf-8")
    env = {**os.environ, "FONTCONFIG_FILE": str(config)}
    # a second Chromium from the same Playwright (one sync Playwright per thread), with its own fonts
    latin = browser.browser_type.launch(executable_path=CHROMIUM, args=ARGS, headless=True, env=env)
    try:
        page = latin.new_context(locale="zh-CN", viewport={"width": 390, "height": 844}).new_page()
        page.goto(base_url)
        page.wait_for_selector("#welcome:not([hidden])", timeout=WAIT_MS)
        assert page.evaluate(TOFU, ["中文", "16px sans-serif"]) == ["中", "文"]  # this browser has no CJK font
        assert boxes(page, "#lang") == {}
        shot(page, "390-zh-no-cjk-font")
        page.click("#lang")
        assert page.evaluate("document.documentElement.lang") == "en"
        assert boxes(page, CONTROLS) == {}
        assert_fits(page, "no CJK font, English")
        shot(page, "390-en-no-cjk-font")
    finally:
        latin.close()
