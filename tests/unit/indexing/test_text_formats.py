"""txt, md, html and csv parsing through parse_file: small files written here, plus shared corpus files."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from indexing.parsing import parse_file
from indexing.parsing.csv import sniff_delimiter
from officeqa.domain import Block, BlockType
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings


def _write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def _of(blocks: list[Block], kind: BlockType) -> list[Block]:
    return [b for b in blocks if b.type is kind]


# --- txt -----------------------------------------------------------------------------------------


def test_txt_paragraphs_headings_and_lists(tmp_path: Path) -> None:
    text = (
        "# 采购管理办法\n\n"
        "第一章 总则\n"
        "为规范公司采购行为，降低采购成本，\n提高资金使用效益，制定本办法。\n\n"
        "一、适用范围\n"
        "本办法适用于公司各部门。\n\n"
        "采购方式包括：\n"
        "- 公开招标\n"
        "- 询价采购\n\n"
        "1. 提出申请\n2. 审批\n（1）部门经理审批\n"
    )
    doc = parse_file(_write(tmp_path, "rules.txt", text))
    headings = [(b.level, b.text) for b in _of(doc.blocks, BlockType.HEADING)]
    assert headings == [(1, "采购管理办法"), (1, "第一章 总则"), (2, "一、适用范围")]
    paragraphs = [b.text for b in _of(doc.blocks, BlockType.PARAGRAPH)]
    assert "为规范公司采购行为，降低采购成本，提高资金使用效益，制定本办法。" in paragraphs
    lists = [b.items for b in _of(doc.blocks, BlockType.LIST)]
    assert ["- 公开招标", "- 询价采购"] in lists
    assert ["1. 提出申请", "2. 审批", "（1）部门经理审批"] in lists
    assert doc.title == "采购管理办法"


def test_txt_clause_numbers_open_sections(tmp_path: Path) -> None:
    text = "第十条 甲方应当在收到发票后三日内付款。\n第十一条 乙方逾期交货的，应当支付违约金。\n"
    doc = parse_file(_write(tmp_path, "contract.txt", text))
    assert [(b.type.value, b.text) for b in doc.blocks] == [
        ("heading", "第十条"),
        ("paragraph", "第十条 甲方应当在收到发票后三日内付款。"),
        ("heading", "第十一条"),
        ("paragraph", "第十一条 乙方逾期交货的，应当支付违约金。"),
    ]


def test_txt_in_gbk_with_fullwidth_characters(tmp_path: Path) -> None:
    text = (
        "关于２０２４年度预算执行情况的报告\n\n"
        "本年度预算收入为１２３４．５万元，完成率为９８％，比上年增长１０％。各部门应当严格按照预算"
        "执行，不得超支，确有需要追加预算的，应当按照规定程序报批。\n"
    ) * 3
    doc = parse_file(_write(tmp_path, "budget.txt", text, "gbk"))
    assert "本年度预算收入为1234.5万元，完成率为98%，比上年增长10%。" in doc.blocks[1].text


def test_txt_that_is_only_whitespace_is_refused_as_empty(tmp_path: Path) -> None:
    with pytest.raises(UnreadableDocument) as info:
        parse_file(_write(tmp_path, "blank.txt", " \n\u3000\n\t\n"))
    assert info.value.kind is RefusalKind.EMPTY


def test_wrapped_numbers_do_not_start_lists(tmp_path: Path) -> None:
    text = (
        "He joined the club as a trainee and signed his first professional contract in July 1986, aged\n"
        "18.[5] He scored on his debut against Manchester United in front of a crowd of twenty thousand\n"
        "people at Vicarage Road.\n"
    )
    doc = parse_file(_write(tmp_path, "bio.txt", text))
    assert [b.type for b in doc.blocks] == [BlockType.PARAGRAPH]
    assert "aged 18.[5] He scored" in doc.blocks[0].text


# --- markdown ------------------------------------------------------------------------------------


def test_markdown_code_tables_lists_and_images(tmp_path: Path) -> None:
    text = (
        "# 部署指南\n\n"
        "安装前请阅读以下说明。\n\n"
        "```bash\npip install officeqa  # ＡＢＣ stays\n\n\n\necho done\n```\n\n"
        "| 参数 | 默认值 |\n|---|---|\n| port | 8000 |\n| workers | 2 |\n\n"
        "![架构图](img/arch.png)\n\n"
        "![](img/decoration.png)\n\n"
        "1. 下载\n2. 安装\n"
    )
    doc = parse_file(_write(tmp_path, "guide.md", text))
    [code] = _of(doc.blocks, BlockType.CODE)
    assert code.text == "pip install officeqa  # ＡＢＣ stays\n\n\n\necho done"
    assert code.meta["language"] == "bash"
    [table] = _of(doc.blocks, BlockType.TABLE)
    assert table.header == ["参数", "默认值"]
    assert table.rows == [["port", "8000"], ["workers", "2"]]
    [image] = _of(doc.blocks, BlockType.IMAGE)
    assert image.text == "[image: 架构图]"
    assert _of(doc.blocks, BlockType.LIST)[0].items == ["1. 下载", "2. 安装"]
    assert doc.title == "部署指南"


def test_markdown_front_matter_is_skipped(tmp_path: Path) -> None:
    doc = parse_file(
        _write(tmp_path, "fm.md", "---\ntitle: 报销制度\ntags: [财务]\n---\n\n正文第一段。\n\n---\n\n第二段。\n")
    )
    assert [(b.type, b.text) for b in doc.blocks] == [
        (BlockType.PARAGRAPH, "正文第一段。"),
        (BlockType.PARAGRAPH, "第二段。"),
    ]


def test_markdown_outline_lists_become_headings(tmp_path: Path) -> None:
    text = "# 原理\n- 数据并行\n    - FSDP\n        - FSDP将模型分片。\n        - 降低峰值内存。\n- 模型并行\n"
    doc = parse_file(_write(tmp_path, "mind.md", text))
    assert [(b.type.value, b.level, b.text) for b in doc.blocks] == [
        ("heading", 1, "原理"),
        ("heading", 2, "数据并行"),
        ("heading", 3, "FSDP"),
        ("list", None, "FSDP将模型分片。\n降低峰值内存。"),
        ("list", None, "模型并行"),
    ]


# --- html ----------------------------------------------------------------------------------------


def test_html_structure_boilerplate_and_colspan_rowspan(tmp_path: Path) -> None:
    html = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>季度报告</title>
    <style>p { color: red }</style><script>var secret = "不应出现";</script></head>
    <body><nav><a href="/">首页</a></nav>
    <h1>季度报告</h1><p>本季度营收<b>增长</b>了百分之十。<br>利润持平。</p>
    <ul><li>华东区</li><li>华南区<ul><li>广州</li></ul></li></ul>
    <pre>  indented   code
line2</pre>
    <table><caption>分区业绩</caption>
      <tr><th rowspan="2">地区</th><th colspan="2">营收（万元）</th></tr>
      <tr><th>一季度</th><th>二季度</th></tr>
      <tr><td>华东</td><td>120</td><td>150</td></tr>
      <tr><td colspan="2">合计</td><td>150</td></tr>
    </table>
    <footer>版权所有</footer></body></html>"""
    doc = parse_file(_write(tmp_path, "report.html", html))
    text = "\n".join(b.text for b in doc.blocks)
    assert "不应出现" not in text and "首页" not in text and "版权所有" not in text and "color" not in text
    assert doc.title == "季度报告"
    assert _of(doc.blocks, BlockType.HEADING)[0].text == "季度报告"
    assert "本季度营收增长了百分之十。\n利润持平。" in [b.text for b in _of(doc.blocks, BlockType.PARAGRAPH)]
    assert _of(doc.blocks, BlockType.LIST)[0].items == ["华东区", "华南区", "广州"]
    assert _of(doc.blocks, BlockType.CODE)[0].text == "  indented   code\nline2"
    [table] = _of(doc.blocks, BlockType.TABLE)
    assert table.header_rows == [["地区", "营收（万元）", "营收（万元）"], ["地区", "一季度", "二季度"]]
    assert table.header == ["地区", "营收（万元） / 一季度", "营收（万元） / 二季度"]
    assert table.rows == [["华东", "120", "150"], ["合计", "合计", "150"]]
    assert table.caption == "分区业绩"


