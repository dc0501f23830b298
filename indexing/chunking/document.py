"""chunk_document: blocks in, chunks and quality metrics out (a pure function).

Order of the rules (DESIGN.md, "Chunking rules"):

1. Route: a table goes to table chunks (header repeated, rows as "name: value"); far above
   the budget it ALSO gives one OVERSIZE_TABLE unit, emitted first, kept whole for the table
   handlers and marked ``meta.retrievable = False`` (with ``meta.row_chunks`` = how many
   table chunks follow); each of those chunks carries ``meta.oversize_unit`` = the unit's id,
   so the indexer embeds/indexes the row chunks and skips the unit. A single row above the
   budget next to its header is a chunk of its own (``meta.oversize_row``, never cut; counted
   as ``oversize_rows``, see ``tables.py``). A list or code block alone above the budget
   is split between items/lines into LIST/CODE chunks (counted as ``split_block``).
2. Protect: everything else is cut into sentence units that never end inside 《》“”（）「」
   or a number; only a sentence longer than the budget is cut inside (``forced_cut``).
3. Structure: sections by heading path; a heading opens a chunk, tiny sections merge with a
   neighbour under the same parent (``sections.py``).
4. Size: units are packed to ``target_tokens`` with overlap (``packing.py``).

Also: a headerless table grid is chunked between rows as text; a chunk cut at a bare line
end (line-structured text with no sentence end in a whole budget) is labelled LIST with
``meta.line_cut``; repeated running headers/footers are kept once (``items.py``).

Any text: a sentence longer than the budget is cut by ``forced.py`` (punctuation, then
commas/spaces, then inside runs of characters at positions that keep token counts additive),
so a 10 MB line of one letter or of Chinese without punctuation becomes budget-sized chunks;
a wall of headings with no text between them is cut after a heading rather than glued into
one oversize chunk (``packing.py``), and only the headings that fit half the budget travel
with a following table or list.

Speed: every block is counted once, in one batch; a paragraph is split into sentences only
when a cut or the overlap needs it (``pack`` expands it lazily), and sentence counts add up
to the block's count (exact for the default WordPiece counter, see ``officeqa.tokens``). A
non-additive counter gets every chunk recounted at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexing.chunking.forced import force_split
from indexing.chunking.ids import chunk_id, document_hash
from indexing.chunking.items import Item, select_items
from indexing.chunking.metrics import ChunkMetrics, compute_metrics
from indexing.chunking.packing import Packed, Unit, pack
from indexing.chunking.sections import Group, build_sections, group_sections
from indexing.chunking.tables import RenderedTable, render_table, table_pieces
from indexing.chunking.versions import detect_version
from officeqa.domain import BlockType, Chunk, ChunkKind, ParsedDocument
from officeqa.sentences import End, Span, split_sentences
from officeqa.settings import ChunkingSettings
from officeqa.tokens import TokenCounter, default_token_counter

_PARAGRAPH_TYPES = (BlockType.PARAGRAPH, BlockType.IMAGE)
_LINE_TYPES = (BlockType.LIST, BlockType.CODE, BlockType.TABLE)
_MIN_HEADING_ROOM = 16  # below this many tokens left after a heading, do not re-split the next sentence for it


@dataclass(slots=True)
class ChunkingResult:
    chunks: list[Chunk]
    metrics: ChunkMetrics


def chunk_document(
    doc: ParsedDocument,
    settings: ChunkingSettings,
    counter: TokenCounter | None = None,
    doc_id: str | None = None,
) -> ChunkingResult:
    """Cut a parsed document into chunks; ``doc_id`` defaults to a hash of the blocks' content."""
    counter = counter or default_token_counter()
    run = _Run(doc, settings, counter, doc_id or document_hash(doc.blocks))
    return run.execute()


def _is_structured_table(item: Item) -> bool:
    """A table with a header row: rendered as table chunks. A headerless grid is chunked by rows as text."""
    return item.type is BlockType.TABLE and any(cell.strip() for cell in item.block.header)


