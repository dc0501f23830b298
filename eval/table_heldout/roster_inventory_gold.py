"""Gold for the sixth held-out table set (issue 35), computed with pandas from the files ``roster_inventory_kb``
writes (never with the product's code), frozen before any change to the table path for issue 35 and never tuned on.

``python -m eval.table_heldout.roster_inventory_gold`` writes ``roster_inventory_questions.jsonl`` once.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from eval.table_heldout.orders_gold import HERE, _q
from eval.table_heldout.roster_inventory_kb import write_roster_inventory_kb

ROSTER_INVENTORY_QUESTIONS = HERE / "roster_inventory_questions.jsonl"


def _num(value: Any) -> str:
    """A gold number as text: integers without a decimal point, others rounded to the cent."""
    value = float(value)
    return str(int(value)) if value == int(value) else f"{round(value, 2):.2f}".rstrip("0").rstrip(".")


def _pct(part: float, whole: float) -> str:
    """A share as a percentage to one decimal place."""
    return f"{round(100 * part / whole, 1):.1f}"


def _ranked(series: pd.Series, n: int = 1, ascending: bool = False) -> list[str]:
    """The ``n`` first keys in order; asserts no tie at the cut (the order must be one)."""
    ranked = series.sort_values(ascending=ascending)
    assert ranked.iloc[: n + 1].is_unique, ranked.iloc[: n + 1].to_dict()
    return [str(k) for k in ranked.index[:n]]


def _hr_questions(hr: pd.DataFrame) -> list[dict[str, Any]]:
    ft = hr["Full-time"] == "Y"
    return [
        _q("r01", "How many employees work in Engineering?", "number", int((hr["Department"] == "Engineering").sum()),
           "count"),
        _q("r02", "How many full-time employees are based in Boston?", "number",
           int((ft & (hr["City"] == "Boston")).sum()), "count"),
        _q("r03", "What is the total salary of the Sales department?", "number",
           _num(hr[hr["Department"] == "Sales"]["Salary"].sum()), "sum"),
        _q("r04", "What is the average salary per employee in Finance?", "number",
           _num(hr[hr["Department"] == "Finance"]["Salary"].mean()), "avg"),
        _q("r05", "Who is the lowest-paid employee in Marketing?", "ranked",
           _ranked(hr[hr["Department"] == "Marketing"].set_index("Name")["Salary"], ascending=True), "argmin"),
        _q("r06", "Who are the top 3 earners in Engineering?", "ranked",
           _ranked(hr[hr["Department"] == "Engineering"].set_index("Name")["Salary"], 3), "top"),
        _q("r07", "List the employees hired after 2022.", "items",
           hr[hr["Hire Date"].dt.year > 2022]["Name"].tolist(), "list"),
        _q("r08", "How many employees were hired in 2023?", "number", int((hr["Hire Date"].dt.year == 2023).sum()),
           "count"),
        _q("r09", "Which employees earn less than 50000?", "items", hr[hr["Salary"] < 50000]["Name"].tolist(), "list"),
        _q("r10", "How many employees have a rating of at least 4?", "number", int((hr["Rating"] >= 4).sum()),
           "count"),
        _q("r11", "What percentage of the total salary goes to Engineering?", "number",
           _pct(hr[hr["Department"] == "Engineering"]["Salary"].sum(), hr["Salary"].sum()), "share"),
        _q("r12", "How many employees are not full-time?", "number", int((~ft).sum()), "count"),
        _q("r13", "Which department has the highest total salary?", "ranked",
           _ranked(hr.groupby("Department")["Salary"].sum()), "argmax"),
        _q("r14", "What is the average rating of full-time employees in Chicago?", "number",
           _num(hr[ft & (hr["City"] == "Chicago")]["Rating"].mean()), "avg"),
        _q("r15", "How many employees in Austin are not in Engineering?", "number",
           int(((hr["City"] == "Austin") & (hr["Department"] != "Engineering")).sum()), "count"),
    ]


def _inventory_questions(inv: pd.DataFrame) -> list[dict[str, Any]]:
    live = inv["是否停用"] == "否"
    return [
        _q("r16", "电子类物料的库存数量一共有多少？", "number", _num(inv[inv["类别"] == "电子"]["库存数量"].sum()),
           "sum"),
        _q("r17", "一号仓有几种物料？", "number", int((inv["仓库"] == "一号仓").sum()), "count"),
        _q("r18", "已停用的物料有哪些？", "items", inv[~live]["物料名称"].tolist(), "list"),
        _q("r19", "库存数量超过1000的物料有几种？", "number", int((inv["库存数量"] > 1000).sum()), "count"),
        _q("r20", "单价最高的物料是哪个？", "ranked", _ranked(inv.set_index("物料名称")["单价"]), "argmax"),
        _q("r21", "二号仓里没有停用的物料有哪些？", "items",
           inv[(inv["仓库"] == "二号仓") & live]["物料名称"].tolist(), "list"),
        _q("r22", "2024年入库的电子类物料有多少种？", "number",
           int(((inv["入库日期"].dt.year == 2024) & (inv["类别"] == "电子")).sum()), "count"),
        _q("r23", "五金类物料的库存数量占全部库存数量的比例是多少？", "number",
           _pct(inv[inv["类别"] == "五金"]["库存数量"].sum(), inv["库存数量"].sum()), "share"),
        _q("r24", "库存数量最少的三种物料是哪些？", "ranked", _ranked(inv.set_index("物料名称")["库存数量"], 3, True),
           "top"),
        _q("r25", "单价不低于10元的物料有几种？", "number", int((inv["单价"] >= 10).sum()), "count"),
        _q("r26", "包材类物料的平均单价是多少？", "number", _num(inv[inv["类别"] == "包材"]["单价"].mean()), "avg"),
    ]


def _regional_questions(reg: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        _q("r27", "What is the total revenue across all regions?", "number", _num(reg["Revenue (USD)"].sum()), "sum"),
        _q("r28", "Which region sold the most units?", "ranked", _ranked(reg.set_index("Region")["Units Sold"]),
           "argmax"),
        _q("r29", "How many regions had revenue over 50000?", "number", int((reg["Revenue (USD)"] > 50000).sum()),
           "count"),
        _q("r30", "What share of the units sold did the West region sell?", "number",
           _pct(reg[reg["Region"] == "West"]["Units Sold"].sum(), reg["Units Sold"].sum()), "share"),
        _q("r31", "What is the average revenue per region?", "number", _num(reg["Revenue (USD)"].mean()), "avg"),
    ]


def _unanswerable() -> list[dict[str, Any]]:
    return [
        _q("u01", "What is the bonus of Alice Moreau?", "refuse", None, "refuse"),
        _q("u02", "What is the average salary in the Legal department?", "refuse", None, "refuse"),
        _q("u03", "三号仓的物料明年需要补货多少？", "refuse", None, "refuse"),
        _q("u04", "上个月入库的物料有几种？", "refuse", None, "refuse"),
        _q("u05", "What was the revenue of the North region in FY2023?", "refuse", None, "refuse"),
        _q("u06", "继电器的供应商是谁？", "refuse", None, "refuse"),
    ]


def roster_inventory_questions(paths: dict[str, Path]) -> list[dict[str, Any]]:
    hr = pd.read_excel(paths["roster"], engine="openpyxl", parse_dates=["Hire Date"])
    inv = pd.read_csv(paths["inventory"], parse_dates=["入库日期"])
    reg = pd.read_csv(paths["regional"], header=1)
    reg = reg[reg["Region"] != "Total"]  # the totals row is not a region
    return _hr_questions(hr) + _inventory_questions(inv) + _regional_questions(reg) + _unanswerable()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rows = roster_inventory_questions(write_roster_inventory_kb(Path(tmp)))
    ROSTER_INVENTORY_QUESTIONS.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                          encoding="utf-8")
    print(f"wrote {len(rows)} questions to {ROSTER_INVENTORY_QUESTIONS}")


if __name__ == "__main__":
    main()
