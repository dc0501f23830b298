"""A company the knowledge base holds no report of is said absent; a company it holds is never refused.

Question texts are the Enterprise RAG Challenge round 2's (trustbit/enterprise-rag-challenge, ``round2/
questions.json``, answer-format notes removed as ``bench/bench_erc.py`` removes them) and the annual-dev set's
(``eval/annual``); the catalogs mirror what indexing read from those reports: subjects with the names their
covers print, one catalog with a report whose company could not be read.
"""

from __future__ import annotations

import pytest

from indexing.profile import DocumentProfile
from indexing.subjects import KIND_ANNUAL, DocumentSubject
from retrieval.catalog import CatalogEntry
from retrieval.scope import resolve_named
from retrieval.subjects import resolve_subjects


def report(doc_id: str, entity: str, short: list[str], codes: list[str] | None = None,
           title: str = "Annual Report", english: str = "") -> CatalogEntry:
    subject = DocumentSubject(entity=entity, short_names=short, english_name=english, codes=codes or [],
                              kind=KIND_ANNUAL, fiscal_year=2022)
    return CatalogEntry(doc_id, f"/kb/{doc_id}.pdf", DocumentProfile(doc_id=doc_id, title=title, subject=subject))


NAMED = {
    e.doc_id: e
    for e in [
        report("zd", "Ziff Davis, Inc.", ["Ziff Davis"], ["ZD"], title="0001084048-23-000010"),
        report("kp", "Kruger Products L.P.", ["Kruger Products", "KPLP", "KPT"], title="INVESTING"),
        report("nat", "Nordic American Tankers Limited", ["Nordic American Tankers"], ["NAT"]),
        report("se", "Seiko Epson Corporation", ["Seiko Epson"]),
        report("ht", "贵州航天电器股份有限公司", ["航天电器"], ["002025"], english="Guizhou Space Appliance Co., Ltd."),
        report("cz", "German Stock Corporation", ["German Stock"], title="Commerzbank Konzern_GB 2022_EN_Final"),
    ]
}
#: The same, beside a report whose cover named no company (the challenge's Rapid7 report read so).
UNREAD = {**NAMED, "r7": report("r7", "", [], title="178500_RAPID_PROOF_FINAL_LS_rev1_MS")}


def refused(question: str, catalog: dict[str, CatalogEntry]) -> list[str]:
    scope = resolve_named(question, catalog)
    if scope is None or scope.method != "named" or scope.doc_ids:
        return []
    return list(scope.missing)


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Did AA Limited announce any new product launches in the annual report?", "AA Limited"),
        ("For AA Limited, what was the value of Fleet size (vehicles) at year-end at the end of the period listed in "
         "annual report?", "AA Limited"),
        ("What was the largest single spending of archTIS Limited on executive compensation in USD?",
         "archTIS Limited"),
        ("What is the name of the last product launched by 1-800-FLOWERS.COM, INC. as mentioned in the annual "
         "report?", "1-800-FLOWERS.COM, INC."),
        ("Did Poste Italiane announce any changes to its dividend policy in the annual report?", "Poste Italiane"),
        ("What was the largest single spending of MGM Resorts International on executive compensation in USD?",
         "MGM Resorts International"),
        ("Which leadership positions changed at Crombie REIT in the reporting period?", "Crombie REIT"),
        ("What is the total number of employees let go by NZME Limited according to the annual report?",
         "NZME Limited"),
    ],
)
def test_a_company_with_no_report_is_said_absent(question: str, name: str) -> None:
    assert refused(question, NAMED) == [name]


@pytest.mark.parametrize(
    "question",
    [
        "For Ziff Davis, Inc., what was the value of Cloud storage capacity (TB) at the end of the period listed in "
        "annual report?",
        "Did ZD announce a share buyback plan?",
        "What was Kruger Products' revenue in Fiscal 2023?",
        "Did KPT announce any changes to its dividend policy in the annual report?",
        "Did Nordic American Tankers Limited report any changes to its capital structure?",
        "Did Seiko Epson Corporation announce any changes to its dividend policy in the annual report?",
        "What did Guizhou Space Appliance report as revenue in 2019?",
        "航天电器2019年的营业收入是多少？",
        "What is the total number of employees let go by Commerzbank according to the annual report?",
        "Did Commerzbank announce a share buyback plan?",
    ],
)
def test_a_company_the_knowledge_base_holds_is_never_refused(question: str) -> None:
    assert refused(question, NAMED) == []
    assert refused(question, UNREAD) == []


@pytest.mark.parametrize(
    "question",
    [
        "Who is the Chief Executive Officer who signed the shareholder letter?",
        "What was Consumer segment revenue in Fiscal 2022?",
        "What main risk factors does the report point to?",
        "Did the Board announce a dividend?",
        "Did Management report any changes to the capital structure?",
        "What did the CEO say about ESG in the Annual Report?",
        "What was the revenue of North America in 2022?",
        "Did Europe revenue increase in 2022?",
        "Did PricewaterhouseCoopers LLP issue an unqualified opinion?",
        "What was the value of Number of hotels at year-end?",
        "What was the EBITDA margin in H1 2023?",
        'What does the report say about "Adjusted EBITDA"?',
    ],
)
def test_generic_capitalised_words_are_no_company(question: str) -> None:
    assert refused(question, NAMED) == []


def test_a_name_known_only_by_its_place_waits_while_a_report_s_company_is_unread() -> None:
    # "Did Rapid7 announce…" may be about the report whose cover named no company: not refused then
    assert refused("Did Rapid7 announce any new product launches?", UNREAD) == []
    assert refused("Did Poste Italiane announce any changes to its dividend policy?", UNREAD) == []
    # a name with a legal form is a company whatever the knowledge base holds
    assert refused("Did AA Limited report any changes to its capital structure?", UNREAD) == ["AA Limited"]


def test_a_short_name_is_compared_as_whole_words_not_letters() -> None:
    # "aa" occurs in no name as a word; "Nordic American Tankers" does not make "AA Limited" known
    assert refused("Did AA Limited report any changes to its capital structure?", NAMED) == ["AA Limited"]
    assert refused("Did NAT Limited report any changes to its capital structure?", NAMED) == []  # a code


def test_a_list_of_quoted_companies_names_them_all() -> None:
    question = (
        'Which of the companies had the lowest total assets in EUR at the end of the period listed in annual report: '
        '"Poste Italiane", "Datalogic", "Seiko Epson Corporation"?'
    )
    scope = resolve_subjects(question, NAMED)
    assert scope is not None and scope.doc_ids == ["se"] and scope.missing == ["Poste Italiane", "Datalogic"]
    assert refused('Which had the lower revenue: "Poste Italiane" or "Datalogic"?', NAMED) == ["Poste Italiane",
                                                                                              "Datalogic"]


def test_a_document_named_by_title_keeps_the_absent_company_beside_it() -> None:
    # The question names a document by its title, a company present and one absent: the scope holds the document
    # and the present company's report, and still says which company has no report (the "partly missing" notice).
    catalog = {**NAMED, "sc": CatalogEntry("sc", "/kb/Supply Agreement.docx",
                                           DocumentProfile(doc_id="sc", title="Supply Agreement"))}
    scope = resolve_named("Does the Supply Agreement appear in the annual report of Seiko Epson Corporation or of "
                          "AA Limited?", catalog)
    assert scope is not None and sorted(scope.doc_ids) == ["sc", "se"] and scope.missing == ["AA Limited"]
