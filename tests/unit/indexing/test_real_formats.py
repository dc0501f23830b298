"""Real files from public test suites (tests/data/real/README.md): masters, footers, code pages, mail parts, .wps.

Each file was written by the program users have (PowerPoint, LibreOffice, Outlook, Works);
the expectations are the texts those programs show.
"""

from __future__ import annotations

import codecs
import shutil
from pathlib import Path

import pytest

from indexing.parsing import parse_file
from indexing.parsing.charsets import CHARSET_ALIASES, codec_for
from indexing.parsing.encoding import decode_bytes, normalize_encoding_name
from indexing.parsing.legacy import WPS_NATIVE
from officeqa.domain import BlockRole, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument

REAL = Path(__file__).resolve().parents[2] / "data" / "real"
FORMATS = Path(__file__).resolve().parents[2] / "data" / "formats"


def _text(doc: ParsedDocument) -> str:
    return "\n".join(block.text for block in doc.blocks)


def _role_of(doc: ParsedDocument, text: str) -> tuple[BlockRole, int | None]:
    [block] = [block for block in doc.blocks if block.text == text]
    return block.role, block.slide


# ------------------------------------------------------------------ .ppt


def test_ppt_text_typed_on_the_master_is_read_without_its_prompts() -> None:
    doc = parse_file(REAL / "master_text.ppt")  # before: refused as empty
    assert _role_of(doc, "Text that I added to the master slide") == (BlockRole.BODY, 1)
    assert "Click to edit Master" not in _text(doc)
    assert "*" not in _text(doc)  # the slide-number field's placeholder


def test_ppt_footer_on_master_and_slide_is_read_once() -> None:
    doc = parse_file(REAL / "master_footer.ppt")
    assert _text(doc).count("Master footer is here") == 1
    assert "Click to edit Master" not in _text(doc)


def test_ppt_header_and_footer_dialog_texts_are_footers_at_the_slide_that_shows_them() -> None:
    doc = parse_file(REAL / "headers_footers.ppt")  # before: refused as empty
    assert _role_of(doc, "Global Slide Footer") == (BlockRole.FOOTER, 1)
    assert _role_of(doc, "per-slide footer") == (BlockRole.FOOTER, 2)  # slide 2's own footer
    assert _role_of(doc, "custom date format") == (BlockRole.FOOTER, 2)
    notes = [block for block in doc.blocks if block.meta.get("notes_page")]
    assert [block.text for block in notes] == ["Notes Header", "Notes Footer"]


def test_ppt_japanese_and_gothic_text_boxes() -> None:
    doc = parse_file(REAL / "various_japanese.ppt")
    text = _text(doc)
    assert "ゾルゲと尾崎、淡々と最期" in text
    assert "𐌲𐌿𐍄𐌹𐍃𐌺" in text  # characters beyond U+FFFF, from UTF-16 surrogate pairs
    [table] = [block for block in doc.blocks if block.type is BlockType.TABLE]
    assert table.rows[0] == ["Row 2 Col 1", "Row 2 Col 2", "Row 2 Col 3"]


def test_ppt_placeholder_text_no_shape_points_at_is_read_beside_the_text_box() -> None:
    doc = parse_file(REAL / "unreferenced_placeholder_text.ppt")  # before: "First run" was lost
    assert [block.text for block in doc.blocks] == ["First run", "Second run"]


def test_ppt_whose_edit_chain_misses_the_slides_gives_the_slide_list_text() -> None:
    doc = parse_file(REAL / "damaged_edit_chain.ppt")  # before: refused as empty
    text = _text(doc)
    assert "RISPETTO DAO 100%" in text and "CROSS MARKETING SU TUTTO IL NEGOZIO" in text


# ------------------------------------------------------------------ .odp


def test_odp_whose_only_text_is_the_master_footer_is_not_empty() -> None:
    doc = parse_file(REAL / "master_footer_only.odp")  # before: refused as empty
    assert [(b.text, b.role, b.slide) for b in doc.blocks] == [("Master footer is here", BlockRole.FOOTER, 1)]


@pytest.mark.parametrize("name", ["en_project_deck.odp", "zh_work_summary.odp"])
def test_odp_master_prompt_frames_are_not_read(name: str) -> None:
    # LibreOffice's import of a .pptx leaves the placeholder flag off the master's title and outline frames.
    assert "Click to edit Master" not in _text(parse_file(FORMATS / name))


# ------------------------------------------------------------------ .rtf


def test_japanese_rtf_keeps_title_and_second_heading() -> None:
    doc = parse_file(REAL / "japanese_headings.rtf")  # Shift-JIS \'xx escapes under fcharset128 fonts
    assert [block.text for block in doc.blocks[:2]] == ["ゾルゲと尾崎、淡々と最期", "古書店で処刑記録見つかる"]
    assert doc.title == "ゾルゲと尾崎、淡々と最期"
    assert "東京都三鷹市" in _text(doc)


def test_rtf_characters_beyond_the_bmp_are_whole_characters() -> None:
    doc = parse_file(REAL / "gothic_astral.rtf")  # before: six pairs of lone surrogates, unstorable
    assert _text(doc) == "𐌲𐌿𐍄𐌹𐍃𐌺"
    _text(doc).encode("utf-8")


# ------------------------------------------------------------------ mail


