"""Held-out table question sets (issue 23), each a generator of office files, its gold and its frozen questions.

The files are named by what each set holds (the numbers are the order they were written in, which the bench's
labels ``fresh`` .. ``fresh5`` and the closing notes use):

1. ``orders_kb`` / ``orders_gold`` / ``orders_questions.jsonl``: ten office files around an order workbook
   (staff roster, contract register, expense sheet, budget, suppliers, minutes, plan, handbook, notice).
2. ``inventory_attendance_kb`` / ``inventory_attendance_gold`` / ``inventory_attendance_questions.jsonl``: an
   inventory workbook, an attendance summary, an English order csv, a project list, review minutes, a policy.
3. ``spare_parts_kb`` / ``spare_parts_gold`` / ``spare_parts_questions.jsonl``: a spare-parts inventory, an HR
   roster, an English travel-expense workbook, a helpdesk ticket csv, a .docx milestone table.
4. ``spare_parts_rephrased_gold`` / ``spare_parts_rephrased_questions.jsonl``: other phrasings over set 3's files.
5. ``warehouse_budget_kb`` / ``warehouse_budget_gold`` / ``warehouse_budget_questions.jsonl``: a warehouse
   inventory under a title row, an HR roster with scores, a .docx project budget, an English sales csv.
6. ``roster_inventory_kb`` / ``roster_inventory_gold`` / ``roster_inventory_questions.jsonl`` (issue 35): an English
   HR roster .xlsx with a Y/N column, a Chinese inventory .csv with a 是/否 column, an English .csv with a title line
   and a totals row; gold computed with pandas.

``judge`` scores an answer against any of them.
"""
