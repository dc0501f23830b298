"""A yes/no question with no model: "Yes" with the quoted evidence, or "Not found", never a list of sentences.

Why: "Did Brave Bison mention any acquisitions?", "年报中是否提到回购计划？" ask for a verdict. The
extractive answer quotes the best-matching sentences whatever they are; here the same sentences
decide: when they cover enough of the question's words (:data:`MIN_COVERAGE` of the extractive
answer's coverage) the answer is "Yes" followed by them, else "Not found", with the closest
passages shown as such. With a model the model answers (it reads the same materials).
"""

from __future__ import annotations

from retrieval.answerers.materials import materials
from retrieval.answering import Answer, NoModel, notice_for
from retrieval.context import QuestionContext
from retrieval.messages import text as message
from retrieval.question_kind import is_yes_no

#: Share of the question's content words the quoted sentences must cover for a "Yes".
MIN_COVERAGE = 0.6


class YesNo:
    """Yes with evidence, or not found, for a yes/no question when no model answers."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        if ctx.failure is None or not is_yes_no(ctx.standalone) or ctx.fallback is not None:
            return None
        found = materials(ctx)
        extractive = ctx.tools.extract(ctx, found) if found else None
        failure = ctx.failure or NoModel()
        notice = notice_for(failure.reason, ctx.language)
        if extractive is not None and extractive.found and extractive.coverage >= MIN_COVERAGE:
            verdict = "yes"
            text = "\n".join([message("yes_no_yes", ctx.language), _quotes(extractive.text)])
            citations = extractive.citations
        else:
            verdict = "not_found"
            text = message("yes_no_not_found", ctx.language)
            citations = []
        ctx.meta["yes_no"] = {
            "answer": verdict,
            "coverage": round(extractive.coverage, 3) if extractive is not None else 0.0,
            "min_coverage": MIN_COVERAGE,
        }
        return ctx.tools.finish(ctx, ctx.reply(text, citations, "extractive", notice))


def _quotes(text: str) -> str:
    """The extractive answer's quoted lines without its header line (the verdict replaces it)."""
    lines = text.splitlines()
    header = {message("extract_header", "zh"), message("extract_header", "en")}
    return "\n".join(line for line in lines if line.strip() not in header)


__all__ = ["MIN_COVERAGE", "YesNo"]
