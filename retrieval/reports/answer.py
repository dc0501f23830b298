"""Figure, computed and not-in-report answers from stored report facts, with no model.

``answer_from_facts(question, reports, language)`` answers or declines (None):
- a figure: the printed value with its unit (converted when asked in another unit), its page and the
  quoted row; consolidated vs parent-company figures and tables that disagree are named, not hidden;
- a computed metric (毛利率, 净利率, 资产负债率, 同比增长, gross margin, YoY change, which year was highest,
  the sum of the four quarters): the result with its formula and every input with its page;
- not in this report: a year the report does not give, or a metric its text never mentions: said so, with
  the years it does give, and no figure.
It declines when the question is not about a figure, when several companies are in scope and none is
named, or when the question asks something the matched row does not cover (a business line the tables do
not break out): a wrong figure is worse than leaving the question to retrieval.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from decimal import Decimal

from indexing.reports.labels import label_key
from retrieval.reports import compute
from retrieval.reports.doubts import unsure_of
from retrieval.reports.entities import aliases, name_prefixes
from retrieval.reports.facts import Fact, Report
from retrieval.reports.lookup import Match, best_matches, role_rank
from retrieval.reports.metrics import aliases_in, canonical_of
from retrieval.reports.pick import Cited, ReportAnswer, cite, column_filter, for_year, rank, residual, target_year
from retrieval.reports.prose import prose_count, prose_dividend
from retrieval.reports.question import Ask, asks_ratio, read_question, without_dates
from retrieval.reports.refusals import currency_refusal, near
from retrieval.reports.render import convert, format_amount, with_unit

__all__ = ["Cited", "ReportAnswer", "answer_from_facts", "asks_for_figure"]

_FIGURE_QUESTION = re.compile(
    r"多少|几|是什么|为何|几何|如何|how\s+much|how\s+many|what\s+(?:was|were|is|are)|"
    r"what\s+(?:[\w'’-]+\s+){1,6}(?:did|does|do|was|were|is|are)\b|"  # "what cash dividends per share did it pay"
    r"which\s+year|金额|总额|率|哪一年|哪年|合计|总和|之和",
    re.IGNORECASE,
)
_QUANTITY = re.compile(r"多少|几|金额|总额|总量|数量|规模|how\s*much|how\s*many", re.IGNORECASE)
_PARTS = re.compile(r"[？?；;]")
_PER_SHARE = re.compile(r"per\s*(?:common\s*|ordinary\s*)?share|每股|\beps\b", re.IGNORECASE)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _plain(question: str, report: Report) -> str:
    """The question folded, without the entity's names, years and short parentheticals ("(KPLP)"); a parenthetical
    word in lower case is kept: "total (loss)/income" names the row "Total (loss)/income"."""
    text = _fold(re.sub(r"\((?![a-z]+\))[^)]{1,8}\)", " ", without_dates(question)))
    for alias in [*name_prefixes(report), *aliases(report)]:
        text = text.replace(alias, " ")
    text = re.sub(r"(19[89]\d|20[0-4]\d)\s*(年|財年)?", " ", text)
    text = re.sub(r"(?<![a-z])fy\s*'?\d{2}(?!\d)", " ", text)  # "FY22": a year, not a metric word
    # "profit was attributable to", "cash was used in": the copula is no part of the row's name
    text = re.sub(r"\b(?:is|was|were|are)\s+(?=attributable|used|generated|provided|paid|received)", "", text)
    return re.sub(r"\(\s*\)", " ", text)


def _question_key(question: str, report: Report) -> str:
    return label_key(_plain(question, report))


def _years_text(years: Sequence[int], english: bool) -> str:
    if not years:
        return ""
    span = f"{years[0]}–{years[-1]}" if len(years) > 1 else str(years[0])
    return span if english else f"{span} 年"


def _not_in_report(
    report: Report, metric: str | None, asked: Sequence[int], english: bool, years: Sequence[int]
) -> ReportAnswer:
    covered = _years_text(years or ([report.year] if report.year else []), english)
    asked_text = ", ".join(str(y) for y in asked)
    if english:
        what = f"{metric} for {asked_text}" if metric and asked_text else (metric or "this figure")
        text = f"Not found: {report.name} does not cover {what}."
        if covered:
            text += f" The report gives {metric + ' for ' if metric and asked_text else 'figures for '}{covered}."
    else:
        what = f"{asked_text} 年的{metric}" if metric and asked_text else (metric or "该数据")
        text = f"未找到：{report.name} 没有提供{what}。"
        if covered:
            text += f"本报告给出的是 {covered}{'的' + metric if metric and asked_text else '的数据'}。"
    return ReportAnswer(text, "not_in_report", "en" if english else "zh")


def _figure_line(report: Report, fact: Fact, ask: Ask, english: bool) -> str:
    shown = with_unit(fact.text, fact.unit, english)
    converted = convert(fact.value, fact.unit, ask.unit)
    if converted is not None:
        value, unit = converted
        other = with_unit(format_amount(value), unit, english)
        shown = f"{other} ({shown})" if english else f"{other}（即 {shown}）"
    year = fact.year(report.year)
    span = _per_share_span(fact, english)
    period = f" ({fact.column}{span})" if fact.column else (f" ({span.strip(', ')})" if span else "")
    if english:
        return f"{fact.label}{' for ' + str(year) if year else ''}{period}: {shown}."
    column = f"{fact.column}{span}" if fact.column else span.strip("，")
    return f"{fact.label}{'（' + column + '）' if column else ''}为 {shown}。"


def _per_share_span(fact: Fact, english: bool) -> str:
    """What period a per-share figure covers, said beside it (", full year" / "，全年"; ", quarter" / "，单季"
    for a part-year column asked for): EPS and dividends per share are printed per quarter and per year."""
    if not _PER_SHARE.search(fact.label):
        return ""
    partial = fact.period is not None and (fact.period.partial or fact.period.quarter is not None)
    if english:
        return ", part of the year" if partial else ", full year"
    return "，非全年" if partial else "，全年"


def _share_beside(report: Report, fact: Fact) -> Fact | None:
    """The share printed beside a segment amount in the same row and period ("连接器 | 2,215,236,553.17 | 62.69%")."""
    if fact.period is not None and fact.period.share:
        return None
    year = fact.year(report.year)
    rows = {(f.table, f.row) for f in report.facts if f.key == fact.key and f.value == fact.value}
    for other in report.facts:  # the same amount in another table of the same row label (营业收入构成)
        if (
            (other.table, other.row) in rows
            and other.period is not None
            and other.period.share
            and other.year(report.year) == year
        ):
            return other
    return None


def _notes(chosen: Fact, candidates: Sequence[Fact], english: bool) -> list[tuple[str, Fact]]:
    """Other tables that print the same row for the same period with another value: named, not hidden."""
    notes: list[tuple[str, Fact]] = []
    seen: set[Decimal] = {chosen.value}
    for other in candidates:
        if (
            other is chosen
            or other.key != chosen.key  # another spelling of the metric pooled in (_same_metric) is not "this row"
            or other.value in seen
            or other.table == chosen.table
            or other.from_text
            or chosen.from_text
            or other.unit != chosen.unit
        ):
            continue
        seen.add(other.value)
        where = f"page {other.page}" if english else f"第 {other.page} 页"
        if other.parent_company != chosen.parent_company:
            scope = (
                ("parent company" if other.parent_company else "consolidated")
                if english
                else ("母公司报表" if other.parent_company else "合并报表")
            )
            text = (
                f"Note: the {scope} figure is {with_unit(other.text, other.unit, english)} ({where})."
                if english
                else f"注意：{scope}口径为 {with_unit(other.text, other.unit, english)}（{where}）。"
            )
        else:
            shown, table = with_unit(other.text, other.unit, english), other.caption or other.section
            text = (
                f"Note: {table} ({where}) prints {shown} for this row; the tables disagree."
                if english
                else f"注意：{table}（{where}）列示为 {shown}，两表不一致。"
            )
        notes.append((text, other))
        if len(notes) >= 2:
            break
    return notes


def _figure(
    report: Report, question_key: str, part_key: str, ask: Ask, english: bool, subject: str, question_key_raw: str = ""
) -> tuple[ReportAnswer | None, Match | None, bool]:
    """(answer, match, refused-for-year) for one part of a question."""
    matches = best_matches(part_key, report.facts, label_key(_fold(question_key_raw)))
    if subject:  # a follow-up part ("占营业收入的比例是多少") is about the first part's row
        about = [m for m in best_matches(subject + part_key, report.facts) if subject[:2] in m.key]
        if about:
            matches, part_key = about, subject + part_key
    if not matches:
        return None, None, False
    top = matches[0]
    if residual(
        part_key.replace("的", ""),
        [c.replace("的", "") for c in (*top.covered, subject)],
        english,
        _plain(question_key_raw, report),
    ):
        return None, top, False
    if _PER_SHARE.search(question_key_raw or part_key) and not _PER_SHARE.search(top.facts[0].label):
        return None, top, False  # "net loss per share" asked, the "Net loss" row matched: not the figure asked
    facts = column_filter(_same_metric(top, matches), part_key, ask)
    if asks_ratio(part_key) and not any(f.period is not None and f.period.share for f in facts):
        return None, top, False  # a share of one figure in another: a computation, never the one amount matched
    year = target_year(ask, report)
    chosen = rank(for_year(facts, year, report, ask), question_key, ask)
    if not chosen:
        years = sorted({y for f in facts if (y := f.year(report.year)) is not None})
        if year is not None and years and year not in years:
            return _not_in_report(report, top.facts[0].label, [year], english, years), top, True
        return None, top, False
    other_currency = currency_refusal(report, chosen[0], ask, english)
    if other_currency is not None:
        return other_currency, top, True
    answer = _figure_answer(report, chosen, ask, english)
    answer.unsure.extend(unsure_of(top, chosen[0], question_key, ask))
    return answer, top, False


_NOTE_RANK = 3  # role_rank of a note or part table


def _same_metric(top: Match, matches: Sequence[Match]) -> list[Fact]:
    """The top row's facts, and when they are all in notes, those of rows that spell the same metric in other
    words ("Total revenue" in an acquisition note, "Total revenues" in the statement of operations): which
    table answers is then the table rank's choice (primary statements before notes), not which spelling is
    the longer match. A row the question names as printed outside the notes (研发投入金额) keeps its own."""
    canonical = canonical_of(top.facts[0].label)
    facts = list(top.facts)
    if canonical is None or min(role_rank(f) for f in facts) < _NOTE_RANK:
        return facts  # the row as printed is in a statement or another table: it is what the question names
    for match in matches:
        if match is not top and canonical_of(match.facts[0].label) == canonical:
            facts.extend(match.facts)
    return facts


def _figure_answer(report: Report, chosen: list[Fact], ask: Ask, english: bool) -> ReportAnswer:
    """The chosen fact as printed, the share printed beside it, and notes on the facts that disagree."""
    fact = chosen[0]
    lines = [_figure_line(report, fact, ask, english)]
    share = _share_beside(report, fact)
    if share is not None:
        lines.append(
            f"({share.column.strip()}: {share.text})" if english else f"（{share.column.strip()} {share.text}）"
        )
    citations = [cite(report, fact)]
    for text, other in _notes(fact, chosen[1:], english):
        lines.append(text)
        citations.append(cite(report, other))
    return ReportAnswer(" ".join(lines), "figure", "en" if english else "zh", citations, str(fact.value), fact.unit)


def _source_lines(citations: Sequence[Cited], english: bool) -> str:
    seen: list[str] = []
    for c in citations:
        line = f"{c.name}, page {c.page}: {c.quote}" if english else f"{c.name} 第 {c.page} 页：{c.quote}"
        if line not in seen:
            seen.append(line)
    return ("Source: " if english else "来源：") + "; ".join(seen)


def _answer_one(question: str, report: Report, language: str) -> ReportAnswer | None:
    ask = read_question(question)
    english = language == "en" or ask.english
    question_key = _question_key(question, report)
    computed = compute.answer(question_key, report, ask, english, label_key(_fold(question)), _plain(question, report))
    if computed is not None:
        return computed
    parts = [p for p in _PARTS.split(unicodedata.normalize("NFKC", question)) if p.strip()]
    answers: list[ReportAnswer] = []
    subject = ""
    for index, part in enumerate(parts):
        part_key = _question_key(part, report)
        if not part_key:
            continue
        answer, match, refused = _figure(
            report, question_key, part_key, ask, english, subject if index else "", question
        )
        if refused and answer is not None:
            return answer
        if answer is None:
            if index == 0:
                # no row, or a row that leaves part of the question unexplained: "not in this report" only when
                # the report's text never names what is left (else another answerer reads the text)
                plain = _plain(question, report)  # a count or a dividend printed only in prose
                prose = prose_count(plain, report, english) or prose_dividend(plain, report, ask.currency, english)
                return prose or _absent(question_key, report, ask, english, question, match.covered if match else ())
            return None  # a part the facts cannot answer: the whole question goes to the next answerers
        answers.append(answer)
        if match is not None and not subject:
            subject = re.sub(r"(金额|总额|数量)$", "", match.key)
    if not answers:
        return None
    citations = [c for a in answers for c in a.citations]
    text = " ".join(a.text for a in answers)
    value, unit = (answers[0].value, answers[0].unit) if len(answers) == 1 else (None, None)
    unsure = list(dict.fromkeys(u for a in answers for u in a.unsure))
    return ReportAnswer(
        f"{text}\n{_source_lines(citations, english)}", "figure", answers[0].language, citations, value, unit, unsure
    )


_STOP_WORDS = {
    "what",
    "were",
    "much",
    "many",
    "fiscal",
    "does",
    "have",
    "spend",
    "spent",
    "during",
    "their",
    "total",
    "approximately",
    "about",
    "report",
    "company",
    "year",
    "amount",
    "how",
    "did",
    "group",  # "the Group": what UK and Australian reports call the company itself
}


def _absent(
    question_key: str,
    report: Report,
    ask: Ask,
    english: bool,
    question_key_text: str = "",
    covered: Sequence[str] = (),
) -> ReportAnswer | None:
    """ "Not in this report" when the asked year lies outside the report, or its text never names the metric."""
    years = report.years()
    if not _QUANTITY.search(question_key_text or question_key):
        return None  # "发展战略和2020年经营计划是什么" asks for no figure: retrieval reads the text
    if (
        ask.years
        and years
        and all(y not in years and y != report.year for y in ask.years)
        and max(ask.years) > max(years)
    ):
        return _not_in_report(report, None, list(ask.years), english, years)
    if not report.text:
        return None
    text = _fold(report.text)
    cjk = sum("\u4e00" <= ch <= "\u9fff" for ch in text[:20_000])
    if english != (cjk < len(text[:20_000]) // 20):
        return None  # the report is in the other language: its text cannot show what it never names
    if english:
        if covered:  # a row matched and words are left over: too weak a sign without word segmentation
            return None
        words = [w for w in re.findall(r"[a-z]{4,}", _plain(question_key_text, report)) if w not in _STOP_WORDS]
        if len(words) >= 2 and not near(text, words[:3]):
            return _not_in_report(report, " ".join(words[:3]), [], english, years)
        return None
    core = residual(question_key, list(covered), english)
    # only a quantity the question names as one phrase ("碳排放总量"), not words left between removed ones
    if not _QUANTITY.search(question_key) or len(core) < 3 or core not in question_key:
        return None
    if aliases_in(core):  # a spelling of a listed figure (归母净利润): the report prints it under another name
        return None
    if core[:3] not in text and not any(core[:3] in f.key for f in report.facts):
        return _not_in_report(report, core, [], english, years)
    return None


def asks_for_figure(question: str) -> bool:
    """Whether a question may be about a figure (cheap: checked before any report is loaded)."""
    return bool(_FIGURE_QUESTION.search(unicodedata.normalize("NFKC", question)))


def answer_from_facts(
    question: str, reports: Sequence[Report], language: str, scoped: bool = False
) -> ReportAnswer | None:
    """The answer from the facts of the reports in scope, or None to leave the question to other answerers.

    ``scoped``: the caller named these documents (or the question's own words did), so a question that names
    no company is about them; otherwise only the reports whose company the question names are used."""
    if not reports or not _FIGURE_QUESTION.search(unicodedata.normalize("NFKC", question)):
        return None
    folded = _fold(question)
    named = [r for r in reports if any(a in folded for a in aliases(r))]
    if not named:  # cited by the start of its name ("Swiss Water"): only when one report alone is so cited
        cited = [r for r in reports if any(p in folded for p in name_prefixes(r))]
        named = cited if len(cited) == 1 else []
    if not named:
        if not scoped or len(reports) > 1:
            return None
        named = list(reports)
    answers = [a for r in named[:3] if (a := _answer_one(question, r, language)) is not None]
    if not answers:
        return None
    if len(answers) == 1:
        return answers[0]
    return ReportAnswer(
        "\n\n".join(a.text for a in answers),
        answers[0].kind,
        answers[0].language,
        [c for a in answers for c in a.citations],
        unsure=list(dict.fromkeys(u for a in answers for u in a.unsure)),
    )
