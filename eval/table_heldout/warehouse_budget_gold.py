"""Gold for the fifth held-out set, computed with pandas from the files ``warehouse_budget_kb`` writes (independent of
the table code), frozen and measured once before any change to the table path, then never tuned on.

``python -m eval.table_heldout.warehouse_budget_gold`` writes ``warehouse_budget_questions.jsonl`` once.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from eval.table_heldout.orders_gold import HERE, _q
from eval.table_heldout.warehouse_budget_kb import write_kb5

QUESTIONS5 = HERE / "warehouse_budget_questions.jsonl"


def _docx_frame(path: Path) -> pd.DataFrame:
    import docx

    table = docx.Document(str(path)).tables[0]
    rows = [[c.text for c in r.cells] for r in table.rows]
    frame = pd.DataFrame(rows[1:], columns=rows[0])
    for col in ("预算金额", "实际金额"):
        frame[col] = frame[col].astype(float)
    return frame


def _num(value: Any) -> str:
    """A gold number as text: integers without a decimal point, others rounded to the cent."""
    value = float(value)
    return str(int(value)) if value == int(value) else f"{round(value, 2):.2f}".rstrip("0").rstrip(".")


def _top(series: pd.Series, n: int = 1) -> list[str]:
    """The ``n`` largest keys in order; asserts no tie among the first ``n + 1`` (the order must be one)."""
    ranked = series.sort_values(ascending=False)
    head = ranked.iloc[: n + 1]
    assert head.is_unique, f"tie among the top {n}: {head.to_dict()}"
    return [str(k) for k in ranked.index[:n]]


def questions5(paths: dict[str, Path]) -> list[dict[str, Any]]:
    inv = pd.read_excel(paths["inventory"], sheet_name="库存明细", header=1, engine="openpyxl")
    hr = pd.read_excel(paths["roster"], engine="openpyxl")
    bud = _docx_frame(paths["budget"])
    sales = pd.read_csv(paths["sales"], parse_dates=["Order Date"])
    hr["入职时间"] = pd.to_datetime(hr["入职时间"])
    inv["入库日期"] = pd.to_datetime(inv["入库日期"])
    done = sales[sales["Status"] != "Cancelled"]
    return [
        _q("q01", "库存表里一共有多少种物料？", "number", len(inv), "count"),
        _q("q02", "电子类物料的库存数量合计是多少", "number",
           _num(inv[inv["类别"] == "电子"]["库存数量"].sum()), "sum"),
        _q("q03", "二号仓里放了几种物料？", "number", int((inv["仓库"] == "二号仓").sum()), "count"),
        _q("q04", "库存数量低于最低库存的物料有哪些？", "items",
           inv[inv["库存数量"] < inv["最低库存"]]["物料名称"].tolist(), "list"),
        _q("q05", "单价最高的物料是哪个", "ranked", _top(inv.set_index("物料名称")["单价"]), "argmax"),
        _q("q06", "最低库存是100的物料有几种？", "number", int((inv["最低库存"] == 100).sum()), "count"),
        _q("q07", "2025年3月入库的物料有多少种", "number",
           int(((inv["入库日期"].dt.year == 2025) & (inv["入库日期"].dt.month == 3)).sum()), "count"),
        _q("q08", "研发部有多少人？", "number", int((hr["部门"] == "研发部").sum()), "count"),
        _q("q09", "请问研发部员工的平均月薪是多少？", "number", _num(hr[hr["部门"] == "研发部"]["月薪"].mean()), "avg"),
        _q("q10", "月薪最高的三个人是谁", "ranked", _top(hr.set_index("姓名")["月薪"], 3), "top"),
        _q("q11", "绩效评分等于5的员工有几位？", "number", int((hr["绩效评分"] == 5).sum()), "count"),
        _q("q12", "2023年入职的员工有多少人？", "number", int((hr["入职时间"].dt.year == 2023).sum()), "count"),
        _q("q13", "在上海工作的财务部员工都有谁？", "items",
           hr[(hr["工作城市"] == "上海") & (hr["部门"] == "财务部")]["姓名"].tolist(), "list"),
        _q("q14", "哪个部门的月薪总额最高？", "ranked", _top(hr.groupby("部门")["月薪"].sum()), "argmax"),
        _q("q15", "实际金额高于预算金额的项目有哪些？", "items",
           bud[bud["实际金额"] > bud["预算金额"]]["项目名称"].tolist(), "list"),
        _q("q16", "所有项目的预算金额合计是多少万元？", "number", _num(bud["预算金额"].sum()), "sum"),
        _q("q17", "已完成的项目有几个", "number", int((bud["状态"] == "已完成").sum()), "count"),
        _q("q18", "张伟负责的项目实际金额一共多少？", "number",
           _num(bud[bud["负责人"] == "张伟"]["实际金额"].sum()), "sum"),
        _q("q19", "How many orders were placed in the East region?", "number",
           int((sales["Region"] == "East").sum()), "count"),
        _q("q20", "What is the total revenue for Widget A?", "number",
           _num(sales[sales["Product"] == "Widget A"]["Revenue"].sum()), "sum"),
        _q("q21", "Which sales rep sold the most units?", "ranked", _top(sales.groupby("Sales Rep")["Units"].sum()),
           "argmax"),
        _q("q22", "average revenue per order in March 2024", "number",
           _num(sales[sales["Order Date"].dt.month == 3]["Revenue"].mean()), "avg"),
        _q("q23", "list the orders with more than 43 units", "items",
           sales[sales["Units"] > 43]["Order ID"].tolist(), "list"),
        _q("q24", "How many orders in the West region, excluding cancelled ones?", "number",
           int((done["Region"] == "West").sum()), "count"),
        _q("q25", "West地区的销售额一共是多少？", "number", _num(sales[sales["Region"] == "West"]["Revenue"].sum()),
           "sum"),
        _q("q26", "销量最多的产品是哪个？", "ranked", _top(sales.groupby("Product")["Units"].sum()), "argmax"),
        _q("q27", "2024年4月有多少笔订单？", "number",
           int(((sales["Order Date"].dt.year == 2024) & (sales["Order Date"].dt.month == 4)).sum()), "count"),
        _q("q28", "Carmen的订单有多少个", "number", int((sales["Sales Rep"] == "Carmen").sum()), "count"),
        _q("q29", "下个月的销售目标是多少？", "refuse", None, "refuse"),
        _q("q30", "法务部员工的平均月薪是多少？", "refuse", None, "refuse"),
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rows = questions5(write_kb5(Path(tmp)))
    QUESTIONS5.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} questions to {QUESTIONS5}")


if __name__ == "__main__":
    main()
