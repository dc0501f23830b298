"""A document's outline: its headings with level and page, in order."""

from __future__ import annotations

from officeqa.domain import BlockType, ParsedDocument
from retrieval.handlers.results import Citation, HandlerItem, HandlerResult


def outline(documents: list[ParsedDocument]) -> HandlerResult:
    items: list[HandlerItem] = []
    lines: list[str] = []
    for doc in documents:
        headings = [(i, b) for i, b in enumerate(doc.blocks) if b.type is BlockType.HEADING and b.text.strip()]
        if len(documents) > 1:
            lines.append(f"{doc.title or doc.path}:")
        for index, block in headings:
            level = block.level or 1
            where = Citation(file=doc.path, page=block.page, sheet=block.sheet, slide=block.slide, block=index)
            items.append(HandlerItem(value=block.text.strip(), normalized={"level": level}, kind="heading",
                                     citations=[where]))
            page = f" (p.{block.page})" if block.page is not None else ""
            lines.append("  " * (level - 1) + f"- {block.text.strip()}{page}")
    if not items:
        return HandlerResult(route="outline", answer_text="文档中没有识别到标题。")
    return HandlerResult(route="outline", answer_text="\n".join(lines), items=items)
