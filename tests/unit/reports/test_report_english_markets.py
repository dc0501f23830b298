"""UK, Australian and Canadian report layouts (no model): a group's statements followed by the company's own, group
and company columns side by side, a fiscal year ending 30 June, quarter columns beside the year's, "£'000" headers,
and questions that name a period by its day and month ("at 31 December 2022", "the year to 30 June 2022")."""

from __future__ import annotations

from report_blocks import heading, para, report_of

from indexing.reports.statements import parent_column, parent_table
from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.reports.answer import answer_from_facts
from retrieval.reports.facts import Report
from retrieval.reports.question import read_question, without_dates


def _table(header: list[list[str]], rows: list[list[str]], page: int) -> Block:
    return Block(BlockType.TABLE, header_rows=header, rows=rows, page=page)


def _cover(name: str) -> list[Block]:
    return [
        Block(BlockType.HEADING, text=f"{name} Annual Report 2022", level=1, page=1),
        para(f"{name} annual report and financial statements for the year ended 31 December 2022", 1),
    ]


def _uk() -> ParsedDocument:
    """A UK plc: the group's statement of financial position, a note whose movement rows are dates, and the
    company's own statement after the group's (same row labels, other amounts)."""
    pounds = [["", "Note", "2022 £'000", "2021 £'000"]]
    blocks = [
        *_cover("Kestrel Mining plc"),
        heading("Consolidated Statement of Financial Position At 31 December 2022", 20),
        _table(
            pounds,
            [
                ["Exploration assets", "10", "5,483", "4,727"],
                ["Total assets", "", "7,241", "5,901"],
                ["Total equity", "", "7,164", "5,822"],
            ],
            20,
        ),
        heading("Company Statement of Financial Position At 31 December 2022", 21),
        _table(
            pounds,
            [
                ["Investments in subsidiaries", "", "6,100", "5,000"],
                ["Total assets", "", "6,971", "5,896"],
                ["Total equity", "", "6,900", "5,839"],
            ],
            21,
        ),
        heading("Notes to the consolidated financial statements", 25),
        heading("10. Exploration assets", 26),
        _table(
            pounds,
            [
                ["At 1 January", "", "4,727", "4,100"],
                ["Additions", "", "756", "627"],
                ["At 31 December", "", "5,483", "4,727"],
            ],
            26,
        ),
    ]
    return ParsedDocument(path="/kb/kestrel.pdf", file_type="pdf", blocks=blocks)


def _au() -> ParsedDocument:
    """An Australian company: fiscal year ended 30 June, consolidated and parent columns side by side."""
    blocks = [
        Block(BlockType.HEADING, text="Wattle Resources Limited Annual Report 30 June 2022", level=1, page=1),
        para("Wattle Resources Limited annual report for the financial year ended 30 June 2022 (ASX: WTL)", 1),
        heading("Statement of financial position As at 30 June 2022", 30),
        _table(
            [["", "Note", "Consolidated", "", "Parent", ""], ["", "", "2022 $", "2021 $", "2022 $", "2021 $"]],
            [
                ["Cash and cash equivalents", "7", "1,046,000", "886,000", "12,000", "9,000"],
                ["Total assets", "", "7,710,615", "8,818,186", "5,100,000", "5,200,000"],
                ["Net assets", "", "7,315,553", "8,554,572", "5,000,000", "5,100,000"],
            ],
            30,
        ),
        heading("Statement of financial position (group and company)", 31),
        _table(
            [["", "Group 2022 $", "Group 2021 $", "Company 2022 $", "Company 2021 $"]],
            [["Trade payables", "77,000", "79,000", "1,000", "2,000"]],
            31,
        ),
    ]
    return ParsedDocument(path="/kb/wattle.pdf", file_type="pdf", blocks=blocks)


def _ca() -> ParsedDocument:
    """A Canadian MD&A table: the fourth quarter's columns beside the year's, in C$ thousands."""
    blocks = [
        *_cover("Maple Coffee Inc."),
        heading("Selected financial information", 8),
        para("(in $000s except per share amounts)", 8),
        _table(
            [["", "Q4 2022", "Q4 2021", "2022", "2021"]],
            [
                ["Revenue", "46,151", "33,700", "176,935", "125,076"],
                ["Net income (loss)", "(254)", "241", "2,387", "496"],
            ],
            8,
        ),
    ]
    return ParsedDocument(path="/kb/maple.pdf", file_type="pdf", blocks=blocks)


