"""Build the legacy/open-format and mail test files under tests/data/formats/ (run by hand, output committed).

Why generated and not fetched: files taken from other projects' repositories cannot be
committed here, so every fixture is made from scratch. The source documents are written
with python-docx, openpyxl and python-pptx (English and Chinese content), then Debian's
LibreOffice converts them into the legacy and OpenDocument formats the product must read:

    docx -> .doc .odt .rtf        xlsx -> .xls .ods        pptx -> .ppt .odp

WPS Office twins are the same containers under WPS's suffixes (.wps = Word 97 binary,
.et = BIFF8 workbook, .dps = PowerPoint 97 binary; WPS also saves OOXML under them), so
they are copies with another name: the parser must route by content, not by suffix.
Password-protected files are saved through LibreOffice's UNO API with a password
(.doc, .xls, .odt; LibreOffice cannot write an encrypted .ppt, and no library here can).
Mail: .eml with the stdlib ``email`` package; .msg with msgforge (MIT, a pure-Python
Outlook message writer) -- both carrying office files as attachments. Damaged files are
truncated or garbled copies of good ones.

Needs (only to regenerate; the tests read the committed files):
    apt-get install -y libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno
    pip install msgforge
    python tests/data/formats/make_formats.py

LibreOffice stamps conversion times into the files, so a rerun changes bytes, not content.
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
import tempfile
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

OUT = Path(__file__).resolve().parent
PASSWORD = "secret"

EN_REPORT = {
    "title": "Quarterly Operations Report",
    "intro": "Prepared by the logistics office for the board meeting in Porto.",
    "summary": "The Lisbon warehouse shipped 4,210 pallets in the third quarter, a record for the site.",
    "bullets": ["Night shifts were added in August.", "Two forklifts were replaced."],
    "table": [
        ["Region", "Revenue (EUR)", "Growth"],
        ["North", "1,250,000", "4.5%"],
        ["South", "980,500", "-1.2%"],
        ["Islands", "310,200", "12.0%"],
    ],
    "closing": "Figures are unaudited and rounded to the nearest euro.",
}

ZH_CONTRACT = {
    "title": "设备采购合同",
    "chapter1": "第一章 总则",
    "clause1": "本合同由甲方华东机械有限公司与乙方远航物流有限公司签订，约定设备采购事项。",
    "chapter2": "第二章 违约责任",
    "clause2": "乙方逾期交付货物的，应当按日支付合同金额千分之三的违约金。",
    "table": [
        ["项目", "金额（元）", "备注"],
        ["数控机床", "1,200,000", "含安装调试"],
        ["备品备件", "85,000", "两年用量"],
    ],
    "closing": "本合同一式两份，甲乙双方各执一份。",
}


def _fill_table(document: object, rows: list[list[str]]) -> None:
    table = document.add_table(rows=len(rows), cols=len(rows[0]))
    table.style = "Table Grid"
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value


def make_docx(folder: Path) -> dict[str, Path]:
    import docx

    out: dict[str, Path] = {}
    d = docx.Document()
    d.core_properties.title = EN_REPORT["title"]
    d.add_heading(EN_REPORT["title"], level=1)
    d.add_paragraph(EN_REPORT["intro"])
    d.add_heading("Summary", level=2)
    d.add_paragraph(EN_REPORT["summary"])
    for item in EN_REPORT["bullets"]:
        d.add_paragraph(item, style="List Bullet")
    d.add_heading("Regional figures", level=2)
    _fill_table(d, EN_REPORT["table"])
    d.add_paragraph(EN_REPORT["closing"])
    out["en_quarterly_report"] = folder / "en_quarterly_report.docx"
    d.save(out["en_quarterly_report"])

    z = docx.Document()
    z.core_properties.title = ZH_CONTRACT["title"]
    z.add_heading(ZH_CONTRACT["title"], level=1)
    z.add_heading(ZH_CONTRACT["chapter1"], level=2)
    z.add_paragraph(ZH_CONTRACT["clause1"])
    z.add_heading(ZH_CONTRACT["chapter2"], level=2)
    z.add_paragraph(ZH_CONTRACT["clause2"])
    _fill_table(z, ZH_CONTRACT["table"])
    z.add_paragraph(ZH_CONTRACT["closing"])
    out["zh_purchase_contract"] = folder / "zh_purchase_contract.docx"
    z.save(out["zh_purchase_contract"])
    return out


def make_xlsx(folder: Path) -> dict[str, Path]:
    import openpyxl

    out: dict[str, Path] = {}
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales 2023"
    for row in [["Region", "Q1", "Q2", "Q3"], ["North", 120, 135, 150], ["South", 98, 101, 97]]:
        ws.append(row)
    staff = wb.create_sheet("Staff")
    staff.append(["Name", "Department", "Extension"])
    staff.append(["Alice Moreau", "Finance", 2041])
    staff.append(["Bob Tanaka", "Logistics", 2077])
    out["en_sales_workbook"] = folder / "en_sales_workbook.xlsx"
    wb.save(out["en_sales_workbook"])

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "预算表"
    for row in [["部门", "预算（万元）", "负责人"], ["研发中心", 350, "张伟"], ["市场部", 120, "李娜"]]:
        ws.append(row)
    people = wb.create_sheet("人员名单")
    people.append(["姓名", "岗位", "入职日期"])
    people.append(["王芳", "会计", dt.date(2021, 3, 15)])
    people.append(["赵磊", "工程师", dt.date(2019, 7, 1)])
    for cell in people["C"][1:]:
        cell.number_format = "yyyy-mm-dd"
    out["zh_budget_workbook"] = folder / "zh_budget_workbook.xlsx"
    wb.save(out["zh_budget_workbook"])
    return out


def _deck(path: Path, slides: list[dict]) -> None:
    import pptx
    from pptx.util import Inches

    prs = pptx.Presentation()
    for spec in slides:
        if "subtitle" in spec:
            slide = prs.slides.add_slide(prs.slide_layouts[0])
            slide.shapes.title.text = spec["title"]
            slide.placeholders[1].text = spec["subtitle"]
        elif "bullets" in spec:
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            slide.shapes.title.text = spec["title"]
            body = slide.placeholders[1].text_frame
            body.text = spec["bullets"][0]
            for item in spec["bullets"][1:]:
                body.add_paragraph().text = item
        else:
            slide = prs.slides.add_slide(prs.slide_layouts[5])
            slide.shapes.title.text = spec["title"]
            rows = spec["table"]
            shape = slide.shapes.add_table(len(rows), len(rows[0]), Inches(1), Inches(2), Inches(6), Inches(1.5))
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    shape.table.cell(r, c).text = value
        if "notes" in spec:
            slide.notes_slide.notes_text_frame.text = spec["notes"]
    prs.save(path)


def make_pptx(folder: Path) -> dict[str, Path]:
    out = {"en_project_deck": folder / "en_project_deck.pptx", "zh_work_summary": folder / "zh_work_summary.pptx"}
    _deck(
        out["en_project_deck"],
        [
            {"title": "Project Falcon Kickoff", "subtitle": "Engineering all-hands, 12 March"},
            {
                "title": "Milestones",
                "bullets": ["Prototype ready by May", "Field trials in Norway"],
                "notes": "Remind the team about the Oslo visit.",
            },
            {"title": "Budget overview", "table": [["Item", "Cost"], ["Sensors", "42,000"], ["Travel", "8,500"]]},
        ],
    )
    _deck(
        out["zh_work_summary"],
        [
            {"title": "年度工作总结", "subtitle": "行政部 二〇二四年"},
            {
                "title": "重点任务",
                "bullets": ["完成办公楼节能改造", "推进无纸化办公"],
                "notes": "会后分发节能改造方案。",
            },
            {"title": "费用统计", "table": [["类别", "金额"], ["差旅", "12,000"], ["培训", "8,000"]]},
        ],
    )
    return out


_NO_THUMBNAIL = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema">
<item oor:path="/org.openoffice.Office.Common/Save/Document">\
<prop oor:name="GenerateThumbnail" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"""


