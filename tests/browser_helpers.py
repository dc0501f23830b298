"""Debian's Chromium for the browser tests: where it is, how it is launched, the message when it is missing.

One place for them, so the launch flags (no background networking: this machine's closed network
refuses Chromium's own connections) and the missing-browser message stay the same in every test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def require_chromium() -> None:
    """Fail (not skip) with the fix when Debian's Chromium is missing."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: scripts/setup test installs Debian's chromium (apt-packages-test.txt)")


#: Controls whose content is wider than their box, or whose box leaves the screen.
CLIPPED = """() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll('header button, header select, #ask textarea, #ask button, #welcome button')]
        .filter((node) => node.offsetParent !== null)
        .filter((node) => node.scrollWidth > node.clientWidth + 1 || node.getBoundingClientRect().right > width + 1
                          || node.getBoundingClientRect().left < -1)
        .map((node) => `${node.tagName}#${node.id}.${node.className} ${node.scrollWidth}/${node.clientWidth}`);
}"""

#: Text widths measured in the control's own font: the selector's value and the question box's placeholder.
ROOM = """() => {
    const measure = (node, text) => {
        const style = getComputedStyle(node);
        const context = document.createElement('canvas').getContext('2d');
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const inner = node.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return { text: context.measureText(text).width, inner };
    };
    const select = document.getElementById('kb');
    const box = document.getElementById('question');
    return { select: measure(select, select.selectedOptions[0].textContent), arrow: 20,
             placeholder: measure(box, box.placeholder), rows: box.rows };
}"""


def assert_fits(page: Any, step: str) -> None:
    """No control clipped or off the screen, the selector's value and the placeholder inside their boxes."""
    assert page.evaluate(CLIPPED) == [], step
    room = page.evaluate(ROOM)
    select = room["select"]
    assert select["text"] + room["arrow"] <= select["inner"] + 1, (step, "selector value cut", select)
    placeholder = room["placeholder"]
    assert placeholder["text"] <= placeholder["inner"] * room["rows"], (step, "placeholder cut", placeholder)


#: Where every browser test puts its screenshots (gitignored), one folder per test module.
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "browser"


def open_page(browser: Any, width: int = 1280, lang: str = "en") -> tuple[Any, Any, list[str]]:
    """A new context and page at ``width`` px in ``lang`` (zh or en), and the list its script errors go to.

    Why one helper: every browser test wants the same phone/laptop heights, locale names and error collection,
    and asserts at the end that the page raised no script error.
    """
    context = browser.new_context(locale="zh-CN" if lang == "zh" else "en-US",
                                  viewport={"width": width, "height": 844 if width < 600 else 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


def screenshot(page: Any, folder: str, name: str) -> None:
    """Save a full-page screenshot as ``test-artifacts/browser/<folder>/<name>.png`` to be looked at."""
    target = ARTIFACTS / folder if folder else ARTIFACTS
    target.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target / f"{name}.png"), full_page=True)