def _ask(question: str, report: Report) -> tuple[str | None, str | None, list[int | None]]:
    answer = answer_from_facts(question, [report], "en")
    assert answer is not None and answer.kind == "figure", question
    return answer.value, answer.unit, [c.page for c in answer.citations]


def test_a_day_and_month_in_the_question_is_a_period_not_a_row_printed_as_a_date() -> None:
    assert without_dates("total assets at 31 December 2022?").split() == ["total", "assets", "2022?"]
    assert read_question("net assets at 30 June 2021?").year_end and read_question("as at 31 March 2022").year_end
    assert read_question("equity at the end of 2022").year_end
    kestrel = report_of(_uk(), "kestrel.pdf")
    # the note's "At 31 December" row must not be taken for the metric: the statement's Total assets answers
    assert _ask("What were Kestrel Mining's total assets at 31 December 2022?", kestrel)[:2] == ("7241", "thousands")
    assert _ask("What was Kestrel Mining's group total equity at 31 December 2021?", kestrel)[0] == "5822"


def test_the_company_statement_after_the_groups_answers_only_a_parent_company_question() -> None:
    assert parent_table("Company Statement of Financial Position At 31 December 2022", "")
    assert not parent_table("Consolidated Statement of Financial Position", "")
    assert not parent_table("Consolidated and Company statements of financial position", "")
    kestrel = report_of(_uk(), "kestrel.pdf")
    value, _unit, pages = _ask("What were Kestrel Mining's total assets at 31 December 2022?", kestrel)
    assert value == "7241" and pages[0] == 20  # the company's 6,971 is named as the parent figure, not answered
    assert _ask("What were Kestrel Mining's parent company total assets in 2022?", kestrel)[0] == "6971"


def test_group_and_company_columns_side_by_side_are_told_apart_by_their_headers() -> None:
    assert parent_column("Company 2022 $") and parent_column("Parent 2022 $")
    assert not parent_column("Group 2022 $") and not parent_column("Consolidated 2022 $") and not parent_column("2022")
    wattle = report_of(_au(), "wattle.pdf")
    assert _ask("What were Wattle Resources' total assets at 30 June 2022?", wattle)[0] == "7710615"
    assert _ask("What were Wattle Resources' net assets at 30 June 2021?", wattle)[0] == "8554572"
    assert _ask("What were Wattle Resources' parent company net assets at 30 June 2022?", wattle)[0] == "5000000"
    assert _ask("What were Wattle Resources' trade payables in FY2022?", wattle)[0] == "77000"


def test_quarter_columns_beside_the_years_answer_only_a_quarter_question() -> None:
    maple = report_of(_ca(), "maple.pdf")
    assert _ask("What was Maple Coffee's revenue for the year ended December 31, 2022?", maple)[:2] == (
        "176935",
        "thousands",
    )
    assert _ask("What was Maple Coffee's net income (loss) in the fourth quarter of 2022?", maple)[0] == "-254"
    assert _ask("What was Maple Coffee's net income for full-year 2022?", maple)[0] == "2387"


def _au_text() -> ParsedDocument:
    """An Australian "Financial Report 30 June 2022" whose statements came out of the PDF as paragraphs: a row set
    in bold as a heading, a "Cents Cents" unit line, and a note whose bare "Total" row sums the auditors' fees."""
    blocks = [
        Block(BlockType.HEADING, text="FINANCIAL REPORT 30 JUNE 2022", level=1, page=1),
        para("Bunyip Investments Limited ACN 614 854 045", 1),
        para("Statement of profit or loss and other comprehensive income For the year ended 30 June 2022", 15),
        heading("Note 2022 2021 $ $", 15),
        para("Other revenue 5 139,268 125,879 Total (loss)/income (171,254) 2,144,699", 15),
        para("Gain on fair value of embedded option 12.2 513 (48)", 15),  # a sub-note's number before the figures
        heading("(Loss)/Profit before income tax (1,239,019) 1,260,803", 15),
        heading("Cents Cents", 15),
        para("Basic and diluted (losses)/earnings per share 17 (5.13) 5.22", 15),
        para("Statement of cash flows For the year ended 30 June 2022", 17),
        heading("Note 2022 2021 $ $", 17),
        para("Net cash used in operating activities 21 (675,963) (5,530,261)", 17),
        heading("Note 16. Remuneration of auditors", 32),
        heading("2022 2021", 32),
        para("Audit of the financial statements 53,750 52,500 Total 53,750 52,500", 32),
    ]
    return ParsedDocument(path="/kb/bunyip.pdf", file_type="pdf", blocks=blocks)


