"""Complete or hand over: a question of several asks that a deterministic answerer settles only in part is not
answered by it. Without a model the parts it found are shown as candidates under "no exact answer"; with a model
they go into the prompt and the model answers. The three half answers of issue 34, in English and Chinese, over
really indexed PDFs (the eval's generated 年度报告 and a small 10-K built here, whose signatures name a CEO and no
chairman) with the stand-in Ollama server logging every prompt.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from report_kb import ANNUAL_NAME, ask_with_model, fake_ollama_settings, index_folder, record_prompts
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table

from eval.fake_ollama import FakeOllama
from eval.kb.pdf_docs import annual_report
from officeqa.settings import Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

TEN_K = "northwind_10k_2024.pdf"
HALF = [  # (question, the part a rule finds)
    ("Who is the chairman of Northwind Analytics and who is its CEO?", "Maria Lopez"),
    ("In which state is Northwind Analytics incorporated and where are its principal executive offices?",
     "500 Harbor Street"),
    ("Northwind Analytics的董事长是谁，首席执行官是谁？", "Maria Lopez"),
    ("星河智能是哪一年成立的，注册地址在哪里？", "文一西路998号"),
]


def _ten_k() -> bytes:
    styles = getSampleStyleSheet()
    body, title = styles["BodyText"], styles["Title"]
    grid = [("GRID", (0, 0), (-1, -1), 0.5, "black")]
    flow = [
        Paragraph("FORM 10-K", title),
        Paragraph("For the fiscal year ended December 31, 2024", body),
        Paragraph("Northwind Analytics Inc.", title),
        Paragraph("(Exact name of registrant as specified in its charter)", body),
        Paragraph("500 Harbor Street, Boston, Massachusetts 02110", body),
        Paragraph("(Address of principal executive offices) (Zip Code)", body),
        PageBreak(),
        Paragraph("Report of Independent Registered Public Accounting Firm", styles["Heading1"]),
        Paragraph("We have audited the consolidated balance sheets of Northwind Analytics Inc. as of December 31, "
                  "2024. In our opinion, the financial statements present fairly, in all material respects, the "
                  "financial position of the Company.", body),
        Paragraph("/s/ Ernst &amp; Young LLP", body),
        PageBreak(),
        Paragraph("SIGNATURES", styles["Heading1"]),
        Table([["Signature", "Title", "Date"],
               ["/s/ Maria Lopez", "Chief Executive Officer and Director (Principal Executive Officer)",
                "February 20, 2025"]], style=grid),
        PageBreak(),  # a related party note: its "Sales" row is not the company's revenue
        Paragraph("20. Related party transactions", styles["Heading1"]),
        Paragraph("20.2 Trading transactions", styles["Heading2"]),
        Table([["", "December 31, 2024", "December 31, 2023"], ["Sales", "$ 1,728", "$ 648"],
               ["Purchases of raw materials", "$ 9,007", "$ 5,344"]], style=grid),
    ]
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=LETTER, title="Northwind Analytics Inc. Form 10-K 2024").build(flow)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, FakeOllama]]:
    with FakeOllama() as fake:
        settings, _ = index_folder(tmp_path_factory.mktemp("half"), {ANNUAL_NAME: annual_report(), TEN_K: _ten_k()},
                                   ollama=fake_ollama_settings(fake.url))
        yield settings, fake


def _no_model(settings: Settings) -> Settings:
    return settings.model_copy(update={"ollama": fake_ollama_settings("http://127.0.0.1:9")})


@pytest.mark.parametrize(("question", "part"), HALF)
def test_without_a_model_a_half_answer_is_shown_as_candidates(kb: tuple[Settings, FakeOllama], question: str,
                                                              part: str) -> None:
    with QuestionService.open(_no_model(kb[0])) as service:
        answer = service.ask(question)
    head = "No exact answer" if answer.language == "en" else "无法给出确切答案"
    assert answer.text.startswith(head), answer.text
    assert part in answer.text and answer.metadata.get("no_exact_answer") is True, answer.text
    assert answer.metadata["resolution"]["missing"], answer.metadata["resolution"]


@pytest.mark.parametrize(("question", "part"), HALF)
def test_with_a_model_the_half_answer_is_in_the_prompt_and_the_model_answers(kb: tuple[Settings, FakeOllama],
                                                                              question: str, part: str) -> None:
    settings, fake = kb
    prompts = record_prompts(fake, "The model's answer [1].")
    answer = ask_with_model(settings, question)
    assert answer.mode == "model", (answer.mode, answer.text)
    assert prompts and part in prompts[-1], prompts[-1:] or "no prompt"
    assert answer.metadata["handed_over"][0]["missing"]


@pytest.mark.parametrize(("question", "firm", "opinion"), [
    ("Who audited Northwind Analytics, and what opinion did it give?", "Ernst & Young LLP", "unmodified"),
    ("星河智能的会计师事务所是哪家，出具了什么审计意见？", "天健会计师事务所", "标准无保留意见"),
])
def test_the_firm_and_its_opinion_are_both_read_and_answered(kb: tuple[Settings, FakeOllama], question: str,
                                                             firm: str, opinion: str) -> None:
    """Both parts printed ("In our opinion … present fairly", 出具了标准无保留意见的审计报告): a complete answer with no
    model; the scope paragraph under the heading 审计意见 ("我们审计了…财务报表") is no opinion."""
    with QuestionService.open(_no_model(kb[0])) as service:
        answer = service.ask(question)
    assert firm in answer.text and opinion in answer.text, answer.text
    assert "我们审计了" not in answer.text and answer.metadata["resolution"]["missing"] == [], answer.text


def test_every_ask_resolved_is_answered_without_a_model(kb: tuple[Settings, FakeOllama]) -> None:
    with QuestionService.open(_no_model(kb[0])) as service:
        answer = service.ask("星河智能的董事长是谁，总经理是谁？")
    assert "林国栋" in answer.text and "许文博" in answer.text and "无法给出确切答案" not in answer.text, answer.text
    assert answer.metadata["resolution"]["missing"] == []


def test_a_synonyms_row_outside_the_statements_is_handed_over(kb: tuple[Settings, FakeOllama]) -> None:
    """"Revenue" asked, only a related-party note's "Sales" row found: the figure is unsure ("statement"), shown as a
    candidate without a model, never as the answer."""
    with QuestionService.open(_no_model(kb[0])) as service:
        answer = service.ask("What revenue did Northwind Analytics report for the year ended December 31, 2024?")
    assert answer.text.startswith("No exact answer"), answer.text
    assert "1,728" in answer.text and answer.metadata["resolution"]["unsure"] == ["statement"], answer.metadata
