"""The dictionary-free cut of text with no Chinese is jieba's own cut, token for token (officeqa/text_tokens.py).

Why real text: the shortcut restates jieba's steps for text that never reaches its dictionary; the shared
corpus's English and mixed documents and the annual-report questions and evidence hold the punctuation, numbers,
currencies, percentages and spacing a report has. A text the shortcut must not take (Chinese, jieba's Latin
dictionary words) is checked to go to jieba.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from officeqa import text_tokens
from officeqa.text_tokens import (
    _SUBJECT_FLAGS,
    _cut_latin,
    _jieba,
    _tagged_subjects,
    _without_dictionary,
    normalise_text,
)

REPO = Path(__file__).resolve().parents[3]
EDGE_CASES = [
    "3.5% growth, £1.2m (2021: £0.9m)", "e-mail x.y.z 1.2.3 v2.0.1-rc", "a\r\nb\tc  d\u3000e", "naïve café — “quoted”",
    "ＦＵＬＬ width ＡＢＣ１２３", "-", "a", "1.5", "%", "12.5%-ish", "ab_cd#ef+g&h", "profit/(loss) before tax",
    "2,619 chunks; 1,881 pages", "ι α ß ø ł", "£(206)", "FY2022 vs. FY2021", "Q&A", "",
]


def _texts(shared_dir: Path) -> list[str]:
    texts = list(EDGE_CASES)
    for path in sorted((REPO / "eval" / "annual").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts.append(row.get("question", ""))
            texts += [e.get("text", "") for e in row.get("evidence") or [] if isinstance(e, dict)]
    for folder in ("md", "txt", "html", "csv"):
        for path in sorted((shared_dir / "corpus" / folder).glob("*")):
            texts += path.read_text(encoding="utf-8", errors="replace").splitlines()
    return texts


def test_the_shortcut_cuts_as_jieba_does(shared_dir: Path) -> None:
    taken = 0
    for text in _texts(shared_dir):
        normal = normalise_text(text)
        if not _without_dictionary(normal):
            continue
        taken += 1
        assert list(_cut_latin(normal)) == list(_jieba().cut_for_search(normal)), normal[:200]
    assert taken > 1000  # the comparison ran over real text, not only the edge cases


def test_the_shortcut_tags_subjects_as_jieba_does(shared_dir: Path) -> None:
    from jieba import posseg

    _jieba()
    taken = 0
    for text in _texts(shared_dir):
        normal = normalise_text(text)
        if not _without_dictionary(normal):
            continue
        taken += 1
        tagged = [p.word.strip() for p in posseg.cut(normal, HMM=False) if p.flag in _SUBJECT_FLAGS]
        assert _tagged_subjects(normal) == tagged, normal[:200]
    assert taken > 1000


@pytest.mark.parametrize("text", ["营业收入是多少", "we use c# and c++", "at&t revenue", "研發 spending"])
def test_text_that_needs_the_dictionary_goes_to_jieba(text: str) -> None:
    assert not _without_dictionary(normalise_text(text))


def test_an_english_question_never_loads_jieba(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> None:
        raise AssertionError("jieba was loaded for text with no Chinese")

    monkeypatch.setattr(text_tokens, "_jieba", refuse)
    assert text_tokens.bm25_terms("What were the group's revenues in 2022?") == ["what", "group", "s", "revenu", "2022"]
