"""chunk_document, one rule per test, on literal Chinese and English documents."""

from __future__ import annotations

import copy
import itertools
import re

import pytest

from indexing.chunking import ChunkingResult, chunk_document, document_text
from officeqa.domain import Block, BlockRole, BlockType, ChunkKind, ParsedDocument
from officeqa.settings import ChunkingSettings
from officeqa.tokens import EstimatingCounter, default_token_counter

H, P, L, T, C = BlockType.HEADING, BlockType.PARAGRAPH, BlockType.LIST, BlockType.TABLE, BlockType.CODE


def _doc(*blocks: Block) -> ParsedDocument:
    return ParsedDocument(path="test.docx", file_type="docx", blocks=list(blocks))


def _chunk(doc: ParsedDocument, **settings: object) -> ChunkingResult:
    return chunk_document(doc, ChunkingSettings(**settings))


def _heading(text: str, level: int) -> Block:
    return Block(H, text, level=level)


def _para(text: str, **kw: object) -> Block:
    return Block(P, text, **kw)


CONTRACT = _doc(
    _heading("第一章 总则", 1),
    _heading("第一条 目的", 3),
    _para("为明确双方的权利义务，根据《中华人民共和国民法典》订立本合同。"),
    _heading("第二条 定义", 3),
    _para("本合同所称货物，是指乙方按附件一交付的设备及其配件。"),
    _heading("第三条 违约责任", 3),
    _para(
        "任何一方违反本合同约定的，应当承担违约责任。逾期交货的，每逾期一日，乙方应按合同总价的千分之三支付违约金。"
        "逾期超过三十日的，甲方有权解除合同，并要求乙方赔偿由此造成的全部损失。"
    ),
    _heading("第二章 付款", 1),
    _heading("第四条 付款方式", 3),
    _para("甲方以银行转账方式付款。"),
)


def test_contract_clauses_open_chunks_with_heading_paths_and_tiny_clauses_merge() -> None:
    result = _chunk(CONTRACT, target_tokens=120, min_section_tokens=40, overlap_ratio=0.0)
    chunks = result.chunks
    assert [c.heading_path for c in chunks] == [
        ["第一章 总则", "第一条 目的"],  # 第一条 and 第二条 are tiny siblings: merged
        ["第一章 总则", "第三条 违约责任"],
        ["第二章 付款", "第四条 付款方式"],  # tiny, but under another chapter: not merged into 第三条
    ]
    assert chunks[0].text.startswith("第一章 总则\n\n第一条 目的\n\n为明确")
    assert "第二条 定义\n\n本合同所称货物" in chunks[0].text
    assert chunks[1].text.startswith("第三条 违约责任\n\n任何一方")
    assert chunks[2].text.startswith("第二章 付款\n\n第四条 付款方式\n\n甲方")
    # No chunk is a bare heading.
    assert all(set(c.block_types) - {"heading"} for c in chunks)
    assert result.metrics.heading_path_coverage == 1.0
    assert result.metrics.sentence_breaks == 0


def test_big_sections_are_not_merged() -> None:
    result = _chunk(CONTRACT, target_tokens=120, min_section_tokens=5, overlap_ratio=0.0)
    paths = [c.heading_path[-1] for c in result.chunks]
    assert paths == ["第一条 目的", "第二条 定义", "第三条 违约责任", "第四条 付款方式"]


def test_citation_at_a_boundary_is_never_cut() -> None:
    # The budget ends exactly after the citation's sentence; a naive cut at the 。 inside 《》 would come earlier.
    first = "甲方同意付款。乙方引用《关于合同管理。若干问题的规定》第三条执行。"
    budget = default_token_counter().count(first)
    text = first + "双方签字后生效。" * 6
    result = _chunk(_doc(_para(text)), target_tokens=budget, overlap_ratio=0.0, min_section_tokens=0)
    assert result.chunks[0].text == first
    for chunk in result.chunks:
        assert chunk.text.count("《") == chunk.text.count("》")
        assert chunk.tokens <= budget
    # One token less: the citation's sentence no longer fits, and the cut moves before it, not into it.
    tighter = _chunk(_doc(_para(text)), target_tokens=budget - 1, overlap_ratio=0.0, min_section_tokens=0)
    assert tighter.chunks[0].text == "甲方同意付款。"
    assert tighter.chunks[1].text.startswith("乙方引用《关于合同管理。若干问题的规定》第三条执行。")
    assert result.metrics.forced_cuts == 0
    assert result.metrics.sentence_breaks == 0