def test_eml_alternative_parts_that_differ_are_both_read() -> None:
    doc = parse_file(REAL / "alternative_parts_differ.eml")  # before: only the HTML part
    text = _text(doc)
    assert "This is the html body of the main msg." in text
    plain = [block.text for block in doc.blocks if block.meta.get("body_part") == "text/plain"]
    assert plain == ["Hi,", "This is test email for EML1", "Thanks,\nChetan"]
    assert text.index("main msg.") < text.index("test email") < text.index("附件/Attachment: Test TxtA.txt")


def test_big5_msg_gives_its_text_subject_and_names() -> None:
    doc = parse_file(REAL / "big5_chinese-traditional.msg")  # before: "unknown encoding: windows-950"
    assert doc.title == "Alfresco MSG format testing ( MSG 格式測試 )"
    assert "張毓倫" in doc.meta["from"] and any("張毓倫" in to for to in doc.meta["to"])
    text = _text(doc)
    assert "恭喜 HQ 保全課 陳奎良 高票當選雲林縣總工會" in text


def test_msg_alternative_parts_that_agree_give_one_copy_plus_the_line_only_plain_has() -> None:
    doc = parse_file(REAL / "big5_chinese-traditional.msg")
    text = _text(doc)
    assert text.count("恭喜 HQ 保全課") == 1  # said by both the HTML and the plain body
    plain = [block.text for block in doc.blocks if block.meta.get("body_part") == "text/plain"]
    assert plain == ["Search word testing by Lydia"]  # Outlook's RTF-converted HTML dropped this line


def test_msg_body_whose_declared_code_page_does_not_decode_it_is_detected() -> None:
    doc = parse_file(REAL / "utf8_declared_cp1252_body.msg")  # before: corrupt, "'utf-8' codec can't decode"
    assert doc.title == "Subject öäü Subject"
    assert "Body öäü Body" in _text(doc)


# ------------------------------------------------------------------ code pages


@pytest.mark.parametrize(
    ("name", "codec"),
    [
        ("windows-950", "cp950"),
        ("big5", "cp950"),
        ("windows-936", "gb18030"),
        ("ks_c_5601-1987", "cp949"),
        ("x-mac-roman", "mac-roman"),
        ("x-mac-japanese", "cp932"),
        ("cp10000", "mac-roman"),
        ("shift_jis", "cp932"),
    ],
)
def test_declared_names_go_through_the_one_alias_table(name: str, codec: str) -> None:
    assert normalize_encoding_name(name) == codec


def test_every_alias_decodes_and_python_itself_knows_the_unknown_names() -> None:
    for name in CHARSET_ALIASES:
        assert codec_for(name) is not None, name
        codecs.lookup(name)  # registered: python-oxmsg, email and striprtf decode by these names themselves
    assert "格式測試".encode("cp950").decode("windows-950") == "格式測試"


def test_declared_windows_950_html_decodes(tmp_path: Path) -> None:
    data = "<html><body><p>格式測試 中文測試</p></body></html>".encode("cp950")
    assert decode_bytes(data, declared="windows-950").text.count("格式測試") == 1


# ------------------------------------------------------------------ .wps


def test_works_3_and_4_wps_is_refused_as_works_not_corrupt() -> None:
    with pytest.raises(UnreadableDocument) as info:  # before: corrupt, "neither an OLE compound file nor ..."
        parse_file(REAL / "works4_word_processor.wps")
    assert info.value.kind is RefusalKind.UNSUPPORTED and "Microsoft Works" in info.value.message


def test_an_ole_file_antiword_calls_not_a_word_document_is_unsupported_not_corrupt(tmp_path: Path) -> None:
    # A real Word 6 file antiword rejects with "... is not a Word Document." -- what it answers for a .wps in
    # Kingsoft's own older format too (no public sample of that format was found). Before: refused as corrupt.
    with pytest.raises(UnreadableDocument) as info:
        parse_file(REAL / "word6_antiword_refuses.doc")
    assert info.value.kind is RefusalKind.UNSUPPORTED and "not a Word document antiword reads" in info.value.message
    assert str(REAL) not in info.value.message  # antiword's message names the file, not the server path
    target = tmp_path / "old.wps"
    shutil.copy(REAL / "word6_antiword_refuses.doc", target)
    with pytest.raises(UnreadableDocument) as info:
        parse_file(target)
    assert (info.value.kind, info.value.message) == (RefusalKind.UNSUPPORTED, WPS_NATIVE)


def test_word_2_file_is_read_by_antiword() -> None:
    doc = parse_file(REAL / "word2.doc")  # not OLE; before: corrupt, "neither an OLE compound file nor ..."
    assert "Mr. Benni Alexander Nokia Japan Co, Ltd" in _text(doc)


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("word2003_xml.doc", "Word 2003 XML document"),
        ("powerpoint4.ppt", "PowerPoint 4.0 presentation"),
        ("lowercase_streams.doc", "not a Word document antiword reads"),
    ],
)
def test_other_formats_under_legacy_suffixes_are_refused_naming_them(name: str, named: str) -> None:
    with pytest.raises(UnreadableDocument) as info:  # before: corrupt, naming no format
        parse_file(REAL / name)
    assert info.value.kind is RefusalKind.UNSUPPORTED and named in info.value.message


def test_wps_that_is_neither_ole_nor_zip_is_refused_naming_the_wps_format(tmp_path: Path) -> None:
    target = tmp_path / "old.wps"
    target.write_bytes(b"WPS\x00" + bytes(range(256)) * 8)
    with pytest.raises(UnreadableDocument) as info:
        parse_file(target)
    assert (info.value.kind, info.value.message) == (RefusalKind.UNSUPPORTED, WPS_NATIVE)
    assert "WPS Office 2003" in str(info.value) and ".docx" in str(info.value)
