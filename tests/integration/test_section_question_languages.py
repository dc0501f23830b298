"""A named section is quoted in the language it is written in, whatever the question's: an English section asked
about in Chinese ("guide.md中“Booking trains”一节讲了什么？") gets its English sentences, word for word, and a Chinese
section asked about in English its Chinese ones. Real Markdown and .docx files, indexed and asked through the
question service with no model.

Why a test of its own: the digest once joined a Chinese question's section lines without spaces
("Trainsarebookedthrough…"), and a run of Latin letters with no spaces is no prose, so the answer was the heading
with no sentence under it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.service import QuestionService

GUIDE = """# Travel guide

## Booking trains

Trains are booked through the travel desk at least three days before the trip.
The desk sends the tickets by e-mail.

## Claiming expenses

Expenses are claimed within thirty days of the trip, with the receipts attached.

## 报销流程

员工应在出差结束后三十天内提交报销申请，并附上全部发票原件。
财务部在收到申请后的十个工作日内完成审核并付款。
"""
TRAINS = ("Trains are booked through the travel desk at least three days before the trip.",
          "The desk sends the tickets by e-mail.")
DOCX_SENTENCES = ("Laptops are replaced every four years by the IT service desk.",
                  "A broken laptop is swapped for a loaner on the same day.")
CLAIMS = "员工应在出差结束后三十天内提交报销申请，并附上全部发票原件。"
TRAINING = """# 分布式训练技术原理

## FSDP

FSDP将模型实例分解为更小的单元，然后将每个单元内的所有参数扁平化和分片。

## DDP

DDP在每个进程中保存完整的模型副本，并在反向传播时同步梯度。
"""


def _write_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Equipment policy", level=1)
    document.add_heading("Replacing laptops", level=2)
    for sentence in DOCX_SENTENCES:
        document.add_paragraph(sentence)
    document.add_heading("Mobile phones", level=2)
    document.add_paragraph("Phones are issued to staff who travel more than five days a month.")
    document.save(str(path))


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("languages")
    docs = root / "kb"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    _write_docx(docs / "equipment.docx")
    (docs / "分布式训练技术原理.md").write_text(TRAINING, encoding="utf-8")
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([docs]).failed
    with QuestionService.open(settings, generator=None) as opened:
        yield opened


@pytest.mark.parametrize(("question", "sentences"), [
    ("guide.md中“Booking trains”一节讲了什么？", TRAINS),
    ("What does the Booking trains section of guide.md say?", TRAINS),
    ("equipment.docx中“Replacing laptops”一节讲了什么？", DOCX_SENTENCES),
    ("What does the Replacing laptops section of equipment.docx say?", DOCX_SENTENCES),
])
def test_an_english_section_is_quoted_in_english_for_either_question(service, question: str,
                                                                     sentences: tuple[str, ...]) -> None:
    answer = service.ask(question)
    assert answer.metadata["named_section"]["lines"] >= 1, answer.text
    for sentence in sentences:
        assert sentence in answer.text, (question, answer.text)
    assert answer.citations and all(c.quote in answer.text for c in answer.citations)
    assert "Expenses are claimed" not in answer.text and "Phones are issued" not in answer.text


def test_a_chinese_section_is_quoted_in_chinese_for_an_english_question(service) -> None:
    answer = service.ask("What does the 报销流程 section of guide.md say?")
    assert CLAIMS in answer.text, answer.text
    assert "财务部在收到申请后的十个工作日内完成审核并付款。" in answer.text
    assert "三十天内 提交" not in answer.text  # no space put between its characters


def test_a_quoted_name_is_the_section_asked_for_after_a_long_file_name(service) -> None:
    # unquoted, the name is read from the sixteen characters before 一节, which here hold the file name's tail
    answer = service.ask("分布式训练技术原理.md中“FSDP”一节讲了什么？")
    assert answer.metadata["named_section"]["title"] == "FSDP", answer.text
    assert "FSDP将模型实例分解为更小的单元" in answer.text and "DDP在每个进程中" not in answer.text