def lo_profile() -> Path:
    """A fresh LibreOffice profile that writes no preview thumbnail (it would make each .ppt 600 KB)."""
    profile = Path(tempfile.mkdtemp(prefix="lo-profile-"))
    (profile / "user").mkdir()
    (profile / "user" / "registrymodifications.xcu").write_text(_NO_THUMBNAIL, encoding="utf-8")
    return profile


def soffice(source: Path, target_format: str, out_dir: Path) -> Path:
    """Convert with LibreOffice (headless); return the written file."""
    profile = lo_profile()
    try:
        subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation=file://{profile}",
                "--headless",
                "--convert-to",
                target_format,
                "--outdir",
                str(out_dir),
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=180,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    produced = out_dir / (source.stem + "." + target_format.split(":")[0])
    if not produced.is_file():
        raise SystemExit(f"LibreOffice did not write {produced}")
    return produced


_UNO_SAVE = r"""
import sys, time, subprocess, uno
from com.sun.star.beans import PropertyValue

def prop(name, value):
    p = PropertyValue(); p.Name = name; p.Value = value; return p

source, target, filter_name, password, profile = sys.argv[1:6]
office = subprocess.Popen(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                           "--accept=socket,host=127.0.0.1,port=2089;urp;"])
try:
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(120):
        try:
            ctx = resolver.resolve("uno:socket,host=127.0.0.1,port=2089;urp;StarOffice.ComponentContext")
            break
        except Exception:
            time.sleep(0.5)
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(source), "_blank", 0, (prop("Hidden", True),))
    doc.storeToURL(uno.systemPathToFileUrl(target), (prop("FilterName", filter_name), prop("Password", password)))
    doc.close(True)
    try:
        desktop.terminate()
    except Exception:
        pass
finally:
    office.wait(timeout=60) if office.poll() is None else None
"""