def _staff_table(rows: int) -> Block:
    return Block(
        T,
        "table",
        header_rows=[["序号", "姓名", "金额（元）"]],
        rows=[[str(i), f"员工{i}", f"{i * 100}"] for i in range(1, rows + 1)],
        caption="表1 员工报销明细",
    )


def test_a_300_row_table_repeats_its_header_and_never_cuts_a_row() -> None:
    result = _chunk(_doc(_staff_table(300)), target_tokens=512, oversize_table_factor=20)
    chunks = result.chunks
    assert len(chunks) > 5
    row_lines: list[str] = []
    for chunk in chunks:
        assert chunk.kind is ChunkKind.TABLE
        assert chunk.tokens <= 512
        lines = chunk.text.split("\n")
        assert lines[:2] == ["表1 员工报销明细", "序号 | 姓名 | 金额（元）"]
        assert all(re.fullmatch(r"序号: \d+, 姓名: 员工\d+, 金额（元）: \d+", line) for line in lines[2:])
        row_lines.extend(lines[2:])
    assert row_lines == [f"序号: {i}, 姓名: 员工{i}, 金额（元）: {i * 100}" for i in range(1, 301)]
    assert [c.meta["rows"][0] for c in chunks[1:]] == [c.meta["rows"][1] for c in chunks[:-1]]
    assert result.metrics.table_header_retention == 1.0
    assert result.metrics.oversize_chunks == 0


def test_rows_per_chunk_setting_caps_table_chunks() -> None:
    result = _chunk(_doc(_staff_table(300)), target_tokens=4000, table_rows_per_chunk=50)
    assert [c.meta["rows"] for c in result.chunks] == [[i, i + 50] for i in range(0, 300, 50)]


def test_a_table_far_above_the_budget_is_one_unit_followed_by_retrievable_row_chunks() -> None:
    doc = _doc(_staff_table(300))
    result = _chunk(doc, target_tokens=512, oversize_table_factor=2)
    unit, *rows = result.chunks
    # The unit: the whole table for the table handlers, never cut mid-row, not for retrieval.
    assert unit.kind is ChunkKind.OVERSIZE_TABLE
    assert unit.tokens > 2 * 512
    assert unit.text.count("\n") == 301  # caption + header + 300 rows, all kept
    assert unit.meta == {"rows": [0, 300], "retrievable": False, "row_chunks": len(rows)}
    # The row chunks: exactly what a table under the threshold gets, each pointing back at the unit.
    under = _chunk(doc, target_tokens=512, oversize_table_factor=20).chunks
    assert len(rows) == len(under) > 5
    for row_chunk, plain in zip(rows, under, strict=True):
        assert row_chunk.kind is ChunkKind.TABLE
        assert row_chunk.tokens <= 512
        assert row_chunk.text == plain.text
        assert row_chunk.text.split("\n")[:2] == ["表1 员工报销明细", "序号 | 姓名 | 金额（元）"]
        assert row_chunk.meta == {"rows": plain.meta["rows"], "oversize_unit": unit.id}
        assert "retrievable" not in row_chunk.meta
    assert [line for c in rows for line in c.text.split("\n")[2:]] == unit.text.split("\n")[2:]
    assert [c.position for c in result.chunks] == list(range(len(result.chunks)))
    m = result.metrics
    assert (m.oversize_table_units, m.non_retrievable, m.oversize_chunks, m.oversize_rows) == (1, 1, 0, 0)
    assert m.oversize_rate == 0.0  # the unit is routed, not counted as an oversize chunk
    assert m.table_chunks == len(rows) + 1 and m.table_header_retention == 1.0
    # Same content, same ids (positions in order), and the row chunks' links still name the unit.
    again = _chunk(copy.deepcopy(doc), target_tokens=512, oversize_table_factor=2).chunks
    assert [c.id for c in again] == [c.id for c in result.chunks]
    assert {c.meta["oversize_unit"] for c in again[1:]} == {again[0].id}


