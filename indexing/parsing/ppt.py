"""PowerPoint 97-2003 (.ppt, WPS Presentation's .dps) -> blocks, read from the binary records.

Why a focused reader: no maintained Python library reads .ppt (python-pptx is OOXML only;
unstructured and textract convert with LibreOffice, a 300 MB install and seconds per file;
catppt prints text without slide boundaries). The text of a presentation sits in a few
record types of the ``PowerPoint Document`` stream ([MS-PPT]), so reading them with olefile
is short and exact:

- the ``Current User`` stream points at the newest ``UserEditAtom``; its chain of persist
  directories maps persist ids to stream offsets (later edits win), so slides are found in
  presentation order even in incrementally saved files;
- the document's slide list (``SlideListWithText``, instance 0) gives the slides in order
  and the placeholder text PowerPoint keeps there (``OutlineTextRefAtom`` points into it);
- each slide's drawing holds its shapes: ``ClientTextbox`` records carry a
  ``TextHeaderAtom`` (title, body, notes, other) and the text as ``TextCharsAtom``
  (UTF-16, so Chinese is exact) or ``TextBytesAtom`` (Latin-1); a group shape flagged as
  a table (``tableProperties`` in its tertiary options) has one text box per cell, laid
  out into rows and columns by the cells' anchors;
- the notes page a slide names (``SlideAtom.notesIdRef``) holds the speaker notes;
- what every slide shows but no slide holds is read once, at the first slide that shows it:
  the text typed on the slide's master (``SlideAtom.masterIdRef`` -> the master list,
  instance 1; a title master leads on to its main master) outside the title and body
  placeholders, whose text is only the prompt ("Click to edit Master title style"); and the
  header, footer and fixed-date texts of the Header and Footer dialog (``HeadersFootersContainer``
  with its ``CString`` records, a slide's own or else the document's, shown when its flags say
  so; the notes pages' ones once, at the first slide with a notes page). Master date/footer/header
  placeholders and these texts get role footer.

Per slide: the title -> heading level 1; other text boxes top-to-bottom, left-to-right, each
paragraph (``\\r``-separated) a paragraph block, a run of bulleted paragraphs
(``StyleTextPropAtom`` bullet flag) a list block; tables; notes last with role notes.
Encrypted files are decrypted in memory by msoffcrypto-tool when the password is given.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

from indexing.parsing.legacy_ole import open_legacy
from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["parse_ppt"]

# Record types ([MS-PPT] 2.13.24 RecordType, [MS-ODRAW] for the 0xF0xx drawing records).
RT_DOCUMENT = 0x03E8
RT_SLIDE = 0x03EE
RT_SLIDE_ATOM = 0x03EF
RT_NOTES = 0x03F0
RT_SLIDE_PERSIST_ATOM = 0x03F3
RT_MAIN_MASTER = 0x03F8
RT_CSTRING = 0x0FBA
RT_HEADERS_FOOTERS = 0x0FD9
RT_HEADERS_FOOTERS_ATOM = 0x0FDA
RT_OE_PLACEHOLDER = 0x0BC3
RT_CLIENT_DATA = 0xF011
RT_OUTLINE_TEXT_REF = 0x0F9E
RT_TEXT_HEADER = 0x0F9F
RT_TEXT_CHARS = 0x0FA0
RT_STYLE_TEXT_PROP = 0x0FA1
RT_TEXT_BYTES = 0x0FA8
RT_SLIDE_LIST_WITH_TEXT = 0x0FF0
RT_USER_EDIT = 0x0FF5
RT_PERSIST_DIRECTORY = 0x1772
RT_SPGR_CONTAINER = 0xF003
RT_SP_CONTAINER = 0xF004
RT_FSPGR = 0xF009
RT_CHILD_ANCHOR = 0xF00F
RT_CLIENT_ANCHOR = 0xF010
RT_CLIENT_TEXTBOX = 0xF00D
RT_TERTIARY_OPT = 0xF122
PID_TABLE_PROPERTIES = 0x039F
# TextHeaderAtom.textType
TITLE_TYPES = {0, 6}  # title, centred title
NOTES_TYPE = 2
# Text types of placeholders that hold only the master's prompt text: title, body, centred body/title, half, quarter.
MASTER_PROMPT_TYPES = {0, 1, 5, 6, 7, 8}
# OEPlaceholderAtom.placementId on a master: title, body, centred title, subtitle (prompts) and date,
# slide number, footer, header (furniture).
MASTER_PROMPT_PLACEHOLDERS = {1, 2, 3, 4}
MASTER_FURNITURE_PLACEHOLDERS = {7, 8, 9, 10}
# HeadersFootersContainer instances: the document's for slides and for notes pages; a slide's own has 0 (or 3).
HF_SLIDES, HF_NOTES, HF_PER_SLIDE = 3, 4, 0
# CString instance inside it -> HeadersFootersAtom flag that shows it: user date, header, footer.
HF_TEXT_FLAGS = {0: 0x0004, 1: 0x0010, 2: 0x0020}
MAX_DEPTH = 32
MAX_EDITS = 1000


@dataclass(slots=True)
class _Record:
    type: int
    instance: int
    version: int
    start: int  # offset of the body
    end: int


@dataclass(slots=True)
class _TextBox:
    text_type: int
    paragraphs: list[str]
    bullets: list[bool]
    anchor: tuple[int, int] = (0, 0)  # (top, left)
    placeholder: int | None = None  # OEPlaceholderAtom.placementId of the shape, when it is a placeholder


@dataclass(slots=True)
class _Shapes:
    boxes: list[_TextBox] = field(default_factory=list)
    tables: list[tuple[tuple[int, int], list[list[str]]]] = field(default_factory=list)
    outline_refs: list[tuple[int, tuple[int, int]]] = field(default_factory=list)


class _Stream:
    """The ``PowerPoint Document`` stream with bounds-checked record access."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def record(self, offset: int) -> _Record:
        if offset < 0 or offset + 8 > len(self.data):
            raise ValueError(f"record offset {offset} outside the stream")
        ver_inst, rtype, length = struct.unpack_from("<HHI", self.data, offset)
        end = offset + 8 + length
        if end > len(self.data):
            raise ValueError(f"record 0x{rtype:04X} at {offset} runs past the stream end")
        return _Record(rtype, ver_inst >> 4, ver_inst & 0xF, offset + 8, end)

    def children(self, parent: _Record) -> list[_Record]:
        out: list[_Record] = []
        offset = parent.start
        while offset + 8 <= parent.end:
            rec = self.record(offset)
            if rec.end > parent.end:
                raise ValueError(f"record 0x{rec.type:04X} overflows its container")
            out.append(rec)
            offset = rec.end
        return out

    def body(self, rec: _Record) -> bytes:
        return self.data[rec.start : rec.end]