def save_with_password(source: Path, target: Path, filter_name: str) -> None:
    """Save ``source`` as ``target`` through UNO with PASSWORD (LibreOffice encrypts .doc, .xls and ODF)."""
    profile = lo_profile()
    try:
        subprocess.run(
            ["/usr/bin/python3", "-c", _UNO_SAVE, str(source), str(target), filter_name, PASSWORD, str(profile)],
            check=True,
            timeout=300,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def make_emails() -> None:
    """Two .eml files: English plain text with office attachments, Chinese HTML (GB18030) with more."""
    msg = EmailMessage()
    msg["From"] = "Maria Santos <maria.santos@example.com>"
    msg["To"] = "Board <board@example.com>, Luis Ferreira <luis.ferreira@example.com>"
    msg["Cc"] = "archive@example.com"
    msg["Subject"] = "Q3 operations report and sales workbook"
    msg["Date"] = format_datetime(dt.datetime(2023, 10, 6, 9, 30, tzinfo=dt.UTC))
    msg["Message-ID"] = make_msgid(domain="example.com")
    msg.set_content(
        "Dear board members,\n\n"
        "Attached are the quarterly operations report and the sales workbook.\n"
        "The pallet count for Lisbon is the headline figure this quarter.\n\n"
        "Kind regards,\nMaria\n"
    )
    msg.add_attachment(
        (OUT / "en_quarterly_report.doc").read_bytes(),
        maintype="application",
        subtype="msword",
        filename="en_quarterly_report.doc",
    )
    msg.add_attachment(
        (OUT / "en_sales_workbook.xls").read_bytes(),
        maintype="application",
        subtype="vnd.ms-excel",
        filename="en_sales_workbook.xls",
    )
    (OUT / "en_report_mail.eml").write_bytes(bytes(msg))

    msg = EmailMessage()
    msg["From"] = "张伟 <zhang.wei@example.cn>"
    msg["To"] = "李娜 <li.na@example.cn>"
    msg["Subject"] = "设备采购合同及预算表（请审阅）"
    msg["Date"] = format_datetime(dt.datetime(2024, 1, 15, 14, 5, tzinfo=dt.timezone(dt.timedelta(hours=8))))
    msg["Message-ID"] = make_msgid(domain="example.cn")
    msg.set_content("李娜：\n\n附件为设备采购合同和二〇二四年预算表，请于周五前审阅。\n\n张伟\n", charset="gb18030")
    msg.add_alternative(
        "<html><body><p>李娜：</p><p>附件为设备采购合同和二〇二四年预算表，请于周五前审阅。</p>"
        "<table><tr><th>文件</th><th>说明</th></tr><tr><td>采购合同</td><td>需法务会签</td></tr></table>"
        "<p>张伟</p></body></html>",
        subtype="html",
        charset="gb18030",
    )
    msg.add_attachment(
        (OUT / "zh_purchase_contract.docx").read_bytes(),
        maintype="application",
        subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
        filename="采购合同.docx",
    )
    msg.add_attachment(
        (OUT / "zh_budget_workbook.ods").read_bytes(),
        maintype="application",
        subtype="vnd.oasis.opendocument.spreadsheet",
        filename="预算表.ods",
    )
    msg.add_attachment(
        b"PK\x03\x04 this attachment is damaged on purpose",
        maintype="application",
        subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
        filename="损坏的附件.docx",
    )
    (OUT / "zh_contract_mail.eml").write_bytes(bytes(msg))


def make_msgs() -> None:
    """Two .msg files written by msgforge: English HTML with a .ppt attachment, Chinese plain text with two."""
    from msgforge import Message

    en = Message(
        subject="Falcon kickoff slides",
        sender=("peter.lind@example.com", "Peter Lind"),
        to=[("team@example.com", "Falcon Team")],
        cc=[("pmo@example.com", "PMO")],
        html_body="<p>Hello team,</p><p>The kickoff slides are attached. Field trials start in Norway.</p>",
        sent=dt.datetime(2024, 3, 11, 16, 0, tzinfo=dt.UTC),
    )
    en.attach(OUT / "en_project_deck.ppt")
    en.save(OUT / "en_kickoff_mail.msg")

    zh = Message(
        subject="年度工作总结材料",
        sender=("wang.fang@example.cn", "王芳"),
        to=[("zhao.lei@example.cn", "赵磊")],
        text_body="赵磊：\n\n年度工作总结的幻灯片和采购合同见附件，节能改造的预算另行通知。\n\n王芳\n",
        sent=dt.datetime(2024, 12, 20, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=8))),
    )
    zh.attach(OUT / "zh_work_summary.odp")
    zh.attach(OUT / "zh_purchase_contract.doc")
    zh.save(OUT / "zh_summary_mail.msg")


