"""How many things a question asks (retrieval.asks): separate asks carry their own question word."""

from __future__ import annotations

import pytest

from retrieval.answerers.handover import Resolution, one_ask
from retrieval.asks import split_asks


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Which firm audited the report, and what opinion did it give?",
         ["Which firm audited the report", "what opinion did it give"]),
        ("Who chaired the board and who was CEO?", ["Who chaired the board", "who was CEO"]),
        ("In which state is it incorporated and where are its offices?",
         ["In which state is it incorporated", "where are its offices"]),
        ("审计机构是哪家，出具了什么审计意见？", ["审计机构是哪家", "出具了什么审计意见"]),
        ("董事长是谁，总经理是谁？", ["董事长是谁", "总经理是谁"]),
        ("公司在哪个州注册，办公地点在哪里？", ["公司在哪个州注册", "办公地点在哪里"]),
        # a question mark inside the question ends an ask; a preposition before "which" opens one
        ("华锦股份2019年度由哪家会计师事务所审计？出具了什么类型的审计意见？",
         ["华锦股份2019年度由哪家会计师事务所审计", "出具了什么类型的审计意见"]),
        ("Who audited the company? What opinion did they give?",
         ["Who audited the company", "What opinion did they give"]),
        ("What is the ticker symbol and on which market does it trade?",
         ["What is the ticker symbol", "on which market does it trade"]),
    ],
)
def test_two_asks_are_split(question: str, asks: list[str]) -> None:
    assert split_asks(question) == asks


@pytest.mark.parametrize(
    "question",
    ["根据2019年年报，董事长是谁？", "董事长和总经理分别是谁？", "What was revenue and net income in 2022?",
     "航天电器2019年的营业收入是多少？", "What is the name and address of the auditor?"],
)
def test_one_ask_stays_whole(question: str) -> None:
    assert split_asks(question) == [question]


def test_resolution_is_complete_only_with_every_ask_and_no_doubt() -> None:
    assert one_ask("董事长是谁？").complete
    assert not one_ask("董事长是谁，总经理是谁？").complete
    assert one_ask("董事长是谁，总经理是谁？").missing == ["总经理是谁"]
    assert not Resolution(["a"], resolved=["a"], unsure=["period"]).complete


class _Hit:
    def __init__(self, chunk_id: str) -> None:
        self.chunk_id = chunk_id


def test_each_asks_hits_are_taken_in_turn_each_chunk_once() -> None:
    """The whole question's search ranks the auditor's page first three times over; the opinion's own search
    still puts its page among the first hits the model is given."""
    from retrieval.answerers.materials import in_turn

    whole = [_Hit("auditor-1"), _Hit("auditor-2"), _Hit("auditor-3"), _Hit("opinion")]
    firm = [_Hit("auditor-1"), _Hit("auditor-4")]
    opinion = [_Hit("opinion"), _Hit("basis")]
    taken = [h.chunk_id for h in in_turn([whole, firm, opinion], 4)]
    assert taken == ["auditor-1", "opinion", "auditor-2", "auditor-4"]