def test_a_heading_before_an_oversize_table_opens_the_unit_and_the_first_row_chunk() -> None:
    doc = _doc(_para("报销说明如下。"), _heading("二、报销明细", 2), _staff_table(300))
    chunks = _chunk(doc, target_tokens=512, oversize_table_factor=2).chunks
    assert [c.kind for c in chunks[:3]] == [ChunkKind.TEXT, ChunkKind.OVERSIZE_TABLE, ChunkKind.TABLE]
    unit, first, second = chunks[1:4]
    for chunk in (unit, first):  # the unit is not retrieved, so the first row chunk carries the heading too
        assert chunk.text.startswith("二、报销明细\n表1 员工报销明细\n序号 | 姓名 | 金额（元）\n序号: 1,")
        assert chunk.block_types == ["heading", "table"]
    assert second.text.startswith("表1 员工报销明细\n序号 | 姓名 | 金额（元）\n")
    assert second.block_types == ["table"]
    assert unit.meta["row_chunks"] == len(chunks) - 2
    assert all(c.meta["oversize_unit"] == unit.id for c in chunks[2:])


def test_a_row_alone_above_the_budget_is_its_own_chunk_and_counted_apart() -> None:
    remark = "该笔费用涉及多个项目的差旅、会务与培训支出，需由财务部门逐项核对原始票据后方可报销" * 8
    rows = [["1", "张三", "100"], ["2", "李四", remark], ["3", "王五", "300"], ["4", "赵六", "400"]]
    table = Block(T, "table", header_rows=[["序号", "姓名", "备注"]], rows=rows)
    result = _chunk(_doc(table), target_tokens=64, oversize_table_factor=20, overlap_ratio=0.0)
    chunks = result.chunks
    assert [c.meta["rows"] for c in chunks] == [[0, 1], [1, 2], [2, 4]]
    assert all(c.kind is ChunkKind.TABLE and c.text.startswith("序号 | 姓名 | 备注\n") for c in chunks)
    wide = chunks[1]
    assert wide.text == f"序号 | 姓名 | 备注\n序号: 2, 姓名: 李四, 备注: {remark}"  # the whole row, not cut
    assert wide.tokens > 64 and wide.meta["oversize_row"] is True
    assert not any(c.meta.get("oversize_row") for c in (chunks[0], chunks[2]))
    m = result.metrics
    assert (m.oversize_rows, m.oversize_chunks, m.oversize_table_units, m.oversize_rate) == (1, 0, 0, 0.0)
    assert m.table_header_retention == 1.0


def test_a_heading_right_before_a_table_travels_with_it_and_prose_stays_apart() -> None:
    doc = _doc(
        _para("下表列出报销情况。"),
        _heading("二、报销明细", 2),
        _staff_table(3),
        _para("以上数据截至年底。"),
    )
    chunks = _chunk(doc).chunks
    assert [c.kind for c in chunks] == [ChunkKind.TEXT, ChunkKind.TABLE, ChunkKind.TEXT]
    assert chunks[1].text.startswith("二、报销明细\n表1 员工报销明细\n序号 | 姓名 | 金额（元）\n")
    assert chunks[1].block_types == ["heading", "table"]
    assert chunks[2].heading_path == ["二、报销明细"]


def test_a_headerless_grid_is_chunked_as_text_rows() -> None:
    grid = Block(T, "☐ | 年度报告\n☑ | 过渡报告", header_rows=[], rows=[["☐", "年度报告"], ["☑", "过渡报告"]])
    chunks = _chunk(_doc(_para("封面。"), grid)).chunks
    assert chunks[-1].kind is ChunkKind.TEXT
    assert chunks[-1].text == "☐ | 年度报告\n☑ | 过渡报告"
    assert chunks[-1].meta["headerless_table"] is True


def test_a_list_within_the_budget_is_not_split() -> None:
    items = [f"{i}. 第{i}项检查内容。" for i in range(1, 6)]
    doc = _doc(_para("检查清单如下：" * 3), Block(L, "\n".join(items), items=items), _para("检查完毕。" * 20))
    result = _chunk(doc, target_tokens=60, overlap_ratio=0.0)
    holding = [c for c in result.chunks if "1. 第1项" in c.text]
    assert len(holding) == 1 and all(item in holding[0].text for item in items)
    assert result.metrics.split_blocks == 0


