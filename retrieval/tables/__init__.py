"""Table questions answered by a structured query over the stored tables (DESIGN.md "Tables").

    from retrieval.tables import answer_table_question
    result = answer_table_question("华东区不含已取消订单的金额合计", store, doc_ids)
    result.outcome   # "exact" | "refused"
    result.query     # the query in words

Modules: ``lexicon`` (the words a question is made of), ``timeexpr`` (time ranges),
``linker`` (question -> columns, values, conditions of one table; its steps in ``linked``, ``link_columns``,
``link_values``, ``link_numbers``, ``link_rank`` and ``identity``), ``plan`` (-> one ``query`` or a refusal;
the operation's columns in ``plan_columns``), ``execute`` (-> parameterised SQL on the store), ``render``
(-> words and cited rows), ``answer`` (the entry point).
"""

from retrieval.tables.answer import TABLE_ROUTES, QuestionPlan, answer_for_route, answer_table_question, plan_question
from retrieval.tables.query import Filter, Refusal, TableQuery

__all__ = ["TABLE_ROUTES", "Filter", "QuestionPlan", "Refusal", "TableQuery", "answer_for_route",
           "answer_table_question", "plan_question"]
