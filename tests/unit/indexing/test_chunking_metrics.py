"""The quality metrics re-read the output: they catch breaks, oversize chunks and lost headers."""

from __future__ import annotations

import indexing.chunking as chunking
from indexing.chunking.metrics import compute_metrics, merge_metrics
from officeqa.domain import Chunk, ChunkKind


def _chunk(position: int, text: str, kind: ChunkKind = ChunkKind.TEXT, tokens: int = 10, **kw: object) -> Chunk:
    return Chunk(
        id=f"d-{position}",
        doc_id="d",
        text=text,
        heading_path=kw.pop("path", ["第一章"]),
        kind=kind,
        tokens=tokens,
        position=position,
        char_end=kw.pop("char_end", 0),
        **kw,
    )


def test_metrics_catch_each_defect() -> None:
    chunks = [
        _chunk(0, "完整的一句话。"),
        _chunk(1, "这句话没有说完", char_end=50),  # mid-sentence and not at a block end: a break
        _chunk(2, "段落结尾没有标点", char_end=99),  # ends where a block ends: fine
        _chunk(3, "被迫切断的超长句子，", forced_cut=True),
        _chunk(4, "名称 | 数量\n名称: 螺栓, 数量: 3", ChunkKind.TABLE),
        _chunk(5, "名称: 螺母, 数量: 5", ChunkKind.TABLE),  # header lost
        _chunk(6, "很长。", tokens=600),  # oversize
        _chunk(7, "名称 | 数量\n" + "名称: 垫片, 数量: 1\n" * 400, ChunkKind.OVERSIZE_TABLE, tokens=9000),
        _chunk(8, "   ", path=[]),
        _chunk(9, "乱码\ufffd\x07字符。"),
    ]
    headers = {4: "名称 | 数量", 5: "名称 | 数量", 7: "名称 | 数量"}
    m = compute_metrics(chunks, target_tokens=512, block_ends={99}, table_headers=headers)
    assert m.chunk_count == 10
    assert m.empty_chunks == 1
    assert m.sentence_breaks == 1
    assert m.forced_cuts == 1
    assert m.prose_chunks == 6  # not tables, not the forced cut
    assert m.oversize_chunks == 1 and m.oversize_table_units == 1
    assert m.oversize_rate == round(1 / 9, 4)
    assert (m.table_chunks, m.table_chunks_with_header, m.table_header_retention) == (3, 2, round(2 / 3, 4))
    assert m.heading_path_coverage == 0.9
    assert m.abnormal_chars == 2
    assert m.to_json()["sentence_break_rate"] == round(1 / 6, 4)


def test_oversize_rows_and_units_are_counted_apart_from_oversize_chunks() -> None:
    header = "名称 | 备注"
    chunks = [
        _chunk(0, header + "\n" + "名称: 甲, 备注: 长\n" * 50, ChunkKind.OVERSIZE_TABLE, tokens=9000,
               meta={"rows": [0, 50], "retrievable": False, "row_chunks": 3}),
        _chunk(1, header + "\n名称: 甲, 备注: 很长", ChunkKind.TABLE, tokens=700,
               meta={"rows": [0, 1], "oversize_row": True, "oversize_unit": "d-0"}),  # the documented case
        _chunk(2, header + "\n名称: 乙\n名称: 丙", ChunkKind.TABLE, tokens=700,
               meta={"rows": [1, 3], "oversize_row": True}),  # two rows: the flag does not excuse it
        _chunk(3, header + "\n名称: 丁", ChunkKind.TABLE, tokens=20, meta={"rows": [3, 4]}),
        _chunk(4, "很长的正文。", tokens=700, meta={"oversize_row": True}),  # not a table chunk: oversize
    ]
    m = compute_metrics(chunks, 512, set(), dict.fromkeys(range(4), header))
    assert (m.oversize_table_units, m.oversize_rows, m.oversize_chunks, m.non_retrievable) == (1, 1, 2, 1)
    assert m.oversize_rate == round(2 / 4, 4)
    total = merge_metrics([m, m])
    assert (total.oversize_rows, total.non_retrievable) == (2, 2)


def test_merge_metrics_sums_counts_and_recomputes_rates() -> None:
    a = compute_metrics([_chunk(0, "一。"), _chunk(1, "二没完", char_end=5)], 512, set(), {})
    b = compute_metrics([_chunk(0, "三。", path=[])], 512, set(), {})
    total = merge_metrics([a, b])
    assert total.chunk_count == 3
    assert total.sentence_breaks == 1
    assert total.sentence_break_rate == round(1 / 3, 4)
    assert total.heading_path_coverage == round(2 / 3, 4)


def test_public_names() -> None:
    assert sorted(chunking.__all__) == [
        "ChunkMetrics",
        "ChunkingResult",
        "chunk_document",
        "document_text",
        "merge_metrics",
    ]
