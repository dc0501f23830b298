"""Templates load once per language; the question's language picks the template."""

from __future__ import annotations

import pytest

from officeqa.errors import ConfigurationError
from officeqa.scripts import cjk_share, detect_language
from prompts.loader import load_qa_template, load_rewrite_template


@pytest.mark.parametrize("language", ["zh", "en"])
def test_templates_load_with_every_part_and_are_cached(language: str) -> None:
    qa = load_qa_template(language)
    assert qa is load_qa_template(language)
    assert "{n}" in qa.material_item and "{text}" in qa.material_item
    assert qa.not_found in qa.render_requirements()
    rewrite = load_rewrite_template(language)
    assert "{question}" in rewrite.instruction and "{history}" in rewrite.instruction


def test_unknown_language_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        load_qa_template("fr")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("第一季度华东区销售额是多少？", "zh"),
        ("ChatGPT 的提示公式是什么？", "zh"),
        ("What does the handbook say about leave?", "en"),
        ("What does the notice 股东会通知 say about the meeting date?", "en"),
        ("12345 ???", "zh"),
    ],
)
def test_detect_language(text: str, expected: str) -> None:
    assert detect_language(text) == expected


def test_cjk_share_bounds() -> None:
    assert cjk_share("") == 0.0
    assert cjk_share("中文") == 1.0
    assert 0 < cjk_share("中文ab") < 1
