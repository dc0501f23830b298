"""A second held-out knowledge base (issue 23), written after the first set had been used to tune and before any
further tuning: other workbooks, other column names, other phrasings. Measured, never tuned on.

Files: an inventory workbook (two sheets), an attendance summary, an English order csv, a project list, review
minutes with an action table, and a short policy text.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

WAREHOUSES = [("一号仓", "苏州", "马骏"), ("二号仓", "武汉", "邓佳"), ("三号仓", "西安", "罗平")]
MATERIALS = ["螺栓M8", "轴承6204", "密封圈", "电机支架", "控制板", "传感器", "线束", "外壳"]
PEOPLE = ["韩梅", "丁磊", "宋佳", "袁野", "谢婷", "唐宁", "范明", "邵华"]
DEPTS = {
    "韩梅": "生产部",
    "丁磊": "生产部",
    "宋佳": "质量部",
    "袁野": "质量部",
    "谢婷": "采购部",
    "唐宁": "采购部",
    "范明": "生产部",
    "邵华": "质量部",
}
STATES = ["CA", "TX", "NY", "WA"]
REPS = ["Olivia", "Liam", "Noah", "Emma", "Ava"]
PRODUCTS = {"Widget": Decimal("19.50"), "Gadget": Decimal("45.00"), "Gizmo": Decimal("120.00")}
STATUS = ["Shipped", "Shipped", "Shipped", "Returned", "Open"]
ACTIONS = [
    ("更新产品规格书", "林峰", dt.date(2024, 9, 10)),
    ("补充可靠性测试用例", "高远", dt.date(2024, 9, 20)),
    ("确认供应商样品交期", "许晴", dt.date(2024, 9, 15)),
    ("输出成本评估报告", "林峰", dt.date(2024, 9, 30)),
]
PROJECTS = [
    ("ERP升级", "周宁", dt.date(2024, 1, 8), 320, "进行中"),
    ("MES上线", "吴迪", dt.date(2023, 10, 16), 450, "已完成"),
    ("仓储自动化", "周宁", dt.date(2024, 3, 1), 780, "进行中"),
    ("OA改造", "郑洁", dt.date(2024, 5, 20), 95, "暂停"),
    ("数据中台", "吴迪", dt.date(2024, 6, 3), 560, "进行中"),
    ("BI报表", "郑洁", dt.date(2023, 12, 11), 120, "已完成"),
]


@dataclass(slots=True)
class World2:
    stock: list[tuple[str, str, str, int, Decimal, dt.date]] = field(default_factory=list)
    attendance: list[tuple[str, str, str, int, Decimal]] = field(default_factory=list)
    orders: list[tuple[str, dt.date, str, str, str, int, Decimal, str]] = field(default_factory=list)


def _stock(path: Path, w: World2) -> None:
    import openpyxl

    rng = random.Random(4101)
    for i in range(240):
        material = rng.choice(MATERIALS)
        w.stock.append(
            (
                f"WL{3000 + i}",
                material,
                rng.choice(WAREHOUSES)[0],
                rng.randint(0, 500),
                Decimal(rng.randint(50, 20_000)) / 100,
                dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 240)),
            )
        )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "库存明细"
    ws.append(["物料编码", "物料名称", "仓库", "库存数量", "单价", "入库日期"])
    for row in w.stock:
        ws.append([row[0], row[1], row[2], row[3], float(row[4]), row[5]])
    ws2 = wb.create_sheet("仓库列表")
    ws2.append(["仓库", "所在城市", "仓库负责人"])
    for row in WAREHOUSES:
        ws2.append(list(row))
    wb.save(path)


def _attendance(path: Path, w: World2) -> None:
    import openpyxl

    rng = random.Random(4102)
    for month in range(1, 7):
        for person in PEOPLE:
            w.attendance.append(
                (person, DEPTS[person], f"2024-{month:02d}", rng.randint(0, 5), Decimal(rng.randint(0, 8)) / 2)
            )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "考勤汇总"
    ws.append(["姓名", "部门", "月份", "迟到次数", "请假天数"])
    for row in w.attendance:
        ws.append([row[0], row[1], row[2], row[3], float(row[4])])
    wb.save(path)


def _orders_csv(path: Path, w: World2) -> None:
    rng = random.Random(4103)
    for i in range(400):
        product = rng.choice(list(PRODUCTS))
        units = rng.randint(1, 40)
        w.orders.append(
            (
                f"US-{7000 + i}",
                dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 270)),
                rng.choice(STATES),
                rng.choice(REPS),
                product,
                units,
                PRODUCTS[product] * units,
                rng.choice(STATUS),
            )
        )
    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["Order No", "Order Date", "State", "Rep", "Product", "Units", "Revenue", "Status"])
        for row in w.orders:
            out.writerow([row[0], row[1].isoformat(), row[2], row[3], row[4], row[5], f"{row[6]:.2f}", row[7]])


def _projects(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "项目清单"
    ws.append(["项目名称", "项目经理", "开始日期", "预算（万元）", "项目状态"])
    for row in PROJECTS:
        ws.append(list(row))
    wb.save(path)


def _minutes(path: Path) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading("新品评审会会议纪要", level=1)
    doc.add_paragraph("时间：2024年9月3日上午；主持：林峰；记录：许晴。")
    doc.add_paragraph("会议评审了新一代控制器的设计方案，同意进入样机阶段，并布置了以下工作：")
    table = doc.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ["事项", "责任人", "完成时间"], strict=True):
        cell.text = text
    for item, owner, due in ACTIONS:
        cells = table.add_row().cells
        cells[0].text, cells[1].text, cells[2].text = item, owner, due.isoformat()
    doc.save(path)


POLICY = (
    "# 加班管理规定\n\n## 第一条 加班审批\n\n加班须提前在系统中提交申请，经部门经理批准后方可进行。\n\n"
    "## 第二条 加班补偿\n\n工作日加班按1.5倍工资支付，休息日加班优先安排调休，法定节假日加班按3倍工资支付。\n"
)


def write_kb2(root: Path) -> World2:
    w = World2()
    writers = {
        "仓库/库存台账.xlsx": lambda p: _stock(p, w),
        "行政/2024年上半年考勤汇总.xlsx": lambda p: _attendance(p, w),
        "sales/us_orders.csv": lambda p: _orders_csv(p, w),
        "项目/项目清单.xlsx": _projects,
        "会议/新品评审会纪要.docx": _minutes,
        "制度/加班管理规定.md": lambda p: p.write_text(POLICY, encoding="utf-8"),
    }
    for name, write in writers.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path)
    return w
