"""A fifth held-out knowledge base (issue 23), written before the third table helper changed the table path.

Four files of different shapes, none seen by the table code's tuning: a warehouse inventory workbook whose sheet
opens with a title row above the header, an HR roster workbook with a performance score, a project budget table
in a .docx (budget and actual side by side, so columns can be compared), and an English sales csv that Chinese
questions are also asked over. The gold (``warehouse_budget_gold``) is computed from the written files with pandas,
not from these lists, so a slip in the writer shows up as a disagreement rather than a matching mistake.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from pathlib import Path

MATERIALS = [
    ("贴片电阻", "电子"),
    ("电解电容", "电子"),
    ("晶振", "电子"),
    ("继电器模块", "电子"),
    ("六角螺栓", "紧固件"),
    ("弹簧垫圈", "紧固件"),
    ("膨胀螺丝", "紧固件"),
    ("纸箱", "包材"),
    ("气泡膜", "包材"),
    ("封箱胶带", "包材"),
]
SIZES = ["小号", "中号", "大号"]
WAREHOUSES = ["一号仓", "二号仓", "三号仓"]

SURNAMES = ["王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周"]
GIVEN = ["建国", "晓梅", "志强", "婷婷", "文杰", "丽娜", "海涛", "静怡"]
DEPARTMENTS = ["研发部", "财务部", "销售部", "人事部"]
GRADES = ["P4", "P5", "P6", "P7"]
CITIES = ["北京", "上海", "深圳"]

PROJECTS = [
    ("数据中台建设", "张伟", 120.0, 135.5, "已完成"),
    ("ERP升级", "李娜", 80.0, 72.3, "已完成"),
    ("客服系统改造", "张伟", 45.0, 51.2, "进行中"),
    ("办公网络扩容", "王强", 30.0, 28.8, "已完成"),
    ("移动端App开发", "李娜", 95.0, 60.4, "进行中"),
    ("安全等保测评", "王强", 25.0, 25.0, "已完成"),
    ("智能仓储试点", "赵敏", 150.0, 163.7, "进行中"),
    ("财务共享中心", "赵敏", 60.0, 0.0, "未启动"),
]

REGIONS = ["East", "West", "North", "South"]
REPS = ["Alice", "Brian", "Carmen", "David", "Emily"]
PRODUCTS = {"Widget A": 19.5, "Widget B": 34.0, "Gadget Pro": 129.0, "Cable Kit": 8.75}
STATUSES = ["Completed", "Completed", "Completed", "Completed", "Cancelled"]


def _inventory(path: Path, rng: random.Random) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "库存明细"
    ws.append(["2025年一季度仓库库存表"])
    ws.append(["物料编码", "物料名称", "类别", "仓库", "库存数量", "最低库存", "单价", "入库日期"])
    n = 0
    for base, kind in MATERIALS:
        for size in SIZES:
            n += 1
            qty = rng.randint(5, 400)
            floor = rng.choice([20, 50, 50, 100])
            price = round(rng.uniform(0.05, 60.0) + n / 1000, 3)
            day = dt.date(2025, 1, 1) + dt.timedelta(days=rng.randint(0, 89))
            ws.append([f"M{1000 + n}", f"{size}{base}", kind, rng.choice(WAREHOUSES), qty, floor, price, day])
    ws2 = wb.create_sheet("供应商")
    ws2.append(["供应商", "联系人", "电话"])
    for name, who, phone in [("华丰电子", "孙立", "021-5550101"), ("坚固五金", "钱多", "021-5550102")]:
        ws2.append([name, who, phone])
    wb.save(path)


def _roster(path: Path, rng: random.Random) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "员工名单"
    ws.append(["员工编号", "姓名", "部门", "职级", "入职时间", "月薪", "绩效评分", "工作城市"])
    names = [s + g for s in SURNAMES for g in GIVEN]
    rng.shuffle(names)
    for i, name in enumerate(names[:36]):
        dept = DEPARTMENTS[i % 4] if i < 28 else "研发部"
        grade = rng.choice(GRADES)
        salary = 9000 + 2500 * GRADES.index(grade) + rng.randint(0, 60) * 50 + i
        joined = dt.date(2016, 1, 1) + dt.timedelta(days=rng.randint(0, 3200))
        ws.append([f"HR{2001 + i}", name, dept, grade, joined, salary, rng.randint(1, 5), rng.choice(CITIES)])
    wb.save(path)


def _budget(path: Path) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading("2025年信息化项目预算执行情况", level=1)
    doc.add_paragraph("下表列出各项目的预算与实际支出（单位：万元），数据截至2025年6月30日。")
    table = doc.add_table(rows=1, cols=5)
    for cell, text in zip(table.rows[0].cells, ["项目名称", "负责人", "预算金额", "实际金额", "状态"], strict=True):
        cell.text = text
    for name, owner, budget, actual, state in PROJECTS:
        row = table.add_row().cells
        for cell, value in zip(row, [name, owner, f"{budget:.1f}", f"{actual:.1f}", state], strict=True):
            cell.text = value
    doc.add_paragraph("超支项目需在下月例会上说明原因。")
    doc.save(path)


def _sales(path: Path, rng: random.Random) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["Order ID", "Order Date", "Region", "Sales Rep", "Product", "Units", "Revenue", "Status"])
        for i in range(60):
            product = rng.choice(list(PRODUCTS))
            units = rng.randint(1, 48)
            day = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 180))
            revenue = round(units * PRODUCTS[product], 2)
            row = [f"SO-{5001 + i}", day.isoformat(), rng.choice(REGIONS), rng.choice(REPS), product, units,
                   f"{revenue:.2f}", rng.choice(STATUSES)]
            out.writerow(row)


FILES = {
    "inventory": "仓库库存表2025.xlsx",
    "roster": "人员名册.xlsx",
    "budget": "项目预算执行情况.docx",
    "sales": "sales_2024H1.csv",
}


def write_kb5(root: Path) -> dict[str, Path]:
    """Write the four files under ``root`` (same seed, same bytes of data every time) and return their paths."""
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(5005)
    paths = {key: root / name for key, name in FILES.items()}
    _inventory(paths["inventory"], rng)
    _roster(paths["roster"], rng)
    _budget(paths["budget"])
    _sales(paths["sales"], rng)
    return paths
