"""The answerer table and its walk: first come first asked, a decline passes on, a streaming answerer that
ends without an answer passes on too (the model failed mid-answer), and exactly one answer comes out."""

from __future__ import annotations

from collections.abc import Iterator

from officeqa.settings import Settings
from prompts.assembler import Material
from retrieval.answerers import ANSWERERS, walk
from retrieval.answerers.extractive import RetrievalExtractive
from retrieval.answering import Answer, AnswerEvent
from retrieval.context import QuestionContext, Tools, build_context
from retrieval.pipeline import AnswerPipeline
from retrieval.search import SearchHit


class Declines:
    def __init__(self) -> None:
        self.asked = 0

    def answer(self, ctx: QuestionContext) -> None:
        self.asked += 1
        return None


class StreamsThenFails:
    def answer(self, ctx: QuestionContext) -> Iterator[AnswerEvent]:
        def events() -> Iterator[AnswerEvent]:
            yield AnswerEvent("delta", text="partial")
            ctx.meta["partial_model_text"] = "partial"

        return events()


class Fixed:
    def __init__(self, text: str) -> None:
        self.text = text

    def answer(self, ctx: QuestionContext) -> Answer:
        return ctx.reply(self.text, [], "rule")


def _context() -> QuestionContext:
    return build_context(Tools(Settings()), "第一季度华东区销售额是多少？")


def test_the_walk_skips_declines_and_failed_streams_and_stops_at_the_first_answer() -> None:
    first, never = Declines(), Declines()
    events = list(walk(_context(), [first, StreamsThenFails(), Fixed("one"), Fixed("two"), never]))
    assert [e.kind for e in events] == ["delta", "answer"]
    answer = events[-1].answer
    assert answer is not None and answer.text == "one"
    assert answer.metadata["partial_model_text"] == "partial" and "total_s" in answer.metadata["timings"]
    assert first.asked == 1 and never.asked == 0


def test_the_table_ends_with_the_answerer_that_always_answers() -> None:
    assert isinstance(ANSWERERS[-1], RetrievalExtractive)
    answer = next(e.answer for e in walk(_context()) if e.answer is not None)  # no knowledge base, no hits
    assert answer.mode == "extractive" and answer.text == "没有检索到与问题相关的文档内容。"


def test_the_probe_and_the_rewrite_run_once_per_question() -> None:
    calls: list[str] = []

    def retrieve(query: str, k: int) -> list[SearchHit]:
        calls.append(query)
        return [SearchHit("c1", "d1", 1.0, "第一季度华东区销售额为120万元。", {"path": "/srv/kb/sales.md"})]

    pipeline = AnswerPipeline(Settings(), retrieve, None)
    answer = pipeline.ask("那第二季度呢？", [_turn()])
    assert calls == ["第二季度华东区销售额是多少？"]  # one search, with the rule's rewrite
    assert answer.metadata["rewrite"] == {"standalone": "第二季度华东区销售额是多少？", "method": "rule"}
    assert answer.metadata["failure"]["kind"] == "no_model" and answer.citations[0].document == "sales.md"


def test_materials_handed_over_come_before_the_retrieved_ones() -> None:
    pipeline = AnswerPipeline(Settings(), lambda q, k: [], None)
    extra = Material(text="华东区第一季度销售额为120万元。", source="rule", score=1.0, chunk_id="rule:x", document="")
    answer = pipeline.ask("华东区第一季度销售额是多少？", extra=[extra])
    assert "120万元" in answer.text


def _turn():
    from retrieval.followup import Turn

    return Turn("第一季度华东区销售额是多少？", "120万元")
