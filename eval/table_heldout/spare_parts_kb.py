"""A third held-out knowledge base (issue 23), written by a helper that had not seen the table code's tuning
cases, before any change to the table path: other workbooks, other column names, other phrasings.

Files: a spare-parts inventory workbook (unique part names, a safety-stock column), an HR roster with a
department sheet, an English travel-expense workbook, an English helpdesk ticket csv, and a .docx with a
milestone table. Sets 3 (``spare_parts_gold``) and 4 (``spare_parts_rephrased_gold``) ask questions over it; set 4
is measured once, at the end.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

PART_BASES = [
    ("接触器", "电气"),
    ("断路器", "电气"),
    ("继电器", "电气"),
    ("变频器", "电气"),
    ("深沟球轴承", "机械"),
    ("同步带", "机械"),
    ("联轴器", "机械"),
    ("液压油缸", "液压"),
    ("电磁换向阀", "液压"),
    ("齿轮泵", "液压"),
]
PART_SPECS = ["A型", "B型", "C型", "D型"]
BAYS = ["A区", "B区", "C区"]

SURNAMES = ["赵", "钱", "孙", "李", "周", "吴", "郑", "王", "冯", "陈", "褚", "卫"]
GIVEN = ["子涵", "浩然", "雨桐", "思远", "欣怡", "俊杰", "梓萱", "宇航"]
DEPARTMENTS = [("技术部", "钱浩然"), ("销售部", "孙雨桐"), ("市场部", "周思远"), ("行政部", "吴欣怡")]
DEGREES = ["本科", "本科", "硕士", "大专", "博士"]
POSTS = {"技术部": "工程师", "销售部": "销售代表", "市场部": "市场专员", "行政部": "行政专员"}

TEAMS = {
    "Ethan": "Sales",
    "Sophia": "Sales",
    "Mason": "Engineering",
    "Isabella": "Engineering",
    "Lucas": "Marketing",
    "Mia": "Marketing",
    "Logan": "Support",
}
CITIES = ["Chicago", "Boston", "Denver", "Seattle", "Austin"]
EXPENSE_TYPES = {
    "Airfare": (250, 900),
    "Hotel": (120, 450),
    "Taxi": (15, 90),
    "Meals": (20, 150),
}

AGENTS = ["Maria", "James", "Chen", "Priya"]
TICKET_CATEGORIES = ["Network", "Printer", "Account", "Email"]
PRIORITIES = ["P1", "P2", "P2", "P3", "P3"]
TICKET_STATES = ["Closed", "Closed", "Closed", "Open", "Pending"]

MILESTONES = [
    ("需求调研完成", "陆明", dt.date(2024, 3, 15), "已完成"),
    ("方案评审通过", "沈琳", dt.date(2024, 4, 10), "已完成"),
    ("开发环境搭建", "陆明", dt.date(2024, 4, 30), "已完成"),
    ("核心模块开发", "韦东", dt.date(2024, 7, 31), "进行中"),
    ("用户验收测试", "沈琳", dt.date(2024, 9, 20), "未开始"),
    ("系统正式上线", "韦东", dt.date(2024, 10, 28), "未开始"),
    ("项目结项总结", "陆明", dt.date(2024, 12, 16), "未开始"),
]


@dataclass(slots=True)
class Part:
    code: str
    name: str
    kind: str
    bay: str
    qty: int
    safety: int
    price: Decimal
    counted: dt.date


@dataclass(slots=True)
class Person:
    number: str
    name: str
    gender: str
    dept: str
    post: str
    joined: dt.date
    degree: str
    salary: int


@dataclass(slots=True)
class Expense:
    report: str
    employee: str
    team: str
    day: dt.date
    city: str
    kind: str
    amount: Decimal
    reimbursed: str


@dataclass(slots=True)
class Ticket:
    ticket: str
    created: dt.date
    priority: str
    category: str
    status: str
    agent: str
    hours: Decimal


@dataclass(slots=True)
class World3:
    parts: list[Part] = field(default_factory=list)
    people: list[Person] = field(default_factory=list)
    expenses: list[Expense] = field(default_factory=list)
    tickets: list[Ticket] = field(default_factory=list)


def _parts(path: Path, w: World3) -> None:
    import openpyxl

    rng = random.Random(5301)
    for i, (base, kind) in enumerate(PART_BASES):
        for spec in rng.sample(PART_SPECS, 3):
            w.parts.append(
                Part(
                    f"BJ-{1001 + len(w.parts)}",
                    f"{base}{spec}",
                    kind,
                    rng.choice(BAYS),
                    rng.randint(0, 120),
                    rng.choice([10, 20, 30]),
                    Decimal(rng.randint(800, 250_000)) / 100 + i,
                    dt.date(2024, 6, 1) + dt.timedelta(days=rng.randint(0, 60)),
                )
            )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "备件库存"
    ws.append(["备件编号", "备件名称", "分类", "存放库位", "现存数量", "安全库存", "单价（元）", "最近盘点日期"])
    for p in w.parts:
        ws.append([p.code, p.name, p.kind, p.bay, p.qty, p.safety, float(p.price), p.counted])
    wb.save(path)


def _roster(path: Path, w: World3) -> None:
    import openpyxl

    rng = random.Random(5302)
    names = [s + g for s in SURNAMES for g in GIVEN]
    rng.shuffle(names)
    managers = {m for _, m in DEPARTMENTS}
    chosen = [n for n in names if n not in managers][:44] + sorted(managers)
    weights = [5, 3, 2, 1]
    for i, name in enumerate(chosen):
        dept = (
            next((d for d, m in DEPARTMENTS if m == name), None) or rng.choices([d for d, _ in DEPARTMENTS], weights)[0]
        )
        w.people.append(
            Person(
                f"E{2401 + i}",
                name,
                rng.choice(["男", "女"]),
                dept,
                "部门经理" if name in managers else POSTS[dept],
                dt.date(2015, 1, 5) + dt.timedelta(days=rng.randint(0, 3400)),
                rng.choice(DEGREES),
                rng.randint(60, 300) * 100,
            )
        )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "花名册"
    ws.append(["工号", "姓名", "性别", "部门", "岗位", "入职日期", "学历", "基本工资"])
    for p in w.people:
        ws.append([p.number, p.name, p.gender, p.dept, p.post, p.joined, p.degree, p.salary])
    ws2 = wb.create_sheet("部门")
    ws2.append(["部门", "部门经理", "编制人数"])
    for (dept, manager), size in zip(DEPARTMENTS, [25, 12, 10, 5], strict=True):
        ws2.append([dept, manager, size])
    wb.save(path)


def _expenses(path: Path, w: World3) -> None:
    import openpyxl

    rng = random.Random(5303)
    for i in range(90):
        employee = rng.choice(list(TEAMS))
        kind = rng.choice(list(EXPENSE_TYPES))
        low, high = EXPENSE_TYPES[kind]
        w.expenses.append(
            Expense(
                f"TR-{5100 + i}",
                employee,
                TEAMS[employee],
                dt.date(2024, 7, 1) + dt.timedelta(days=rng.randint(0, 91)),
                rng.choice(CITIES),
                kind,
                Decimal(rng.randint(low * 100, high * 100)) / 100,
                rng.choice(["Yes", "Yes", "Yes", "No"]),
            )
        )
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Expenses"
    ws.append(["Report No", "Employee", "Team", "Trip Date", "City", "Expense Type", "Amount (USD)", "Reimbursed"])
    for e in w.expenses:
        ws.append([e.report, e.employee, e.team, e.day, e.city, e.kind, float(e.amount), e.reimbursed])
    wb.save(path)


def _tickets(path: Path, w: World3) -> None:
    rng = random.Random(5304)
    for i in range(180):
        w.tickets.append(
            Ticket(
                f"HD-{8800 + i}",
                dt.date(2024, 6, 1) + dt.timedelta(days=rng.randint(0, 121)),
                rng.choice(PRIORITIES),
                rng.choice(TICKET_CATEGORIES),
                rng.choice(TICKET_STATES),
                rng.choice(AGENTS),
                Decimal(rng.randint(1, 96)) / 4,
            )
        )
    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["Ticket", "Created", "Priority", "Category", "Status", "Agent", "Hours Spent"])
        for t in w.tickets:
            out.writerow([t.ticket, t.created.isoformat(), t.priority, t.category, t.status, t.agent, str(t.hours)])


def _milestones(path: Path) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading("数字化转型项目里程碑计划", level=1)
    doc.add_paragraph("本计划由项目管理办公室于2024年3月编制，各里程碑负责人按计划日期推进并每周汇报进展。")
    table = doc.add_table(rows=1, cols=5)
    for cell, text in zip(table.rows[0].cells, ["序号", "里程碑", "负责人", "计划完成日期", "状态"], strict=True):
        cell.text = text
    for n, (name, owner, due, state) in enumerate(MILESTONES, start=1):
        cells = table.add_row().cells
        cells[0].text, cells[1].text, cells[2].text = str(n), name, owner
        cells[3].text, cells[4].text = due.isoformat(), state
    doc.add_paragraph("如里程碑延期超过两周，负责人须提交书面说明。")
    doc.save(path)


def write_kb3(root: Path) -> World3:
    w = World3()
    writers = {
        "设备/备件库存表.xlsx": lambda p: _parts(p, w),
        "人事/员工花名册2024.xlsx": lambda p: _roster(p, w),
        "finance/travel_expenses_2024Q3.xlsx": lambda p: _expenses(p, w),
        "it/helpdesk_tickets.csv": lambda p: _tickets(p, w),
        "项目/数字化项目里程碑计划.docx": _milestones,
    }
    for name, write in writers.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path)
    return w
