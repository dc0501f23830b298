"""The table held-out questions (issue 23) and their gold answers, computed from ``orders_kb.World``'s Python rows.

``python -m eval.table_heldout.orders_gold`` writes ``orders_questions.jsonl`` once; the file is then frozen (committed
before any tuning, and a test checks its digest). Questions are phrased as a user types them, Chinese and
English, over the whole knowledge base (no document named unless the user would name it).

Gold kinds: ``number`` (a count, sum, average: one exact value), ``items`` (a complete list, any order),
``ranked`` (top-n, in order), ``text`` (one cell: a date, a name), ``refuse`` (no one answer: relative
time, a value no table holds).
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

from eval.table_heldout.orders_kb import ACTIONS, LEAVE, Q2_PLAN, SUPPLIERS, World, write_kb

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "orders_questions.jsonl"


def _q(qid: str, question: str, kind: str, expected: Any = None, category: str = "") -> dict[str, Any]:
    if isinstance(expected, Decimal):
        expected = format(expected.normalize(), "f")
    return {"id": qid, "question": question, "kind": kind, "expected": expected, "category": category}


def questions(w: World) -> list[dict[str, Any]]:
    o = w.orders
    live = [x for x in o if x.status != "已取消"]
    dec = [x for x in o if x.day.year == 2023 and x.day.month == 12]
    by_region_live: dict[str, Decimal] = defaultdict(Decimal)
    for x in live:
        by_region_live[x.region] += x.amount
    by_product: dict[str, Decimal] = defaultdict(Decimal)
    for x in o:
        by_product[x.product] += x.amount
    top3_products = sorted(by_product, key=lambda p: -by_product[p])[:3]
    q3 = [x for x in o if dt.date(2023, 7, 1) <= x.day <= dt.date(2023, 9, 30)]
    staff = w.staff
    rd = [s for s in staff if s[2] == "研发部"]
    top_paid = max(staff, key=lambda s: s[5])
    joined_2020 = [s for s in staff if s[4].year == 2020]
    someone = staff[7]
    c = w.contracts
    buy = [x for x in c if x[2] == "采购合同"]
    running = [x for x in c if x[5] == "执行中"]
    biggest = max(c, key=lambda x: x[4])
    c2023 = [x for x in c if x[1].year == 2023]
    one_contract = c[4]
    e = w.expenses
    rejected = [x for x in e if x[6] == "Rejected"]
    sales_ok = sum((x[5] for x in e if x[3] == "Sales" and x[6] == "Approved"), Decimal(0))
    by_emp: dict[str, Decimal] = defaultdict(Decimal)
    for x in e:
        if x[6] == "Approved":
            by_emp[x[2]] += x[5]
    top3_emp = sorted(by_emp, key=lambda k: -by_emp[k])[:3]
    march = [x for x in e if x[1].month == 3]
    travel_avg = (
        sum((x[5] for x in e if x[4] == "Travel"), Decimal(0)) / sum(1 for x in e if x[4] == "Travel")
    ).quantize(Decimal("0.01"))
    b = w.budget
    over = sorted({d for d, _, bud, act in b if act > bud and _ == "Q3"})
    mkt_budget = sum(bud for d, _, bud, _a in b if d == "市场部")
    cats = Counter(x[4] for x in e)
    east_credit = sum(cr for _, r, _, cr in w.customers if r == "华东")
    return [
        # counts: the whole table, with conditions, distinct
        _q("c01", "订单明细表里一共有多少条订单记录？", "number", len(o), "count"),
        _q("c02", "2023年12月一共有多少笔订单？", "number", len(dec), "count"),
        _q("c03", "已取消的订单有多少笔？", "number", sum(1 for x in o if x.status == "已取消"), "count"),
        _q("c04", "华南区第三季度下了多少单？", "number", sum(1 for x in q3 if x.region == "华南"), "count"),
        _q("c05", "研发部有几个人？", "number", len(rd), "count"),
        _q("c06", "合同台账里有多少份采购合同？", "number", len(buy), "count"),
        _q("c07", "2023年一共签了多少份合同？", "number", len(c2023), "count"),
        _q("c08", "How many expense claims were rejected?", "number", len(rejected), "count"),
        _q("c09", "how many claims were filed in March?", "number", len(march), "count"),
        _q("c10", "2020年入职的员工有多少人？", "number", len(joined_2020), "count"),
        _q("c11", "评级为A的供应商有几家？", "number", sum(1 for s in SUPPLIERS if s[3] == "A"), "count"),
        _q(
            "c12", "扫地机器人一共卖出了多少台？", "number", sum(x.qty for x in o if x.product == "扫地机器人"), "count"
        ),
        # sums, averages, qualifiers the question defines
        _q(
            "s01",
            "哪个区域的有效销售额（不含已取消订单）最高？",
            "ranked",
            [max(by_region_live, key=by_region_live.__getitem__)],
            "argmax",
        ),
        _q(
            "s02",
            "2023年订单总金额是多少（不含已取消订单）？",
            "number",
            sum((x.amount for x in live), Decimal(0)),
            "sum",
        ),
        _q("s03", "研发部的月薪合计是多少？", "number", sum(s[5] for s in rd), "sum"),
        _q("s04", "Total approved expenses for the Sales department?", "number", sales_ok, "sum"),
        _q("s05", "What is the average amount of Travel claims?", "number", travel_avg, "avg"),
        _q("s06", "市场部全年的预算金额合计是多少？", "number", mkt_budget, "sum"),
        _q(
            "s07",
            "12月份华东区的订单金额合计",
            "number",
            sum((x.amount for x in dec if x.region == "华东"), Decimal(0)),
            "sum",
        ),
        _q("s08", "华东区客户的信用额度加起来是多少？", "number", east_credit, "sum"),
        _q("s09", "采购合同的合同金额总共多少钱？", "number", sum((x[4] for x in buy), Decimal(0)), "sum"),
        _q(
            "s10",
            "智能门锁的有效订单（不含已取消）金额合计",
            "number",
            sum((x.amount for x in live if x.product == "智能门锁"), Decimal(0)),
            "sum",
        ),
        # top-n and argmax
        _q("t01", "销售额排名前三的产品是哪些？", "ranked", top3_products, "top"),
        _q("t02", "月薪最高的员工是谁？", "ranked", [top_paid[1]], "argmax"),
        _q("t03", "Top 3 employees by approved expense amount", "ranked", top3_emp, "top"),
        _q("t04", "合同金额最大的是哪家单位？", "ranked", [biggest[3]], "argmax"),
        _q("t05", "Which expense category has the most claims?", "ranked", [cats.most_common(1)[0][0]], "argmax"),
        # lists: every item
        _q(
            "l01",
            "这次会议确定了哪些行动项？分别由谁负责？",
            "items",
            [a for a, _, _ in ACTIONS] + [p for _, p, _ in ACTIONS],
            "list",
        ),
        _q("l02", "第二季度的行动计划有哪些？", "items", Q2_PLAN, "list"),
        _q("l03", "研发部有哪些员工？", "items", [s[1] for s in rd], "list"),
        _q("l04", "评级为A的供应商有哪些？", "items", [s[0] for s in SUPPLIERS if s[3] == "A"], "list"),
        _q("l05", "列出所有执行中的合同编号", "items", [x[0] for x in running], "list"),
        _q("l06", "List the expense categories", "items", sorted(cats), "list"),
        _q("l07", "产品目录里有哪些产品？", "items", list(by_product), "list"),
        _q("l08", "第三季度实际支出超过预算的部门有哪些？", "items", over, "list"),
        # dates and one cell
        _q("d01", "各行动项的截止日期分别是什么时候？", "items", [d.isoformat() for _, _, d in ACTIONS], "date"),
        _q("d02", f"{someone[1]}是哪天入职的？", "text", someone[4].isoformat(), "date"),
        _q("d03", f"合同{one_contract[0]}是哪天签订的？", "text", one_contract[1].isoformat(), "date"),
        _q("d04", "评估仓储系统供应商报价这项工作谁负责？截止到哪天？", "items", ["孙浩", "2024-08-05"], "date"),
        _q("d05", "国庆节放假从哪天到哪天？", "items", ["10月1日", "7日"], "date"),
        _q("d06", "工作满10年的员工有几天年假？", "text", str(LEAVE[1][1]), "lookup"),
        # no one answer: must be refused, never guessed
        _q("r01", "去年的订单金额合计是多少？", "refuse", None, "refuse"),
        _q("r02", "华中区的订单有多少笔？", "refuse", None, "refuse"),
        _q("r03", "total amount of claims last month", "refuse", None, "refuse"),
        _q("r04", "身份证号加起来是多少？", "refuse", None, "refuse"),
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = write_kb(Path(tmp))
    rows = questions(world)
    QUESTIONS.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} questions to {QUESTIONS}")


if __name__ == "__main__":
    main()
