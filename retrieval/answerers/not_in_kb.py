"""A question about a company no document is about: said so, never answered from another company's report.

Why an answerer of its own: scope by subject (``retrieval.subjects``) leaves such a question with no
document in scope; retrieval over nothing would say "no hits", which reads as "the report does not
say", while the truth is that the knowledge base holds no report of that company at all. The answer
names the companies the knowledge base does hold reports of (a few), so the user can ask again.
"""

from __future__ import annotations

from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.messages import text as message

#: Companies named in the answer as "what the knowledge base holds".
KNOWN_SHOWN = 8


class NotInKnowledgeBase:
    """Answers when the question names only companies that no document is about."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        scope = ctx.scope
        if not scope.missing or scope.doc_ids or scope.method != "named":
            return None
        lines = [message("subject_missing", ctx.language, names=", ".join(scope.missing))]
        known = known_entities(ctx)
        if known:
            lines.append(message("subject_missing_known", ctx.language, known="; ".join(known)))
        metadata = {**ctx.meta, "scope": scope.to_json(ctx.catalog), "not_in_knowledge_base": list(scope.missing)}
        return ctx.reply("\n".join(lines), [], "rule", metadata=metadata)


def known_entities(ctx: QuestionContext) -> list[str]:
    names: list[str] = []
    for entry in ctx.catalog.values():
        subject = entry.profile.subject
        if subject is not None and subject.kind and subject.entity and subject.entity not in names:
            names.append(subject.entity)
    return sorted(names)[:KNOWN_SHOWN] + (["…"] if len(names) > KNOWN_SHOWN else [])


__all__ = ["NotInKnowledgeBase", "known_entities"]