def test_html_and_markdown_paragraphs_worded_as_headings_are_promoted(tmp_path: Path) -> None:
    html = parse_file(_write(tmp_path, "p.html", "<p>第一章 总则</p><p>本办法适用于全公司。</p>"))
    md = parse_file(_write(tmp_path, "p.md", "第三条 违约责任\n\n乙方应当支付违约金。\n"))
    for doc, heading in ((html, "第一章 总则"), (md, "第三条 违约责任")):
        assert (doc.blocks[0].type, doc.blocks[0].text) == (BlockType.HEADING, heading)
        assert doc.blocks[1].type is BlockType.PARAGRAPH


def test_html_table_without_th_uses_first_row_as_header(tmp_path: Path) -> None:
    html = "<table><tr><td>姓名</td><td>部门</td></tr><tr><td>张三</td><td>财务部</td></tr></table>"
    [table] = parse_file(_write(tmp_path, "t.html", html)).blocks
    assert (table.header, table.rows) == (["姓名", "部门"], [["张三", "财务部"]])


def test_html_meta_charset_is_honoured(tmp_path: Path) -> None:
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head>'
        "<body><p>通知</p></body></html>"
    )
    doc = parse_file(_write(tmp_path, "n.html", html, "gb2312"))
    assert doc.blocks[0].text == "通知"


