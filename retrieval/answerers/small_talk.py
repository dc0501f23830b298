"""A greeting or thanks ("hi", "你好", "谢谢"): a short reply saying what the assistant can do, not quotes."""

from __future__ import annotations

from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.messages import text as message
from retrieval.small_talk import is_small_talk

#: The L0 route of a short greeting (``retrieval/rules/rules.yaml``, rule ``chitchat``).
CHITCHAT = "chitchat"


class SmallTalk:
    """Answers a message with no content words (``retrieval.small_talk``, or the L0 ``chitchat`` route)."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        if ctx.turns or not (is_small_talk(ctx.question) or ctx.route == CHITCHAT):
            return None  # in a conversation, "好的" may be a follow-up the rewrite has already resolved
        return ctx.reply(message("small_talk", ctx.language), [], "extractive",
                         metadata={**ctx.meta, "scope": {"method": "none"}, "small_talk": True})


__all__ = ["CHITCHAT", "SmallTalk"]