def _persist_directory(stream: _Stream, current_edit: int) -> tuple[dict[int, int], int]:
    """(persist id -> offset, the document's persist id), following the edit chain newest first."""
    directory: dict[int, int] = {}
    doc_ref = None
    offset = current_edit
    seen: set[int] = set()
    while offset and offset not in seen and len(seen) < MAX_EDITS:
        seen.add(offset)
        edit = stream.record(offset)
        if edit.type != RT_USER_EDIT:
            raise ValueError("the current-edit offset does not point at a UserEditAtom")
        body = stream.body(edit)
        last_edit, persist_dir, doc_persist = struct.unpack_from("<III", body, 8)
        doc_ref = doc_ref if doc_ref is not None else doc_persist
        pd = stream.record(persist_dir)
        data = stream.body(pd)
        pos = 0
        while pos + 4 <= len(data):
            (word,) = struct.unpack_from("<I", data, pos)
            first, count = word & 0xFFFFF, word >> 20
            pos += 4
            for i in range(count):
                if pos + 4 > len(data):
                    break
                directory.setdefault(first + i, struct.unpack_from("<I", data, pos)[0])  # newer edits came first
                pos += 4
        offset = last_edit
    if doc_ref is None:
        raise ValueError("no UserEditAtom")
    return directory, doc_ref


def _text_of(stream: _Stream, rec: _Record) -> str:
    raw = stream.body(rec)
    if rec.type == RT_TEXT_CHARS:
        return raw.decode("utf-16-le", "replace")
    return raw.decode("latin-1")


