"""The summary-tree templates: both languages load with every part, and their fingerprints tell them apart."""

from __future__ import annotations

import pytest

from prompts.loader import load_summary_template


@pytest.mark.parametrize("language", ["zh", "en"])
def test_summary_templates_load_and_format(language: str) -> None:
    template = load_summary_template(language)
    for part in (template.leaf, template.section, template.document):
        text = part.format(document="D", heading_path="H", limit=100, text="BODY")
        assert "BODY" in text and "100" in text and "D" in text
    assert "T" in template.child_item.format(title="T", text="x")
    assert len(template.fingerprint()) == 16


def test_fingerprints_differ_by_language_and_are_stable() -> None:
    assert load_summary_template("zh").fingerprint() != load_summary_template("en").fingerprint()
    assert load_summary_template("zh").fingerprint() == load_summary_template("zh").fingerprint()