class _Run:
    """State of one chunking call (kept in an object so the steps stay small functions)."""

    def __init__(self, doc: ParsedDocument, settings: ChunkingSettings, counter: TokenCounter, doc_id: str) -> None:
        self.settings = settings
        self.counter = counter
        self.doc_id = doc_id
        self.target = max(1, settings.target_tokens)
        self.overlap_tokens = int(self.target * max(0.0, settings.overlap_ratio))
        self.items, self.doc_text = select_items(doc.blocks)
        self.units: dict[int, list[Unit]] = {}
        self.expanded: dict[int, list[Unit]] = {}
        self.standalone: set[int] = set()  # lists/code above the budget, headerless tables: chunked on their own
        self.tables: dict[int, tuple[RenderedTable, list[int]]] = {}
        self.drafts: list[Chunk] = []
        self.table_headers: dict[int, str] = {}
        self.sealed = False  # a run was cut between arbitrary characters: recount the chunks at the end

    # ---- step 1: units and token counts -------------------------------------------------
    def _make_units(self) -> list[int]:
        spans_by_item: dict[int, list[Span]] = {}
        texts: list[str] = []
        for item in self.items:
            if _is_structured_table(item):
                rendered = render_table(item.block)
                self.tables[item.index] = (rendered, [])
                texts.extend([rendered.caption, rendered.header_line, *rendered.row_lines])
                continue
            kind = End.NO_CUT if item.type is BlockType.HEADING else End.BLOCK
            spans_by_item[item.index] = [Span(item.start, item.end, kind)]
            texts.append(item.text)
        counts = self.counter.count_many(texts)
        at = 0
        item_tokens = [0] * len(self.items)
        for item in self.items:
            if item.index in self.tables:
                rendered, _ = self.tables[item.index]
                n = 2 + len(rendered.row_lines)
                line_tokens = counts[at : at + n]
                self.tables[item.index] = (rendered, line_tokens)
                item_tokens[item.index] = sum(line_tokens)
                at += n
                continue
            span = spans_by_item[item.index][0]
            whole = item.type in _PARAGRAPH_TYPES
            units = [Unit(span.start, span.end, counts[at], span.end_kind, item.index, whole)]
            at += 1
            item_tokens[item.index] = units[0].tokens
            if item.type is BlockType.TABLE:
                self.standalone.add(item.index)  # a headerless grid: kept apart from prose, cut between rows
            if item.type in _LINE_TYPES and item_tokens[item.index] > self.target:
                self.standalone.add(item.index)
                units = self._line_units(item)
            self.units[item.index] = units if whole else self._fit(units, self.target)
        return item_tokens

    def _expand(self, unit: Unit) -> list[Unit]:
        """A whole paragraph as its sentence units (each within the budget); cached per block."""
        cached = self.expanded.get(unit.item)
        if cached is None:
            item = self.items[unit.item]
            spans = split_sentences(item.text, item.start)
            counts = self.counter.count_many([self.doc_text[s.start : s.end] for s in spans])
            units = [Unit(s.start, s.end, c, s.end_kind, item.index) for s, c in zip(spans, counts, strict=True)]
            cached = self._fit(units, self.target)
            self.expanded[unit.item] = cached
        return list(cached)

    def _line_units(self, item: Item) -> list[Unit]:
        """A list/code block above the budget, as one unit per line (item or code line)."""
        spans: list[Span] = []
        offset = 0
        for line in item.text.split("\n"):
            if line.strip():
                spans.append(Span(item.start + offset, item.start + offset + len(line.rstrip()), End.NEWLINE))
            offset += len(line) + 1
        if spans:
            spans[-1].end_kind = End.BLOCK
        counts = self.counter.count_many([self.doc_text[s.start : s.end] for s in spans])
        units: list[Unit] = []
        for span, tokens in zip(spans, counts, strict=True):
            if tokens <= self.target or item.type is BlockType.CODE:
                units.append(Unit(span.start, span.end, tokens, span.end_kind, item.index))
                continue
            # One list item above the budget: split it at its sentence ends.
            text = self.doc_text[span.start : span.end]
            inner = split_sentences(text, span.start)
            inner[-1].end_kind = span.end_kind
            inner_counts = self.counter.count_many([self.doc_text[s.start : s.end] for s in inner])
            units.extend(
                Unit(s.start, s.end, c, s.end_kind, item.index) for s, c in zip(inner, inner_counts, strict=True)
            )
        return units

    def _fit(self, units: list[Unit], budget: int) -> list[Unit]:
        """Replace every unit above ``budget`` by forced pieces that fit."""
        if all(u.tokens <= budget for u in units):
            return units
        out: list[Unit] = []
        for unit in units:
            out.extend(self._force_split(unit, budget) if unit.tokens > budget else [unit])
        return out

    def _force_split(self, unit: Unit, budget: int) -> list[Unit]:
        """The only cut inside a sentence: at inner punctuation, then commas/spaces, then inside runs."""
        units = force_split(self.doc_text, unit.start, unit.end, unit.end_kind, budget, self.counter, unit.item)
        self.sealed = self.sealed or any(u.sealed for u in units)
        return units

    # ---- step 2: chunks per group ---------------------------------------------------------
    def _emit_group(self, group: Group) -> None:
        run: list[Unit] = []
        lead = 0  # tokens of the heading units at the end of ``run`` (kept as a sum: 100,000 headings in a row occur)
        for index in group.items:
            item = self.items[index]
            if index in self.tables or index in self.standalone:
                heads = _take_trailing_headings(run, self.target // 2)
                self._flush(run, group)
                run, lead = [], 0
                if index in self.tables:
                    self._emit_table(item, group, heads)
                else:
                    self._emit_standalone(item, group, heads)
                continue
            pending = list(reversed(self.units[index]))
            while pending:
                unit = pending.pop()
                room = self.target - lead
                if lead and unit.end_kind is not End.NO_CUT and unit.tokens > room >= _MIN_HEADING_ROOM:
                    # The heading must share a chunk with the start of its text: make that start fit.
                    if unit.whole:
                        pending.extend(reversed(self._expand(unit)))
                        continue
                    if item.type in _LINE_TYPES and (unit.start, unit.end) == (item.start, item.end):
                        pending.extend(reversed(self._line_units(item)))  # a list: split between items
                        continue
                    head, *rest = self._force_split(unit, room)
                    run.append(head)
                    if rest:  # only the start had to fit next to the heading; the rest is cut to the full budget
                        tail = Unit(rest[0].start, unit.end, 0, unit.end_kind, unit.item)
                        tail.tokens = self.counter.count(self.doc_text[tail.start : tail.end])
                        pending.append(tail)
                    lead = 0
                    continue
                if unit.tokens > self.target and not unit.whole:
                    pending.extend(reversed(self._force_split(unit, self.target)))
                    continue
                run.append(unit)
                lead = lead + unit.tokens if unit.end_kind is End.NO_CUT else 0
        self._flush(run, group)

    def _flush(self, run: list[Unit], group: Group) -> None:
        if run:
            for packed in pack(run, self.target, self.overlap_tokens, self._expand):
                self.drafts.append(self._prose_chunk(packed, group, None, False))

    def _emit_standalone(self, item: Item, group: Group, heads: list[Unit]) -> None:
        """A list/code block above the budget (split between items/lines) or a headerless grid (between rows)."""
        units = self.units[item.index]
        if heads and len(units) == 1 and sum(u.tokens for u in heads) + units[0].tokens > self.target:
            units = self._line_units(item)  # the heading must stay with the first rows/items
        packs = pack(heads + units, self.target)
        split = len(packs) > 1
        if item.type is BlockType.CODE:
            kind = ChunkKind.CODE
        elif item.type is BlockType.LIST or split:
            kind = ChunkKind.LIST
        else:
            kind = ChunkKind.TEXT
        for packed in packs:
            chunk = self._prose_chunk(packed, group, kind, split)
            if item.type is BlockType.TABLE:
                chunk.meta["headerless_table"] = True
            self.drafts.append(chunk)

    def _prose_chunk(self, packed: Packed, group: Group, kind: ChunkKind | None, split: bool) -> Chunk:
        first, last = packed.units[0], packed.units[-1]
        text_start = packed.overlap[0].start if packed.overlap else first.start
        item_ids = sorted({u.item for u in packed.units})
        types = sorted({self.items[i].type.value for i in item_ids})
        if kind is None:
            body = {t for t in types if t != BlockType.HEADING.value}
            if body == {BlockType.LIST.value}:
                kind = ChunkKind.LIST
            elif body == {BlockType.CODE.value}:
                kind = ChunkKind.CODE
            else:
                kind = ChunkKind.TEXT
        meta: dict[str, object] = {"split_block": True} if split else {}
        if packed.units[-1].end_kind is End.NEWLINE:
            # Cut at a bare line end: the whole window had no sentence end, so this is line-structured text
            # (a flattened table, an address block, a list without markers) and is split like a list.
            kind = ChunkKind.CODE if kind is ChunkKind.CODE else ChunkKind.LIST
            meta = {"split_block": True, "line_cut": True}
        return self._chunk(
            text=self.doc_text[text_start : last.end],
            path=group.path_for([u.item for u in packed.units]),
            kind=kind,
            tokens=packed.tokens,
            first_item=self.items[first.item],
            last_item=self.items[last.item],
            char_start=first.start,
            char_end=last.end,
            overlap_chars=first.start - text_start,
            block_types=types,
            forced=packed.forced,
            meta=meta,
        )

    def _emit_table(self, item: Item, group: Group, heads: list[Unit]) -> None:
        rendered, line_tokens = self.tables[item.index]
        prefix = "\n".join(self.doc_text[u.start : u.end] for u in heads)
        prefix_tokens = sum(u.tokens for u in heads)
        pieces = table_pieces(rendered, line_tokens, self.settings, prefix, prefix_tokens, self.counter)
        unit_id: str | None = None
        for piece in pieces:
            meta: dict[str, object] = {"rows": [piece.row_start, piece.row_end]}
            if piece.kind is ChunkKind.OVERSIZE_TABLE:
                # Kept whole for the table handlers; retrieval uses the row chunks that follow it.
                unit_id = chunk_id(self.doc_id, len(self.drafts))  # == the id execute() gives this position
                meta.update(retrievable=False, row_chunks=len(pieces) - 1)
            elif unit_id is not None:
                meta["oversize_unit"] = unit_id
            if piece.oversize_row:
                meta["oversize_row"] = True
            if piece.row_part:
                meta["row_part"] = piece.row_part
                meta["columns"] = list(piece.columns or ())
            types = ["heading", "table"] if heads else ["table"]
            self.table_headers[len(self.drafts)] = piece.header if piece.header is not None else rendered.header_line
            self.drafts.append(
                self._chunk(
                    text=piece.text,
                    path=group.path_for([item.index]),
                    kind=piece.kind,
                    tokens=piece.tokens,
                    first_item=item,
                    last_item=item,
                    char_start=heads[0].start if heads else item.start,
                    char_end=item.end,
                    overlap_chars=0,
                    block_types=types,
                    forced=False,
                    meta=meta,
                )
            )
            if piece.kind is not ChunkKind.OVERSIZE_TABLE:
                heads = []  # the heading opens the unit and again the first row chunk (the unit is not retrieved)

    def _chunk(
        self,
        *,
        text: str,
        path: list[str],
        kind: ChunkKind,
        tokens: int,
        first_item: Item,
        last_item: Item,
        char_start: int,
        char_end: int,
        overlap_chars: int,
        block_types: list[str],
        forced: bool,
        meta: dict[str, object],
    ) -> Chunk:
        first, last = first_item.block, last_item.block
        return Chunk(
            id="",
            doc_id=self.doc_id,
            text=text,
            heading_path=list(path),
            kind=kind,
            tokens=tokens,
            page=first.page,
            page_end=last.page if last.page is not None and last.page != first.page else None,
            sheet=first.sheet,
            slide=first.slide,
            char_start=char_start,
            char_end=char_end,
            overlap_chars=overlap_chars,
            block_types=block_types,
            forced_cut=forced,
            meta=meta,
        )

    # ---- the whole run ---------------------------------------------------------------------
    def execute(self) -> ChunkingResult:
        item_tokens = self._make_units()
        sections = build_sections(self.items, item_tokens)
        for group in group_sections(sections, self.target, self.settings.min_section_tokens):
            self._emit_group(group)
        version = detect_version([item.text for item in self.items])
        if (self.sealed or not self.counter.additive) and self.drafts:
            for chunk, tokens in zip(self.drafts, self.counter.count_many([c.text for c in self.drafts]), strict=True):
                chunk.tokens = tokens
        for position, chunk in enumerate(self.drafts):
            chunk.position = position
            chunk.id = chunk_id(self.doc_id, position)
            chunk.version = version
        block_ends = {item.end for item in self.items}
        metrics = compute_metrics(self.drafts, self.target, block_ends, self.table_headers)
        return ChunkingResult(self.drafts, metrics)


def _take_trailing_headings(run: list[Unit], limit: int) -> list[Unit]:
    """Remove and return the heading units at the end of ``run`` that travel with what comes next (a table,
    a list): as many as fit in ``limit`` tokens, the nearest first; earlier ones stay in ``run``."""
    count = 0
    total = 0
    for unit in reversed(run):
        if unit.end_kind is not End.NO_CUT or total + unit.tokens > limit:
            break
        total += unit.tokens
        count += 1
    if not count:
        return []
    heads = run[len(run) - count :]
    del run[len(run) - count :]
    return heads


def document_text(doc: ParsedDocument) -> str:
    """The text that ``Chunk.char_start``/``char_end`` index into (see ``items.py``)."""
    return select_items(doc.blocks)[1]


__all__ = ["ChunkingResult", "chunk_document", "document_text"]
