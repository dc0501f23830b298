"""Invariants over many generated documents (fixed seed): whatever the mix of blocks and settings,
no chunk is oversize or ends mid-sentence, prose offsets match the document text, token counts
match the tokenizer, and every block's text is covered."""

from __future__ import annotations

import random
import re

import pytest

from indexing.chunking import chunk_document, document_text
from officeqa.domain import Block, BlockRole, BlockType, ChunkKind, ParsedDocument
from officeqa.settings import ChunkingSettings
from officeqa.tokens import default_token_counter

ZH = ["甲方应在十日内付款。", "根据《中华人民共和国民法典。合同编》处理。", "他说：“明天交货。不得延误。”",
      "价格为3.14元，日期为2024-01-05。", "逾期的，按日计算违约金；", "（注：本条款。适用于全部合同。）",
      "双方协商一致", "第十一条规定的情形除外！"]
EN = ["The supplier shall deliver on time.", "Payment is due within 30 days, e.g. by wire.",
      "See Fig. 3 for details.", "Prices rose 3.14 per cent in 2024.", "Is the warranty void?",
      "A very long clause follows, with commas, and more commas, and it does not stop soon"]


def _sentence(rng: random.Random) -> str:
    return rng.choice(ZH) if rng.random() < 0.6 else rng.choice(EN) + " "


def _paragraph(rng: random.Random) -> str:
    n = rng.choice([1, 2, 5, 20, 60])
    text = "".join(_sentence(rng) for _ in range(n)).strip()
    if rng.random() < 0.15:
        text = text.replace("。", "\n")  # line-structured text without punctuation
    return text


def _document(rng: random.Random) -> ParsedDocument:
    blocks: list[Block] = []
    for _ in range(rng.randint(1, 25)):
        roll = rng.random()
        if roll < 0.2:
            level = rng.randint(1, 3)
            blocks.append(Block(BlockType.HEADING, f"第{rng.randint(1, 99)}条 标题{level}", level=level))
        elif roll < 0.65:
            role = BlockRole.FOOTER if rng.random() < 0.05 else BlockRole.BODY
            blocks.append(Block(BlockType.PARAGRAPH, _paragraph(rng), page=rng.randint(1, 9), role=role))
        elif roll < 0.75:
            items = [f"{i}. {_sentence(rng)}".strip() for i in range(rng.randint(1, 40))]
            blocks.append(Block(BlockType.LIST, "\n".join(items), items=items))
        elif roll < 0.8:
            lines = [f"x_{i} = f({i})  # step {i}" for i in range(rng.randint(1, 80))]
            blocks.append(Block(BlockType.CODE, "\n".join(lines)))
        elif roll < 0.95:
            header = [["名称", "数量", "Note"]] if rng.random() < 0.85 else []
            rows = [[f"件{i}", str(i), _sentence(rng).strip()] for i in range(rng.randint(0, 120))]
            if header or rows:
                blocks.append(Block(BlockType.TABLE, "t", header_rows=header, rows=rows))
        else:
            blocks.append(Block(BlockType.PAGE_BREAK, "", page=rng.randint(1, 9)))
    return ParsedDocument("gen.docx", "docx", blocks)


_SENTENCE_FINAL = set("。！？；.!?;:：”\"』」）)…")


@pytest.mark.parametrize("seed", range(60))
def test_generated_documents_keep_every_invariant(seed: int) -> None:
    rng = random.Random(seed)
    counter = default_token_counter()
    settings = ChunkingSettings(
        target_tokens=rng.choice([40, 96, 256, 512]),
        overlap_ratio=rng.choice([0.0, 0.15, 0.3]),
        min_section_tokens=rng.choice([0, 32, 64]),
        table_rows_per_chunk=rng.choice([0, 0, 7]),
        oversize_table_factor=rng.choice([2.0, 8.0]),
    )
    doc = _document(rng)
    result = chunk_document(doc, settings)
    full = document_text(doc)
    metrics = result.metrics
    assert metrics.oversize_chunks == 0
    assert metrics.sentence_breaks == 0
    assert metrics.empty_chunks == 0
    assert metrics.table_header_retention == 1.0
    assert len({c.id for c in result.chunks}) == len(result.chunks)
    block_ends = set()
    offset = 0
    for block in doc.blocks:
        text = block.text.strip()
        if text and block.type is not BlockType.PAGE_BREAK:
            block_ends.add(offset + len(text))
            offset += len(text) + 2
    covered = ""
    for chunk in result.chunks:
        assert chunk.tokens == counter.count(chunk.text)
        if chunk.kind is ChunkKind.OVERSIZE_TABLE:
            assert chunk.meta["retrievable"] is False
            following = result.chunks[chunk.position + 1 : chunk.position + 1 + chunk.meta["row_chunks"]]
            assert len(following) == chunk.meta["row_chunks"] > 0
            assert all(c.kind is ChunkKind.TABLE and c.meta["oversize_unit"] == chunk.id for c in following)
            continue
        if chunk.kind is ChunkKind.TABLE:
            assert chunk.tokens <= settings.target_tokens or chunk.meta.get("oversize_row")
            continue
        assert chunk.text == full[chunk.char_start - chunk.overlap_chars : chunk.char_end]
        assert chunk.tokens <= settings.target_tokens
        ends_ok = chunk.char_end in block_ends or chunk.text[-1] in _SENTENCE_FINAL
        assert ends_ok or chunk.forced_cut or chunk.meta.get("split_block"), chunk.text[-40:]
        covered += chunk.text[chunk.overlap_chars :]
    squeeze = re.compile(r"\s+")
    covered = squeeze.sub("", covered)
    for block in doc.blocks:
        if block.type in (BlockType.PARAGRAPH, BlockType.LIST, BlockType.CODE) and block.role is BlockRole.BODY:
            assert squeeze.sub("", block.text) in covered
