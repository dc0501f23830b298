"""Gold for the fourth held-out set: other phrasings over the same ``spare_parts_kb``, frozen right after set 3 was
measured and before any change to the table path, then left unmeasured until the end (the one untouched held-out set).

``python -m eval.table_heldout.spare_parts_rephrased_gold`` writes ``spare_parts_rephrased_questions.jsonl`` once.
"""

from __future__ import annotations

import json
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

from eval.table_heldout.orders_gold import HERE, _q
from eval.table_heldout.spare_parts_gold import avg, tally
from eval.table_heldout.spare_parts_kb import MILESTONES, World3, write_kb3

QUESTIONS4 = HERE / "spare_parts_rephrased_questions.jsonl"


def strict_top(totals: dict[str, Any], n: int = 1) -> list[str]:
    """The ``n`` largest keys in order; no tie anywhere among the first ``n + 1`` (the order must be one)."""
    ranked = sorted(totals, key=totals.__getitem__, reverse=True)[: n + 1]
    values = [totals[k] for k in ranked]
    assert len(set(values)) == len(values), f"tie among the top {n}: {values}"
    return ranked[:n]


def questions4(w: World3) -> list[dict[str, Any]]:
    p, h, e, t = w.parts, w.people, w.expenses, w.tickets
    return [
        _q("q01", "机械类备件的现存数量加起来有多少？", "number", sum(x.qty for x in p if x.kind == "机械"), "sum"),
        _q("q02", "C区一共放了几种备件？", "number", sum(1 for x in p if x.bay == "C区"), "count"),
        _q("q03", "安全库存是30的备件有多少种？", "number", sum(1 for x in p if x.safety == 30), "count"),
        _q("q04", "本科学历的有多少人？", "number", sum(1 for x in h if x.degree == "本科"), "count"),
        _q("q05", "市场部都有谁？", "items", [x.name for x in h if x.dept == "市场部"], "list"),
        _q("q06", "全公司员工的平均基本工资", "number", avg([Decimal(x.salary) for x in h]), "avg"),
        _q(
            "q07",
            "Who spent the most on airfare?",
            "ranked",
            strict_top(tally([x for x in e if x.kind == "Airfare"], lambda x: x.employee, lambda x: x.amount)),
            "argmax",
        ),
        _q("q08", "number of expenses in Seattle", "number", sum(1 for x in e if x.city == "Seattle"), "count"),
        _q("q09", "How many tickets are pending?", "number", sum(1 for x in t if x.status == "Pending"), "count"),
        _q(
            "q10",
            "total hours spent on printer tickets",
            "number",
            sum((x.hours for x in t if x.category == "Printer"), Decimal(0)),
            "sum",
        ),
        _q(
            "q11",
            "Which agent has the most closed tickets?",
            "ranked",
            strict_top(tally([x for x in t if x.status == "Closed"], lambda x: x.agent)),
            "argmax",
        ),
        _q("q12", "已完成的里程碑有几个？", "number", sum(1 for m in MILESTONES if m[3] == "已完成"), "count"),
        _q("q13", "核心模块开发由谁负责？", "text", next(m[1] for m in MILESTONES if m[0] == "核心模块开发"), "lookup"),
        _q("q14", "下周要完成的里程碑有哪些？", "refuse", None, "refuse"),
        _q("q15", "人事部有多少员工？", "refuse", None, "refuse"),
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = write_kb3(Path(tmp))
    rows = questions4(world)
    QUESTIONS4.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} questions to {QUESTIONS4}")


if __name__ == "__main__":
    main()