def _bullets(data: bytes, text: str) -> list[bool]:
    """Bullet flag per paragraph of ``text`` from a StyleTextPropAtom's paragraph runs; all False when unreadable.

    Each run covers ``count`` characters (whole paragraphs, the last one plus one implied
    character), so the paragraphs it styles are the paragraph ends inside its range.
    """
    paragraph_count = text.count("\r") + 1
    flags: list[bool] = []
    pos = 0
    char = 0
    try:
        while pos + 10 <= len(data) and len(flags) < paragraph_count:
            count, _indent, masks = struct.unpack_from("<IHI", data, pos)
            pos += 10
            has_bullet = False
            if masks & 0x000F:
                (bullet_flags,) = struct.unpack_from("<H", data, pos)
                pos += 2
                has_bullet = bool(masks & 0x1) and bool(bullet_flags & 0x1)
            # skip the other optional fields of TextPFException, in their order ([MS-PPT] 2.9.18)
            for bit, size in ((7, 2), (4, 2), (6, 2), (5, 4), (11, 2), (12, 2), (13, 2), (14, 2), (8, 2), (10, 2),
                              (15, 2)):  # fmt: skip
                if masks & (1 << bit):
                    pos += size
            if masks & (1 << 20):
                (stops,) = struct.unpack_from("<H", data, pos)
                pos += 2 + 4 * stops
            if masks & (1 << 16):
                pos += 2
            if masks & (0b111 << 17):
                pos += 2
            if masks & (1 << 21):
                pos += 2
            covered = text[char : char + count].count("\r") + (1 if char + count > len(text) else 0)
            flags.extend([has_bullet] * max(1, covered))
            char += count
    except struct.error:
        return [False] * paragraph_count
    return (flags + [False] * paragraph_count)[:paragraph_count]


