"""With a model, a figure question about one of two companies' reports that no rule settles reaches the model with
that company's candidate rows (row, period column, value as printed, page) in the prompt, and no row of the other
company's report.

Why: issue 34's acceptance counts the questions whose gold figure reached the model's prompt; retrieval over a
long report brings back prose that repeats the metric's words rather than the statement page that prints it. The
knowledge base is real (two small 10-K PDFs built here, indexed with report facts, the hash embedder), the model
the stand-in Ollama server logging every prompt, the prompt read from the request it received.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from report_kb import ask_with_model, fake_ollama_settings, index_folder, record_prompts
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table

from eval.fake_ollama import FakeOllama
from officeqa.settings import Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

#: company, file, its "Total income" of 2024 and 2023 (thousands), its 2024 "Net income" in the statement and in
#: an additional table (Northwind's two disagree): the two reports print the same rows.
COMPANIES = [
    ("Northwind Analytics Inc.", "northwind_10k_2024.pdf", ("48,215", "41,990"), ("5,113", "5,301")),
    ("Southwind Logistics Inc.", "southwind_10k_2024.pdf", ("73,604", "70,118"), ("6,204", "6,204")),
]
#: A metric the statement prints under a looser label than asked ("ordinary activities" is no row word): the
#: figure answerer does not take the row, so the model must see it.
QUESTION = "What was {name}'s total income from ordinary activities in 2024?"


def _prose(name: str) -> list[str]:
    """Pages of discussion that repeat the question's words without the figure (what retrieval brings back)."""
    return [
        f"{name} discusses its total income from ordinary activities throughout this report. Income from "
        f"ordinary activities depends on contracts, customers and the markets {name} serves, and management "
        f"reviews total income every quarter against its plan."
        for _ in range(6)
    ]


def _ten_k(name: str, income: tuple[str, str], net: tuple[str, str]) -> bytes:
    styles = getSampleStyleSheet()
    body, title = styles["BodyText"], styles["Title"]
    grid = [("GRID", (0, 0), (-1, -1), 0.5, "black")]
    flow = [
        Paragraph("FORM 10-K", title),
        Paragraph("For the fiscal year ended December 31, 2024", body),
        Paragraph(name, title),
        Paragraph("(Exact name of registrant as specified in its charter)", body),
        PageBreak(),
        Paragraph("Management's Discussion and Analysis", styles["Heading1"]),
        *(Paragraph(p, body) for p in _prose(name)),
        PageBreak(),
        Paragraph("Consolidated Statements of Operations", styles["Heading1"]),
        Paragraph("(in thousands)", body),
        Table(
            [
                ["", "2024", "2023"],
                ["Service revenue", "45,100", "39,020"],
                ["Interest income", "3,115", "2,970"],
                ["Total income", income[0], income[1]],
                ["Operating expenses", "(40,002)", "(37,115)"],
                ["Net income", net[0], "4,855"],
            ],
            style=grid,
        ),
        PageBreak(),  # a second table printing the same row for the same year: which one is meant is unclear
        Paragraph("Additional information", styles["Heading1"]),
        Table([["", "2024", "2023", "2022"], ["Net income", net[1], "4,855", "4,120"]], style=grid),
    ]
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=LETTER, title=f"{name} Form 10-K 2024").build(flow)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, FakeOllama]]:
    files = {file: _ten_k(name, income, net) for name, file, income, net in COMPANIES}
    with FakeOllama() as fake:
        settings, _ = index_folder(tmp_path_factory.mktemp("candidates"), files, ollama=fake_ollama_settings(fake.url))
        yield settings, fake


@pytest.mark.parametrize("index", range(len(COMPANIES)))
def test_the_named_companys_statement_row_reaches_the_prompt(kb: tuple[Settings, FakeOllama], index: int) -> None:
    settings, fake = kb
    name, _file, income, _net = COMPANIES[index]
    other = COMPANIES[1 - index][2]
    prompts = record_prompts(fake, "The model's answer [1].")
    answer = ask_with_model(settings, QUESTION.format(name=name))
    assert answer.mode == "model", (answer.mode, answer.text)
    assert prompts, "no prompt"
    prompt = prompts[-1]
    row = next((line for line in prompt.splitlines() if line.startswith("- Total income |")), "")
    assert income[0] in row and "2024" in row, prompt
    material = prompt[: prompt.index(row)].rsplit("\n[", 1)[-1]  # the material's "[n] file · p. N" label
    assert " · p. 3 · " in material.split("\n", 1)[0], material
    assert other[0] not in prompt and other[1] not in prompt, prompt


def test_without_a_model_no_candidate_rows_are_shown_as_the_answer(kb: tuple[Settings, FakeOllama]) -> None:
    settings, _ = kb
    no_model = settings.model_copy(update={"ollama": fake_ollama_settings("http://127.0.0.1:9")})
    with QuestionService.open(no_model) as service:
        answer = service.ask(QUESTION.format(name=COMPANIES[0][0]))
    assert "Rows printed in" not in answer.text, answer.text


def test_a_figure_two_tables_print_differently_is_handed_over(kb: tuple[Settings, FakeOllama]) -> None:
    """Northwind's statement and its additional table print two 2024 net incomes: no answer states one of them
    without a model; Southwind's agree, and its figure is answered."""
    settings, _ = kb
    no_model = settings.model_copy(update={"ollama": fake_ollama_settings("http://127.0.0.1:9")})
    with QuestionService.open(no_model) as service:
        split = service.ask("What was Northwind Analytics' net income in 2024?")
        agreed = service.ask("What was Southwind Logistics' net income in 2024?")
    assert split.text.startswith("No exact answer"), split.text
    assert split.metadata["resolution"]["unsure"] == ["tables"], split.metadata.get("resolution")
    assert "6,204" in agreed.text and not agreed.text.startswith("No exact answer"), agreed.text
