"""Encoding detection and decoding of text-like files, on files the tests write themselves.

Detectors need realistic lengths, so the samples are paragraphs, not words.
"""

from __future__ import annotations

import codecs
import random
from pathlib import Path

import pytest

from indexing.parsing.encoding import decode_bytes, normalize_encoding_name, read_text
from officeqa.errors import RefusalKind, UnreadableDocument

CONTRACT_ZH = (
    "根据《中华人民共和国民法典》及相关法律法规的规定，甲乙双方在平等、自愿、公平、诚实信用的基础上，"
    "就乙方为甲方提供办公设备采购及安装服务事宜，经协商一致，订立本合同。第一条 合同标的：乙方向甲方"
    "提供办公设备，包括计算机、打印机、复印机等，具体规格、数量及价格详见附件清单。第二条 交付时间："
    "乙方应于合同签订后三十日内完成全部设备的交付和安装调试工作，并经甲方验收合格。第三条 付款方式："
    "甲方在设备验收合格后十五个工作日内，向乙方支付合同总价款的百分之九十五，余款作为质量保证金。\n"
)
INVOICE_EN = (
    "The supplier\u2019s invoice shows a total of \u20ac1,250.00 for the \u201coffice chairs\u201d delivered "
    "last week. Please note \u2013 the caf\u00e9 order is separate and costs \u20ac45. Our na\u00efve estimate "
    "was lower, but the r\u00e9sum\u00e9 of costs is final and was approved by the board.\n"
)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_utf8_without_bom(tmp_path: Path) -> None:
    decoded = read_text(_write(tmp_path, "a.txt", CONTRACT_ZH.encode("utf-8")))
    assert (decoded.text, decoded.encoding, decoded.confidence) == (CONTRACT_ZH, "utf-8", 1.0)


def test_utf8_with_bom_drops_the_bom(tmp_path: Path) -> None:
    decoded = read_text(_write(tmp_path, "a.txt", codecs.BOM_UTF8 + CONTRACT_ZH.encode("utf-8")))
    assert decoded.text == CONTRACT_ZH
    assert not decoded.text.startswith("\ufeff")


@pytest.mark.parametrize(("bom", "codec"), [(codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")])
def test_utf16_with_bom(tmp_path: Path, bom: bytes, codec: str) -> None:
    decoded = read_text(_write(tmp_path, "a.txt", bom + (CONTRACT_ZH + INVOICE_EN).encode(codec)))
    assert decoded.text == CONTRACT_ZH + INVOICE_EN
    assert decoded.encoding == codec


def test_utf16_without_bom_is_detected_not_refused_for_its_nul_bytes(tmp_path: Path) -> None:
    text = "The supplier shall deliver the goods on time and in full, as agreed in the contract.\n" * 5
    decoded = read_text(_write(tmp_path, "a.txt", text.encode("utf-16-le")))
    assert (decoded.text, decoded.encoding) == (text, "utf-16-le")


def test_gbk_bytes_decode_as_gb18030(tmp_path: Path) -> None:
    text = CONTRACT_ZH + "朱镕基总理曾视察此地。\n"  # 镕 is in GBK but not in GB2312
    decoded = read_text(_write(tmp_path, "a.txt", text.encode("gbk")))
    assert decoded.text == text
    assert decoded.encoding == "gb18030"


def test_gb2312_bytes_decode_as_gb18030(tmp_path: Path) -> None:
    decoded = read_text(_write(tmp_path, "a.txt", CONTRACT_ZH.encode("gb2312")))
    assert decoded.text == CONTRACT_ZH
    assert decoded.encoding == "gb18030"


def test_gb18030_only_characters(tmp_path: Path) -> None:
    text = CONTRACT_ZH + "扩展汉字䶮、𠀀和𪚥也应当正确显示。\n"  # outside GBK: four-byte GB18030 sequences
    with pytest.raises(UnicodeEncodeError):
        text.encode("gbk")
    decoded = read_text(_write(tmp_path, "a.txt", text.encode("gb18030")))
    assert decoded.text == text


def test_cp1252_curly_quotes_and_euro(tmp_path: Path) -> None:
    decoded = read_text(_write(tmp_path, "a.txt", INVOICE_EN.encode("cp1252")))
    assert decoded.encoding == "cp1252"
    assert decoded.text == INVOICE_EN
    assert "\u20ac1,250.00" in decoded.text and "\u201coffice chairs\u201d" in decoded.text


def test_short_gbk_snippet_prefers_the_gb_family_on_a_tie() -> None:
    assert decode_bytes("短文本".encode("gbk")).text == "短文本"


def test_big5_text_is_not_forced_to_gb() -> None:
    text = "根據中華民國法律規定，雙方應當遵守本合約之各項條款。本公司於臺北市設立總部，負責處理一切業務事宜。" * 2
    assert decode_bytes(text.encode("big5")).text == text


def test_declared_charset_is_honoured_when_it_decodes() -> None:
    decoded = decode_bytes("合同".encode("gbk"), declared="GB2312")
    assert (decoded.text, decoded.encoding) == ("合同", "gb18030")


def test_a_lying_declaration_falls_back_to_detection() -> None:
    assert decode_bytes(CONTRACT_ZH.encode("utf-8"), declared="iso-8859-1").text == CONTRACT_ZH


@pytest.mark.parametrize(
    ("name", "codec"),
    [
        ("gb2312", "gb18030"),
        ("GBK", "gb18030"),
        ("cp936", "gb18030"),
        ("iso-8859-1", "cp1252"),
        ("windows-1252", "cp1252"),
        ("UTF-8", "utf-8"),
        ("no-such-charset", None),
    ],
)
def test_normalize_encoding_name(name: str, codec: str | None) -> None:
    assert normalize_encoding_name(name) == codec


def test_random_binary_is_refused_as_corrupt(tmp_path: Path) -> None:
    data = random.Random(7).randbytes(8000)
    with pytest.raises(UnreadableDocument) as info:
        read_text(_write(tmp_path, "binary.txt", data))
    assert info.value.kind is RefusalKind.CORRUPT
    assert info.value.path.endswith("binary.txt")


def test_nul_heavy_ascii_is_refused_as_corrupt(tmp_path: Path) -> None:
    with pytest.raises(UnreadableDocument) as info:
        read_text(_write(tmp_path, "nul.txt", b"ab\x00\x00" * 500))
    assert info.value.kind is RefusalKind.CORRUPT


def test_bad_utf16_after_its_bom_is_refused_as_corrupt(tmp_path: Path) -> None:
    with pytest.raises(UnreadableDocument) as info:
        read_text(_write(tmp_path, "odd.txt", codecs.BOM_UTF16_LE + b"\x00\xd8"))  # a lone surrogate
    assert info.value.kind is RefusalKind.CORRUPT
