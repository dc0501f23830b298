"""A sixth held-out table knowledge base (issue 35): an English HR roster .xlsx with a Y/N column, a Chinese inventory
.csv with a 是/否 column, and a small English .csv with a title line above its header and a totals row.

Written before any change to the table path for issue 35, from fixed lists (no randomness), so every run writes the
same cells; the gold (``roster_inventory_gold.py``) is computed with pandas from the written files.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

__all__ = ["ROSTER", "write_roster_inventory_kb"]

#: name, department, city, full-time (Y/N), salary, hire date, rating
ROSTER: list[tuple[str, str, str, str, int, dt.date, int]] = [
    ("Alice Moreau", "Engineering", "Boston", "Y", 128000, dt.date(2019, 3, 4), 4),
    ("Bruno Keller", "Engineering", "Austin", "Y", 117500, dt.date(2021, 6, 14), 3),
    ("Chen Wei", "Engineering", "Boston", "N", 64000, dt.date(2023, 1, 9), 4),
    ("Dana Ortiz", "Sales", "Chicago", "Y", 82000, dt.date(2018, 9, 1), 5),
    ("Elif Yilmaz", "Sales", "Boston", "Y", 79000, dt.date(2022, 2, 21), 3),
    ("Farah Khan", "Sales", "Austin", "N", 41000, dt.date(2024, 4, 15), 2),
    ("Goran Petrov", "Finance", "Chicago", "Y", 96000, dt.date(2017, 11, 6), 4),
    ("Hana Sato", "Finance", "Boston", "Y", 101000, dt.date(2020, 8, 17), 5),
    ("Ivan Novak", "Marketing", "Austin", "Y", 73500, dt.date(2021, 10, 4), 3),
    ("Julia Brandt", "Marketing", "Chicago", "N", 38000, dt.date(2023, 7, 3), 4),
    ("Kofi Mensah", "Engineering", "Chicago", "Y", 121000, dt.date(2016, 5, 23), 5),
    ("Lena Fischer", "Support", "Austin", "Y", 52000, dt.date(2022, 12, 5), 3),
    ("Mateo Silva", "Support", "Boston", "N", 30500, dt.date(2024, 1, 29), 2),
    ("Nadia Haddad", "Support", "Chicago", "Y", 55500, dt.date(2019, 2, 11), 4),
    ("Oscar Lind", "Engineering", "Austin", "Y", 109000, dt.date(2020, 3, 30), 4),
    ("Priya Nair", "Marketing", "Boston", "Y", 88000, dt.date(2018, 6, 18), 5),
    ("Quinn Walsh", "Sales", "Chicago", "Y", 76500, dt.date(2023, 9, 25), 3),
    ("Rosa Lopez", "Finance", "Austin", "N", 47000, dt.date(2024, 3, 11), 3),
]

#: 物料编码, 物料名称, 类别, 仓库, 库存数量, 单价, 是否停用, 入库日期
INVENTORY: list[tuple[str, str, str, str, int, str, str, str]] = [
    ("M001", "六角螺栓", "五金", "一号仓", 1200, "0.80", "否", "2024-01-08"),
    ("M002", "平垫圈", "五金", "一号仓", 3400, "0.15", "否", "2024-02-19"),
    ("M003", "不锈钢合页", "五金", "二号仓", 260, "6.50", "是", "2023-11-02"),
    ("M004", "继电器", "电子", "二号仓", 180, "12.40", "否", "2024-03-05"),
    ("M005", "电解电容", "电子", "一号仓", 950, "0.90", "否", "2024-04-22"),
    ("M006", "贴片电阻", "电子", "三号仓", 5200, "0.05", "否", "2024-05-13"),
    ("M007", "液晶屏", "电子", "三号仓", 45, "88.00", "是", "2023-08-30"),
    ("M008", "包装纸箱", "包材", "一号仓", 700, "2.30", "否", "2024-06-03"),
    ("M009", "气泡膜", "包材", "二号仓", 320, "15.00", "否", "2024-06-21"),
    ("M010", "封箱胶带", "包材", "三号仓", 610, "3.60", "是", "2023-12-15"),
    ("M011", "润滑油", "辅料", "二号仓", 75, "42.00", "否", "2024-07-09"),
    ("M012", "清洁布", "辅料", "一号仓", 410, "4.20", "否", "2024-08-01"),
    ("M013", "绝缘手套", "辅料", "三号仓", 130, "18.50", "否", "2024-02-27"),
    ("M014", "电源适配器", "电子", "一号仓", 240, "35.00", "否", "2024-09-10"),
    ("M015", "弹簧垫圈", "五金", "三号仓", 2900, "0.20", "否", "2024-10-18"),
]

#: region, units, revenue (the csv adds a title line above the header and a totals row below)
REGIONAL: list[tuple[str, int, int]] = [
    ("North", 340, 51000),
    ("South", 415, 58100),
    ("East", 290, 46400),
    ("West", 505, 70700),
    ("Central", 220, 30800),
]


def _write_roster(path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Staff"
    ws.append(["Name", "Department", "City", "Full-time", "Salary", "Hire Date", "Rating"])
    for row in ROSTER:
        ws.append(list(row))
    wb.save(path)


def _write_inventory(path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["物料编码", "物料名称", "类别", "仓库", "库存数量", "单价", "是否停用", "入库日期"])
        writer.writerows(INVENTORY)


def _write_regional(path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["Regional sales summary FY2024", "", ""])
        writer.writerow(["Region", "Units Sold", "Revenue (USD)"])
        writer.writerows(REGIONAL)
        writer.writerow(["Total", sum(r[1] for r in REGIONAL), sum(r[2] for r in REGIONAL)])


def write_roster_inventory_kb(root: Path) -> dict[str, Path]:
    """Write the three files under ``root``; their paths by role."""
    root.mkdir(parents=True, exist_ok=True)
    paths = {"roster": root / "staff_roster.xlsx", "inventory": root / "物料库存.csv",
             "regional": root / "regional_sales_fy2024.csv"}
    _write_roster(paths["roster"])
    _write_inventory(paths["inventory"])
    _write_regional(paths["regional"])
    return paths
