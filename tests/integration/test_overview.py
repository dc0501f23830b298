"""What a knowledge base holds, for the chat page's first screen: counts by kind, and examples it answers.

Real files, really indexed (hash embedder), and every example asked through the question service with no
model: each gets a quoted or exact answer with citations. A column two tables share is not used (the table
question would be ambiguous), and a spreadsheet's captions are not offered as sections.
"""

from __future__ import annotations

from pathlib import Path

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.overview import knowledge_base_overview, pick_examples, section_example, table_example
from retrieval.service import QuestionService

GUIDE = """# Travel guide

## Booking trains

Trains are booked through the travel desk at least three days before the trip.
The desk sends the tickets by e-mail.

## Claiming expenses

Expenses are claimed within thirty days of the trip, with the receipts attached.
"""


def test_counts_kinds_and_examples_that_get_answers(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    (docs / "orders.csv").write_text("item,quantity,price\npens,10,2.5\npaper,4,6\nink,3,12\n", encoding="utf-8")
    (docs / "stock.csv").write_text("item,quantity\npens,100\npaper,40\n", encoding="utf-8")
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 not a zip")
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        kb.index_paths([docs])
        overview = knowledge_base_overview(kb)
    assert (overview.documents, overview.kinds, overview.failed) == (3, {"csv": 2, "md": 1}, 1)
    by_kind = {(e.kind, e.document): e.source for e in overview.examples}
    assert by_kind == {("section", "guide.md"): "Booking trains", ("table", "orders.csv"): "price"}
    with QuestionService.open(settings, generator=None) as service:
        for example in overview.examples:
            for question in (example.en, example.zh):
                answer = next(e.answer for e in service.answer(question) if e.answer is not None)
                assert answer.citations and "Not found" not in answer.text, (question, answer.text)
    assert overview.to_json()["examples"][0]["en"] == "What does the Booking trains section of guide.md say?"
    # the Chinese page asks as a user would type it: the English section in a Chinese question, the total with "？"
    assert [e.zh for e in overview.examples] == ["guide.md中“Booking trains”一节讲了什么？",
                                                 "orders.csv中price的合计是多少？"]


def test_an_empty_knowledge_base_has_no_examples(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        overview = knowledge_base_overview(kb)
    assert overview.to_json() == {"documents": 0, "kinds": {}, "failed": 0, "examples": []}


def test_examples_alternate_and_spread_over_documents() -> None:
    sections = [section_example("a.md", "One"), section_example("a.md", "Two"), section_example("b.md", "Three")]
    tables = [table_example("c.csv", "price")]
    picked = pick_examples(sections, tables, 3)
    assert [(e.document, e.source) for e in picked] == [("a.md", "One"), ("c.csv", "price"), ("b.md", "Three")]
    assert [e.source for e in pick_examples(sections[:2], [], 3)] == ["One", "Two"]
