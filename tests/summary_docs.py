"""A generated annual report (docx, real page breaks) for the summary-tree tests and benchmark.

Why generated: the tests need a long document whose heading tree is known exactly and whose
one section can be edited without touching the others. Every page's text is unique (chapter,
section and page numbers are in it, with figures and named items), so no two chunks repeat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

CHAPTER_NAMES = ["经营情况讨论与分析", "财务报告", "风险管理", "公司治理", "环境与社会责任", "重要事项",
                 "股份变动及股东情况", "发展战略", "人力资源", "内部控制"]
SECTION_NAMES = ["总体经营情况", "主要业务分析", "资产及负债状况", "投资状况分析", "重大风险提示", "未来展望"]
CN = "一二三四五六七八九十"


@dataclass
class Section:
    title: str
    pages: int


@dataclass
class Chapter:
    title: str
    intro_pages: int = 0
    sections: list[Section] = field(default_factory=list)


def outline_for(pages: int) -> list[Chapter]:
    """Chapters of 2-3 sections; the first chapter has an intro before its sections, the third chapter's
    first section is long (several leaves). About ``pages`` pages in all (each section 2-4 pages)."""
    chapters: list[Chapter] = []
    total = 0
    index = 0
    while total < pages:
        number = index + 1
        title = f"第{_cn(number)}章 {CHAPTER_NAMES[index % len(CHAPTER_NAMES)]}"
        chapter = Chapter(title=title, intro_pages=1 if index == 0 else 0)
        total += chapter.intro_pages
        for s in range(3 if index % 2 == 0 else 2):
            size = 8 if (index == 2 and s == 0) else 2 + (index + s) % 3
            size = max(1, min(size, pages - total))
            if size <= 0:
                break
            name = SECTION_NAMES[(index + s) % len(SECTION_NAMES)]
            chapter.sections.append(Section(title=f"第{_cn(s + 1)}节 {name}", pages=size))
            total += size
            if total >= pages:
                break
        chapters.append(chapter)
        index += 1
    return chapters


def _cn(n: int) -> str:
    if n <= 10:
        return CN[n - 1] if n < 10 else "十"
    return ("" if n < 20 else CN[n // 10 - 1]) + "十" + (CN[n % 10 - 1] if n % 10 else "")


def page_paragraphs(chapter: int, section: int, page: int, edit: str = "", density: int = 1) -> list[str]:
    """``density`` x three paragraphs (~330 characters each time) of one page: figures, named items, a conclusion."""
    paragraphs: list[str] = []
    for block in range(density):
        paragraphs.extend(_paragraphs(chapter, section, page, block))
    if edit:
        paragraphs.append(edit)
    return paragraphs


def _paragraphs(chapter: int, section: int, page: int, block: int) -> list[str]:
    revenue = 100 + chapter * 37 + section * 11 + page * 3 + block * 101
    growth = (chapter * 7 + section * 3 + page + block) % 19 + 1
    return [
        f"本页为第{chapter}章第{section}节第{page}页。报告期内，公司在该领域实现营业收入{revenue}.{page}亿元，"
        f"同比增长{growth}.{section}%，毛利率为{20 + growth}.{chapter}%，主要得益于《第{chapter}号业务规划》的落实。",
        f"华东区域的订单增长{growth + 2}%，子公司星辰科技有限公司完成第{page}期产能建设，累计投入{revenue * 2}万元；"
        f"管理层认为第{chapter}.{section}项工作已达到年度目标，但原材料价格波动仍需关注。",
        f"截至{2023}年末，相关资产余额为{revenue * 5}万元，应收账款周转天数为{30 + page}天。"
        f"下一阶段将继续推进数字化转型，并在第{section}季度前完成专项审计。",
    ]


def write_report(path: Path, pages: int = 40, edit: tuple[int, int, str] | None = None,
                 title: str = "星辰集团2023年年度报告", density: int = 1) -> list[Chapter]:
    """Write the report; ``edit`` = (chapter, section, text) appends a paragraph to each page of that section
    (1-based; section 0 = the chapter's intro); ``density`` multiplies the text per page. Returns the outline."""
    import docx

    chapters = outline_for(pages)
    document = docx.Document()
    document.add_heading(title, 0)
    page_no = 0
    headings: list[tuple[str, int]] = []  # opened on the next page, after its break

    def add_page(chapter_no: int, section_no: int, page: int) -> None:
        nonlocal page_no
        if page_no:
            document.add_page_break()
        for text, level in headings:
            document.add_heading(text, level)
        headings.clear()
        extra = edit[2] if edit is not None and (edit[0], edit[1]) == (chapter_no, section_no) else ""
        for text in page_paragraphs(chapter_no, section_no, page, extra, density):
            document.add_paragraph(text)
        page_no += 1

    for c, chapter in enumerate(chapters, start=1):
        headings.append((chapter.title, 1))
        for p in range(1, chapter.intro_pages + 1):
            add_page(c, 0, p)
        for s, section in enumerate(chapter.sections, start=1):
            headings.append((section.title, 2))
            for p in range(1, section.pages + 1):
                add_page(c, s, p)
    document.save(str(path))
    return chapters


__all__ = ["Chapter", "Section", "outline_for", "page_paragraphs", "write_report"]
