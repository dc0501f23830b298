""""知识库里有哪些文档？" / "which documents do you have?": answered from the catalog, not from retrieval.

The list names each indexed document by its path under the knowledge base's root, with its type,
and counts them by type. Only a question that asks for the list as a whole is answered here (the
whole question must match): "合同里有哪些条款" or "which documents mention VPN" go on down the table.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePath

from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.knowledge import knowledge_of

#: The whole question asks which (or how many) documents the knowledge base holds.
ASKS_FOR_THE_LIST = re.compile(
    r"^(?:请|请你)?(?:列出|列一下|告诉我)?(?:这个|你的|当前)?(?:知识库|系统|你这里|你|这里)?(?:里|中|内)?(?:都|一共|总共|共)?"
    r"(?:有|收录了|包含)(?:哪些|什么|多少|几个|几份)(?:个|份)?(?:文档|文件|资料)(?:呢|吗)?[？?。.！!\s]*$"
    r"|^(?:please\s+)?(?:(?:which|what)\s+(?:documents|files)\s+(?:do\s+you\s+have|are\s+(?:there|indexed|"
    r"available|in\s+(?:the|this|your)\s+knowledge\s+base))|list\s+(?:all\s+)?(?:the\s+|your\s+)?(?:documents|files)"
    r"|how\s+many\s+(?:documents|files)\s+(?:do\s+you\s+have|are\s+(?:there|indexed|in\s+(?:the|this|your)\s+"
    r"knowledge\s+base)))\s*[?.!]*$",
    re.IGNORECASE,
)
#: Documents listed one per line; the rest are counted.
MAX_LISTED = 200


class DocumentList:
    """The knowledge base's documents: count, types, and each one's path under the root."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        if knowledge is None or not ctx.catalog or not ASKS_FOR_THE_LIST.match(ctx.question.strip()):
            return None
        entries = sorted((knowledge.paths.shown(e.path), _kind(e.path)) for e in ctx.catalog.values())
        kinds = Counter(kind for _, kind in entries)
        zh = ctx.language == "zh"
        by_kind = ("、" if zh else ", ").join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
        head = (f"知识库中共有 {len(entries)} 个文档（{by_kind}）：" if zh
                else f"The knowledge base holds {len(entries)} document{'s' * (len(entries) != 1)} ({by_kind}):")
        lines = [head, *(f"- {path}（{kind}）" if zh else f"- {path} ({kind})" for path, kind in entries[:MAX_LISTED])]
        if len(entries) > MAX_LISTED:
            more = len(entries) - MAX_LISTED
            lines.append(f"……另有 {more} 个文档" if zh else f"… and {more} more")
        metadata = {**ctx.meta, "catalog": {"documents": len(entries), "types": dict(sorted(kinds.items()))}}
        return ctx.reply("\n".join(lines), [], "rule", metadata=metadata)


def _kind(path: str) -> str:
    return PurePath(path).suffix.lstrip(".").upper() or "?"


__all__ = ["ASKS_FOR_THE_LIST", "DocumentList"]
