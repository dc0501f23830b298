"""With a model, "Summarize <company>'s 2022 results" reaches the model with the report's review of the year (a
CFO's review printing the year's figures), not only the summary tree's root, which for a long report says what its
cover and first pages say.

Why: issue 34's acceptance counts the summary questions whose key points reached the model's prompt; the points of
an English annual report's year (revenue growth, profit, the project) are told in its chairman's or CFO's review,
a section the operations titles did not name, and "results" or "the year to 30 June" was not read as asking how the
year went. The knowledge base is real (one PDF built here, indexed with report facts and its extractive summary
tree, the hash embedder), the model the stand-in Ollama server logging every prompt.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from report_kb import ask_with_model, fake_ollama_settings, index_folder, record_prompts
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table

from eval.fake_ollama import FakeOllama
from officeqa.settings import Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

NAME = "Larkspur Media Group plc"
#: What the CFO's review tells of the year: what a summary of the year must be given.
POINTS = ("revenue grew by 38% to £27.4 million", "adjusted profit before tax of £2.9 million")


#: The governance sections before the review: more than the summary budget holds beside the root.
SECTIONS = [f"{kind} {part}" for part in ("Report", "Statement", "Review", "Summary")
            for kind in ("Corporate Governance", "Audit Committee", "Nomination Committee", "Remuneration Committee",
                         "Directors'", "Sustainability", "Stakeholder Engagement", "Board Effectiveness")]


def _governance(n: int) -> list[str]:
    """Pages of governance prose, long enough that the tree's root summary cannot hold the whole report."""
    return [
        f"The board met {n + i} times during the year and considered the group's governance framework, its "
        f"committees' terms of reference and the independence of each non-executive director in turn."
        for i in range(8)
    ]


def _report() -> bytes:
    styles = getSampleStyleSheet()
    body, title, heading = styles["BodyText"], styles["Title"], styles["Heading1"]
    flow = [
        Paragraph(NAME, title), Paragraph("Annual Report 2022", title), PageBreak(),
        Paragraph("Chief Financial Officer's Review", heading),
        Paragraph(f"Over the year {POINTS[0]}, as the agency won new retail clients, and the group reported "
                  f"{POINTS[1]}, up from £1.4 million.", body),
        PageBreak(),
    ]
    for n, section in enumerate(SECTIONS):
        flow += [Paragraph(section, heading), *(Paragraph(p, body) for p in _governance(n)), PageBreak()]
    flow += [  # the statement the report's facts are read from
        Paragraph("Consolidated Income Statement", heading),
        Paragraph("For the year ended 31 December 2022 (£000)", body),
        Table([["", "2022", "2021"], ["Revenue", "27,412", "19,864"], ["Profit before tax", "2,215", "904"]],
              style=[("GRID", (0, 0), (-1, -1), 0.5, "black")]),
    ]
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=A4, title=f"{NAME} Annual Report 2022").build(flow)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, FakeOllama]]:
    with FakeOllama() as fake:
        settings, _ = index_folder(tmp_path_factory.mktemp("year"), {"larkspur_2022.pdf": _report()},
                                   summaries=True, ollama=fake_ollama_settings(fake.url))
        yield settings, fake


@pytest.mark.parametrize("question", [
    "Summarize Larkspur Media's 2022 results.",
    "Summarize Larkspur Media's year to 31 December 2022.",
])
def test_the_review_of_the_year_reaches_the_prompt(kb: tuple[Settings, FakeOllama], question: str) -> None:
    settings, fake = kb
    prompts = record_prompts(fake, "The model's summary [1].")
    answer = ask_with_model(settings, question)
    assert answer.mode == "model", (answer.mode, answer.text)
    prompt = prompts[-1]
    assert all(point in prompt for point in POINTS), prompt
    materials = prompt.split("\n[")[1:]
    assert len(materials) == len(set(materials)), prompt  # each chunk once, however many answerers handed it over


def test_without_a_model_the_year_is_the_summary_trees(kb: tuple[Settings, FakeOllama]) -> None:
    """No model: "2022 results" is left to the summary tree (its own summary holds more of a year's points than
    the headline figures alone)."""
    settings, _ = kb
    no_model = settings.model_copy(update={"ollama": fake_ollama_settings("http://127.0.0.1:9")})
    with QuestionService.open(no_model) as service:
        answer = service.ask("Summarize Larkspur Media's 2022 results.")
    assert "headline_summary" not in answer.metadata, answer.text
    assert answer.metadata.get("summary") is not None, answer.metadata