def test_an_australian_financial_report_is_a_report_and_its_text_statement_runs_past_bold_rows() -> None:
    bunyip = report_of(_au_text(), "bunyip.pdf")
    value, _unit, pages = _ask("What was Bunyip Investments' loss before income tax for FY2022?", bunyip)
    assert (value, pages) == ("-1239019", [15])
    # the per-share row after the bold row and the "Cents Cents" line is still the statement's
    assert _ask("What were the basic and diluted earnings per share of Bunyip Investments for FY2022?", bunyip)[0] == (
        "-5.13"
    )


def test_a_bare_total_row_names_no_metric_and_parenthesised_sign_words_are_optional() -> None:
    bunyip = report_of(_au_text(), "bunyip.pdf")
    # "total (loss)/income" is the statement's row, never the auditors' note "Total"
    assert _ask("What was Bunyip Investments' total (loss)/income for FY2022?", bunyip)[0] == "-171254"
    assert _ask("What was Bunyip Investments' gain on fair value of embedded option in FY2022?", bunyip)[0] == "513"
    assert answer_from_facts("What was Bunyip Investments' total for FY2022?", [bunyip], "en") is None
    # "Net" of a long label may be left out; "use" is the label's "used"
    question = "How much cash did Bunyip Investments use in operating activities in the year to 30 June 2022?"
    assert _ask(question, bunyip)[0] == "-675963"


def test_rows_that_finish_their_group_rows_sentence_are_read_with_it() -> None:
    blocks = [
        *_cover("Lyrebird Partners Limited"),
        heading("Consolidated statement of profit or loss For the year ended 30 June 2022", 27),
        _table(
            [["", "Note", "2022 $", "2021 $"]],
            [
                ["Profit after income tax for the year", "", "13,328,745", "10,940,551"],
                ["Profit for the year is attributable to:", "", "", ""],
                ["Non-controlling interests", "", "7,765,776", "6,318,214"],
                ["Owners of Lyrebird Partners Limited", "", "5,562,969", "4,622,337"],
            ],
            27,
        ),
    ]
    lyrebird = report_of(ParsedDocument(path="/kb/lyrebird.pdf", file_type="pdf", blocks=blocks), "lyrebird.pdf")
    question = "How much of Lyrebird Partners' FY22 profit was attributable to owners of Lyrebird Partners Limited?"
    assert _ask(question, lyrebird)[0] == "5562969"
    assert _ask("What was Lyrebird Partners' profit after income tax for FY22?", lyrebird)[0] == "13328745"


def test_a_share_of_one_figure_in_another_is_never_answered_with_one_amount() -> None:
    wattle = report_of(_au(), "wattle.pdf")
    question = "What share of Wattle Resources' total assets were its net assets at 30 June 2022?"
    answer = answer_from_facts(question, [wattle], "en")
    assert answer is None or "7,710,615" not in answer.text


def test_a_listed_figure_asked_by_its_abbreviation_is_never_said_to_be_missing() -> None:
    blocks = [
        Block(BlockType.HEADING, text="锦华化学股份有限公司 2019 年年度报告", level=1, page=1),
        para("锦华化学股份有限公司 2019 年年度报告全文", 1),
        heading("六、主要会计数据和财务指标", 6),
        _table(
            [["", "2019年", "2018年", "本年比上年增减"]],
            [["营业收入（元）", "39,608,340,979.04", "37,036,329,015.10", "6.94%"],
             ["归属于上市公司股东的净利润（元）", "-1,137,005,238.61", "2,286,458,812.80", "-149.73%"]],
            6,
        ),
    ]  # fmt: skip
    report = report_of(ParsedDocument(path="/kb/jinhua.pdf", file_type="pdf", blocks=blocks), "jinhua.pdf")
    answer = answer_from_facts("锦华化学2019年归母净利润占营业收入的比例是多少？", [report], "zh")
    assert answer is None or answer.kind != "not_in_report"


def test_how_much_a_figure_grew_is_computed_from_the_year_columns_not_the_quarters() -> None:
    maple = report_of(_ca(), "maple.pdf")
    answer = answer_from_facts("By how much did Maple Coffee's revenue grow in 2022, in percent?", [maple], "en")
    assert answer is not None and answer.kind == "computed"
    assert "41.46%" in answer.text and "176,935" in answer.text and "125,076" in answer.text


