"""A named section's digest: a list item's label stands apart from the sentence under it; a wrapped PDF
sentence is still joined across its lines."""

from __future__ import annotations

from retrieval.section_digest import digest
from retrieval.section_finder import Piece, Section


def _section(text: str) -> Section:
    return Section("d1", "数据并行", [Piece("d1-0", text, {"doc_id": "d1", "page": 3})])


def test_a_short_label_is_not_glued_to_the_next_sentence() -> None:
    text = ("数据并行\nFSDP\nFSDP算法是由ZeroRedundancyOptimizer技术驱动的，设计与PyTorch的其他组件保持一致。\n"
            "DDP\nDDP在每个进程中保存完整的模型副本并同步梯度。")
    lines, citations = digest(_section(text), offset=0)
    body = "\n".join(lines)
    assert "FSDPFSDP" not in body and "DDPDDP" not in body
    assert "FSDP算法是由ZeroRedundancyOptimizer技术驱动的，设计与PyTorch的其他组件保持一致。" in body
    assert "DDP在每个进程中保存完整的模型副本并同步梯度。" in body
    assert [(c.n, c.chunk_id) for c in citations] == [(1, "d1-0")]


def test_a_sentence_wrapped_across_pdf_lines_is_joined() -> None:
    text = ("数据并行\n报告期内，公司持续推进数据并行训练平台的建设，完成了三个业务\n"
            "线的模型迁移，训练效率较上年提升了百分之三十以上。")
    lines, _ = digest(_section(text), offset=0)
    assert "完成了三个业务线的模型迁移，训练效率较上年提升了百分之三十以上。" in "\n".join(lines)


def test_an_english_section_keeps_its_spaces_and_an_english_head_separator() -> None:
    text = ("Booking trains\n1. Rules\nTrains are booked through the travel desk at least three days\n"
            "before the trip, and the desk sends the tickets by e-mail.")
    lines, _ = digest(Section("d1", "Booking trains", [Piece("d1-0", text, {"doc_id": "d1"})]), offset=0)
    assert lines == ["- 1. Rules: Trains are booked through the travel desk at least three days before the trip, "
                     "and the desk sends the tickets by e-mail. [1]"]
