"""Gold for the second held-out set (``inventory_attendance_kb``), written before further tuning.

``inventory_attendance_questions.jsonl`` is frozen.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

from eval.table_heldout.inventory_attendance_kb import ACTIONS, PROJECTS, WAREHOUSES, World2, write_kb2
from eval.table_heldout.orders_gold import HERE, _q

QUESTIONS2 = HERE / "inventory_attendance_questions.jsonl"


def questions2(w: World2) -> list[dict[str, Any]]:
    s, a, o = w.stock, w.attendance, w.orders
    shipped = [x for x in o if x[7] != "Returned"]
    by_rep: dict[str, Decimal] = defaultdict(Decimal)
    for x in shipped:
        by_rep[x[3]] += x[6]
    late: dict[str, int] = defaultdict(int)
    for x in a:
        late[x[0]] += x[3]
    qty_by_wh: dict[str, int] = defaultdict(int)
    for x in s:
        qty_by_wh[x[2]] += x[3]
    return [
        _q("k01", "库存明细里一共有多少条记录？", "number", len(s), "count"),
        _q("k02", "二号仓有多少种物料？", "number", len({x[1] for x in s if x[2] == "二号仓"}), "count"),
        _q("k03", "库存数量为0的物料记录有几条？", "number", sum(1 for x in s if x[3] == 0), "count"),
        _q("k04", "一号仓的库存数量合计是多少？", "number", sum(x[3] for x in s if x[2] == "一号仓"), "sum"),
        _q("k05", "哪个仓库的库存数量最多？", "ranked", [max(qty_by_wh, key=qty_by_wh.__getitem__)], "argmax"),
        _q("k06", "三号仓在哪个城市？负责人是谁？", "items", [WAREHOUSES[2][1], WAREHOUSES[2][2]], "lookup"),
        _q("k07", "宋佳上半年一共迟到了多少次？", "number", sum(x[3] for x in a if x[0] == "宋佳"), "sum"),
        _q("k08", "质量部有几个人？", "number", len({x[0] for x in a if x[1] == "质量部"}), "count"),
        _q(
            "k09",
            "迟到次数最多的员工是谁？",
            "items",
            sorted(k for k, v in late.items() if v == max(late.values())),
            "argmax",
        ),
        _q(
            "k10", "3月份请假天数合计是多少？", "number", sum((x[4] for x in a if x[2] == "2024-03"), Decimal(0)), "sum"
        ),
        _q("k11", "How many orders were returned?", "number", sum(1 for x in o if x[7] == "Returned"), "count"),
        _q(
            "k12",
            "Total revenue in Texas, excluding returned orders?",
            "number",
            sum((x[6] for x in shipped if x[2] == "TX"), Decimal(0)),
            "sum",
        ),
        _q(
            "k13",
            "Which rep has the highest revenue (excluding returned orders)?",
            "ranked",
            [max(by_rep, key=by_rep.__getitem__)],
            "argmax",
        ),
        _q(
            "k14",
            "how many Gizmo units were sold in June?",
            "number",
            sum(x[5] for x in o if x[4] == "Gizmo" and x[1].month == 6),
            "sum",
        ),
        _q("k15", "list the reps", "items", sorted({x[3] for x in o}), "list"),
        _q("k16", "有哪些项目还在进行中？", "items", [p[0] for p in PROJECTS if p[4] == "进行中"], "list"),
        _q("k17", "周宁负责的项目预算一共多少万元？", "number", sum(p[3] for p in PROJECTS if p[1] == "周宁"), "sum"),
        _q(
            "k18",
            "数据中台项目是哪天开始的？",
            "text",
            next(p[2] for p in PROJECTS if p[0] == "数据中台").isoformat(),
            "date",
        ),
        _q("k19", "评审会布置了哪些工作？分别由谁负责？", "items", [x for a_ in ACTIONS for x in a_[:2]], "list"),
        _q("k20", "林峰负责的事项有几项？", "number", sum(1 for x in ACTIONS if x[1] == "林峰"), "count"),
        _q("k21", "休息日加班怎么补偿？", "items", ["调休"], "text"),
        _q("k22", "今年一号仓入库了多少条？", "refuse", None, "refuse"),
        _q("k23", "四号仓的库存数量合计", "refuse", None, "refuse"),
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = write_kb2(Path(tmp))
    rows = questions2(world)
    QUESTIONS2.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} questions to {QUESTIONS2}")


if __name__ == "__main__":
    main()