def _handed_over() -> ParsedDocument:
    """A report whose group statements were not read as tables: what is left are a parent-entity note, a closed
    group's note and a statement row whose only value stands under no period header (a note number)."""
    blocks = [
        *_cover("Numbat Energy Limited"),
        heading("Consolidated statement of cash flows For the year ended 30 June 2022", 33),
        _table([["", ""]], [["Net cash (used in) operating activities", "15"]], 33),
        heading("Notes to the consolidated financial statements", 40),
        heading("Note 25. Deed of cross guarantee: Extended Closed Group", 48),
        _table([["", "2022 $", "2021 $"]], [["Loss before income tax", "(1,880,555)", "(1,129,990)"]], 48),
        heading("Note 26. Parent Entity Information", 49),
        _table([["", "2022 $", "2021 $"]], [["Total assets", "42,550,922", "42,970,745"]], 49),
    ]
    return ParsedDocument(path="/kb/numbat.pdf", file_type="pdf", blocks=blocks)


def test_a_figure_from_a_note_the_parent_alone_or_an_unheaded_column_is_handed_over() -> None:
    numbat = report_of(_handed_over(), "numbat.pdf")
    cases = {
        "What was Numbat Energy's loss before income tax for the year ended 30 June 2022?": "statement",
        "What were Numbat Energy Limited's total assets at 30 June 2022?": "statement",
        "How much cash did Numbat Energy use in operating activities in FY2022?": "period",
    }
    for question, unsure in cases.items():
        answer = answer_from_facts(question, [numbat], "en")
        assert answer is None or unsure in answer.unsure, question
    # asked for the parent entity, its own note answers
    answer = answer_from_facts("What were Numbat Energy's parent entity total assets in 2022?", [numbat], "en")
    assert answer is not None and answer.value == "42550922" and not answer.unsure


def test_the_fiscal_year_is_read_from_the_covers_period_end_when_the_subject_gives_none() -> None:
    bunyip = report_of(_au_text(), "bunyip.pdf")
    assert bunyip.year == 2022  # "FINANCIAL REPORT 30 JUNE 2022": the year ending 30 June 2022 is fiscal 2022
    # so a question naming no year is about that fiscal year's column
    assert _ask("What was Bunyip Investments' total (loss)/income?", bunyip)[0] == "-171254"


def _named(name: str, total: str) -> Report:
    blocks = [
        *_cover(name),
        heading("Consolidated Statement of Financial Position At 31 December 2022", 20),
        _table([["", "2022 £'000", "2021 £'000"]], [["Total assets", total, "1,000"]], 20),
    ]
    stem = name.split()[2].lower()
    return report_of(ParsedDocument(path=f"/kb/{stem}.pdf", file_type="pdf", blocks=blocks), f"{stem}.pdf")


def test_a_report_cited_by_the_start_of_its_name_is_answered_only_when_no_other_shares_it() -> None:
    coffee = _named("Blue Gum Decaffeinated Coffee Inc.", "7,241")
    assert _ask("What were Blue Gum Decaffeinated's total assets at 31 December 2022?", coffee)[0] == "7241"
    energy = _named("Blue Gum Energy Inc.", "9,999")
    both = [coffee, energy]
    assert answer_from_facts("What were Blue Gum's total assets at 31 December 2022?", both, "en") is None
    answer = answer_from_facts("What were Blue Gum Energy's total assets at 31 December 2022?", both, "en")
    assert answer is not None and answer.value == "9999"


def test_a_growth_rate_never_takes_its_inputs_from_a_synonyms_row_in_a_note() -> None:
    blocks = [
        *_cover("Maple Decaf Inc."),
        heading("Notes to the consolidated financial statements", 80),
        heading("20.2 Trading transactions", 86),
        _table([["", "December 31, 2022", "December 31, 2021"]], [["Sales", "$1,728", "$648"]], 86),
    ]
    report = report_of(ParsedDocument(path="/kb/decaf.pdf", file_type="pdf", blocks=blocks), "decaf.pdf")
    answer = answer_from_facts("By what percentage did Maple Decaf's revenue grow in 2022?", [report], "en")
    assert answer is None or (answer.kind != "computed" and answer.unsure)