def test_a_list_alone_above_the_budget_is_split_between_items() -> None:
    items = [f"- Item {i}: inspect the valve and record the pressure reading" for i in range(1, 13)]
    result = _chunk(_doc(Block(L, "\n".join(items), items=items)), target_tokens=40, overlap_ratio=0.15)
    chunks = result.chunks
    assert len(chunks) > 2
    assert all(c.kind is ChunkKind.LIST and c.meta.get("split_block") for c in chunks)
    assert all(c.overlap_chars == 0 and c.tokens <= 40 for c in chunks)
    assert [line for c in chunks for line in c.text.split("\n")] == items
    assert result.metrics.split_blocks == len(chunks)
    assert result.metrics.sentence_breaks == 0


def test_a_code_block_above_the_budget_is_split_between_lines() -> None:
    lines = [f"total_{i} = compute(values[{i}], factor={i})" for i in range(30)]
    chunks = _chunk(_doc(Block(C, "\n".join(lines))), target_tokens=50).chunks
    assert len(chunks) > 1 and all(c.kind is ChunkKind.CODE for c in chunks)
    assert [line for c in chunks for line in c.text.split("\n")] == lines


def test_version_metadata_is_recorded_on_every_chunk() -> None:
    doc = _doc(
        _para("采购管理办法"),
        _para("版本号：V2.1"),
        _para("生效日期：2024年1月1日"),
        _heading("第一条 总则", 3),
        _para("本办法适用于公司全部采购活动。" * 30),
    )
    result = _chunk(doc, target_tokens=100)
    assert len(result.chunks) > 2
    assert {c.version for c in result.chunks} == {"版本号: V2.1; 生效日期: 2024年1月1日"}


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["Procurement Policy", "Version 3.2", "Rev. B"], "Version: 3.2; Rev.: B"),
        (["本办法自2023年7月1日起施行。", "（2022年修订）"], "修订: 2022年修订; 生效日期: 2023年7月1日"),
        (["Python version 3.8 is required for the build."], None),
    ],
)
def test_version_patterns(lines: list[str], expected: str | None) -> None:
    chunks = _chunk(_doc(*[_para(line) for line in lines])).chunks
    assert chunks[0].version == expected


def test_a_sentence_longer_than_the_budget_is_the_only_forced_cut() -> None:
    sentence = "，".join(f"第{i}批货物应当经过验收并由双方签字确认" for i in range(1, 16)) + "。"
    doc = _doc(_para("前言。"), _para(sentence), _para("结束。"))
    result = _chunk(doc, target_tokens=60, overlap_ratio=0.0)
    forced = [c for c in result.chunks if c.forced_cut]
    assert forced, "the long sentence must be cut"
    assert all(c.tokens <= 60 for c in result.chunks)
    assert all(c.text.endswith("，") for c in forced)  # cut after a comma, not mid-word
    assert result.metrics.forced_cuts == len(forced)
    assert result.metrics.sentence_breaks == 0
    assert "".join(c.text for c in result.chunks if "批货物" in c.text) == sentence


ENGLISH = _doc(
    _heading("Chapter 1 Delivery", 1),
    _para(" ".join(f"Sentence {i} says the supplier delivers batch {i} on time." for i in range(1, 40))),
)


def test_overlap_is_trailing_whole_sentences_and_offsets_match_the_document_text() -> None:
    counter = default_token_counter()
    result = _chunk(ENGLISH, target_tokens=60, overlap_ratio=0.25)
    chunks = result.chunks
    full = document_text(ENGLISH)
    assert len(chunks) > 3
    assert all(c.overlap_chars > 0 for c in chunks[1:])
    for previous, chunk in itertools.pairwise(chunks):
        prefix = chunk.text[: chunk.overlap_chars].rstrip()
        assert previous.text.endswith(prefix)
        assert prefix.endswith(".")
        assert counter.count(prefix) <= 15
    for chunk in chunks:
        assert chunk.text == full[chunk.char_start - chunk.overlap_chars : chunk.char_end]
        assert chunk.tokens == counter.count(chunk.text) <= 60
        assert chunk.text.endswith(".")
        assert chunk.heading_path == ["Chapter 1 Delivery"]
    assert result.metrics.sentence_breaks == 0


def test_ids_are_stable_and_follow_the_document_hash() -> None:
    first = _chunk(CONTRACT).chunks
    again = _chunk(copy.deepcopy(CONTRACT)).chunks
    assert [c.id for c in first] == [c.id for c in again]
    assert first[0].id == f"{first[0].doc_id}-00000"
    assert [c.position for c in first] == list(range(len(first)))
    changed = copy.deepcopy(CONTRACT)
    changed.blocks[-1].text = "甲方以现金方式付款。"
    assert _chunk(changed).chunks[0].doc_id != first[0].doc_id
    given = chunk_document(CONTRACT, ChunkingSettings(), doc_id="sha-of-file")
    assert given.chunks[0].id == "sha-of-file-00000"


