"""A yes/no question with no model: "Yes" with the quoted evidence, or "Not found", never a list of sentences.

Why: "Did Brave Bison mention any acquisitions?", "年报中是否提到回购计划？" ask for a verdict. The
extractive answer quotes the best-matching sentences whatever they are; here the same sentences
decide: when they hold enough of the question's *topic* words (:data:`MIN_COVERAGE`; the words that
named the company or document, "annual report", "mention", "did" are no topic) the answer is "Yes"
followed by them; when no passage answers, "Not found"; when passages answer part of the topic, the
extractive answerer quotes them (a wrong "Not found" is worse than quotes the reader judges). With a
model the model answers (it reads the same materials).
"""

from __future__ import annotations

from dataclasses import replace

from retrieval.answer_texts import naming_words, strip_names
from retrieval.answerers.materials import materials
from retrieval.answering import Answer, NoModel, notice_for
from retrieval.context import QuestionContext
from retrieval.followup import Rewrite
from retrieval.messages import text as message
from retrieval.question_kind import is_yes_no

#: Share of the question's content words the quoted sentences must cover for a "Yes".
MIN_COVERAGE = 0.6


class YesNo:
    """Yes with evidence, or not found, for a yes/no question when no model answers."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        if ctx.failure is None or not is_yes_no(ctx.standalone) or ctx.fallback is not None:
            return None
        topic = topic_question(ctx)
        if ctx.hits is None and topic and ctx.scope.restricts:
            # inside the named documents the topic alone finds the passages ("mergers acquisitions"); the
            # company's name would rank every passage that names it
            ctx.hits = list(ctx.tools.retrieve(ctx, topic, ctx.tools.settings.retrieval.top_k))
            ctx.meta["retrieval"] = {"hits": len(ctx.hits), "query": topic}
        found = materials(ctx)
        # the sentences are chosen by the topic alone: "mention", "annual report" and the company's name
        # would pick sentences that only name the company
        topical = replace(ctx, rewrite=Rewrite(ctx.rewrite.original, topic or ctx.standalone, "yes_no"))
        extractive = ctx.tools.extract(topical, found) if found else None
        failure = ctx.failure or NoModel()
        notice = notice_for(failure.reason, ctx.language)
        coverage = topic_coverage(ctx, extractive.sentences) if extractive is not None and extractive.found else 0.0
        if extractive is not None and extractive.found and coverage < MIN_COVERAGE:
            # passages answer part of the topic ("坐飞机" / "乘坐飞机"): neither "Yes" nor "Not found" is sure, so
            # the extractive answerer quotes them and the reader judges
            ctx.meta["yes_no"] = {"answer": "undecided", "coverage": round(coverage, 3), "min_coverage": MIN_COVERAGE}
            return None
        if extractive is not None and coverage >= MIN_COVERAGE:
            verdict = "yes"
            text = "\n".join([message("yes_no_yes", ctx.language), _quotes(extractive.text)])
            citations = extractive.citations
        else:
            verdict = "not_found"
            text = message("yes_no_not_found", ctx.language)
            citations = []
        ctx.meta["yes_no"] = {
            "answer": verdict,
            "coverage": round(coverage, 3),
            "min_coverage": MIN_COVERAGE,
        }
        return ctx.tools.finish(ctx, ctx.reply(text, citations, "extractive", notice))


#: Words of a yes/no question that carry no topic.
_NO_TOPIC = frozenset(
    [
        "did",
        "does",
        "do",
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "any",
        "the",
        "a",
        "an",
        "in",
        "on",
        "of",
        "its",
        "their",
        "his",
        "her",
        "this",
        "that",
        "these",
        "those",
        "mention",
        "mentioned",
        "mentions",
        "announce",
        "announced",
        "announces",
        "report",
        "reports",
        "annual",
        "document",
        "documents",
        "company",
        "there",
        "be",
        "been",
        "by",
        "for",
        "to",
        "with",
        "from",
        "year",
        "during",
        # how the question asks, not what: "outline any new ESG initiatives", "detail any restructuring plans in the
        # latest filing" (ERC round 2, issue 36: the ESG question's evidence was left undecided for "outline", "new")
        "outline",
        "outlined",
        "outlines",
        "detail",
        "details",
        "detailed",
        "new",
        "latest",
        "filing",
        "是否",
        "提到",
        "提及",
        "有没有",
        "有无",
        "年报",
        "报告",
        "年度",
        "中",
        "了",
        "吗",
        "公司",
        "文档",
    ]
)
_STEM = 5  # Latin words compared by their first characters ("acquisitions" ~ "acquisition")


def topic_question(ctx: QuestionContext) -> str:
    """The question's topic words ("mergers acquisitions"): names of the documents or company and
    no-topic words removed."""
    question = strip_names(ctx.standalone, naming_words(ctx.scope, ctx.catalog))
    for entity in (ctx.scope.matched or {}).values():
        question = question.replace(entity, " ")
    return " ".join(t for t in ctx.tools.tokenize(question) if t.strip() and t.lower() not in _NO_TOPIC)


def topic_coverage(ctx: QuestionContext, sentences: list[tuple[int, str, float]]) -> float:
    """Share of the question's topic words found in the best quoted sentences (module docstring)."""
    topic = {_stem(t) for t in topic_question(ctx).split()}
    topic = {t for t in topic if len(t) > 1 or not t.isascii()}
    if not topic:
        return 0.0
    best = " ".join(text for _, text, _ in sorted(sentences, key=lambda s: -s[2])[:3])
    found = {_stem(t) for t in ctx.tools.tokenize(best)}
    return len(topic & found) / len(topic)


def _stem(token: str) -> str:
    token = token.lower()
    return token[:_STEM] if token.isascii() and token.isalpha() else token


def _quotes(text: str) -> str:
    """The extractive answer's quoted lines without its header line (the verdict replaces it)."""
    lines = text.splitlines()
    header = {message("extract_header", "zh"), message("extract_header", "en")}
    return "\n".join(line for line in lines if line.strip() not in header)


__all__ = ["MIN_COVERAGE", "YesNo"]