def damage() -> None:
    """One damaged file per family, named EDGE_damaged_* (refused as corrupt by the parsers)."""
    for source, name in [
        ("en_quarterly_report.doc", "EDGE_damaged_truncated.doc"),
        ("en_sales_workbook.xls", "EDGE_damaged_truncated.xls"),
        ("en_project_deck.ppt", "EDGE_damaged_truncated.ppt"),
        ("en_quarterly_report.odt", "EDGE_damaged_truncated.odt"),
        ("en_sales_workbook.ods", "EDGE_damaged_truncated.ods"),
        ("en_project_deck.odp", "EDGE_damaged_truncated.odp"),
        ("en_kickoff_mail.msg", "EDGE_damaged_truncated.msg"),
    ]:
        data = (OUT / source).read_bytes()
        (OUT / name).write_bytes(data[: len(data) // 3])
    (OUT / "EDGE_damaged_binary.rtf").write_bytes(bytes(range(256)) * 8)
    (OUT / "EDGE_damaged_binary.eml").write_bytes(b"\x00\x01\x02\xff" * 512)


def main() -> None:
    if shutil.which("soffice") is None:
        raise SystemExit("LibreOffice (soffice) is needed: apt-get install libreoffice-writer-nogui ...")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        docs = {**make_docx(work), **make_xlsx(work), **make_pptx(work)}
        # The OOXML sources are committed too: the LlamaIndex reader test and the mail attachments use them.
        for path in docs.values():
            shutil.copy(path, OUT / path.name)
        for stem in ("en_quarterly_report", "zh_purchase_contract"):
            for fmt in ("doc", "odt", "rtf"):
                soffice(docs[stem], fmt, OUT)
        for stem in ("en_sales_workbook", "zh_budget_workbook"):
            for fmt in ("xls", "ods"):
                soffice(docs[stem], fmt, OUT)
        for stem in ("en_project_deck", "zh_work_summary"):
            for fmt in ("ppt", "odp"):
                soffice(docs[stem], fmt, OUT)
        # WPS Office twins: same containers, WPS suffixes; plus a WPS-saved OOXML under .wps.
        shutil.copy(OUT / "zh_purchase_contract.doc", OUT / "zh_purchase_contract.wps")
        shutil.copy(OUT / "zh_budget_workbook.xls", OUT / "zh_budget_workbook.et")
        shutil.copy(OUT / "zh_work_summary.ppt", OUT / "zh_work_summary.dps")
        shutil.copy(docs["en_quarterly_report"], OUT / "en_quarterly_report_ooxml.wps")
        save_with_password(docs["en_quarterly_report"], OUT / "EDGE_encrypted_secret.doc", "MS Word 97")
        save_with_password(docs["en_sales_workbook"], OUT / "EDGE_encrypted_secret.xls", "MS Excel 97")
        save_with_password(docs["en_quarterly_report"], OUT / "EDGE_encrypted_secret.odt", "writer8")
    make_emails()
    make_msgs()
    damage()
    for path in sorted(OUT.iterdir()):
        if path.suffix != ".py":
            print(f"{path.stat().st_size:>8}  {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
