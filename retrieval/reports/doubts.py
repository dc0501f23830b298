"""What a figure answer from report facts cannot vouch for (the statement it comes from, the period of its column),
so that it is handed over (``retrieval.answerers.handover``) instead of stated: precision first, one reading for
every figure answer."""

from __future__ import annotations

from indexing.reports.statements import STATEMENT
from retrieval.reports.facts import Fact
from retrieval.reports.lookup import Match, column_term, names_table, role_rank
from retrieval.reports.question import Ask

__all__ = ["NOTE_RANK", "synonym_off_statement", "unsure_of"]

NOTE_RANK = 3  # role_rank of a note or part table


def unsure_of(top: Match, fact: Fact, question_key: str, ask: Ask) -> list[str]:
    """What a figure answer cannot vouch for, so it is handed over instead of stated: the statement (a synonym's row
    off the statements; a note's or part's row the question does not name, such as a closed group's or a
    subsidiary's; the parent company's figure for a question about the group) or the period (a column whose
    header names none in a primary statement, which prints its periods over every value column: a misread note
    number or a guessed year)."""
    unsure = []
    named = names_table(fact, question_key)
    if (
        synonym_off_statement(top, fact, question_key)
        or (role_rank(fact) >= NOTE_RANK and not named)
        or (fact.parent_company and not ask.parent_company)
    ):
        unsure.append("statement")
    if fact.period is None and fact.role == STATEMENT and len(column_term(fact.column)) < 2:
        unsure.append("period")  # a statement prints its periods over every value column: this one was misread
    return unsure


def synonym_off_statement(top: Match, fact: Fact, question_key: str) -> bool:
    """Whether the row answers only by a synonym ("revenue" asked, "Sales" printed) in a table that is neither
    the key figures nor a primary statement, nor one the question names (a related-party note's "Sales", a
    contractual-obligations table): a company-level figure is printed in the statements, and when they were
    not read as tables the row found is likely another amount under a similar word, so the model decides."""
    return top.covered[0] != top.key and role_rank(fact) >= 2 and not names_table(fact, question_key)
