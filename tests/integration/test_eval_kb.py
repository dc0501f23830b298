"""The eval knowledge base and task file agree with each other, through the product's own parser.

Every gold evidence text must be in its document at its locator (page, sheet, row, slide,
heading), every hand-written expectation of a table task must equal what the generated rows
give, and regenerating the files must parse to the same text as the committed ones.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from eval.answer_metrics import holds_evidence
from eval.kb import KB_DIR
from eval.kb.generate import ANNUAL_REPORT, FILES, generate
from eval.kb.other_docs import SUPPLIERS, sales_orders
from eval.tasks import Evidence, load_tasks
from indexing.parsing import parse_file
from officeqa.domain import Block, BlockType, ParsedDocument

TASKS = {task.id: task for task in load_tasks()}


@pytest.fixture(scope="module")
def parsed() -> dict[str, ParsedDocument]:
    return {name: parse_file(KB_DIR / name) for name in FILES}


def _text_of(document: ParsedDocument) -> list[tuple[str, str]]:
    return [(b.type.value, b.text) for b in document.blocks]


def _locate(document: ParsedDocument, evidence: Evidence) -> list[tuple[Block, list[str], int | None]]:
    """Blocks holding the evidence, with the heading path above each and, for tables, the 1-based file row."""
    found = []
    headings: list[tuple[int, str]] = []
    for block in document.blocks:
        if block.type is BlockType.HEADING:
            level = block.level or 1
            headings = [h for h in headings if h[0] < level] + [(level, block.text)]
            if holds_evidence(block.text, evidence.text):
                found.append((block, [text for _, text in headings], None))
            continue
        path = [text for _, text in headings]
        if block.type is BlockType.TABLE and block.rows is not None:
            header = [" | ".join(r) for r in block.header_rows or []]
            lines = header + [" | ".join(r) for r in block.rows]
            for index, line in enumerate(lines):
                if holds_evidence(line, evidence.text):
                    found.append((block, path, index + 1))
        elif holds_evidence(block.text, evidence.text):
            found.append((block, path, None))
    return found


def _at_locator(block: Block, path: list[str], row: int | None, locator: dict) -> list[str]:
    problems = []
    if "page" in locator:
        first = block.page
        last = block.meta.get("page_end", first)
        if first is None or not first <= locator["page"] <= last:
            problems.append(f"page {locator['page']} not in {first}-{last}")
    if "sheet" in locator and block.sheet != locator["sheet"]:
        problems.append(f"sheet {block.sheet!r}")
    if "slide" in locator and block.slide != locator["slide"]:
        problems.append(f"slide {block.slide}")
    if "heading" in locator and not any(locator["heading"] in h for h in path):
        problems.append(f"heading path {path}")
    if "row" in locator and row != locator["row"]:
        problems.append(f"row {row}")
    return problems


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_gold_evidence_is_in_its_document_at_its_locator(task_id: str, parsed: dict[str, ParsedDocument]) -> None:
    task = TASKS[task_id]
    for name in task.documents or ():
        assert name in FILES, f"{task_id}: unknown document {name}"
    for evidence in task.evidence:
        assert evidence.document in FILES, f"{task_id}: unknown document {evidence.document}"
        places = _locate(parsed[evidence.document], evidence)
        assert places, f"{task_id}: {evidence.text!r} not found in {evidence.document}"
        verdicts = [_at_locator(block, path, row, evidence.locator) for block, path, row in places]
        assert any(not problems for problems in verdicts), f"{task_id}: {evidence.text!r}: {verdicts}"


def test_the_task_set_covers_what_the_issue_asks() -> None:
    assert len(TASKS) == 30
    kinds = {t.kind for t in TASKS.values()}
    assert {"fact", "clause", "comment", "table_cell", "aggregation", "extraction", "count", "outline", "summary",
            "comparison", "cross_document", "version_conflict", "unanswerable", "follow_up"} <= kinds
    assert any(t.history for t in TASKS.values())
    english = [t for t in TASKS.values() if t.question.isascii()]
    assert english and any(t.evidence and not t.evidence[0].text.isascii() for t in english)
    assert any(not t.question.isascii() and t.evidence and t.evidence[0].text.isascii() for t in TASKS.values())


def test_table_expectations_equal_what_the_generated_rows_give() -> None:
    orders = sales_orders()
    by_region: dict[str, Decimal] = defaultdict(Decimal)
    for order in orders:
        by_region[order.region] += order.amount
    expected = sorted(Decimal(str(n["value"])) for n in TASKS["agg-by-region"].expect["numbers"])
    assert expected == sorted(by_region.values())
    q1_east = sum(o.amount for o in orders if o.region == "华东" and o.date < dt.date(2024, 4, 1))
    assert Decimal(str(TASKS["agg-east-q1"].expect["numbers"][0]["value"])) == q1_east
    assert TASKS["count-orders-qty"].expect["numbers"][0]["value"] == sum(o.quantity > 40 for o in orders)
    assert TASKS["count-suppliers-a"].expect["numbers"][0]["value"] == sum(s[6] == "A" for s in SUPPLIERS)
    order = next(o for o in orders if o.number == "SO-2024-0037")
    assert TASKS["table-order-lookup"].expect["numbers"][0]["value"] == order.amount
    assert TASKS["table-order-lookup"].expect["facts"] == [order.salesperson]
    assert all(o.date < dt.date(2024, 7, 1) for o in orders), "the workbook holds the first half of 2024"


def test_the_annual_report_is_a_long_document(parsed: dict[str, ParsedDocument]) -> None:
    report = parsed[ANNUAL_REPORT]
    assert report.page_count is not None and report.page_count >= 30
    assert sum(b.type is BlockType.TABLE for b in report.blocks) >= 20


def test_the_notice_is_gbk_and_the_contract_has_a_comment(parsed: dict[str, ParsedDocument]) -> None:
    notice = next(name for name in FILES if name.endswith(".txt"))
    raw = (KB_DIR / notice).read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    assert "国庆节" in raw.decode("gbk")
    contract = next(name for name in FILES if name.startswith("合同/"))
    comments = [b for b in parsed[contract].blocks if b.role.value == "comment"]
    assert len(comments) == 1 and comments[0].meta["author"] == "周敏（法务部）"


@pytest.mark.slow
def test_regenerating_the_knowledge_base_parses_to_the_committed_text(tmp_path: Path,
                                                                      parsed: dict[str, ParsedDocument]) -> None:
    generate(tmp_path)
    for name in FILES:
        assert _text_of(parse_file(tmp_path / name)) == _text_of(parsed[name]), name