# --- csv -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", [";", "\t", "|", ","])
def test_csv_delimiter_sniffing(tmp_path: Path, delimiter: str) -> None:
    rows = [["名称", "单价, 元", "备注"], ["打印纸", "25,5", "A4; 70g"], ["墨盒", "180", "黑色"], ["订书机", "35", "-"]]
    text = "\n".join(delimiter.join(f'"{c}"' if delimiter in c else c for c in row) for row in rows) + "\n"
    assert sniff_delimiter(text) == delimiter
    [table] = parse_file(_write(tmp_path, "items.csv", text)).blocks
    assert table.header == rows[0]
    assert table.rows == rows[1:]


def test_csv_multiline_quoted_cells_and_utf16(tmp_path: Path) -> None:
    text = 'id,title,detail\r\n1,安装失败,"第一行说明\r\n第二行说明"\r\n2,"含有,逗号",正常\r\n'
    path = tmp_path / "issues.csv"
    path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    [table] = parse_file(path).blocks
    assert table.header == ["id", "title", "detail"]
    assert table.rows == [["1", "安装失败", "第一行说明第二行说明"], ["2", "含有,逗号", "正常"]]


def test_csv_title_row_becomes_caption_and_index_column_is_dropped(tmp_path: Path) -> None:
    text = "销售明细,,\n,产品,数量\n0,笔,3\n1,本,5\n"
    [table] = parse_file(_write(tmp_path, "s.csv", text)).blocks
    assert table.caption == "销售明细"
    assert table.header == ["产品", "数量"]
    assert table.rows == [["笔", "3"], ["本", "5"]]


def test_csv_rows_are_capped_with_a_warning(tmp_path: Path) -> None:
    text = "序号,金额\n" + "".join(f"{i},{i * 10}\n" for i in range(1, 51))
    doc = parse_file(_write(tmp_path, "big.csv", text), settings=ParsingSettings(csv_max_rows=20))
    [table] = doc.blocks
    assert len(table.rows) == 20 and table.rows[-1] == ["20", "200"]
    assert "csv_max_rows" in doc.warnings[0]


# --- shared corpus -------------------------------------------------------------------------------


def test_corpus_gb2312_rss_txt_decodes_to_chinese(corpus_dir: Path) -> None:
    doc = parse_file(corpus_dir / "txt" / "EDGE_zh_gb2312_cnblog.txt")
    text = "\n".join(b.text for b in doc.blocks)
    assert "出版商oreilly推出了开放图书项目" in text
    assert "PicoBlogger也支持在blog内容中插入图像和影像" in text
    assert "<item>" not in text and "CDATA" not in text


@pytest.mark.parametrize("name", ["EDGE_empty.txt", "EDGE_all-whitespace.txt"])
def test_corpus_empty_txt_is_refused(corpus_dir: Path, name: str) -> None:
    with pytest.raises(UnreadableDocument) as info:
        parse_file(corpus_dir / "txt" / name)
    assert info.value.kind is RefusalKind.EMPTY


def test_corpus_txt_utf8_files(corpus_dir: Path) -> None:
    zh = parse_file(corpus_dir / "txt" / "zh_test.txt")
    assert (2, "介绍") in [(b.level, b.text) for b in _of(zh.blocks, BlockType.HEADING)]
    en = parse_file(corpus_dir / "txt" / "en_norwich-city.txt")
    text = "\n".join(b.text for b in en.blocks)
    assert "1986–1990 Watford 63 (9)" in text  # mojibake repaired
    assert "almost half of which were for Norwich, where he overcame" in text  # wrapped line joined


