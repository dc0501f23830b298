"""Gold for the third held-out set (``spare_parts_kb``), written before any change to the table path.

``spare_parts_questions.jsonl`` is frozen, then measured untuned (bench/results/table_questions.md, set 3 before) and
only then used to find failures.

``python -m eval.table_heldout.spare_parts_gold`` writes the file once.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from eval.table_heldout.orders_gold import HERE, _q
from eval.table_heldout.spare_parts_kb import DEPARTMENTS, MILESTONES, World3, write_kb3

QUESTIONS3 = HERE / "spare_parts_questions.jsonl"


def top(totals: dict[str, Any], n: int = 1) -> list[str]:
    """The ``n`` largest keys, refusing (an assertion) a tie at the cut: a tied argmax has no one gold answer."""
    ranked = sorted(totals, key=totals.__getitem__, reverse=True)
    if len(ranked) > n:
        assert totals[ranked[n - 1]] != totals[ranked[n]], f"tie at the cut: {totals}"
    return ranked[:n]


def tally(rows: Iterable[Any], key: Callable[[Any], str], value: Callable[[Any], Any] = lambda _: 1) -> dict[str, Any]:
    out: dict[str, Any] = defaultdict(int)
    for row in rows:
        out[key(row)] += value(row)
    return dict(out)


def avg(values: list[Decimal]) -> Decimal:
    return (sum(values, Decimal(0)) / len(values)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def questions3(w: World3) -> list[dict[str, Any]]:
    p, h, e, t = w.parts, w.people, w.expenses, w.tickets
    chen = next(x for x in h if x.dept == "市场部" and x.post != "部门经理")
    return [
        _q("p01", "备件库存表里一共有多少种备件？", "number", len(p), "count"),
        _q("p02", "电气类的备件有几种？", "number", sum(1 for x in p if x.kind == "电气"), "count"),
        _q("p03", "存放在B区的备件现存数量合计是多少？", "number", sum(x.qty for x in p if x.bay == "B区"), "sum"),
        _q("p04", "单价最高的备件是哪个？", "ranked", top({x.name: x.price for x in p}), "argmax"),
        _q("p05", "列出所有液压类备件", "items", [x.name for x in p if x.kind == "液压"], "list"),
        _q("p06", "现存数量低于10的备件有哪些？", "items", [x.name for x in p if x.qty < 10], "list"),
        _q("h01", "花名册里一共有多少名员工？", "number", len(h), "count"),
        _q("h02", "技术部有多少人？", "number", sum(1 for x in h if x.dept == "技术部"), "count"),
        _q("h03", "硕士学历的员工有几个？", "number", sum(1 for x in h if x.degree == "硕士"), "count"),
        _q("h04", "2022年入职的员工有多少人？", "number", sum(1 for x in h if x.joined.year == 2022), "count"),
        _q(
            "h05",
            "销售部员工的平均基本工资是多少？",
            "number",
            avg([Decimal(x.salary) for x in h if x.dept == "销售部"]),
            "avg",
        ),
        _q("h06", "哪个部门的人最多？", "ranked", top(tally(h, lambda x: x.dept)), "argmax"),
        _q("h07", "基本工资最高的三个人是谁？", "ranked", top({x.name: x.salary for x in h}, 3), "top"),
        _q("h08", f"{chen.name}是哪天入职的？", "text", chen.joined.isoformat(), "date"),
        _q("h09", "技术部的部门经理是谁？", "text", DEPARTMENTS[0][1], "lookup"),
        _q("h10", "博士学历的员工有哪些？", "items", [x.name for x in h if x.degree == "博士"], "list"),
        _q(
            "e01",
            "How many expenses were not reimbursed?",
            "number",
            sum(1 for x in e if x.reimbursed == "No"),
            "count",
        ),
        _q(
            "e02",
            "What is the total hotel spend?",
            "number",
            sum((x.amount for x in e if x.kind == "Hotel"), Decimal(0)),
            "sum",
        ),
        _q("e03", "average taxi expense", "number", avg([x.amount for x in e if x.kind == "Taxi"]), "avg"),
        _q(
            "e04", "Which team spent the most?", "ranked", top(tally(e, lambda x: x.team, lambda x: x.amount)), "argmax"
        ),
        _q(
            "e05",
            "How much was reimbursed to Ethan in total?",
            "number",
            sum((x.amount for x in e if x.employee == "Ethan" and x.reimbursed == "Yes"), Decimal(0)),
            "sum",
        ),
        _q("e06", "List the cities visited", "items", sorted({x.city for x in e}), "list"),
        _q(
            "e07",
            "How many expenses in Denver in August?",
            "number",
            sum(1 for x in e if x.city == "Denver" and x.day.month == 8),
            "count",
        ),
        _q(
            "t01",
            "How many P1 tickets are still open?",
            "number",
            sum(1 for x in t if x.priority == "P1" and x.status == "Open"),
            "count",
        ),
        _q("t02", "how many tickets did Maria handle?", "number", sum(1 for x in t if x.agent == "Maria"), "count"),
        _q("t03", "Which category has the most tickets?", "ranked", top(tally(t, lambda x: x.category)), "argmax"),
        _q(
            "t04",
            "Average hours spent on network tickets?",
            "number",
            avg([x.hours for x in t if x.category == "Network"]),
            "avg",
        ),
        _q("t05", "8月份一共新建了多少张工单？", "number", sum(1 for x in t if x.created.month == 8), "count"),
        _q("m01", "哪些里程碑还没开始？", "items", [m[0] for m in MILESTONES if m[3] == "未开始"], "list"),
        _q(
            "m02",
            "系统正式上线计划在哪天完成？",
            "text",
            next(m[2] for m in MILESTONES if m[0] == "系统正式上线").isoformat(),
            "date",
        ),
        _q("m03", "陆明负责哪些里程碑？", "items", [m[0] for m in MILESTONES if m[1] == "陆明"], "list"),
        _q("r01", "上个月新建了多少张工单？", "refuse", None, "refuse"),
        _q("r02", "What is the total amount for the Legal team?", "refuse", None, "refuse"),
        _q("r03", "财务部的基本工资合计是多少？", "refuse", None, "refuse"),
    ]


def _check(w: World3) -> None:
    """The generated data makes each question answerable as intended (no empty lists, no missing values)."""
    assert 0 < sum(1 for x in w.parts if x.qty < 10) < 8
    assert any(x.degree == "博士" for x in w.people)
    assert any(x.priority == "P1" and x.status == "Open" for x in w.tickets)
    assert Counter(x.joined.year for x in w.people)[2022] > 0
    assert all(x.joined < dt.date(2025, 1, 1) for x in w.people)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = write_kb3(Path(tmp))
    _check(world)
    rows = questions3(world)
    QUESTIONS3.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} questions to {QUESTIONS3}")


if __name__ == "__main__":
    main()