class _Reader:
    def __init__(self, stream: _Stream, directory: dict[int, int]) -> None:
        self.stream = stream
        self.directory = directory

    def container(self, persist_id: int, expected: int) -> _Record | None:
        offset = self.directory.get(persist_id)
        if offset is None:
            return None
        rec = self.stream.record(offset)
        return rec if rec.type == expected else None

    def slide_lists(self, document: _Record) -> dict[int, list[tuple[int, int, list[tuple[int, str]]]]]:
        """instance -> [(persist id, slide id, [(text type, text) of its placeholder texts])]."""
        out: dict[int, list[tuple[int, int, list[tuple[int, str]]]]] = {}
        for rec in self.stream.children(document):
            if rec.type != RT_SLIDE_LIST_WITH_TEXT:
                continue
            entries = out.setdefault(rec.instance, [])
            text_type = 4
            for child in self.stream.children(rec):
                if child.type == RT_SLIDE_PERSIST_ATOM:
                    persist_id, _flags, _texts, slide_id = struct.unpack_from("<IIiI", self.stream.body(child), 0)
                    entries.append((persist_id, slide_id, []))
                elif child.type == RT_TEXT_HEADER and entries:
                    (text_type,) = struct.unpack_from("<I", self.stream.body(child), 0)
                elif child.type in (RT_TEXT_CHARS, RT_TEXT_BYTES) and entries:
                    entries[-1][2].append((text_type, _text_of(self.stream, child)))
        return out

    def shapes(self, container: _Record) -> _Shapes:
        shapes = _Shapes()
        self._walk(container, shapes, 0)
        return shapes

    def _walk(self, rec: _Record, shapes: _Shapes, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        for child in self.stream.children(rec):
            if child.type == RT_SPGR_CONTAINER and self._is_table(child):
                shapes.tables.append(self._table(child))
            elif child.type == RT_SP_CONTAINER:
                self._shape(child, shapes)
            elif child.version == 0xF:
                self._walk(child, shapes, depth + 1)

    def _anchor(self, sp: _Record) -> tuple[int, int]:
        for child in self.stream.children(sp):
            body = self.stream.body(child)
            if child.type == RT_CLIENT_ANCHOR and len(body) == 8:
                top, left, _right, _bottom = struct.unpack_from("<hhhh", body, 0)
                return top, left
            if child.type == RT_CLIENT_ANCHOR and len(body) >= 16:
                top, left, _right, _bottom = struct.unpack_from("<iiii", body, 0)
                return top, left
            if child.type == RT_CHILD_ANCHOR and len(body) >= 16:
                left, top, _right, _bottom = struct.unpack_from("<iiii", body, 0)
                return top, left
        return 0, 0

    def _placeholder(self, sp: _Record) -> int | None:
        for child in self.stream.children(sp):
            if child.type != RT_CLIENT_DATA:
                continue
            for rec in self.stream.children(child):
                if rec.type == RT_OE_PLACEHOLDER and rec.end - rec.start >= 5:
                    return self.stream.data[rec.start + 4]
        return None

    def _shape(self, sp: _Record, shapes: _Shapes) -> None:
        anchor = self._anchor(sp)
        placeholder = self._placeholder(sp)
        for child in self.stream.children(sp):
            if child.type != RT_CLIENT_TEXTBOX:
                continue
            text_type, pieces, style = 4, [], b""
            for rec in self.stream.children(child):
                if rec.type == RT_TEXT_HEADER:
                    (text_type,) = struct.unpack_from("<I", self.stream.body(rec), 0)
                elif rec.type in (RT_TEXT_CHARS, RT_TEXT_BYTES):
                    pieces.append(_text_of(self.stream, rec))
                elif rec.type == RT_STYLE_TEXT_PROP:
                    style = self.stream.body(rec)
                elif rec.type == RT_OUTLINE_TEXT_REF:
                    (index,) = struct.unpack_from("<i", self.stream.body(rec), 0)
                    shapes.outline_refs.append((index, anchor))
            if pieces:
                text = "".join(pieces)
                shapes.boxes.append(
                    _TextBox(text_type, text.split("\r"), _bullets(style, text), anchor, placeholder)
                )

    def _is_table(self, group: _Record) -> bool:
        children = self.stream.children(group)
        if not children or children[0].type != RT_SP_CONTAINER:
            return False
        for rec in self.stream.children(children[0]):
            if rec.type != RT_TERTIARY_OPT:
                continue
            body = self.stream.body(rec)
            for i in range(rec.instance):
                if 6 * i + 6 > len(body):
                    break
                pid, value = struct.unpack_from("<HI", body, 6 * i)
                if pid & 0x3FFF == PID_TABLE_PROPERTIES and value & 1:
                    return True
        return False

    def _table(self, group: _Record) -> tuple[tuple[int, int], list[list[str]]]:
        cells: list[tuple[int, int, str]] = []
        for sp in self.stream.children(group)[1:]:
            if sp.type != RT_SP_CONTAINER:
                continue
            inner = _Shapes()
            self._shape(sp, inner)
            if inner.boxes:
                top, left = inner.boxes[0].anchor
                cells.append((top, left, " ".join(p.strip() for p in inner.boxes[0].paragraphs if p.strip())))
        tops = sorted({c[0] for c in cells})
        lefts = sorted({c[1] for c in cells})
        grid = [[""] * len(lefts) for _ in tops]
        for top, left, text in cells:
            grid[tops.index(top)][lefts.index(left)] = text
        anchor = (tops[0], lefts[0]) if cells else (0, 0)
        return anchor, grid


def _text_blocks(box: _TextBox, slide: int) -> list[Block]:
    """Paragraph blocks, with runs of bulleted paragraphs as list blocks."""
    blocks: list[Block] = []
    items: list[str] = []

    def flush() -> None:
        if items:
            blocks.append(Block(type=BlockType.LIST, text="\n".join(items), items=list(items), slide=slide))
            items.clear()

    for text, bullet in zip(box.paragraphs, box.bullets, strict=True):
        text = text.replace("\x0b", "\n").strip()
        if not text or text == "*":  # "*" is the slide-number field's placeholder text
            continue
        if bullet:
            items.append(text)
            continue
        flush()
        blocks.append(Block(type=BlockType.PARAGRAPH, text=text, slide=slide))
    flush()
    return blocks


def _slide_blocks(
    reader: _Reader, number: int, container: _Record | None, outline: list[tuple[int, str]]
) -> list[Block]:
    """A slide's blocks; without its drawing (``container`` None: a damaged persist directory) the slide list's text."""
    shapes = reader.shapes(container) if container is not None else _Shapes()
    boxes = list(shapes.boxes)
    for index, anchor in shapes.outline_refs:
        if 0 <= index < len(outline):
            text_type, text = outline[index]
            boxes.append(_TextBox(text_type, text.split("\r"), [False] * len(text.split("\r")), anchor))
    # Placeholder text kept only in the slide list, with no shape pointing at it (PowerPoint 97 and
    # some converters): read it too, unless a text box on the slide holds the same text.
    referenced = {index for index, _anchor in shapes.outline_refs}
    known = {"\r".join(box.paragraphs).strip() for box in boxes}
    for index, (text_type, text) in enumerate(outline):
        if index not in referenced and text.strip() and text.strip() != "*" and text.strip() not in known:
            boxes.append(_TextBox(text_type, text.split("\r"), [False] * len(text.split("\r"))))
    titles = [box for box in boxes if box.text_type in TITLE_TYPES]
    blocks: list[Block] = []
    for box in titles:
        text = " ".join(p.strip() for p in box.paragraphs if p.strip())
        if text:
            blocks.append(Block(type=BlockType.HEADING, text=text, level=1, slide=number))
    items: list[tuple[tuple[int, int], list[Block]]] = [
        (box.anchor, _text_blocks(box, number)) for box in boxes if box not in titles and box.text_type != NOTES_TYPE
    ]
    for anchor, grid in shapes.tables:
        rows = [row for row in grid if any(row)]
        if len(rows) >= 2:
            items.append((anchor, [Block.table(rows[:1], rows[1:], slide=number)]))
        elif rows:
            items.append((anchor, [Block(type=BlockType.PARAGRAPH, text=" ".join(rows[0]), slide=number)]))
    for _anchor, group in sorted(items, key=lambda item: item[0]):
        blocks.extend(group)
    return blocks


def _notes_blocks(reader: _Reader, container: _Record | None, number: int) -> list[Block]:
    if container is None:
        return []
    texts = [
        "\n".join(p.strip() for p in box.paragraphs if p.strip())
        for box in reader.shapes(container).boxes
        if box.text_type == NOTES_TYPE
    ]
    text = "\n".join(t for t in texts if t)
    return [Block(type=BlockType.PARAGRAPH, text=text, slide=number, role=BlockRole.NOTES)] if text else []


def _master_blocks(reader: _Reader, container: _Record, number: int) -> list[Block]:
    """The text typed on a master outside its prompt placeholders; date/footer/header placeholders as footer."""
    blocks: list[Block] = []
    for box in reader.shapes(container).boxes:
        if box.text_type in MASTER_PROMPT_TYPES or box.placeholder in MASTER_PROMPT_PLACEHOLDERS:
            continue
        role = BlockRole.FOOTER if box.placeholder in MASTER_FURNITURE_PLACEHOLDERS else BlockRole.BODY
        for block in _text_blocks(box, number):
            block.role = role
            block.meta["master"] = True
            blocks.append(block)
    return blocks


def _headers_footers(stream: _Stream, container: _Record, instances: tuple[int, ...]) -> list[str] | None:
    """Header, footer and fixed-date texts of ``container``'s HeadersFootersContainer shown by its flags;
    None when it has no such container."""
    for rec in stream.children(container):
        if rec.type != RT_HEADERS_FOOTERS or rec.instance not in instances:
            continue
        flags: int | None = None
        texts: list[tuple[int, str]] = []
        for child in stream.children(rec):
            if child.type == RT_HEADERS_FOOTERS_ATOM and child.end - child.start >= 4:
                (flags,) = struct.unpack_from("<H", stream.body(child), 2)
            elif child.type == RT_CSTRING:
                texts.append((child.instance, stream.body(child).decode("utf-16-le", "replace").strip()))
        return [
            text
            for kind, text in texts
            if text and (flags is None or flags & HF_TEXT_FLAGS.get(kind, 0))
            and (kind != 0 or flags is None or flags & 0x0001)  # a user date shows only with the date
        ]
    return None


class _Shared:
    """Masters and header/footer texts already read, so each is read once, at the first slide that shows it."""

    def __init__(self, reader: _Reader, document: _Record, masters: dict[int, int]) -> None:
        self.reader = reader
        self.document = document
        self.masters = masters  # master id -> persist id
        self.seen_masters: set[int] = set()
        self.seen_texts: set[str] = set()

    def master_chain(self, master_id: int) -> list[_Record]:
        """The master a slide names and, for a title master, the main master it follows."""
        chain: list[_Record] = []
        while master_id in self.masters and master_id not in self.seen_masters and len(chain) < 4:
            self.seen_masters.add(master_id)
            offset = self.reader.directory.get(self.masters[master_id])
            if offset is None:
                break
            rec = self.reader.stream.record(offset)
            if rec.type not in (RT_MAIN_MASTER, RT_SLIDE):
                break
            chain.append(rec)
            master_id = _slide_atom_ref(self.reader.stream, rec, 12) or 0
        return chain

    def blocks(self, slide: _Record, number: int, shown: list[Block]) -> list[Block]:
        """What ``slide`` shows from its master and its header/footer texts, not read before."""
        self.seen_texts.update(block.text for block in shown)
        out: list[Block] = []
        for master in self.master_chain(_slide_atom_ref(self.reader.stream, slide, 12) or 0):
            out.extend(self._new(_master_blocks(self.reader, master, number)))
        texts = _headers_footers(self.reader.stream, slide, (HF_PER_SLIDE, HF_SLIDES))
        if texts is None:
            texts = _headers_footers(self.reader.stream, self.document, (HF_SLIDES,)) or []
        out.extend(self._new([_footer(text, number) for text in texts]))
        return out

    def notes_blocks(self, number: int) -> list[Block]:
        texts = _headers_footers(self.reader.stream, self.document, (HF_NOTES,)) or []
        blocks = [_footer(text, number) for text in texts]
        for block in blocks:
            block.meta["notes_page"] = True
        return self._new(blocks)

    def _new(self, blocks: list[Block]) -> list[Block]:
        fresh = [block for block in blocks if block.text not in self.seen_texts]
        self.seen_texts.update(block.text for block in fresh)
        return fresh


def _footer(text: str, number: int) -> Block:
    return Block(type=BlockType.PARAGRAPH, text=text, slide=number, role=BlockRole.FOOTER)


def _slide_atom_ref(stream: _Stream, container: _Record, offset: int) -> int | None:
    """A 4-byte reference in a slide's (or title master's) SlideAtom: masterIdRef at 12, notesIdRef at 16."""
    for rec in stream.children(container):
        if rec.type == RT_SLIDE_ATOM and rec.end - rec.start >= offset + 4:
            return struct.unpack_from("<I", stream.body(rec), offset)[0]
    return None


def _read(data: bytes) -> tuple[list[Block], int]:
    import olefile

    with olefile.OleFileIO(data) as ole:
        current_user = ole.openstream("Current User").read()
        stream = _Stream(ole.openstream("PowerPoint Document").read())
    if len(current_user) < 20:
        raise ValueError("the Current User stream is too short")
    (current_edit,) = struct.unpack_from("<I", current_user, 16)
    directory, doc_ref = _persist_directory(stream, current_edit)
    reader = _Reader(stream, directory)
    document = reader.container(doc_ref, RT_DOCUMENT)
    if document is None:
        raise ValueError("the persist directory does not lead to the document container")
    lists = reader.slide_lists(document)
    notes_by_id = {slide_id: persist for persist, slide_id, _ in lists.get(2, [])}
    shared = _Shared(reader, document, {slide_id: persist for persist, slide_id, _ in lists.get(1, [])})
    blocks: list[Block] = []
    slides = lists.get(0, [])
    for number, (persist_id, _slide_id, outline) in enumerate(slides, start=1):
        container = reader.container(persist_id, RT_SLIDE)
        if container is None:  # the edit chain does not lead to this slide: its placeholder text is all there is
            blocks.extend(_slide_blocks(reader, number, None, outline))
            continue
        slide_blocks = _slide_blocks(reader, number, container, outline)
        blocks.extend(slide_blocks)
        blocks.extend(shared.blocks(container, number, slide_blocks))
        notes_ref = _slide_atom_ref(stream, container, 16)
        if notes_ref:
            notes_persist = notes_by_id.get(notes_ref)
            notes = reader.container(notes_persist, RT_NOTES) if notes_persist is not None else None
            blocks.extend(_notes_blocks(reader, notes, number))
            if notes is not None:
                blocks.extend(shared.notes_blocks(number))
    return blocks, len(slides)


def parse_ppt(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a PowerPoint 97-2003 presentation (decrypted in memory when a password is given) into blocks."""
    del settings  # no format knobs
    data, _decrypted = open_legacy(path, password, "ppt")
    try:
        blocks, count = _read(data)
    except (ValueError, struct.error, OSError, KeyError, IndexError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the presentation: {exc}") from exc
    title = next((b.text for b in blocks if b.type is BlockType.HEADING), None)
    return ParsedDocument(path=str(path), file_type="ppt", blocks=blocks, title=title, page_count=count or None)