def test_chunking_is_pure() -> None:
    before = copy.deepcopy(CONTRACT)
    _chunk(CONTRACT)
    assert before == CONTRACT


def test_repeated_running_headers_are_kept_once_and_pages_recorded() -> None:
    doc = _doc(
        _para("机密文件 请勿外传", role=BlockRole.HEADER, page=1),
        _para("第一页正文。", page=1),
        _para("机密文件 请勿外传", role=BlockRole.HEADER, page=2),
        _para("第二页正文。", page=2),
    )
    chunks = _chunk(doc).chunks
    text = "".join(c.text for c in chunks)
    assert text.count("机密文件") == 1
    assert (chunks[0].page, chunks[0].page_end) == (1, 2)


def test_line_structured_text_is_cut_between_lines_as_a_list() -> None:
    lines = [f"{2000 + i}–{2001 + i} First Division 44 15 1 1 5 3 50 19" for i in range(40)]
    result = _chunk(_doc(_para("\n".join(lines))), target_tokens=80)
    cut = result.chunks[:-1]
    assert cut and all(c.kind is ChunkKind.LIST and c.meta.get("line_cut") for c in cut)
    assert result.metrics.line_cuts == len(cut)
    assert result.metrics.sentence_breaks == 0


def test_an_estimating_counter_can_replace_the_tokenizer() -> None:
    result = chunk_document(CONTRACT, ChunkingSettings(), counter=EstimatingCounter())
    assert result.chunks and all(c.tokens > 0 for c in result.chunks)


def test_empty_documents_give_no_chunks() -> None:
    result = _chunk(_doc(Block(BlockType.PAGE_BREAK, "", page=2), _para("   ")))
    assert result.chunks == []
    assert result.metrics.chunk_count == 0


def test_a_short_preamble_joins_the_first_section_but_chapters_never_merge() -> None:
    doc = _doc(
        _para("采购合同"),
        _heading("第一章 总则", 1),
        _heading("第一条 目的", 3),
        _para("规范采购。"),
        _heading("第二条 范围", 3),
        _para("适用于全公司。"),
        _heading("第二章 付款", 1),
        _heading("第三条 方式", 3),
        _para("银行转账。"),
    )
    chunks = _chunk(doc, min_section_tokens=64).chunks
    assert [c.heading_path for c in chunks] == [["第一章 总则", "第一条 目的"], ["第二章 付款", "第三条 方式"]]
    assert chunks[0].text.startswith("采购合同\n\n第一章 总则")
    assert "第二条 范围" in chunks[0].text


def test_a_merged_section_cut_off_by_a_table_keeps_its_own_path() -> None:
    doc = _doc(
        _heading("第一条 标的", 2),
        _para("设备清单如下。"),
        _staff_table(2),
        _heading("第二条 付款", 2),
        _para("收货后付款。"),
    )
    chunks = _chunk(doc).chunks
    assert [c.kind for c in chunks] == [ChunkKind.TEXT, ChunkKind.TABLE, ChunkKind.TEXT]
    assert [c.heading_path for c in chunks] == [["第一条 标的"], ["第一条 标的"], ["第二条 付款"]]


def test_a_heading_followed_by_a_list_that_nearly_fills_the_budget_stays_within_it() -> None:
    items = [f"- 第{i}项：检查阀门并记录压力读数。" for i in range(1, 5)]
    body = "\n".join(items)
    budget = default_token_counter().count(body) + 2  # the list alone fits, heading + list does not
    doc = _doc(_heading("第九条 日常检查要求", 3), Block(L, body, items=items))
    result = _chunk(doc, target_tokens=budget, overlap_ratio=0.0)
    assert all(c.tokens <= budget for c in result.chunks)
    assert result.chunks[0].text.startswith("第九条 日常检查要求\n\n- 第1项")
    assert [line for c in result.chunks for line in c.text.split("\n") if line.startswith("-")] == items
    assert result.metrics.sentence_breaks == 0 and result.metrics.forced_cuts == 0