def test_corpus_cp1252_html(corpus_dir: Path) -> None:
    doc = parse_file(corpus_dir / "html" / "EDGE_cp1252.html")
    text = "\n".join(b.text for b in doc.blocks)
    assert "Der Preis betrug 15,50 €." in text and "köstlich" in text and "El niño comió paella" in text
    assert _of(doc.blocks, BlockType.HEADING)[0].text == "My First Heading"


def test_corpus_gb2312_html_fragment_without_declaration(corpus_dir: Path) -> None:
    doc = parse_file(corpus_dir / "html" / "EDGE_zh_gb2312_fragment.html")
    texts = [b.text for b in doc.blocks]
    assert "搜狐在线国庆免费大酬宾" in texts
    assert "拨95933上网魔力宝贝免费玩" in texts


def test_corpus_chinese_wikipedia_page(corpus_dir: Path) -> None:
    doc = parse_file(corpus_dir / "html" / "zh_静静的顿河-wiki.html")
    headings = [b.text for b in _of(doc.blocks, BlockType.HEADING)]
    assert headings[0] == "静静的顿河"
    assert "小说的创作和刊登" in headings and "主要人物" in headings
    text = "\n".join(b.text for b in doc.blocks)
    assert "苏联作家肖洛霍夫的代表作" in text
    assert "切换目录" not in text and "Башҡортса" not in text  # navigation chrome removed


def test_corpus_10k_html_tables(corpus_dir: Path) -> None:
    doc = parse_file(corpus_dir / "html" / "en_example-10k-1p.html")
    text = "\n".join(b.text for b in doc.blocks)
    assert "Galaxy Gaming, Inc." in text
    assert any(
        b.header == ["Title of each class", "Trading symbol", "Name of exchange on which registered"]
        for b in _of(doc.blocks, BlockType.TABLE)
    )


def test_corpus_csv_files(corpus_dir: Path) -> None:
    semi = parse_file(corpus_dir / "csv" / "EDGE_semicolon-delimited.csv").blocks[0]
    assert semi.meta["delimiter"] == ";"
    assert semi.header == ["Lorem, ipsum", "dolor sit", "amet"]
    assert semi.rows[-1] == ["Ut enim", "ad minim", "veniam, quis"]
    cups = parse_file(corpus_dir / "csv" / "EDGE_utf16-bom_stanley-cups.csv").blocks[0]
    assert cups.caption == "Stanley Cups"
    assert cups.header == ["Team", "Location", "Stanley Cups"]
    assert ["Maple Leafs", "TOR", "13"] in cups.rows
    zh = parse_file(corpus_dir / "csv" / "zh_langchain-ChatGLM_closed.csv").blocks[0]
    assert zh.header == ["title", "file", "url", "detail", "id"]
    assert zh.rows[0][0] == "加油~以及一些建议"
    assert len(zh.rows) == 172
    wide = parse_file(corpus_dir / "csv" / "en_csv-with-long-lines.csv").blocks[0]
    assert wide.header[:2] == ["SpearmanCorrelationCoefficient", "1Freq CD161CD8TfrequencyUnstim"]
    assert all(len(row) == len(wide.header) for row in wide.rows)


def test_corpus_markdown_files(corpus_dir: Path) -> None:
    code = parse_file(corpus_dir / "md" / "en_codeblock.md")
    codes = _of(code.blocks, BlockType.CODE)
    assert [c.meta.get("language") for c in codes] == ["html", "xml", "xml"]
    assert "<h1>Hello, World!</h1>" in codes[0].text
    wiki = parse_file(corpus_dir / "md" / "en_wiki.md")
    assert [b.text for b in _of(wiki.blocks, BlockType.HEADING)][:3] == ["IBM", "1910s–1950s", "1960s–1980s"]
    zh = parse_file(corpus_dir / "md" / "zh_分布式训练技术原理.md")
    heads = [(b.level, b.text) for b in _of(zh.blocks, BlockType.HEADING)]
    assert heads[:3] == [(1, "分布式训练技术原理"), (2, "数据并行"), (3, "FSDP")]
    assert not any("img/" in b.text for b in zh.blocks)  # image-only list items dropped
